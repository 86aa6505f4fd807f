/* search: rulebot with a one-step lookahead over determinized rollouts
 * (see search.h). */
#include "play/policies/search.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "hand/shanten.h"
#include "nn/grp.h"
#include "nn/rng.h"
#include "play/policies/policies.h"
#include "play/reward.h"

/* A candidate must beat rulebot's choice by this many standard errors of
 * the paired difference: with several candidates, a smaller margin lets
 * the luck of one candidate's rollouts pick a worse move too often. */
#define SWITCH_Z 2.0

typedef hy_search_rollouts search;

/* ------------------------------------------------------------ rollouts */

/* Applies legal index idx of seat s, keeping the riichi-safe kinds as the
 * tracker would (a discard is safe against every seat already in riichi,
 * the declarer's own declaration tile included). */
static int apply(hy_deal *x, hy_obs_track *trk, int s, int idx)
{
	hy_action a;
	if (hy_engine_action_of(&x->e, s, idx, &a) != HY_OK ||
	    hy_engine_apply(&x->e, s, &a, NULL) != HY_OK)
		return -1;
	if (a.type == HY_ACT_DISCARD) {
		int k = hy_tile_kind(a.tile);
		for (int q = 0; q < 4; q++)
			if (x->e.p[q].riichi && k >= 0)
				trk->riichi_safe[q] |= 1ull << k;
	}
	return 0;
}

int hy_search_rule_choice(hy_search_rollouts *R, const hy_engine *e, const hy_obs_track *trk,
			  int s)
{
	hy_decision q;
	memset(&q, 0, sizeof q);
	q.e = e;
	q.track = trk;
	q.seat = s;
	q.legal = hy_engine_legal_mask(e, s);
	hy_choice c;
	c.index = -1;
	if (!q.legal || R->base.ops->decide(&R->base, 1, &q, &c, NULL) != HY_OK)
		return -1;
	return c.index;
}

/* The seat's expected placement points after the kyoku. */
static double value_after(const hy_search_rollouts *R, const hy_engine *e, int seat)
{
	if (e->phase == HY_PH_GAME_END)
		return hy_reward_pts[e->rank[seat]];
	hy_grp_state g;
	memcpy(g.scores, e->scores, sizeof g.scores);
	g.grand_kyoku = (uint8_t)(e->bakaze * 4 + e->kyoku);
	g.honba = e->honba;
	g.kyotaku = e->kyotaku;
	g.oya = e->oya;
	double ev[4];
	hy_grp_expected(&R->grp, &g, hy_reward_pts, ev);
	return ev[seat];
}

int hy_search_request_choice(hy_search_rollouts *R, const hy_decision *r, hy_obs_track *trk)
{
	if (r->track)
		*trk = *r->track;
	else
		memset(trk, 0, sizeof *trk);
	return hy_search_rule_choice(R, r->e, trk, r->seat);
}

double hy_search_rollout(hy_search_rollouts *R, const hy_deal *D,
			 const hy_obs_track *trk0, int seat, int idx)
{
	hy_deal x = *D;
	hy_obs_track trk = *trk0;
	if (apply(&x, &trk, seat, idx) < 0)
		return NAN;
	for (int steps = 0; steps < 4096; steps++) {
		hy_engine *e = &x.e;
		switch (e->phase) {
		case HY_PH_DRAW: {
			int t;
			if (e->draw_rinshan)
				t = x.rinshan_next < x.nrinshan ? x.rinshan[x.rinshan_next++] : -1;
			else
				t = x.live_next < x.nlive ? x.live[x.live_next++] : -1;
			if (t < 0 || hy_engine_draw(e, t, NULL) != HY_OK)
				return NAN;
			break;
		}
		case HY_PH_KYOKU_END:
			hy_engine_next_kyoku(e);
			return value_after(R, e, seat);
		case HY_PH_NEW_KYOKU:
		case HY_PH_GAME_END:
			return value_after(R, e, seat);
		default: {
			unsigned who = hy_engine_deciders(e);
			if (!who)
				return NAN;
			int s = __builtin_ctz(who);
			int c = hy_search_rule_choice(R, e, &trk, s);
			if (c < 0 || apply(&x, &trk, s, c) < 0)
				return NAN;
		}
		}
	}
	return NAN;
}

/* The candidates of a turn: rulebot's choice, every discard that keeps
 * the best shanten, riichi, a kan and kyuushu when legal. A red five is
 * left out when its plain copy is legal (rulebot keeps the red one).
 * Discards that give up shape are not searched: the few rollouts a
 * decision can afford would pick one of them by luck too often. */
