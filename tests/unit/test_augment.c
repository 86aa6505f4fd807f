/* Suit permutations: the permutation table, tiles and games
 * (lib/events/permute), samples (lib/samples/augment). Properties on random
 * samples (identity, inverse, composition) and pinned examples. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "events/event.h"
#include "events/permute.h"
#include "samples/augment.h"
#include "samples/sample.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static uint64_t test_seed(void)
{
	const char *e = getenv("HY_SEED");
	uint64_t seed = e ? strtoull(e, NULL, 0) : UINT64_C(0xa5a5a5a51234);
	print_message("seed %llu (set HY_SEED to reproduce)\n", (unsigned long long)seed);
	return seed ? seed : 1;
}

static void random_sample(uint64_t *rs, hy_sample *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < HY_OBS_SIZE; i++)
		s->obs[i] = (uint16_t)rng_next(rs); /* every cell distinct-ish */
	s->action = (uint8_t)(rng_next(rs) % HY_ACTIONS);
	s->mask = (rng_next(rs) & ((UINT64_C(1) << HY_ACTIONS) - 1)) | UINT64_C(1) << s->action;
	s->game = rng_next(rs);
	for (int o = 0; o < 3; o++)
		s->opp_waits[o] = rng_next(rs) & ((UINT64_C(1) << 34) - 1);
	s->score = (int32_t)(rng_next(rs) % 100000);
	s->kyoku_delta = -(int32_t)(rng_next(rs) % 10000);
	s->logp = -1.25f;
	s->value = 0.5f;
	s->reward = 1.0f;
	s->adv = 2.0f;
	s->ret = 3.0f;
	s->step = (uint16_t)rng_next(rs);
	s->seat = (uint8_t)(rng_next(rs) % 4);
	s->grand_kyoku = 5;
	s->honba = 2;
	s->rank = 1;
	s->grp = 17;
	s->opp_tenpai = 5;
	s->flags = 1;
}

static void test_table(void **state)
{
	(void)state;
	/* lexicographic, identity first, all distinct */
	for (int p = 0; p < HY_SUIT_PERMS; p++) {
		const uint8_t *q = hy_suit_perm_table[p];
		assert_true(q[0] != q[1] && q[1] != q[2] && q[0] != q[2]);
		assert_true(q[0] < 3 && q[1] < 3 && q[2] < 3);
		if (p) {
			const uint8_t *r = hy_suit_perm_table[p - 1];
			assert_true(memcmp(r, q, 3) < 0);
		}
	}
	assert_memory_equal(hy_suit_perm_table[0], "\0\1\2", 3);
	static const int inv[6] = {0, 1, 2, 4, 3, 5};
	for (int p = 0; p < HY_SUIT_PERMS; p++) {
		assert_int_equal(hy_suit_perm_inverse(p), inv[p]);
		assert_int_equal(hy_suit_perm_compose(p, inv[p]), 0);
		assert_int_equal(hy_suit_perm_compose(inv[p], p), 0);
		assert_int_equal(hy_suit_perm_compose(0, p), p);
	}
	assert_int_equal(hy_suit_perm_compose(3, 3), 4); /* m→p→s: m→s */
	assert_int_equal(hy_suit_perm_inverse(6), -1);
	assert_int_equal(hy_suit_perm_compose(-1, 0), -1);
}

