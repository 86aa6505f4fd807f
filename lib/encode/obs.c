/* The 85 × 34 observation (see obs.h, ARCHITECTURE.md §5). */
#include "encode/obs.h"
#include "hand/score.h"

#include <string.h>

#include "core/tile.h"
#include "hand/shanten.h"

enum { H_ONE = 0x3C00, H_HALF = 0x3800 };

uint16_t hy_half_from_float(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)(x >> 16 & 0x8000);
	uint32_t exp = x >> 23 & 0xFF, man = x & 0x7FFFFF;
	if (exp == 0xFF) /* inf or NaN */
		return (uint16_t)(sign | 0x7C00 | (man ? 0x200 | man >> 13 : 0));
	int e = (int)exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7C00);
	if (e <= 0) {
		/* subnormal half (or zero): shift the full mantissa */
		if (e < -10)
			return sign;
		man |= 0x800000;
		int shift = 14 - e; /* 24-bit mantissa → 10-bit at exponent 1 */
		uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = (uint32_t)e << 10 | man >> 13, rem = man & 0x1FFF;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++; /* may carry into the exponent: still correct, up to inf */
	return (uint16_t)(sign | h);
}

float hy_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = h >> 10 & 0x1F, man = h & 0x3FF, x;
	if (exp == 0) {
		if (man == 0) {
			x = sign;
		} else {
			int e = -1;
			do {
				e++;
				man <<= 1;
			} while (!(man & 0x400));
			x = sign | (uint32_t)(127 - 15 - e) << 23 | (man & 0x3FF) << 13;
		}
	} else if (exp == 31) {
		x = sign | 0x7F800000 | man << 13;
	} else {
		x = sign | (exp + 127 - 15) << 23 | man << 13;
	}
	float f;
	memcpy(&f, &x, 4);
	return f;
}

void hy_obs_track_reset(hy_obs_track *t)
{
	memset(t, 0, sizeof *t);
}

void hy_obs_track_event(hy_obs_track *t, const hy_engine *e, const hy_event *ev)
{
	int a = ev->actor;
	if (a > 3)
		return;
	if (ev->type == HY_EV_REACH) {
		t->riichi_on[a] = 1;
	} else if (ev->type == HY_EV_CHI || ev->type == HY_EV_PON ||
		   ev->type == HY_EV_DAIMINKAN || ev->type == HY_EV_ANKAN) {
		/* the engine appends melds in this order (a kakan changes its
		 * pon in place); counted here, not read off e, which some
		 * callers feed after applying the event */
		if (t->nmelds[a] < 4)
			t->call_at[a][t->nmelds[a]++] = t->ndiscards[a];
	} else if (ev->type == HY_EV_DAHAI) {
		int k = hy_tile_kind(ev->pai);
		if (k < 0)
			return;
		for (int s = 0; s < 4; s++)
			if (t->riichi_on[s])
				t->riichi_safe[s] |= 1ull << k;
		int tg = (ev->flags & HY_EVF_TSUMOGIRI) ? ev->tsumogiri != 0
							 : e->p[a].drawn == ev->pai;
		if (t->ndiscards[a] < 32) {
			if (tg)
				t->tsumogiri[a] |= 1u << t->ndiscards[a];
			t->ndiscards[a]++;
		}
	}
}

static inline void fill(uint16_t *obs, int c, uint16_t v)
{
	uint16_t *p = obs + c * 34;
	for (int t = 0; t < 34; t++)
		p[t] = v;
}

static inline void fillf(uint16_t *obs, int c, float v)
{
	uint16_t h = hy_half_from_float(v);
	if (h)
		fill(obs, c, h);
}

/* Count thermometer over 4 channels: ≥1, ≥2, ≥3, ≥4. */
static void thermo(uint16_t *obs, int c, const uint8_t cnt[34])
{
	for (int t = 0; t < 34; t++)
		for (int i = 0; i < cnt[t] && i < 4; i++)
			obs[(c + i) * 34 + t] = H_ONE;
}