static int candidates(const hy_engine *e, int seat, uint64_t legal, int base, int *out)
{
	const hy_player *p = &e->p[seat];
	int8_t sh[34];
	int best = hy_shanten_discards(p->cnt, p->nmelds, sh);
	int n = 0;
	for (uint64_t m = legal; m; m &= m - 1) {
		int i = __builtin_ctzll(m);
		if (i == HY_A_PASS)
			continue;
		if (i <= HY_TILE_5SR && i != base) {
			if (i >= HY_TILE_5MR && (legal >> hy_tile_kind(i) & 1))
				continue;
			if (sh[hy_tile_kind(i)] != best)
				continue;
		}
		out[n++] = i;
	}
	return n;
}

/* The turns a lookahead can tell apart with the rollouts it has: an
 * opponent threatens (riichi, or two open melds), or the seat's own hand
 * is one step from tenpai or closer (riichi or dama, which wait, push or
 * fold). Early shape choices are rulebot's: their differences are far
 * below the noise of a few dozen kyoku outcomes. */
static int worth_searching(const hy_engine *e, int seat)
{
	const hy_player *me = &e->p[seat];
	if (hy_shanten(me->cnt, me->nmelds) <= 1)
		return 1;
	for (int s = 0; s < 4; s++) {
		if (s == seat)
			continue;
		int open = 0;
		for (int m = 0; m < e->p[s].nmelds; m++)
			open += hy_meld_is_open(&e->p[s].melds[m]);
		if (e->p[s].riichi || open >= 2)
			return 1;
	}
	return 0;
}

static int search_one(search *S, const hy_decision *r, float *value)
{
	const hy_engine *e = r->e;
	hy_obs_track trk;
	int base = hy_search_request_choice(S, r, &trk);
	*value = 0;
	if (base < 0 || (e->phase != HY_PH_TURN && e->phase != HY_PH_RIICHI) ||
	    (r->legal >> HY_A_WIN & 1))
		return base;
	if (!worth_searching(e, r->seat))
		return base;
	int cand[HY_A_COUNT];
	int nc = candidates(e, r->seat, r->legal, base, cand), b = -1;
	for (int c = 0; c < nc; c++)
		if (cand[c] == base)
			b = c;
	if (nc < 2 || b < 0)
		return base;
	hy_belief_out bo, *bel = NULL;
	if (S->belief) {
		/* a belief that fails keeps rulebot's choice, as a deal that
		 * fails does */
		hy_diag bd = {0};
		if (hy_belief_predict(S->belief, e, &trk, r->seat, &bo, &bd) != HY_OK)
			return base;
		bel = &bo;
	}
	int K = S->k;
	double *v = malloc(sizeof *v * (size_t)nc * (size_t)K);
	if (!v)
		return base;
	hy_deal *D = malloc(sizeof *D);
	if (!D) {
		free(v);
		return base;
	}
	int pick = base;
	for (int j = 0; j < K; j++) {
		/* deal j: the same for every candidate (common random numbers) */
		uint64_t seed = hy_policy_key(r->key, 0x5ea7c4, (uint64_t)j, r->seat);
		int dealt = S->oracle
				? hy_deal_oracle(e, r->seat, trk.riichi_safe, S->oracle, seed, D)
				: hy_deal_determinize(e, r->seat, trk.riichi_safe, bel, seed, D);
		if (dealt < 0)
			goto done;
		for (int c = 0; c < nc; c++) {
			v[c * K + j] = hy_search_rollout(S, D, &trk, r->seat, cand[c]);
			if (isnan(v[c * K + j]))
				goto done;
		}
	}
	double best = 0, mb = 0;
	for (int j = 0; j < K; j++)
		mb += v[b * K + j];
	mb /= K;
	*value = (float)mb;
	for (int c = 0; c < nc; c++) {
		if (c == b)
			continue;
		double s = 0, s2 = 0;
		for (int j = 0; j < K; j++) {
			double dlt = v[c * K + j] - v[b * K + j];
			s += dlt;
			s2 += dlt * dlt;
		}
		double mean = s / K;
		double var = K > 1 ? (s2 - s * mean) / (K - 1) : 0;
		double se = sqrt(var > 0 ? var / K : 0);
		if (mean > SWITCH_Z * se && mean > best) {
			best = mean;
			pick = cand[c];
			*value = (float)(mb + mean);
		}
	}
done:
	free(D);
	free(v);
	return pick;
}

