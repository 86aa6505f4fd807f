/* The rulebot policy (lib/play/policies/rulebot.c) on hand-made states: tsumo,
 * riichi on a plain tenpai and dama on a yakuman tenpai, folding a cheap
 * one-shanten hand against riichi onto the genbutsu (where baseline
 * pushes), folding a far hand, the value pon, the fast tanyao chi with a
 * dora and its refusal without one; then legality and determinism over
 * whole self-play games with rulebot at every seat. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "engine/engine.h"
#include "engine/table.h"
#include "play/policy.h"

#include "fixture_play.h"
#include "fixture_table.h"

static void test_win_riichi_dama(void **state)
{
	(void)state;
	hy_policy p = open_policy("rulebot");
	check_win_and_riichi(&p);
	table t;
	/* the dealer's nine-sided chuuren tenpai: a yakuman dama, no riichi */
	deal(&t, "1112345678999m", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "1p");
	draw(&t, "5p");
	uint64_t legal = hy_engine_legal_mask(&t.e, 0);
	assert_true(legal >> HY_A_RIICHI & 1);
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), tile("5p"));
	hy_game_free(&t.log);
	hy_policy_close(&p);
}

/* Seat 1 declares riichi on 2s; seat 0, one-shanten with a cheap hand
 * (123m 456p 23s 78s 99p, isolated east and hatsu), draws. */
static void riichi_on_2s(table *t, const char *dora)
{
	riichi_scene(t, "123m456p2378s99p1z", "5z", "5z", "2s", "6z", dora);
}

static void test_fold(void **state)
{
	(void)state;
	hy_policy p = open_policy("rulebot"), b = open_policy("baseline");
	table t;
	riichi_on_2s(&t, "9s");
	assert_true(t.e.p[1].riichi != 0);
	/* baseline pushes (an isolated honour); rulebot folds on the genbutsu,
	 * breaking its 23s */
	int bi = decide1(&b, &t.e, &t.trk, 0, 0);
	assert_true(bi == tile("1z") || bi == tile("6z"));
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), tile("2s"));
	hy_game_free(&t.log);
	/* two-shanten and worse against riichi: the genbutsu 9s (baseline's
	 * fold case) */
	riichi_on_9s(&t);
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), tile("9s"));
	hy_game_free(&t.log);
	hy_policy_close(&p);
	hy_policy_close(&b);
}

static void test_calls(void **state)
{
	(void)state;
	hy_policy p = open_policy("rulebot");
	table t;
	/* a haku pair: pon */
	deal(&t, "123456789m12p55z", "123456m78p359s55z", "234567s1122334z", "567899s1166777z",
	     "9m");
	draw(&t, "3p");
	discard(&t, 0, "5z");
	assert_int_equal(decide1(&p, &t.e, &t.trk, 1, 0), HY_A_PON);
	hy_game_free(&t.log);
	/* seat 1: 234m 567p 34s 66s 57s 8m, all simples, one-shanten; the chi
	 * of 2s (234s) goes straight to tenpai on tanyao. With the dora 2m
	 * (indicator 1m) it calls; without a dora it stays closed. */
	const char *h1 = "234m567p34s66s57s8m";
	deal(&t, "123456789p1299s", h1, "234567s1122334z", "567899s5566777z", "1m");
	draw(&t, "1z");
	discard(&t, 0, "2s");
	assert_true(hy_engine_legal_mask(&t.e, 1) >> HY_A_CHI_LOW & 1);
	assert_int_equal(decide1(&p, &t.e, &t.trk, 1, 0), HY_A_CHI_LOW);
	hy_game_free(&t.log);
	deal(&t, "123456789p1299s", h1, "234567s1122334z", "567899s5566777z", "9m");
	draw(&t, "1z");
	discard(&t, 0, "2s");
	assert_int_equal(decide1(&p, &t.e, &t.trk, 1, 0), HY_A_PASS);
	hy_game_free(&t.log);
	hy_policy_close(&p);
}

/* Whole games, rulebot at every seat: every answer legal (decide1) and the
 * same when asked again; the games end. */
static void test_selfplay(void **state)
{
	(void)state;
	hy_policy p = open_policy("rulebot");
	hy_table *tb = malloc(sizeof *tb);
	assert_non_null(tb);
	hy_obs_track trk;
	hy_obs_track_reset(&trk);
	uint64_t decisions = 0, calls = 0, riichi = 0;
	for (uint64_t game = 0; game < 8; game++) {
		hy_diag d;
		assert_int_equal(hy_table_start(tb, NULL, 5, game, NULL, &d), HY_OK);
		while (tb->e.phase != HY_PH_GAME_END) {
			const hy_engine *e = &tb->e;
			int s = __builtin_ctz(hy_engine_deciders(e));
			int idx = decide1(&p, e, &trk, s, 0);
			assert_int_equal(decide1(&p, e, &trk, s, 0), idx);
			decisions++;
			calls += idx >= HY_A_CHI_LOW && idx <= HY_A_KAN;
			riichi += idx == HY_A_RIICHI;
			assert_int_equal(hy_table_act(tb, s, idx, &d), HY_OK);
		}
	}
	print_message("8 games: %llu decisions, %llu calls, %llu riichi\n",
		      (unsigned long long)decisions, (unsigned long long)calls,
		      (unsigned long long)riichi);
	assert_true(decisions > 1000 && calls > 0 && riichi > 0);
	free(tb);
	hy_policy_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_win_riichi_dama),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_selfplay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
