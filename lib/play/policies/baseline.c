/* The baseline rule bot (ARCHITECTURE.md §9): deterministic, decides from what its
 * seat can see.
 *
 *   win        tsumo or ron whenever it is legal;
 *   kyuushu    when offered and the hand is 3+ shanten (all forms);
 *   riichi     whenever it is legal (tenpai and closed); the declaration
 *              discard keeps the most live waits;
 *   fold       with an opponent in riichi and no discard better than
 *              2-shanten: the legal discard of lowest danger against every
 *              riichi seat (genbutsu, then honours with 3 copies visible,
 *              full suji or honours with 2 visible, other honours, half
 *              suji and suji terminals... see danger()), ties by shanten;
 *   discard    otherwise the legal discard of lowest shanten, then most
 *              live tile acceptance (hy_ukeire), then the tie-breaks of
 *              hy_rk_keep_key(): non-dora before dora (red fives count), isolated
 *              before connected, honours (guest winds first) before
 *              terminals before 2/8 before middle tiles, lower kind first;
 *              of a five, the plain copy before the red one;
 *   pon        a dragon, the seat wind or the round wind, when the best
 *              discard after the pon is no worse in shanten than the hand
 *              now; every other call (chi, kan, other pons) is declined.
 *
 * What it reads (all public to the seat, so that an mjai client that
 * rebuilds the state from the seat's events decides the same): its own
 * concealed counts, red fives and melds; every seat's river (called-away
 * flags), melds, discarded kinds, riichi flag; dora indicators; round wind
 * and dealer; the tile in a call window; the legal mask; and the tracker's
 * kinds discarded since each riichi. Never another seat's hand or the wall. */
#include <string.h>

#include "core/tile.h"
#include "hand/score.h"
#include "hand/shanten.h"
#include "play/policies/policies.h"
#include "play/policies/rulekit.h"

/* Danger of discarding kind k against riichi seat o (0 safest). */
static int danger(const hy_engine *e, const hy_obs_track *t, const uint8_t vis_all[34], int o,
		  int k)
{
	const hy_player *p = &e->p[o];
	uint64_t gen = p->discarded | (t ? t->riichi_safe[o] : 0);
	if (gen >> k & 1)
		return 0;
	if (k >= 27)
		return vis_all[k] >= 3 ? 1 : vis_all[k] == 2 ? 2 : 3;
	int n = k % 9, lo = n - 3 >= 0, hi = n + 3 < 9;
	int have_lo = lo && (gen >> (k - 3) & 1), have_hi = hi && (gen >> (k + 3) & 1);
	int partners = lo + hi, have = have_lo + have_hi;
	if (have == partners)
		return 2; /* full suji */
	if (have == 1)
		return 4; /* half suji (4-6) */
	return (n == 0 || n == 8) ? 4 : 5;
}

