/* qlabel: rollout advantages from the true state (see qlabel.h). */
#include "play/policies/qlabel.h"

#include <math.h>
#include <stdlib.h>

#include "play/policies/search.h"

typedef hy_search_rollouts qlabel;

/* The advantage of the taken action over rulebot's choice (NAN: none);
 * *idx the taken action (rulebot's choice when none was given). */
static double label_one(qlabel *Q, const hy_decision *r, int *idx)
{
	const hy_engine *e = r->e;
	hy_obs_track trk;
	int b = hy_search_request_choice(Q, r, &trk);
	int a = r->taken - 1;
	*idx = a >= 0 && a < HY_A_COUNT && (r->legal >> a & 1) ? a : b;
	if (b < 0 || *idx == b || (r->legal >> HY_A_WIN & 1) ||
	    (e->phase != HY_PH_TURN && e->phase != HY_PH_RIICHI && e->phase != HY_PH_CALL))
		return NAN;
	hy_deal *D = malloc(sizeof *D);
	if (!D)
		return NAN;
	double sum = 0;
	for (int j = 0; j < Q->k; j++) {
		uint64_t seed = hy_policy_key(r->key, 0x0a7c1e, (uint64_t)j, r->seat);
		if (hy_deal_redeal(e, seed, D) < 0) {
			sum = NAN;
			break;
		}
		double qa = hy_search_rollout(Q, D, &trk, r->seat, a);
		double qb = hy_search_rollout(Q, D, &trk, r->seat, b);
		sum += qa - qb; /* NAN stays NAN */
	}
	free(D);
	return sum / Q->k;
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

static const hy_policy_ops qlabel_ops = {qlabel_decide, NULL, hy_search_free_policy, NULL};

hy_status hy_policy_open_qlabel(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d)
{
	(void)o;
	hy_status st = hy_search_open_policy(p, "qlabel", arg, HY_QLABEL_ROLLOUTS, &qlabel_ops, d);
	if (st == HY_OK) {
		p->oracle = 1;
		p->advantage = 1;
	}
	return st;
}