static void test_tiles(void **state)
{
	(void)state;
	/* permutation 3: m→p, p→s, s→m */
	assert_int_equal(hy_tile_permute(3, 0), 9);    /* 1m → 1p */
	assert_int_equal(hy_tile_permute(3, 13), 22);  /* 5p → 5s */
	assert_int_equal(hy_tile_permute(3, 26), 8);   /* 9s → 9m */
	assert_int_equal(hy_tile_permute(3, HY_TILE_5MR), HY_TILE_5PR);
	assert_int_equal(hy_tile_permute(3, HY_TILE_5SR), HY_TILE_5MR);
	for (int p = 0; p < HY_SUIT_PERMS; p++) {
		for (int t = 27; t < 34; t++)
			assert_int_equal(hy_tile_permute(p, (uint8_t)t), t);
		assert_int_equal(hy_tile_permute(p, HY_TILE_UNKNOWN), HY_TILE_UNKNOWN);
		assert_int_equal(hy_tile_permute(p, HY_TILE_NONE), HY_TILE_NONE);
		int seen[HY_TILE_CODES] = {0};
		for (int t = 0; t < 37; t++) {
			uint8_t u = hy_tile_permute(p, (uint8_t)t);
			assert_true(u < 37);
			seen[u]++;
			assert_int_equal(hy_tile_is_red(u), hy_tile_is_red(t));
			assert_int_equal(hy_tile_num(hy_tile_kind(u)), hy_tile_num(hy_tile_kind(t)));
			assert_int_equal(hy_tile_permute(hy_suit_perm_inverse(p), u), t);
		}
		for (int t = 0; t < 37; t++)
			assert_int_equal(seen[t], 1);
	}
}

static void test_game(void **state)
{
	(void)state;
	hy_game g;
	hy_game_init(&g);
	assert_int_equal(hy_game_set_source(&g, "x.json", 3), HY_OK);
	hy_event e;
	hy_event_blank(&e, HY_EV_START_KYOKU);
	static const char hand[] = "123m406p789s1122z";
	uint8_t t[14];
	assert_int_equal(hy_mpsz_parse(hand, t, 14, NULL), 13);
	memcpy(e.tehais[0], t, 13);
	for (int s = 1; s < 4; s++)
		memset(e.tehais[s], HY_TILE_UNKNOWN, 13);
	e.dora_marker = 8; /* 9m */
	e.bakaze = 27;
	assert_non_null(hy_game_push(&g, &e));
	hy_event_blank(&e, HY_EV_PON);
	e.actor = 1;
	e.target = 0;
	e.pai = HY_TILE_5SR;
	e.consumed[0] = 22;
	e.consumed[1] = 22;
	e.nconsumed = 2;
	assert_non_null(hy_game_push(&g, &e));
	hy_event_blank(&e, HY_EV_HORA);
	e.nura = 2;
	e.ura[0] = 0;
	e.ura[1] = 30;
	assert_non_null(hy_game_push(&g, &e));

	hy_event before[3];
	memcpy(before, g.ev, sizeof before);
	assert_int_equal(hy_game_permute_suits(&g, 6), HY_EUSAGE);
	assert_memory_equal(before, g.ev, sizeof before);
	assert_int_equal(hy_game_permute_suits(&g, 0), HY_OK);
	assert_memory_equal(before, g.ev, sizeof before);

	assert_int_equal(hy_game_permute_suits(&g, 5), HY_OK); /* m↔s */
	/* 123m406p789s1122z → 123s406p789m1122z, tile by tile */
	static const uint8_t want[13] = {18, 19, 20, 12, HY_TILE_5PR, 14, 6, 7, 8, 27, 27, 28, 28};
	assert_memory_equal(g.ev[0].tehais[0], want, 13);
	assert_int_equal(g.ev[0].tehais[2][5], HY_TILE_UNKNOWN);
	assert_int_equal(g.ev[0].dora_marker, 26);
	assert_int_equal(g.ev[0].bakaze, 27);
	assert_int_equal(g.ev[1].pai, HY_TILE_5MR);
	assert_int_equal(g.ev[1].consumed[0], 4);
	assert_int_equal(g.ev[1].consumed[2], HY_TILE_NONE);
	assert_int_equal(g.ev[2].ura[0], 18);
	assert_int_equal(g.ev[2].ura[1], 30);
	assert_int_equal(g.ev[2].ura[2], HY_TILE_NONE);
	assert_int_equal(g.ev[1].actor, 1);
	assert_string_equal(g.source, "x.json");
	assert_int_equal(hy_game_permute_suits(&g, 5), HY_OK);
	assert_memory_equal(before, g.ev, sizeof before);
	/* 3 then 4 (its inverse) */
	assert_int_equal(hy_game_permute_suits(&g, 3), HY_OK);
	assert_int_equal(hy_game_permute_suits(&g, 4), HY_OK);
	assert_memory_equal(before, g.ev, sizeof before);
	hy_game_free(&g);
}

