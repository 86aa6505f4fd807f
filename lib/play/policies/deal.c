/* deal: the hidden tiles of a state dealt again (see deal.h). */
#include "play/policies/deal.h"

#include <math.h>
#include <string.h>

#include "core/tile.h"
#include "hand/shanten.h"
#include "nn/rng.h"

/* The deals draw from nn/rng.h's generator, seeded by the caller's seed
 * (the search's: the decision's key and the deal's number). */
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

/* A tenpai hand as tenpai_hand gives it, but drawn from the belief's
 * waits (sampling-importance-resampling): BELIEF_PROPOSALS proposals, one
 * kept with probability proportional to the odds ratio of its wait kinds
 * under the danger head, Π_{k ∈ waits} odds(wait[k]) / odds(BELIEF_P0),
 * where BELIEF_P0 is about the share of kinds a random tenpai hand waits
 * on; the head's probabilities are marginals given what the seat saw, so
 * dividing by the proposals' own rate leaves the likelihood of the
 * observation. 0 on success, −1 when no proposal was tenpai. */
enum { BELIEF_PROPOSALS = 64 };
#define BELIEF_P0 0.05

static double log_odds(double p)
{
	p = p < 1e-4 ? 1e-4 : p > 1 - 1e-4 ? 1 - 1e-4 : p;
	return log(p / (1 - p));
}

static int belief_hand(uint8_t pool[HY_TILE_UNKNOWN], int n, int nmelds, uint64_t forbid,
		       const float wait[HY_TILE_KINDS], rng *r, uint8_t *out)
{
	uint8_t keep[14];
	double total = 0, base = log_odds(BELIEF_P0);
	for (int m = 0; m < BELIEF_PROPOSALS; m++) {
		uint8_t tmp[HY_TILE_UNKNOWN], tiles[14], cnt[HY_TILE_KINDS] = {0};
		memcpy(tmp, pool, sizeof tmp);
		if (tenpai_hand(tmp, n, nmelds, forbid, r, tiles) < 0)
			continue;
		for (int i = 0; i < n; i++)
			cnt[hy_tile_kind(tiles[i])]++;
		double lw = 0;
		for (uint64_t w = hy_hand_waits(cnt, nmelds); w; w &= w - 1)
			lw += log_odds(wait[__builtin_ctzll(w)]) - base;
		double wt = exp(lw < 60 ? lw : 60);
		total += wt;
		if (hy_rng_uniform(r) * total < wt)
			memcpy(keep, tiles, (size_t)n);
	}
	if (total <= 0)
		return -1;
	for (int i = 0; i < n; i++)
		pool[keep[i]]--;
	memcpy(out, keep, (size_t)n);
	return 0;
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

/* Takes p's true concealed tiles out of the pool (they stay its hand in
 * the copy of the state). */
static void keep_hand(const hy_player *p, uint8_t pool[HY_TILE_UNKNOWN], int *left)
{
	for (int k = 0; k < HY_TILE_KINDS; k++) {
		int red = hy_tile_red_of(k);
		int nred = red >= 0 ? p->red[red - HY_TILE_5MR] : 0;
		pool[k] = (uint8_t)(pool[k] - (p->cnt[k] - nred));
		if (red >= 0)
			pool[red] = (uint8_t)(pool[red] - nred);
	}
	*left -= p->nconc;
}

/* How a deal treats the opponents' hands. */
typedef struct deal_how {
	int seat;                  /* whose view; −1: every hand kept        */
	const uint64_t *safe;      /* the tracker's riichi_safe, or NULL     */
	const hy_belief_out *bel;  /* tenpai and waits drawn from it, or NULL */
	int know_tenpai;           /* tenpai opponents, and only they, get a
				    * tenpai hand (drawn as a riichi's)       */
	int keep_tenpai;           /* tenpai opponents keep their true hands */
} deal_how;

/* The deal of every public function below (see deal.h). */
static int deal(const hy_engine *e, const deal_how *h, uint64_t seed, hy_deal *out)
{
	const int seat = h->seat;
	const uint64_t *safe = h->safe;
	const hy_belief_out *bel = h->bel;
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
	/* tenpai hands first (riichi, or drawn so by the belief): they need
	 * the tiles of a tenpai shape */
	int tenpai[4] = {0}, keep[4] = {0};
	for (int s = 0; s < 4 && seat >= 0; s++) {
		const hy_player *p = &e->p[s];
		int o = (s - seat + 3) & 3; /* 0 shimocha, 1 toimen, 2 kamicha */
		int truly = s != seat && (h->know_tenpai || h->keep_tenpai) &&
			    hy_shanten(p->cnt, p->nmelds) == 0;
		tenpai[s] = s != seat && (p->riichi || (bel && hy_rng_uniform(&r) < bel->tenpai[o]));
		if (h->know_tenpai)
			tenpai[s] = truly;
		keep[s] = h->keep_tenpai && truly;
	}
	for (int pass = 0; pass < 2 && seat >= 0; pass++) {
		for (int s = 0; s < 4; s++) {
			hy_player *p = &out->e.p[s];
			if (s == seat || (pass == 0) != (tenpai[s] || keep[s]))
				continue;
			if (keep[s]) {
				keep_hand(p, pool, &left);
				continue;
			}
			uint8_t tiles[14];
			int n = p->nconc;
			if (n > 14)
				return -1;
			uint64_t forbid = p->discarded | (safe ? safe[s] : 0);
			const float *w = bel ? bel->wait[(s - seat + 3) & 3] : NULL;
			if (pass == 0 && (w ? belief_hand(pool, n, p->nmelds, forbid, w, &r, tiles)
					    : tenpai_hand(pool, n, p->nmelds, forbid, &r, tiles)) == 0) {
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

int hy_deal_determinize(const hy_engine *e, int seat, const uint64_t safe[4],
			const hy_belief_out *bel, uint64_t seed, hy_deal *out)
{
	deal_how h = {.seat = seat, .safe = safe, .bel = bel};
	return seat >= 0 && seat < 4 ? deal(e, &h, seed, out) : -1;
}

int hy_deal_oracle(const hy_engine *e, int seat, const uint64_t safe[4], int mode,
		   uint64_t seed, hy_deal *out)
{
	deal_how h = {.seat = seat, .safe = safe, .know_tenpai = mode == HY_DEAL_KNOW_TENPAI,
		      .keep_tenpai = mode == HY_DEAL_KEEP_TENPAI};
	if (mode == HY_DEAL_KEEP_ALL)
		h.seat = -1;
	return seat >= 0 && seat < 4 ? deal(e, &h, seed, out) : -1;
}

int hy_deal_redeal(const hy_engine *e, uint64_t seed, hy_deal *out)
{
	deal_how h = {.seat = -1};
	return deal(e, &h, seed, out);
}
