/* qlabel: rollout advantages from the true state (see qlabel.h). */
#include "play/qlabel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "play/search.h"

typedef struct qlabel {
	hy_search_rollouts ro;
	int k; /* rollouts per action */
} qlabel;

int hy_qlabel_candidates(uint64_t legal, int b, int *out)
{
	int n = 0;
	for (uint64_t m = legal; m; m &= m - 1) {
		int i = __builtin_ctzll(m);
		if (i >= HY_TILE_5MR && i <= HY_TILE_5SR && i != b &&
		    (legal >> hy_tile_kind(i) & 1))
			continue;
		out[n++] = i;
	}
	return n;
}

/* The label of one request: index into *idx, advantage returned (NAN: none). */
static double label_one(qlabel *Q, const hy_decision *r, int *idx)
{
	const hy_engine *e = r->e;
	hy_obs_track trk;
	if (r->track)
		trk = *r->track;
	else
		memset(&trk, 0, sizeof trk);
	int b = hy_search_rule_choice(&Q->ro, e, &trk, r->seat);
	*idx = b;
	if (b < 0 || (r->legal >> HY_A_WIN & 1) ||
	    (e->phase != HY_PH_TURN && e->phase != HY_PH_RIICHI && e->phase != HY_PH_CALL))
		return NAN;
	int cand[HY_A_COUNT], alt[HY_A_COUNT], na = 0;
	int nc = hy_qlabel_candidates(r->legal, b, cand);
	for (int c = 0; c < nc; c++)
		if (cand[c] != b)
			alt[na++] = cand[c];
	if (na < 1 || na != nc - 1)
		return NAN;
	int a = alt[(int)(hy_policy_uniform(r->key, 0x91abe1) * na)];
	hy_search_deal *D = malloc(sizeof *D);
	if (!D)
		return NAN;
	double sum = 0;
	for (int j = 0; j < Q->k; j++) {
		uint64_t seed = hy_policy_key(r->key, 0x0a7c1e, (uint64_t)j, r->seat);
		if (hy_search_redeal(e, seed, D) < 0) {
			sum = NAN;
			break;
		}
		double qa = hy_search_rollout(&Q->ro, D, &trk, r->seat, a);
		double qb = hy_search_rollout(&Q->ro, D, &trk, r->seat, b);
		sum += qa - qb; /* NAN stays NAN */
	}
	free(D);
	if (isnan(sum))
		return NAN;
	*idx = a;
	return (double)na * sum / Q->k;
}

static hy_status qlabel_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			       hy_diag *d)
{
	qlabel *Q = p->impl;
	for (size_t i = 0; i < n; i++) {
		int idx;
		double v = label_one(Q, &req[i], &idx);
		if (idx < 0)
			return hy_diag_set(d, HY_EDATA, 0, "qlabel: no rule choice for seat %d",
					   req[i].seat);
		out[i].index = idx;
		out[i].logp = 0.0f;
		out[i].value = (float)v;
	}
	return HY_OK;
}

static void qlabel_free(hy_policy *p)
{
	qlabel *Q = p->impl;
	if (Q) {
		hy_search_rollouts_close(&Q->ro);
		free(Q);
	}
}

static const hy_policy_ops qlabel_ops = {qlabel_decide, NULL, qlabel_free};

hy_status hy_policy_open_qlabel(hy_policy *p, const char *arg, hy_diag *d)
{
	char path[4096];
	int k = HY_QLABEL_ROLLOUTS;
	hy_status st = hy_search_parse_spec("qlabel", arg, path, sizeof path, &k, d);
	if (st != HY_OK)
		return st;
	qlabel *Q = calloc(1, sizeof *Q);
	if (!Q)
		return hy_diag_set(d, HY_ENOMEM, 0, "qlabel: out of memory");
	if ((st = hy_search_rollouts_open(&Q->ro, path, d)) != HY_OK) {
		free(Q);
		return st;
	}
	Q->k = k;
	p->ops = &qlabel_ops;
	p->impl = Q;
	p->stochastic = 1;
	p->has_value = 1;
	p->concurrent = 1;
	p->oracle = 1;
	return HY_OK;
}