static void test_pinned_sample(void **state)
{
	(void)state;
	hy_sample s, t;
	memset(&s, 0, sizeof s);
	s.obs[0 * 34 + 4] = 0x3C00;       /* ch 0: 5m */
	s.obs[9 * 34 + 27] = 0x3800;      /* ch 9: East (honour, fixed) */
	s.obs[40 * 34 + 0] = 0x3C00;      /* plane 40 (red 5m) filled */
	s.obs[40 * 34 + 33] = 0x3C00;
	s.obs[84 * 34 + 26] = 0x3555;     /* last channel: 9s */
	s.action = 34;                    /* discard red 5m */
	s.mask = UINT64_C(1) << 34 | UINT64_C(1) << 4 | UINT64_C(1) << 30 | UINT64_C(1) << 45;
	s.opp_waits[1] = UINT64_C(1) << 0 | UINT64_C(1) << 33;
	s.game = 77;
	s.score = -100;
	assert_int_equal(hy_augment_sample(&s, &t, 3), HY_OK); /* m→p, p→s, s→m */
	assert_int_equal(t.obs[0 * 34 + 13], 0x3C00);
	assert_int_equal(t.obs[0 * 34 + 4], 0);
	assert_int_equal(t.obs[9 * 34 + 27], 0x3800);
	assert_int_equal(t.obs[41 * 34 + 0], 0x3C00); /* the whole plane moved */
	assert_int_equal(t.obs[41 * 34 + 33], 0x3C00);
	assert_int_equal(t.obs[40 * 34 + 0], 0);
	assert_int_equal(t.obs[84 * 34 + 8], 0x3555);
	assert_int_equal(t.action, 35);
	assert_true(t.mask == (UINT64_C(1) << 35 | UINT64_C(1) << 13 | UINT64_C(1) << 30 |
			       UINT64_C(1) << 45));
	assert_true(t.opp_waits[1] == (UINT64_C(1) << 9 | UINT64_C(1) << 33));
	assert_true(t.opp_waits[0] == 0 && t.opp_waits[2] == 0);
	assert_true(t.game == 77 && t.score == -100);
	/* non-tile actions are fixed */
	for (int a = 37; a < HY_ACTIONS; a++)
		for (int p = 0; p < HY_SUIT_PERMS; p++)
			assert_int_equal(hy_augment_action((uint8_t)a, p), a);
	assert_int_equal(hy_augment_sample(&s, &t, 6), HY_EUSAGE);
	assert_int_equal(hy_augment_sample(&s, &t, -1), HY_EUSAGE);
}

static void test_properties(void **state)
{
	(void)state;
	uint64_t rs = test_seed();
	hy_sample s, a, b, c;
	for (int it = 0; it < 200; it++) {
		random_sample(&rs, &s);
		/* identity is bit-identical, also in place */
		assert_int_equal(hy_augment_sample(&s, &a, 0), HY_OK);
		assert_memory_equal(&s, &a, sizeof s);
		for (int p = 0; p < HY_SUIT_PERMS; p++) {
			assert_int_equal(hy_augment_sample(&s, &a, p), HY_OK);
			/* the label stays legal, popcounts kept */
			assert_true(a.mask >> a.action & 1);
			assert_int_equal(__builtin_popcountll(a.mask), __builtin_popcountll(s.mask));
			for (int o = 0; o < 3; o++)
				assert_int_equal(__builtin_popcountll(a.opp_waits[o]),
						 __builtin_popcountll(s.opp_waits[o]));
			/* inverse restores */
			assert_int_equal(hy_augment_sample(&a, &b, hy_suit_perm_inverse(p)), HY_OK);
			assert_memory_equal(&s, &b, sizeof s);
			/* composition */
			int q = (int)(rng_next(&rs) % HY_SUIT_PERMS);
			assert_int_equal(hy_augment_sample(&a, &b, q), HY_OK);
			assert_int_equal(hy_augment_sample(&s, &c, hy_suit_perm_compose(p, q)), HY_OK);
			assert_memory_equal(&b, &c, sizeof s);
			/* in place equals out of place */
			c = s;
			assert_int_equal(hy_augment_sample(&c, &c, p), HY_OK);
			assert_memory_equal(&a, &c, sizeof s);
			/* cells move as their tile: obs[c][t] → obs[c][π(t)] */
			int ch = (int)(rng_next(&rs) % HY_OBS_CHANNELS);
			int t = (int)(rng_next(&rs) % HY_OBS_TILES);
			if (ch < 40 || ch > 42)
				assert_int_equal(a.obs[ch * 34 + hy_tile_permute(p, (uint8_t)t)],
						 s.obs[ch * 34 + t]);
			else
				assert_int_equal(
					a.obs[(40 + hy_suit_perm_table[p][ch - 40]) * 34 + t],
					s.obs[ch * 34 + t]);
		}
	}
}

