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
 *              keep_key(): non-dora before dora (red fives count), isolated
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
#include "play/builtin.h"

/* Kinds visible to the seat outside its own concealed hand: rivers (not
 * the called-away tiles, which sit in melds), every meld, revealed dora
 * indicators. */
static void visible_counts(const hy_engine *e, uint8_t vis[34])
{
	memset(vis, 0, 34);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED)) {
				int k = hy_tile_kind(p->river[i]);
				if (k >= 0)
					vis[k]++;
			}
		for (int m = 0; m < p->nmelds; m++)
			for (int j = 0; j < p->melds[m].ntiles; j++) {
				int k = hy_tile_kind(p->melds[m].tiles[j]);
				if (k >= 0)
					vis[k]++;
			}
	}
	for (int i = 0; i < e->ndora && i < 5; i++) {
		int k = hy_tile_kind(e->dora_ind[i]);
		if (k >= 0)
			vis[k]++;
	}
}

static int seat_wind(const hy_engine *e, int seat)
{
	return 27 + (seat - e->oya + 4) % 4;
}

static int is_value_honour(const hy_engine *e, int seat, int k)
{
	return k >= 31 || k == 27 + e->bakaze || k == seat_wind(e, seat);
}

/* Kinds that may be discarded: plain index k or the red index of its five. */
static uint64_t discard_kinds(uint64_t legal)
{
	uint64_t m = legal & ((1ull << 34) - 1);
	for (int s = 0; s < 3; s++)
		if (legal >> (HY_TILE_5MR + s) & 1)
			m |= 1ull << (4 + 9 * s);
	return m;
}

/* Action index discarding one tile of kind k: the plain copy when there is
 * one (red fives are kept), else the red one. */
static int discard_index(const hy_player *p, uint64_t legal, int k)
{
	int red = hy_tile_red_of(k);
	if (red < 0)
		return k;
	int nred = p->red[red - HY_TILE_5MR];
	if ((legal >> k & 1) && p->cnt[k] > nred)
		return k;
	if (legal >> red & 1)
		return red;
	return k;
}

/* Tie-break key of discarding kind k: lower is discarded first. */
static uint32_t keep_key(const hy_engine *e, int seat, int k)
{
	const hy_player *p = &e->p[seat];
	int dora = 0;
	for (int i = 0; i < e->ndora && i < 5; i++)
		dora += hy_dora_from_indicator(hy_tile_kind(e->dora_ind[i])) == k;
	int red = hy_tile_red_of(k);
	if (red >= 0 && p->red[red - HY_TILE_5MR] >= p->cnt[k])
		dora++; /* only red copies left: this discard throws a red five */
	int connected;
	if (k >= 27) {
		connected = p->cnt[k] >= 2;
	} else {
		connected = p->cnt[k] >= 2;
		int n = k % 9;
		for (int dd = -2; dd <= 2 && !connected; dd++)
			if (dd && n + dd >= 0 && n + dd < 9 && p->cnt[k + dd])
				connected = 1;
	}
	int cat;
	if (k >= 27)
		cat = is_value_honour(e, seat, k) ? 1 : 0;
	else if (k % 9 == 0 || k % 9 == 8)
		cat = 2;
	else if (k % 9 == 1 || k % 9 == 7)
		cat = 3;
	else
		cat = 4;
	if (dora > 7)
		dora = 7;
	return (uint32_t)dora << 16 | (uint32_t)connected << 12 | (uint32_t)cat << 8 | (uint32_t)k;
}

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
	uint64_t kinds = discard_kinds(legal);
	int8_t sh[34];
	hy_shanten_discards(c, nm, sh);
	int best = HY_SHANTEN_NA;
	for (uint64_t m = kinds; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		if (sh[k] < best)
			best = sh[k];
	}
	uint8_t vis[34];
	visible_counts(e, vis);
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
		uint32_t key = keep_key(e, seat, k);
		if (pick < 0 || key < pk) {
			pick = k;
			pk = key;
		}
	}
	return discard_index(p, legal, pick);
}

/* Pon of a dragon or value wind that does not worsen shanten. */
static int want_pon(const hy_engine *e, int seat)
{
	const hy_player *p = &e->p[seat];
	int k = hy_tile_kind(e->last_tile);
	if (k < 27 || !is_value_honour(e, seat, k) || p->cnt[k] < 2)
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
		if (discard_kinds(legal))
			return choose_discard(e, r->track, seat, legal, 0);
	} else if (e->phase == HY_PH_RIICHI) {
		if (discard_kinds(legal))
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

static const hy_policy_ops baseline_ops = {baseline_decide, NULL, baseline_free};

hy_status hy_policy_open_baseline(hy_policy *p, hy_diag *d)
{
	(void)d;
	p->ops = &baseline_ops;
	p->impl = NULL;
	p->stochastic = 0;
	p->has_value = 0;
	p->concurrent = 1;
	return HY_OK;
}
