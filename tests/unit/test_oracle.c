/* The hidden state of a decision and its 205 oracle planes (encode/hidden.h,
 * samples/oracle.h; issue 52 step 2): on random self-play games, at every
 * decision, the hidden state is the table's truth — each opponent's hand is
 * the engine's, the live list is the wall from the next draw, every tile of
 * the 136 is in exactly one place — and the planes say what the layout
 * table of oracle.h says, scaled by group, and commute with the suit
 * permutations of hydra-augment. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "encode/encode.h"
#include "encode/hidden.h"
#include "engine/table.h"
#include "events/permute.h"
#include "samples/augment.h"
#include "samples/oracle.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static float plane(const float *p, int c, int t)
{
	return p[c * HY_OBS_TILES + t];
}

/* The hidden state of seat s against the table. */
static void check_hidden(const hy_table *t, int s, const hy_sample *sm)
{
	const hy_engine *e = &t->e;
	const hy_hidden *h = &sm->hidden;
	assert_true(sm->flags & HY_SAMPLE_F_HIDDEN);
	uint8_t all[HY_TILE_CODES] = {0}; /* every tile, by code */
	for (int o = 0; o < 3; o++) {
		const hy_player *p = &e->p[(s + o + 1) % 4];
		uint8_t cnt[34] = {0}, red[3] = {0};
		int n = 0;
		for (int i = 0; i < HY_HIDDEN_HAND && h->hand[o][i] != HY_TILE_NONE; i++, n++) {
			int c = h->hand[o][i];
			assert_true(i == 0 || c >= h->hand[o][i - 1]); /* sorted */
			cnt[hy_tile_code_kind(c)]++;
			if (hy_tile_is_red(c))
				red[c - HY_TILE_5MR]++;
			all[c]++;
		}
		assert_int_equal(n, p->nconc);
		assert_memory_equal(cnt, p->cnt, 34);
		assert_memory_equal(red, p->red, 3);
	}
	int nlive = 0;
	for (; nlive < HY_HIDDEN_LIVE && h->live[nlive] != HY_TILE_NONE; nlive++) {
		assert_int_equal(h->live[nlive], t->wall[t->live_next + nlive]);
		all[h->live[nlive]]++;
	}
	assert_int_equal(nlive, e->live_left < 69 ? e->live_left : 69);
	for (int i = nlive; i < HY_HIDDEN_LIVE; i++)
		assert_int_equal(h->live[i], HY_TILE_NONE);
	int nr = 0;
	for (; nr < 4 && h->rinshan[nr] != HY_TILE_NONE; nr++)
		all[h->rinshan[nr]]++;
	assert_int_equal(nr, HY_WALL_DORA - t->rinshan_next);
	for (int i = 0; i < 5; i++) {
		all[h->dora[i]]++;
		all[h->ura[i]]++;
	}
	/* the rest of the 136: the observer's own hand, every meld, every
	 * river tile not called away, and the live tiles a kan cut off */
	const hy_player *me = &e->p[s];
	for (int k = 0; k < 34; k++) {
		int red = hy_tile_red_of(k) >= 0 ? me->red[k / 9] : 0;
		all[k] += (uint8_t)(me->cnt[k] - red);
		if (red)
			all[HY_TILE_5MR + k / 9] += (uint8_t)red;
	}
	for (int q = 0; q < 4; q++) {
		const hy_player *p = &e->p[q];
		for (int i = 0; i < p->nmelds; i++)
			for (int j = 0; j < p->melds[i].ntiles; j++)
				all[p->melds[i].tiles[j]]++;
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED))
				all[p->river[i]]++;
	}
	for (int i = t->live_next + nlive; i < HY_WALL_SIZE; i++)
		all[t->wall[i]]++;
	for (int k = 0; k < 34; k++)
		assert_int_equal(all[k], hy_tile_red_of(k) >= 0 ? 3 : 4);
	for (int r = 0; r < 3; r++)
		assert_int_equal(all[HY_TILE_5MR + r], 1);
}

