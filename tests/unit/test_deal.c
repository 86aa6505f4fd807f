/* The hidden-tile deals of rollouts (lib/play/policies/deal.c) and the belief
 * they can be drawn from (lib/play/policies/belief.c). A seat's view keeps what the
 * seat sees and deals exactly the tiles it cannot see; an opponent in
 * riichi gets a tenpai hand whose waits are not furiten; a deal is a
 * function of its seed. The oracle deals keep what they say they read:
 * every hand, the tenpai opponents' hands, or who is tenpai. A belief's
 * tenpai probability decides which opponents get a tenpai hand and its
 * waits which hands are kept. The belief of a checkpoint is a pair of
 * sigmoids of the seat's observation, the same for the same state. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tile.h"
#include "engine/engine.h"
#include "engine/table.h"
#include "hand/shanten.h"
#include "play/policies/belief.h"
#include "play/policies/deal.h"
#include "play/policy.h"

#include "fixture_play.h"
#include "fixture_table.h"
#include "fixture_deal.h"
#include "fixture_ckpt.h"

static void test_determinize(void **state)
{
	(void)state;
	hy_policy rb = open_policy("rulebot");
	game g;
	int checked = 0;
	for (int n = 0; n < 400; n += 7) {
		int seat = play_to(&g, &rb, 11, n);
		if (seat < 0)
			break;
		hy_deal a, b, c;
		assert_int_equal(hy_deal_determinize(&g.t.e, seat, g.trk.riichi_safe, NULL, 1, &a), 0);
		assert_int_equal(hy_deal_determinize(&g.t.e, seat, g.trk.riichi_safe, NULL, 1, &b), 0);
		assert_int_equal(hy_deal_determinize(&g.t.e, seat, g.trk.riichi_safe, NULL, 2, &c), 0);
		check_deal(&g.t.e, seat, &a);
		check_deal(&g.t.e, seat, &c);
		/* a function of the seed */
		assert_memory_equal(a.live, b.live, a.nlive);
		for (int s = 0; s < 4; s++)
			assert_memory_equal(a.e.p[s].cnt, b.e.p[s].cnt, 34);
		if (a.nlive > 10)
			assert_memory_not_equal(a.live, c.live, a.nlive);
		checked++;
		hy_game_free(&g.log);
	}
	hy_game_free(&g.log);
	assert_true(checked > 40);
	hy_policy_close(&rb);
}

/* Seat 1 in riichi (declared on 9s after throwing 5m... see
 * fixture_table.h's riichi_scene): every deal gives it a tenpai hand
 * whose waits miss the kinds it discarded and those passed since. */
static void test_riichi_tenpai(void **state)
{
	(void)state;
	table t;
	riichi_on_9s(&t);
	assert_true(t.e.p[1].riichi != 0);
	uint64_t forbid = t.e.p[1].discarded | t.trk.riichi_safe[1];
	assert_true(forbid >> hy_tile_kind(tile("9s")) & 1);
	assert_true(forbid >> hy_tile_kind(tile("8m")) & 1);
	uint64_t union_waits = 0;
	for (uint64_t seed = 0; seed < 200; seed++) {
		hy_deal x;
		assert_int_equal(hy_deal_determinize(&t.e, 0, t.trk.riichi_safe, NULL, seed, &x), 0);
		check_deal(&t.e, 0, &x);
		const hy_player *p = &x.e.p[1];
		assert_int_equal(hy_shanten(p->cnt, p->nmelds), 0);
		assert_true(p->waits != 0);
		assert_int_equal(p->waits, hy_hand_waits(p->cnt, p->nmelds));
		assert_int_equal(p->waits & forbid, 0);
		union_waits |= p->waits;
	}
	/* the waits vary with the deal */
	assert_true(__builtin_popcountll(union_waits) > 10);
	hy_game_free(&t.log);
}

/* The oracle's redeal: every hand as it is, the rest of the set in the
 * wall; a function of the seed. */