/* exp(−0.2·d) as half, d = 0…31. */
static uint16_t recency(int d)
{
	static const uint16_t tab[32] = { /* Python: struct.pack('<e', exp(-0.2*d)) */
		0x3C00, 0x3A8D, 0x395D, 0x3864, 0x3730, 0x35E3, 0x34D2, 0x33E4,
		0x3276, 0x314A, 0x3055, 0x2F17, 0x2DCE, 0x2CC1, 0x2BC9, 0x2A5F,
		0x2938, 0x2846, 0x26FF, 0x25BA, 0x24B0, 0x23AE, 0x2249, 0x2126,
		0x2037, 0x1EE6, 0x1DA6, 0x1CA0, 0x1B93, 0x1A33, 0x1914, 0x1828,
	};
	return tab[d < 0 ? 0 : d > 31 ? 31 : d];
}

/* (24 − min(i, 23)) / 24 as half: 1 for what came before o's first
 * discard, 1/24 from the 24th on. */
static uint16_t earliness(int i)
{
	return hy_half_from_float((float)(24 - (i < 23 ? i : 23)) / 24.0f);
}

/* Planes 11+3p, 12+3p, 13+3p of relative player p (absolute seat q); for
 * an opponent (p > 0) also its order planes 62+o (first discard of each
 * kind) and 65+o (recency of the latest discard from hand). */
static void river(uint16_t *obs, const hy_engine *e, const hy_obs_track *t, int q, int p)
{
	const hy_player *pl = &e->p[q];
	int n = pl->nriver;
	uint16_t *disc = obs + (HY_OBS_RIVER + 3 * p) * 34;
	uint16_t *ted = disc + 34, *rec = disc + 68;
	uint16_t *early = p ? obs + (HY_OBS_EARLY + p - 1) * 34 : NULL;
	uint16_t *tord = p ? obs + (HY_OBS_TEDASHI_ORDER + p - 1) * 34 : NULL;
	for (int j = 0; j < n; j++) {
		int k = hy_tile_kind(pl->river[j]);
		if (k < 0)
			continue;
		if (early && !disc[k])
			early[k] = earliness(j);
		disc[k] = H_ONE;
		int tg = j < t->ndiscards[q] ? (int)(t->tsumogiri[q] >> j & 1)
					     : (pl->river_flags[j] & HY_RIVER_TSUMOGIRI) != 0;
		if (!tg) {
			ted[k] = H_ONE;
			if (tord)
				tord[k] = recency(n - 1 - j);
		}
		rec[k] = recency(n - 1 - j); /* later j overwrite: the latest wins */
	}
}

/* Plane 74+o of the opponent at absolute seat q: its riichi declaration
 * tile 1; the tile of each chi, pon or daiminkan it made (a kakan's is its
 * pon's), the earliness of the call. A declared hand is closed, so the two
 * never meet; plane 43+p tells them apart. */
static void declared(uint16_t *obs, const hy_engine *e, const hy_obs_track *t, int q, int o)
{
	const hy_player *pl = &e->p[q];
	uint16_t *d = obs + (HY_OBS_DECLARED + o) * 34;
	for (int j = 0; j < pl->nriver; j++)
		if (pl->river_flags[j] & HY_RIVER_RIICHI) {
			int k = hy_tile_kind(pl->river[j]);
			if (k >= 0)
				d[k] = H_ONE;
		}
	for (int i = 0; i < pl->nmelds; i++) {
		int k = pl->meld_called[i] == HY_TILE_NONE ? -1 : hy_tile_kind(pl->meld_called[i]);
		if (k >= 0 && pl->melds[i].type != HY_MELD_ANKAN)
			d[k] = earliness(t->call_at[q][i]);
	}
}

/* Channel 9: each kind held whose discard keeps the minimum shanten best,
 * graded by the live acceptance that discard leaves: the live copies of the
 * kinds whose draw would lower the shanten again (at tenpai, of the waits),
 * live = 4 − visible copies; after[] = shanten after discarding each kind,
 * vis[] = copies visible to the observer, its own concealed hand included.
 * The best acceptance gets 1, none gets 0.25, linearly between; when no
 * discard leaves a live tile, every one of them gets 1. */