/* The planes of sm at scales (a, b) against its hidden state. */
static void check_planes(const hy_sample *sm, float a, float b, float *pl)
{
	const hy_hidden *h = &sm->hidden;
	hy_oracle_planes(sm, a, b, pl);
	for (int o = 0; o < 3; o++) {
		int base = 13 * o, n = 0;
		for (int i = 0; i < HY_HIDDEN_HAND && h->hand[o][i] != HY_TILE_NONE; i++)
			n++;
		float sum = 0;
		for (int j = 0; j < 4; j++)
			for (int t = 0; t < 34; t++)
				sum += plane(pl, base + j, t);
		assert_true(sum == a * (float)n); /* the thermometer counts the tiles */
		int sh = h->shanten[o] > 3 ? 3 : h->shanten[o];
		for (int j = 0; j < 4; j++)
			assert_true(plane(pl, base + 7 + j, 5) == (j == sh ? a : 0));
		for (int t = 0; t < 34; t++)
			assert_true(plane(pl, base + 11, t) == ((sm->opp_waits[o] >> t & 1) ? a : 0));
	}
	for (int i = 0; i < HY_HIDDEN_LIVE; i++) {
		float sum = 0;
		for (int t = 0; t < 34; t++)
			sum += plane(pl, HY_ORACLE_LIVE + 2 * i, t);
		if (h->live[i] == HY_TILE_NONE) {
			assert_true(sum == 0);
			continue;
		}
		assert_true(sum == b);
		assert_true(plane(pl, HY_ORACLE_LIVE + 2 * i, hy_tile_code_kind(h->live[i])) == b);
		assert_true(plane(pl, HY_ORACLE_LIVE + 2 * i + 1, 0) ==
			    (hy_tile_is_red(h->live[i]) ? b : 0));
	}
	for (int i = 0; i < 5; i++)
		assert_true(plane(pl, HY_ORACLE_URA + 2 * i, hy_tile_code_kind(h->ura[i])) == b);
}

/* Suit permutations commute with the planes: the planes of a permuted
 * sample are the permuted planes (the tile axis; an opponent's red-five
 * fills 13o+4+s move to 13o+4+π(s)). */
static void check_augment(const hy_sample *sm, float *pl, float *pa)
{
	for (int p = 1; p < HY_SUIT_PERMS; p++) {
		hy_sample t;
		assert_int_equal(hy_augment_sample(sm, &t, p), HY_OK);
		hy_oracle_planes(sm, 1, 1, pl);
		hy_oracle_planes(&t, 1, 1, pa);
		for (int c = 0; c < HY_ORACLE_CHANNELS; c++) {
			int c2 = c;
			if (c < HY_ORACLE_WALL && c % 13 >= 4 && c % 13 <= 6)
				c2 = c - c % 13 + 4 + hy_suit_perm_table[p][c % 13 - 4];
			for (int k = 0; k < 34; k++)
				if (plane(pl, c, k) != plane(pa, c2, hy_tile_permute(p, (uint8_t)k)))
					fail_msg("perm %d: plane %d tile %d", p, c, k);
		}
		for (int o = 0; o < 3; o++)
			for (int i = 1; i < HY_HIDDEN_HAND && t.hidden.hand[o][i] != HY_TILE_NONE; i++)
				assert_true(t.hidden.hand[o][i] >= t.hidden.hand[o][i - 1]);
	}
}

static void test_random_games(void **state)
{
	(void)state;
	uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);
	float *pl = malloc(sizeof(float) * HY_ORACLE_SIZE), *pa = malloc(sizeof(float) * HY_ORACLE_SIZE);
	assert_non_null(pl);
	assert_non_null(pa);
	hy_table *t = malloc(sizeof *t);
	assert_non_null(t);
	hy_diag d;
	hy_diag_init(&d, "oracle");
	long checked = 0, tenpai = 0, red = 0;
	for (uint64_t g = 0; g < 6; g++) {
		assert_int_equal(hy_table_start(t, NULL, 42, g, NULL, &d), HY_OK);
		while (t->e.phase != HY_PH_GAME_END) {
			int s = __builtin_ctz(hy_engine_deciders(&t->e));
			uint64_t m = hy_engine_legal_mask(&t->e, s);
			hy_sample sm;
			memset(&sm, 0, sizeof sm);
			hy_encode_opp_labels(&t->e, s, &sm);
			hy_encode_hidden(t, s, &sm);
			check_hidden(t, s, &sm);
			float a = (float)(rng_next(&rng) % 4) / 4, b = (float)(rng_next(&rng) % 3) / 2;
			check_planes(&sm, a, b, pl);
			if (checked % 97 == 0)
				check_augment(&sm, pl, pa);
			checked++;
			tenpai += sm.opp_tenpai != 0;
			for (int o = 0; o < 3; o++)
				red += sm.hidden.hand[o][0] != HY_TILE_NONE &&
				       plane(pl, 13 * o + 4, 0) + plane(pl, 13 * o + 5, 0) +
						       plane(pl, 13 * o + 6, 0) > 0;
			int n = __builtin_popcountll(m), k = (int)(rng_next(&rng) % (uint64_t)n);
			int a_ = 0;
			for (uint64_t x = m;; x &= x - 1)
				if (k-- == 0) {
					a_ = __builtin_ctzll(x);
					break;
				}
			assert_int_equal(hy_table_act(t, s, a_, &d), HY_OK);
		}
	}
	print_message("%ld decisions checked, %ld with a tenpai opponent, %ld red fills\n",
		      checked, tenpai, red);
	assert_true(checked > 1000 && tenpai > 0);
	/* a sample without the hidden state has no planes */
	hy_sample none;
	memset(&none, 0, sizeof none);
	hy_oracle_planes(&none, 1, 1, pl);
	for (int i = 0; i < HY_ORACLE_SIZE; i++)
		assert_true(pl[i] == 0);
	free(t);
	free(pl);
	free(pa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_games),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