static void test_redeal(void **state)
{
	(void)state;
	hy_policy rb = open_policy("rulebot");
	game g;
	int checked = 0;
	for (int n = 0; n < 400; n += 9) {
		int seat = play_to(&g, &rb, 13, n);
		if (seat < 0)
			break;
		hy_deal a, b, c;
		assert_int_equal(hy_deal_redeal(&g.t.e, 1, &a), 0);
		assert_int_equal(hy_deal_redeal(&g.t.e, 1, &b), 0);
		assert_int_equal(hy_deal_redeal(&g.t.e, 2, &c), 0);
		for (int s = 0; s < 4; s++) {
			assert_memory_equal(a.e.p[s].cnt, g.t.e.p[s].cnt, 34);
			assert_memory_equal(a.e.p[s].red, g.t.e.p[s].red, sizeof a.e.p[s].red);
		}
		check_deal(&g.t.e, seat, &a);
		check_deal(&g.t.e, seat, &c);
		assert_memory_equal(a.live, b.live, a.nlive);
		if (a.nlive > 10)
			assert_memory_not_equal(a.live, c.live, a.nlive);
		checked++;
		hy_game_free(&g.log);
	}
	hy_game_free(&g.log);
	assert_true(checked > 30);
	hy_policy_close(&rb);
}

/* Every oracle deal holds the full set and keeps what it reads: the
 * true hands (KEEP_ALL: all, KEEP_TENPAI: those of the tenpai
 * opponents), or who is tenpai (KNOW_TENPAI: a tenpai hand exactly for
 * the opponents that are). */
static void test_oracle_deals(void **state)
{
	(void)state;
	hy_policy rb = open_policy("rulebot");
	game g;
	int tenpai_opps = 0, know_ok = 0, know_n = 0, checked = 0;
	for (uint64_t gs = 21; gs < 24; gs++) {
		for (int n = 0; n < 400; n += 5) {
			int seat = play_to(&g, &rb, gs, n);
			if (seat < 0)
				break;
			const hy_engine *e = &g.t.e;
			hy_deal all, keep, know, red;
			const uint64_t *safe = g.trk.riichi_safe;
			assert_int_equal(hy_deal_oracle(e, seat, safe, HY_DEAL_KEEP_ALL, 5, &all), 0);
			assert_int_equal(hy_deal_redeal(e, 5, &red), 0);
			assert_memory_equal(all.live, red.live, all.nlive);
			assert_int_equal(hy_deal_oracle(e, seat, safe, HY_DEAL_KEEP_TENPAI, 5, &keep), 0);
			assert_int_equal(hy_deal_oracle(e, seat, safe, HY_DEAL_KNOW_TENPAI, 5, &know), 0);
			check_deal(e, seat, &all);
			check_deal(e, seat, &keep);
			check_deal(e, seat, &know);
			for (int s = 0; s < 4; s++) {
				if (s == seat)
					continue;
				const hy_player *p = &e->p[s];
				int truly = hy_shanten(p->cnt, p->nmelds) == 0;
				assert_memory_equal(all.e.p[s].cnt, p->cnt, 34);
				if (truly) {
					tenpai_opps++;
					assert_memory_equal(keep.e.p[s].cnt, p->cnt, 34);
					assert_memory_equal(keep.e.p[s].red, p->red, sizeof p->red);
				}
				const hy_player *q = &know.e.p[s];
				int dealt = hy_shanten(q->cnt, q->nmelds) == 0;
				know_n += truly;
				know_ok += truly && dealt;
				/* an opponent not tenpai gets uniform tiles, which
				 * are seldom a tenpai hand */
			}
			checked++;
			hy_game_free(&g.log);
		}
		hy_game_free(&g.log);
	}
	print_message("oracle deals: %d states, %d tenpai opponents, %d of %d dealt tenpai\n",
		      checked, tenpai_opps, know_ok, know_n);
	assert_true(checked > 100);
	assert_true(tenpai_opps > 20);
	/* a tenpai hand is built in 64 tries almost always */
	assert_true(know_ok * 10 >= know_n * 9);
	hy_policy_close(&rb);
}

/* A belief that says the shimocha is tenpai and waits on one kind, the
 * others not tenpai: the shimocha gets a tenpai hand in every deal and
 * that wait in most, where the plain guess gives it neither. */