/* The augment and game conventions agree: a toy encoder (hand thermometer
 * in channels 0–3, red-five planes 40–42) of a permuted hand equals the
 * permuted encoding of the hand. */
static void toy_encode(const uint8_t *hand, int n, hy_sample *s)
{
	memset(s, 0, sizeof *s);
	int cnt[34] = {0};
	for (int i = 0; i < n; i++) {
		int k = hy_tile_kind(hand[i]);
		assert_true(k >= 0 && k < 34);
		cnt[k]++;
		if (hy_tile_is_red(hand[i]))
			for (int t = 0; t < 34; t++)
				s->obs[(40 + hand[i] - HY_TILE_5MR) * 34 + t] = 0x3C00;
	}
	for (int k = 0; k < 34; k++)
		for (int c = 0; c < 4; c++)
			if (cnt[k] > c)
				s->obs[c * 34 + k] = 0x3C00;
	s->action = hand[0] < 37 ? hand[0] : 0;
	s->mask = 0;
	for (int i = 0; i < n; i++)
		s->mask |= UINT64_C(1) << hand[i];
}

static void test_encode_commutes(void **state)
{
	(void)state;
	uint64_t rs = test_seed();
	for (int it = 0; it < 100; it++) {
		uint8_t hand[14], ph[14];
		for (int i = 0; i < 14; i++)
			hand[i] = (uint8_t)(rng_next(&rs) % 37);
		for (int p = 0; p < HY_SUIT_PERMS; p++) {
			for (int i = 0; i < 14; i++)
				ph[i] = hy_tile_permute(p, hand[i]);
			hy_sample a, b, enc;
			toy_encode(hand, 14, &enc);
			assert_int_equal(hy_augment_sample(&enc, &a, p), HY_OK);
			toy_encode(ph, 14, &b);
			assert_memory_equal(&a, &b, sizeof a);
		}
	}
}

static void test_random_perm(void **state)
{
	(void)state;
	int hist[HY_SUIT_PERMS] = {0};
	for (uint64_t g = 0; g < 6000; g++) {
		int p = hy_augment_random_perm(42, g);
		assert_true(p >= 0 && p < HY_SUIT_PERMS);
		assert_int_equal(p, hy_augment_random_perm(42, g));
		hist[p]++;
	}
	for (int p = 0; p < HY_SUIT_PERMS; p++)
		assert_true(hist[p] > 850 && hist[p] < 1150);
	/* pinned: documented in formats/samples.md and the man page */
	assert_int_equal(hy_augment_random_perm(0, 0), 3);
	int differ = 0;
	for (uint64_t g = 0; g < 100; g++)
		differ += hy_augment_random_perm(1, g) != hy_augment_random_perm(2, g);
	assert_true(differ > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_tiles),
		cmocka_unit_test(test_game),
		cmocka_unit_test(test_pinned_sample),
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_encode_commutes),
		cmocka_unit_test(test_random_perm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