static void best_discards(uint16_t *obs, const hy_player *me, const int8_t after[34],
			  int best, const uint8_t vis[34])
{
	uint8_t c[34], outside[34];
	int acc[34], most = 0;
	memcpy(c, me->cnt, 34);
	for (int k = 0; k < 34; k++)
		outside[k] = (uint8_t)(vis[k] - me->cnt[k]);
	for (int k = 0; k < 34; k++) {
		acc[k] = -1;
		if (!me->cnt[k] || after[k] != best)
			continue;
		c[k]--;
		acc[k] = hy_ukeire(c, me->nmelds, outside, NULL);
		c[k]++;
		if (acc[k] > most)
			most = acc[k];
	}
	for (int k = 0; k < 34; k++)
		if (acc[k] >= 0)
			obs[HY_OBS_BEST_DISCARD * 34 + k] = hy_half_from_float(
				0.25f + 0.75f * (most > 0 ? (float)acc[k] / (float)most : 1.0f));
}

/* Per relative player p (0 the seat): river, melds, riichi, score, open
 * melds; the tiles each shows counted into vis. */
static void players(uint16_t *obs, const hy_engine *e, const hy_obs_track *t, int seat,
	uint8_t vis[34])
{
	for (int p = 0; p < 4; p++) {
		int q = (seat + p) % 4;
		const hy_player *pl = &e->p[q];
		river(obs, e, t, q, p);
		for (int j = 0; j < pl->nriver; j++)
			if (!(pl->river_flags[j] & HY_RIVER_CALLED))
				vis[hy_tile_kind(pl->river[j])]++;
		int open = 0;
		for (int i = 0; i < pl->nmelds; i++) {
			const hy_meld *m = &pl->melds[i];
			int c = m->type == HY_MELD_CHI ? HY_OBS_MELD_CHI
				: m->type == HY_MELD_PON ? HY_OBS_MELD_CHI + 1
							 : HY_OBS_MELD_CHI + 2;
			for (int j = 0; j < m->ntiles; j++) {
				int k = hy_tile_kind(m->tiles[j]);
				obs[(c + 3 * p) * 34 + k] = H_ONE;
				vis[k]++;
			}
			open += m->type != HY_MELD_ANKAN;
		}
		if (pl->riichi)
			fill(obs, HY_OBS_RIICHI + p, H_ONE);
		fillf(obs, HY_OBS_SCORE + p, (float)e->scores[q] / 100000.0f);
		if (p > 0)
			fillf(obs, HY_OBS_OPEN_MELDS + p - 1, (float)open / 4.0f);
	}
}

/* The safety planes against each opponent o (seat + o + 1): declared tiles,
 * riichi-safe tiles, suji and matagi from its genbutsu (the river planes
 * already filled). */
static void safety(uint16_t *obs, const hy_engine *e, const hy_obs_track *t, int seat)
{
	for (int o = 0; o < 3; o++) {
		int q = (seat + o + 1) % 4;
		const uint16_t *gen = obs + (HY_OBS_RIVER + 3 * (o + 1)) * 34; /* genbutsu */
		const uint16_t *gted = gen + 34;
		declared(obs, e, t, q, o);
		if (e->p[q].riichi) {
			uint64_t m = t->riichi_safe[q];
			for (; m; m &= m - 1)
				obs[(HY_OBS_RIICHI_SAFE + o) * 34 + __builtin_ctzll(m)] = H_ONE;
		}
		uint16_t *suji = obs + (HY_OBS_SUJI + o) * 34;
		uint16_t *mat = obs + (HY_OBS_MATAGI + o) * 34;
		for (int k = 0; k < 27; k++) {
			int n = k % 9; /* 0-based number */
			int lo = n >= 3 ? gen[k - 3] != 0 : -1;
			int hi = n <= 5 ? gen[k + 3] != 0 : -1;
			if (lo >= 0 && hi >= 0) {
				if (lo && hi)
					suji[k] = H_ONE;
				else if (lo || hi)
					suji[k] = H_HALF;
			} else if (lo > 0 || hi > 0) {
				suji[k] = H_ONE;
			}
			if (gted[k]) {
				if (n > 0)
					mat[k - 1] = H_ONE;
				if (n < 8)
					mat[k + 1] = H_ONE;
			}
		}
}
}

