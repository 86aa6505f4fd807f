/* search: rulebot with a one-step lookahead over determinized rollouts
 * (see search.h). */
#include "play/search.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "hand/shanten.h"
#include "nn/grp.h"
#include "nn/rng.h"
#include "play/builtin.h"
#include "play/reward.h"

/* A candidate must beat rulebot's choice by this many standard errors of
 * the paired difference: with several candidates, a smaller margin lets
 * the luck of one candidate's rollouts pick a worse move too often. */
#define SWITCH_Z 2.0

typedef hy_search_rollouts search;

/* The deals draw from nn/rng.h's generator, seeded by the decision's key
 * and the deal's number. */
typedef hy_rng rng;

static int rng_below(rng *r, int n)
{
	return (int)hy_rng_below(r, (uint64_t)n);
}

/* ------------------------------------------------------------ the unseen tiles */

/* Per tile code (0–36): copies the seat cannot see (every seat's, when
 * seat is −1: the tiles no hand holds). −1 when some code is seen more
 * than four times (an inconsistent state). */
static int unseen(const hy_engine *e, int seat, uint8_t out[HY_TILE_UNKNOWN])
{
	int c[HY_TILE_UNKNOWN];
	for (int k = 0; k < HY_TILE_KINDS; k++)
		c[k] = hy_tile_red_of(k) >= 0 ? 3 : 4;
	for (int r = HY_TILE_5MR; r <= HY_TILE_5SR; r++)
		c[r] = 1;
	for (int s = 0; s < 4; s++) {
		if (seat >= 0 && s != seat)
			continue;
		const hy_player *me = &e->p[s];
		for (int k = 0; k < HY_TILE_KINDS; k++) {
			int red = hy_tile_red_of(k);
			int nred = red >= 0 ? me->red[red - HY_TILE_5MR] : 0;
			c[k] -= me->cnt[k] - nred;
			if (red >= 0)
				c[red] -= nred;
		}
	}
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED) && p->river[i] < HY_TILE_UNKNOWN)
				c[p->river[i]]--;
		for (int m = 0; m < p->nmelds; m++)
			for (int j = 0; j < p->melds[m].ntiles; j++)
				if (p->melds[m].tiles[j] < HY_TILE_UNKNOWN)
					c[p->melds[m].tiles[j]]--;
	}
	for (int i = 0; i < e->ndora && i < 5; i++)
		if (e->dora_ind[i] < HY_TILE_UNKNOWN)
			c[e->dora_ind[i]]--;
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		if (c[t] < 0)
			return -1;
		out[t] = (uint8_t)c[t];
	}
	return 0;
}

/* Copies of kind k left in the pool, its red five included. */
static int kinds_left(const uint8_t pool[HY_TILE_UNKNOWN], int k)
{
	int red = hy_tile_red_of(k);
	return pool[k] + (red >= 0 ? pool[red] : 0);
}

/* Takes one tile of kind k from the pool (a red five with its share of
 * the copies); −1 when none is left. */
static int take_kind(uint8_t pool[HY_TILE_UNKNOWN], int k, rng *r)
{
	int n = kinds_left(pool, k), red = hy_tile_red_of(k);
	if (n == 0)
		return -1;
	int t = (red >= 0 && rng_below(r, n) < pool[red]) ? red : k;
	pool[t]--;
	return t;
}

/* A tenpai hand of n = 3g + 1 tiles (g groups and a pair, less one tile)
 * from the pool, its waits clear of `forbid`; the tiles go to out and are
 * taken from the pool. 0 on success, −1 when 64 tries found none (the pool
 * is then unchanged). */