static hy_status search_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			       hy_diag *d)
{
	search *S = p->impl;
	for (size_t i = 0; i < n; i++) {
		float v;
		out[i].index = search_one(S, &req[i], &v);
		out[i].logp = 0.0f;
		out[i].value = v;
		if (out[i].index < 0)
			return hy_diag_set(d, HY_EDATA, 0, "search: no rule choice for seat %d",
					   req[i].seat);
	}
	return HY_OK;
}

hy_status hy_search_open_policy(hy_policy *p, const char *kind, const char *arg, int k0,
				const hy_policy_ops *ops, hy_diag *d)
{
	/* "GRP.h5[,K]"; for search also a DEAL in either place after the
	 * GRP (a part that is not a number): an oracle's name, else a belief
	 * checkpoint */
	char buf[3 * 4096], *part[4];
	int nparts = 0, k = k0, oracle = 0;
	const char *belief = NULL;
	if (strlen(arg) >= sizeof buf)
		return hy_diag_set(d, HY_EUSAGE, 0, "policy '%s:%s': argument too long", kind, arg);
	strcpy(buf, arg);
	/* up to 4 parts: a fourth (which keeps any further commas) is one too many */
	for (char *t = buf, *c; nparts < 4; t = c + 1) {
		part[nparts++] = t;
		if (!(c = strchr(t, ',')))
			break;
		*c = '\0';
	}
	int belief_ok = strcmp(kind, "search") == 0;
	if (nparts > (belief_ok ? 3 : 2) || part[0][0] == '\0')
		return hy_diag_set(d, HY_EUSAGE, 0, "policy '%s:%s': want %s:GRP.h5[,K]%s", kind,
				   arg, kind,
				   belief_ok ? "[,MODEL.h5|oracle|oracle-tenpai|oracle-who]" : "");
	int have_k = 0;
	for (int i = 1; i < nparts; i++) {
		char *end;
		errno = 0;
		long x = strtol(part[i], &end, 10);
		int numeric = part[i][0] >= '0' && part[i][0] <= '9' && !*end;
		if (numeric && !have_k) {
			if (errno || x < 2 || x > HY_SEARCH_MAX_ROLLOUTS)
				return hy_diag_set(d, HY_EUSAGE, 0,
						   "policy '%s:%s': rollouts '%s' is not an "
						   "integer in 2..%d",
						   kind, arg, part[i], HY_SEARCH_MAX_ROLLOUTS);
			k = (int)x;
			have_k = 1;
		} else if (!numeric && belief_ok && !belief && !oracle && part[i][0]) {
			if (strcmp(part[i], "oracle") == 0)
				oracle = HY_DEAL_KEEP_ALL;
			else if (strcmp(part[i], "oracle-tenpai") == 0)
				oracle = HY_DEAL_KEEP_TENPAI;
			else if (strcmp(part[i], "oracle-who") == 0)
				oracle = HY_DEAL_KNOW_TENPAI;
			else
				belief = part[i];
		} else {
			return hy_diag_set(d, HY_EUSAGE, 0,
					   "policy '%s:%s': '%s' is not %s", kind, arg, part[i],
					   belief_ok ? "a rollout count in 2..256, a checkpoint, "
						       "oracle, oracle-tenpai or oracle-who"
						     : "a rollout count in 2..256");
		}
	}
	hy_search_rollouts *R = calloc(1, sizeof *R);
	if (!R)
		return hy_diag_set(d, HY_ENOMEM, 0, "%s: out of memory", kind);
	hy_status st = hy_grp_load(part[0], &R->grp, d);
	if (st == HY_OK && (st = hy_policy_open_rulebot(&R->base, NULL, NULL, d)) != HY_OK)
		hy_grp_free(&R->grp);
	if (st == HY_OK && belief && (st = hy_belief_open(&R->belief, belief, d)) != HY_OK) {
		hy_grp_free(&R->grp);
		hy_policy_close(&R->base);
	}
	if (st != HY_OK) {
		free(R);
		return st;
	}
	R->k = k;
	R->oracle = oracle;
	p->oracle = oracle != 0;
	p->ops = ops;
	p->impl = R;
	p->stochastic = 1; /* the rollouts' deals come from the key */
	p->has_value = 1;
	p->concurrent = 1;
	return HY_OK;
}

void hy_search_free_policy(hy_policy *p)
{
	hy_search_rollouts *R = p->impl;
	if (R) {
		hy_grp_free(&R->grp);
		hy_policy_close(&R->base);
		hy_belief_close(R->belief);
		free(R);
	}
}

static const hy_policy_ops search_ops = {search_decide, NULL, hy_search_free_policy, NULL};

hy_status hy_policy_open_search(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d)
{
	(void)o;
	return hy_search_open_policy(p, "search", arg, HY_SEARCH_ROLLOUTS, &search_ops, d);
}