void hy_obs_encode(const hy_engine *e, const hy_obs_track *t, int seat,
		   uint16_t obs[HY_OBS_SIZE])
{
	memset(obs, 0, HY_OBS_SIZE * sizeof obs[0]);
	const hy_player *me = &e->p[seat];

	/* own hand, melds, drawn tile */
	thermo(obs, HY_OBS_HAND, me->cnt);
	uint8_t mc[34] = {0};
	for (int i = 0; i < me->nmelds; i++)
		for (int j = 0; j < me->melds[i].ntiles; j++)
			mc[hy_tile_kind(me->melds[i].tiles[j])]++;
	thermo(obs, HY_OBS_MELDED, mc);
	int on_turn = (e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI) && e->actor == seat;
	int drawn = on_turn && me->drawn != HY_TILE_NONE ? hy_tile_kind(me->drawn) : -1;
	if (drawn >= 0)
		obs[HY_OBS_DRAWN * 34 + drawn] = H_ONE;

	/* shanten-optimal discards (graded once the visible copies are
	 * counted, below), effective tiles, shanten */
	int sh, best = HY_SHANTEN_NA;
	int8_t after[34];
	uint8_t base[34];
	const uint8_t *eff = NULL;
	if (me->nconc % 3 == 2) {
		best = hy_shanten_discards(me->cnt, me->nmelds, after);
		sh = hy_shanten(me->cnt, me->nmelds);
		if (drawn >= 0) {
			memcpy(base, me->cnt, 34);
			base[drawn]--;
			eff = base;
		}
	} else {
		sh = hy_shanten(me->cnt, me->nmelds);
		eff = me->cnt;
	}
	if (eff) {
		uint64_t kinds = 0;
		hy_ukeire(eff, me->nmelds, NULL, &kinds);
		for (; kinds; kinds &= kinds - 1)
			obs[HY_OBS_EFFECTIVE * 34 + __builtin_ctzll(kinds)] = H_ONE;
	}
	fill(obs, HY_OBS_SHANTEN + (sh <= 0 ? 0 : sh >= 3 ? 3 : sh), H_ONE);

	/* per relative player: rivers, melds, riichi, score; the copies in sight */
	uint8_t vis[34];
	memcpy(vis, me->cnt, 34);
	players(obs, e, t, seat, vis);

	/* dora */
	uint8_t dc[34] = {0};
	/* an indicator the engine has revealed but the log has not yet given
	 * (a late dora event) is not shown until it comes */
	int nind = e->ndora < e->nind_known ? e->ndora : e->nind_known;
	for (int i = 0; i < nind && i < 5; i++) {
		int k = hy_tile_kind(e->dora_ind[i]);
		if (k < 0)
			continue;
		dc[hy_dora_from_indicator(k)]++;
		obs[HY_OBS_INDICATOR * 34 + k] = H_ONE;
		vis[k]++;
	}
	thermo(obs, HY_OBS_DORA, dc);
	if (best != HY_SHANTEN_NA)
		best_discards(obs, me, after, best, vis);

	for (int s = 0; s < 3; s++)
		if (me->red[s])
			fill(obs, HY_OBS_RED + s, H_ONE);

	/* round */
	fillf(obs, HY_OBS_WALL, (float)e->live_left / 70.0f);
	fillf(obs, HY_OBS_ROUND, (float)(e->bakaze * 4 + e->kyoku) / 8.0f);
	fillf(obs, HY_OBS_HONBA, (float)(e->honba < 10 ? e->honba : 10) / 10.0f);
	fillf(obs, HY_OBS_STICKS, (float)(e->kyotaku < 10 ? e->kyotaku : 10) / 10.0f);
	obs[HY_OBS_ROUND_WIND * 34 + 27 + (e->bakaze & 3)] = H_ONE;
	obs[HY_OBS_SEAT_WIND * 34 + 27 + (seat - e->oya + 4) % 4] = H_ONE;
	if (hy_player_furiten(me))
		fill(obs, HY_OBS_FURITEN, H_ONE);

	safety(obs, e, t, seat);

	/* kabe / one-chance */
	for (int k = 0; k < 34; k++) {
		if (vis[k] >= 4)
			obs[HY_OBS_KABE * 34 + k] = H_ONE;
		else if (vis[k] == 3)
			obs[HY_OBS_ONE_CHANCE * 34 + k] = H_ONE;
	}
}