static int tenpai_hand(uint8_t pool[HY_TILE_UNKNOWN], int n, int nmelds, uint64_t forbid,
		       rng *r, uint8_t *out)
{
	int groups = (n - 1) / 3;
	for (int attempt = 0; attempt < 64; attempt++) {
		uint8_t tmp[HY_TILE_UNKNOWN], tiles[14];
		memcpy(tmp, pool, sizeof tmp);
		int nt = 0, ok = 1;
		for (int g = 0; g < groups && ok; g++) {
			int made = 0;
			for (int tries = 0; tries < 24 && !made; tries++) {
				if (rng_below(r, 4) < 3) { /* a run */
					int k0 = 9 * rng_below(r, 3) + rng_below(r, 7);
					if (kinds_left(tmp, k0) && kinds_left(tmp, k0 + 1) &&
					    kinds_left(tmp, k0 + 2)) {
						for (int j = 0; j < 3; j++)
							tiles[nt++] = (uint8_t)take_kind(tmp, k0 + j, r);
						made = 1;
					}
				} else {
					int k = rng_below(r, HY_TILE_KINDS);
					if (kinds_left(tmp, k) >= 3) {
						for (int j = 0; j < 3; j++)
							tiles[nt++] = (uint8_t)take_kind(tmp, k, r);
						made = 1;
					}
				}
			}
			ok = made;
		}
		if (!ok)
			continue;
		int paired = 0;
		for (int tries = 0; tries < 24 && !paired; tries++) {
			int k = rng_below(r, HY_TILE_KINDS);
			if (kinds_left(tmp, k) >= 2) {
				tiles[nt++] = (uint8_t)take_kind(tmp, k, r);
				tiles[nt++] = (uint8_t)take_kind(tmp, k, r);
				paired = 1;
			}
		}
		if (!paired)
			continue;
		int drop = rng_below(r, nt);
		tmp[tiles[drop]]++;
		tiles[drop] = tiles[--nt];
		uint8_t cnt[HY_TILE_KINDS] = {0};
		for (int i = 0; i < nt; i++)
			cnt[hy_tile_kind(tiles[i])]++;
		uint64_t w = hy_hand_waits(cnt, nmelds);
		if (!w || (w & forbid))
			continue;
		memcpy(pool, tmp, sizeof tmp);
		memcpy(out, tiles, (size_t)nt);
		return 0;
	}
	return -1;
}

/* Draws one tile from the pool uniformly over the copies left. */
static int take_any(uint8_t pool[HY_TILE_UNKNOWN], int *left, rng *r)
{
	int x = rng_below(r, *left);
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		if (x < pool[t]) {
			pool[t]--;
			(*left)--;
			return t;
		}
		x -= pool[t];
	}
	return -1;
}

static void set_hand(hy_player *p, const uint8_t *tiles, int n)
{
	memset(p->cnt, 0, sizeof p->cnt);
	memset(p->red, 0, sizeof p->red);
	p->have = 0;
	p->nconc = 0;
	for (int i = 0; i < n; i++)
		hy_player_add(p, tiles[i]);
	p->waits = hy_shanten(p->cnt, p->nmelds) == 0 ? hy_hand_waits(p->cnt, p->nmelds) : 0;
	p->temp_furiten = 0;
	p->riichi_furiten = 0;
}

/* The deal of hy_search_determinize (seat ≥ 0) and of hy_search_redeal
 * (seat −1: every hand kept, only the wall's hidden tiles redealt). */
static int deal(const hy_engine *e, int seat, const uint64_t safe[4], uint64_t seed,
		hy_search_deal *out)
{
	uint8_t pool[HY_TILE_UNKNOWN];
	if (unseen(e, seat, pool) < 0)
		return -1;
	int left = 0;
	for (int t = 0; t < HY_TILE_UNKNOWN; t++)
		left += pool[t];
	int nrin = 4 - e->nkans;
	int nind = 5 - e->ndora;
	if (nrin < 0 || nind < 0)
		return -1;
	int need = e->live_left + nrin + nind + 5;
	for (int s = 0; s < 4; s++)
		if (seat >= 0 && s != seat)
			need += e->p[s].nconc;
	if (need != left)
		return -1;
	rng r;
	hy_rng_seed(&r, seed);
	out->e = *e;
	out->e.log = NULL;
	/* riichi hands first: they need the tiles of a tenpai shape */
	for (int pass = 0; pass < 2 && seat >= 0; pass++) {
		for (int s = 0; s < 4; s++) {
			hy_player *p = &out->e.p[s];
			if (s == seat || (pass == 0) != (p->riichi != 0))
				continue;
			uint8_t tiles[14];
			int n = p->nconc;
			if (n > 14)
				return -1;
			uint64_t forbid = p->discarded | (safe ? safe[s] : 0);
			if (pass == 0 && tenpai_hand(pool, n, p->nmelds, forbid, &r, tiles) == 0) {
				left -= n;
			} else {
				for (int i = 0; i < n; i++)
					tiles[i] = (uint8_t)take_any(pool, &left, &r);
			}
			set_hand(p, tiles, n);
		}
	}
	out->nlive = e->live_left;
	for (int i = 0; i < out->nlive; i++)
		out->live[i] = (uint8_t)take_any(pool, &left, &r);
	out->nrinshan = (uint8_t)nrin;
	for (int i = 0; i < nrin; i++)
		out->rinshan[i] = (uint8_t)take_any(pool, &left, &r);
	for (int i = e->ndora; i < 5; i++)
		out->e.dora_ind[i] = (uint8_t)take_any(pool, &left, &r);
	out->e.nind_known = 5;
	uint8_t ura[5];
	for (int i = 0; i < 5; i++)
		ura[i] = (uint8_t)take_any(pool, &left, &r);
	hy_engine_set_ura(&out->e, ura, 5);
	out->live_next = out->rinshan_next = 0;
	return left == 0 ? 0 : -1;
}

