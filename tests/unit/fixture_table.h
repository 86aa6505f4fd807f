/* Shared helper of the rule-policy unit tests (test_play.c,
 * test_rulebot.c): hand-made tables — an engine with a log and the
 * runner's tracker fed from it — and one decision of a policy on them. */
#ifndef HY_TEST_FIXTURE_TABLE_H
#define HY_TEST_FIXTURE_TABLE_H

#include <string.h>

#include "core/tile.h"
#include "engine/engine.h"
#include "play/policy.h"


static inline int decide1(hy_policy *p, const hy_engine *e, const hy_obs_track *t, int seat,
		   uint64_t key)
{
	hy_decision r = {.e = e, .track = t, .key = key, .seat = seat,
			 .legal = hy_engine_legal_mask(e, seat)};
	assert_true(r.legal != 0);
	hy_choice c;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(p->ops->decide(p, 1, &r, &c, &d), HY_OK);
	assert_true(r.legal >> c.index & 1);
	return c.index;
}

/* Parses 13 tiles in mpsz notation. */
static inline void hand(const char *s, uint8_t out[13])
{
	assert_int_equal(hy_mpsz_parse(s, out, 13, NULL), 13);
}

static inline int tile(const char *s)
{
	uint8_t t[1];
	assert_int_equal(hy_mpsz_parse(s, t, 1, NULL), 1);
	return t[0];
}

/* Engine with a log and a tracker fed from it (the runner's way). */
typedef struct table {
	hy_engine e;
	hy_game log;
	hy_obs_track trk;
	size_t fed;
} table;

static inline void feed(table *t)
{
	for (; t->fed < t->log.n; t->fed++) {
		const hy_event *ev = &t->log.ev[t->fed];
		if (ev->type == HY_EV_START_KYOKU)
			hy_obs_track_reset(&t->trk);
		else
			hy_obs_track_event(&t->trk, &t->e, ev);
	}
}

static inline void deal(table *t, const char *h0, const char *h1, const char *h2, const char *h3,
		 const char *dora)
{
	memset(t, 0, sizeof *t);
	hy_game_init(&t->log);
	hy_engine_init(&t->e, NULL, &t->log);
	uint8_t h[4][13];
	hand(h0, h[0]);
	hand(h1, h[1]);
	hand(h2, h[2]);
	hand(h3, h[3]);
	hy_diag d;
	hy_status st = hy_engine_start_kyoku(&t->e, (const uint8_t(*)[13])h, tile(dora), &d);
	if (st != HY_OK)
		print_error("deal: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
	feed(t);
}

static inline void draw(table *t, const char *s)
{
	hy_diag d;
	assert_int_equal(t->e.phase, HY_PH_DRAW);
	assert_int_equal(hy_engine_draw(&t->e, tile(s), &d), HY_OK);
	feed(t);
}

static inline void act(table *t, int seat, hy_action a)
{
	hy_diag d;
	hy_status st = hy_engine_act(&t->e, seat, &a, &d);
	if (st != HY_OK)
		print_error("act: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
	feed(t);
}

static inline void discard(table *t, int seat, const char *s)
{
	act(t, seat, (hy_action){.type = HY_ACT_DISCARD, .tile = (uint8_t)tile(s)});
}

/* Everyone in a call window passes. */
static inline void pass_all(table *t)
{
	while (t->e.phase == HY_PH_CALL || t->e.phase == HY_PH_CHANKAN) {
		unsigned who = hy_engine_deciders(&t->e);
		assert_true(who != 0);
		act(t, __builtin_ctz(who), (hy_action){.type = HY_ACT_PASS});
	}
}

/* Seat 0 (hand h0) draws d0 and throws x0; seat 1 draws r and declares
 * riichi on it; seats 2 and 3 throw 8m and 8p; seat 0 draws last and
 * decides. */
static inline void riichi_scene(table *t, const char *h0, const char *d0, const char *x0,
				const char *r, const char *last, const char *dora)
{
	deal(t, h0, "123456789m23p55s", "234m234p234s6m6m6p6p", "77m77p66s88s11p11s4m", dora);
	draw(t, d0);
	discard(t, 0, x0);
	pass_all(t);
	draw(t, r);
	act(t, 1, (hy_action){.type = HY_ACT_RIICHI});
	discard(t, 1, r);
	pass_all(t);
	draw(t, "8m");
	discard(t, 2, "8m");
	pass_all(t);
	draw(t, "8p");
	discard(t, 3, "8p");
	pass_all(t);
	draw(t, last);
}

/* Seat 0, far from tenpai (19m 26p 379s 12347z 5p), holding the genbutsu
 * 9s of seat 1's riichi, draws 2s. */
static inline void riichi_on_9s(table *t)
{
	riichi_scene(t, "19m26p379s12347z5m", "5p", "5m", "9s", "2s", "5z");
}

/* What every rule bot does: tsumo on a tanki wait (menzen tsumo); riichi
 * on a plain closed tenpai, declared with the guest wind. */
static inline void check_win_and_riichi(hy_policy *p)
{
	table t;
	deal(&t, "123456789m1235p", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "9m");
	draw(&t, "5p");
	assert_int_equal(decide1(p, &t.e, &t.trk, 0, 0), HY_A_WIN);
	hy_game_free(&t.log);
	deal(&t, "123456789m12p99p", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "9m");
	draw(&t, "3z");
	assert_int_equal(decide1(p, &t.e, &t.trk, 0, 0), HY_A_RIICHI);
	act(&t, 0, (hy_action){.type = HY_ACT_RIICHI});
	assert_int_equal(t.e.phase, HY_PH_RIICHI);
	assert_int_equal(decide1(p, &t.e, &t.trk, 0, 0), tile("3z"));
	hy_game_free(&t.log);
}

#endif