static int choose_discard(const hy_engine *e, const hy_obs_track *t, int seat, uint64_t legal,
			  int riichi_decl)
{
	const hy_player *p = &e->p[seat];
	uint8_t c[34];
	memcpy(c, p->cnt, 34);
	int nm = p->nmelds;
	uint64_t kinds = hy_rk_discard_kinds(legal);
	int8_t sh[34];
	hy_shanten_discards(c, nm, sh);
	int best = HY_SHANTEN_NA;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		if (sh[k] < best)
			best = sh[k];
	}
	uint8_t vis[34];
	hy_rk_visible_counts(e, vis);
	int fold = 0;
	if (!riichi_decl && best >= 2 && p->riichi == 0)
		for (int o = 0; o < 4; o++)
			if (o != seat && e->p[o].riichi)
				fold = 1;
	uint64_t cand = 0;
	if (fold) {
		uint8_t vis_all[34];
		for (int k = 0; k < 34; k++)
			vis_all[k] = (uint8_t)(vis[k] + c[k]);
		int dmin = 1 << 30;
		int dk[34];
		for (uint64_t m = kinds; m; m &= m - 1) {
			int k = __builtin_ctzll(m), dmax = 0;
			for (int o = 0; o < 4; o++)
				if (o != seat && e->p[o].riichi) {
					int dg = danger(e, t, vis_all, o, k);
					if (dg > dmax)
						dmax = dg;
				}
			dk[k] = dmax * 100 + sh[k];
			if (dk[k] < dmin)
				dmin = dk[k];
		}
		for (uint64_t m = kinds; m; m &= m - 1) {
			int k = __builtin_ctzll(m);
			if (dk[k] == dmin)
				cand |= 1ull << k;
		}
	} else {
		for (uint64_t m = kinds; m; m &= m - 1) {
			int k = __builtin_ctzll(m);
			if (sh[k] == best)
				cand |= 1ull << k;
		}
		if (cand & (cand - 1)) {
			/* most live acceptance of the hand after the discard */
			int bu = -2;
			uint64_t keep = 0;
			for (uint64_t m = cand; m; m &= m - 1) {
				int k = __builtin_ctzll(m);
				c[k]--;
				int u = hy_ukeire(c, nm, vis, NULL);
				c[k]++;
				if (u > bu) {
					bu = u;
					keep = 0;
				}
				if (u == bu)
					keep |= 1ull << k;
			}
			cand = keep;
		}
	}
	int pick = -1;
	uint32_t pk = 0;
	for (uint64_t m = cand; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		uint32_t key = hy_rk_keep_key(e, seat, k);
		if (pick < 0 || key < pk) {
			pick = k;
			pk = key;
		}
	}
	return hy_rk_discard_index(p, legal, pick);
}

/* Pon of a dragon or value wind that does not worsen shanten. */
static int want_pon(const hy_engine *e, int seat)
{
	const hy_player *p = &e->p[seat];
	int k = hy_tile_kind(e->last_tile);
	if (k < 27 || !hy_rk_is_value_honour(e, seat, k) || p->cnt[k] < 2)
		return 0;
	uint8_t c[34];
	memcpy(c, p->cnt, 34);
	int s0 = hy_shanten(c, p->nmelds);
	c[k] -= 2;
	int8_t sh[34];
	hy_shanten_discards(c, p->nmelds + 1, sh);
	int s1 = HY_SHANTEN_NA;
	for (int j = 0; j < 34; j++)
		if (j != k && sh[j] < s1)
			s1 = sh[j];
	return s1 <= s0;
}

static int baseline_one(const hy_decision *r)
{
	const hy_engine *e = r->e;
	uint64_t legal = r->legal;
	int seat = r->seat;
	if (legal >> HY_A_WIN & 1)
		return HY_A_WIN;
	if (e->phase == HY_PH_TURN) {
		const hy_player *p = &e->p[seat];
		if ((legal >> HY_A_KYUUSHU & 1) && hy_shanten(p->cnt, p->nmelds) >= 3)
			return HY_A_KYUUSHU;
		if (legal >> HY_A_RIICHI & 1)
			return HY_A_RIICHI;
		if (hy_rk_discard_kinds(legal))
			return choose_discard(e, r->track, seat, legal, 0);
	} else if (e->phase == HY_PH_RIICHI) {
		if (hy_rk_discard_kinds(legal))
			return choose_discard(e, r->track, seat, legal, 1);
	} else if (e->phase == HY_PH_CALL) {
		if ((legal >> HY_A_PON & 1) && want_pon(e, seat))
			return HY_A_PON;
	}
	if (legal >> HY_A_PASS & 1)
		return HY_A_PASS;
	return __builtin_ctzll(legal); /* nothing else applies (a lone kan) */
}

static hy_status baseline_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
				 hy_diag *d)
{
	(void)p;
	(void)d;
	for (size_t i = 0; i < n; i++) {
		out[i].index = baseline_one(&req[i]);
		out[i].logp = 0.0f;
		out[i].value = 0.0f;
	}
	return HY_OK;
}

static void baseline_free(hy_policy *p)
{
	(void)p;
}

static const hy_policy_ops baseline_ops = {baseline_decide, NULL, baseline_free, NULL};

hy_status hy_policy_open_baseline(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d)
{
	(void)arg;
	(void)o;
	(void)d;
	p->ops = &baseline_ops;
	p->impl = NULL;
	p->stochastic = 0;
	p->has_value = 0;
	p->concurrent = 1;
	return HY_OK;
}