int hy_search_determinize(const hy_engine *e, int seat, const uint64_t safe[4], uint64_t seed,
			  hy_search_deal *out)
{
	return seat >= 0 && seat < 4 ? deal(e, seat, safe, seed, out) : -1;
}

int hy_search_redeal(const hy_engine *e, uint64_t seed, hy_search_deal *out)
{
	return deal(e, -1, NULL, seed, out);
}

/* ------------------------------------------------------------ rollouts */

/* Applies legal index idx of seat s, keeping the riichi-safe kinds as the
 * tracker would (a discard is safe against every seat already in riichi,
 * the declarer's own declaration tile included). */
static int apply(hy_search_deal *x, hy_obs_track *trk, int s, int idx)
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

double hy_search_rollout(hy_search_rollouts *R, const hy_search_deal *D,
			 const hy_obs_track *trk0, int seat, int idx)
{
	hy_search_deal x = *D;
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
	int K = S->k;
	double *v = malloc(sizeof *v * (size_t)nc * (size_t)K);
	if (!v)
		return base;
	hy_search_deal *D = malloc(sizeof *D);
	if (!D) {
		free(v);
		return base;
	}
	int pick = base;
	for (int j = 0; j < K; j++) {
		/* deal j: the same for every candidate (common random numbers) */
		uint64_t seed = hy_policy_key(r->key, 0x5ea7c4, (uint64_t)j, r->seat);
		if (hy_search_determinize(e, r->seat, trk.riichi_safe, seed, D) < 0)
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
	char path[4096];
	int k = k0;
	const char *comma = strrchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	if (len == 0 || len >= sizeof path)
		return hy_diag_set(d, HY_EUSAGE, 0, "policy '%s:%s': want %s:GRP.h5[,K]", kind,
				   arg, kind);
	memcpy(path, arg, len);
	path[len] = '\0';
	if (comma) {
		char *end;
		errno = 0;
		long x = strtol(comma + 1, &end, 10);
		if (errno || *end || end == comma + 1 || x < 2 || x > HY_SEARCH_MAX_ROLLOUTS)
			return hy_diag_set(d, HY_EUSAGE, 0,
					   "policy '%s:%s': rollouts '%s' is not an integer "
					   "in 2..%d",
					   kind, arg, comma + 1, HY_SEARCH_MAX_ROLLOUTS);
		k = (int)x;
	}
	hy_search_rollouts *R = calloc(1, sizeof *R);
	if (!R)
		return hy_diag_set(d, HY_ENOMEM, 0, "%s: out of memory", kind);
	hy_status st = hy_grp_load(path, &R->grp, d);
	if (st == HY_OK && (st = hy_policy_open_rulebot(&R->base, d)) != HY_OK)
		hy_grp_free(&R->grp);
	if (st != HY_OK) {
		free(R);
		return st;
	}
	R->k = k;
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
		free(R);
	}
}

static const hy_policy_ops search_ops = {search_decide, NULL, hy_search_free_policy};

hy_status hy_policy_open_search(hy_policy *p, const char *arg, hy_diag *d)
{
	return hy_search_open_policy(p, "search", arg, HY_SEARCH_ROLLOUTS, &search_ops, d);
}