static void test_belief_deal(void **state)
{
	(void)state;
	hy_policy rb = open_policy("rulebot");
	game g;
	int seat = play_to(&g, &rb, 7, 24);
	assert_true(seat >= 0);
	const hy_engine *e = &g.t.e;
	int shimo = (seat + 1) & 3;
	assert_int_equal(e->p[shimo].riichi, 0);
	int k = -1; /* a middle number to wait on, with the most copies unseen */
	int c[HY_TILE_UNKNOWN];
	seen(e, seat, c);
	for (int t = 0, best = 0; t < 27; t++) {
		int r = hy_tile_red_of(t), left = 4 - c[t] - (r >= 0 ? c[r] : 0);
		if (t % 9 >= 2 && t % 9 <= 6 && left > best &&
		    !(e->p[shimo].discarded >> t & 1)) {
			best = left;
			k = t;
		}
	}
	assert_true(k >= 0);
	hy_belief_out bel;
	memset(&bel, 0, sizeof bel);
	bel.tenpai[0] = 1.0f;
	for (int o = 0; o < 3; o++)
		for (int t = 0; t < HY_TILE_KINDS; t++)
			bel.wait[o][t] = t == k ? 0.95f : 0.01f;
	int tenpai = 0, on_k = 0, guess_tenpai = 0, guess_on_k = 0, others = 0;
	for (uint64_t seed = 0; seed < 100; seed++) {
		hy_deal x, y;
		assert_int_equal(hy_deal_determinize(e, seat, g.trk.riichi_safe, &bel, seed, &x), 0);
		assert_int_equal(hy_deal_determinize(e, seat, g.trk.riichi_safe, NULL, seed, &y), 0);
		check_deal(e, seat, &x);
		const hy_player *p = &x.e.p[shimo], *q = &y.e.p[shimo];
		int tp = hy_shanten(p->cnt, p->nmelds) == 0;
		tenpai += tp;
		on_k += tp && (hy_hand_waits(p->cnt, p->nmelds) >> k & 1);
		int tq = hy_shanten(q->cnt, q->nmelds) == 0;
		guess_tenpai += tq;
		guess_on_k += tq && (hy_hand_waits(q->cnt, q->nmelds) >> k & 1);
		for (int o = 1; o < 3; o++) {
			const hy_player *r = &x.e.p[(seat + 1 + o) & 3];
			others += hy_shanten(r->cnt, r->nmelds) == 0;
		}
	}
	print_message("belief deal (wait %d): tenpai %d, on it %d; the guess: %d, %d; "
		      "others tenpai %d of 200\n",
		      k, tenpai, on_k, guess_tenpai, guess_on_k, others);
	assert_int_equal(tenpai, 100);
	assert_true(on_k >= 60);
	assert_true(guess_tenpai < 30 && guess_on_k < 10);
	assert_true(others < 40);
	hy_game_free(&g.log);
	hy_policy_close(&rb);
}

/* A random tiny checkpoint's belief: probabilities in (0, 1), the same
 * for the same state, not the same for two seats. */
static void test_belief_predict(void **state)
{
	(void)state;
	char path[512];
	tiny_ckpt(path, sizeof path, "test_deal", 9);
	hy_diag d;
	hy_belief *b;
	assert_int_equal(hy_belief_open(&b, path, &d), HY_OK);
	hy_policy rb = open_policy("rulebot");
	game g;
	int seat = play_to(&g, &rb, 3, 30);
	assert_true(seat >= 0);
	hy_belief_out x, y, z;
	assert_int_equal(hy_belief_predict(b, &g.t.e, &g.trk, seat, &x, &d), HY_OK);
	assert_int_equal(hy_belief_predict(b, &g.t.e, &g.trk, seat, &y, &d), HY_OK);
	assert_int_equal(hy_belief_predict(b, &g.t.e, &g.trk, (seat + 1) & 3, &z, &d), HY_OK);
	assert_memory_equal(&x, &y, sizeof x);
	assert_memory_not_equal(&x, &z, sizeof x);
	for (int o = 0; o < 3; o++) {
		assert_true(x.tenpai[o] > 0 && x.tenpai[o] < 1);
		for (int k = 0; k < HY_TILE_KINDS; k++)
			assert_true(x.wait[o][k] > 0 && x.wait[o][k] < 1);
	}
	hy_game_free(&g.log);
	hy_belief_close(b);
	hy_policy_close(&rb);
	/* a missing checkpoint is an error naming it */
	hy_diag_init(&d, NULL);
	assert_int_not_equal(hy_belief_open(&b, "/nonexistent/belief.h5", &d), HY_OK);
	assert_non_null(strstr(d.msg, "belief.h5"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinize),
		cmocka_unit_test(test_riichi_tenpai),
		cmocka_unit_test(test_redeal),
		cmocka_unit_test(test_oracle_deals),
		cmocka_unit_test(test_belief_deal),
		cmocka_unit_test(test_belief_predict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
