/* Structural game validation: one passing and one failing case per rule, with
 * the exact message and the offending event's line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/tile.h"
#include "events/event.h"
#include "events/validate.h"
#include "mjai/mjai.h"

#define SG "{\"type\":\"start_game\",\"names\":[\"A\",\"B\",\"C\",\"D\"]}"
#define SK "{\"type\":\"start_kyoku\",\"bakaze\":\"E\",\"kyoku\":1,\"honba\":0,\"kyotaku\":0,\"oya\":0,\"dora_marker\":\"1m\"}"
#define TS(a) "{\"type\":\"tsumo\",\"actor\":" #a ",\"pai\":\"1m\"}"
#define DH(a) "{\"type\":\"dahai\",\"actor\":" #a ",\"pai\":\"1m\",\"tsumogiri\":true}"
#define REACH(a) "{\"type\":\"reach\",\"actor\":" #a "}"
#define ACC(a) "{\"type\":\"reach_accepted\",\"actor\":" #a "}"
#define HORA "{\"type\":\"hora\",\"actor\":1,\"target\":0,\"pai\":\"1m\"}"
#define RY "{\"type\":\"ryukyoku\"}"
#define EK "{\"type\":\"end_kyoku\"}"
#define EG "{\"type\":\"end_game\"}"
#define CALL(t, a, tg, pai, cons) \
	"{\"type\":\"" t "\",\"actor\":" #a ",\"target\":" #tg ",\"pai\":\"" pai "\",\"consumed\":[" cons "]}"

#define END NULL

/* Parses the lines (line numbers 1..) into a game and validates it. */
static hy_status run_lines(const char *const *lines, hy_diag *d)
{
	hy_game g;
	hy_game_init(&g);
	hy_diag_init(d, "v");
	uint32_t n = 0;
	for (; lines[n]; n++) {
		hy_event e;
		hy_status s = hy_mjai_parse_event(&g, lines[n], strlen(lines[n]), n + 1, &e, d);
		if (s != HY_OK)
			fail_msg("line %u does not parse: %s", n + 1, d->msg);
		assert_non_null(hy_game_push(&g, &e));
	}
	hy_status s = hy_game_validate(&g, d);
	hy_game_free(&g);
	return s;
}

#define OK(...)                                                          \
	do {                                                             \
		const char *const L[] = {__VA_ARGS__, END};              \
		hy_diag d;                                               \
		if (run_lines(L, &d) != HY_OK)                           \
			fail_msg("expected valid, got line %u: %s", d.line, d.msg); \
	} while (0)

#define BAD(line_, msg_, ...)                                                         \
	do {                                                                          \
		const char *const L[] = {__VA_ARGS__, END};                           \
		hy_diag d;                                                            \
		hy_status s_ = run_lines(L, &d);                                      \
		if (s_ != HY_EDATA || d.line != (line_) || strcmp(d.msg, (msg_)))     \
			fail_msg("got status %d line %u '%s'; expected line %u '%s'", \
				 s_, d.line, d.msg, (unsigned)(line_), (msg_));       \
	} while (0)

static void test_valid_games(void **state)
{
	(void)state;
	OK(SG, SK, TS(0), DH(0), RY, EK, EG);
	OK(SG, SK, TS(0), DH(0), HORA, EK, SK, TS(0), EK, EG);
	/* Old dialect: no end_kyoku anywhere, no end_game. */
	OK(SG, SK, TS(0), DH(0), HORA, SK, TS(0), DH(0));
	OK(SG, SK, TS(0), DH(0), EG);
	/* Fragments: no start_game; a game with no events. */
	OK(SK, TS(0), DH(0));
	OK(EG);
	hy_game g;
	hy_game_init(&g);
	hy_diag d;
	assert_int_equal(hy_game_validate(&g, &d), HY_OK);
}

static void test_start_and_end_game(void **state)
{
	(void)state;
	BAD(2, "start_game: not the first event of the game", SK, SG, EG);
	BAD(8, "tsumo: comes after end_game", SG, SK, TS(0), DH(0), RY, EK, EG, TS(0));
	BAD(3, "end_game: comes after end_game", SG, EG, EG);
	BAD(2, "start_game: comes after end_game", EG, SG);
}

static void test_kyoku_nesting(void **state)
{
	(void)state;
	BAD(2, "tsumo: outside a kyoku", SG, TS(0), SK, EK, EG);
	BAD(6, "dahai: outside a kyoku", SG, SK, TS(0), DH(0), EK, DH(0), EG);
	BAD(2, "end_kyoku: outside a kyoku", SG, EK, EG);
	BAD(5, "end_kyoku: outside a kyoku", SG, SK, RY, EK, EK, EG);
	/* With end_kyoku in the game, every kyoku must end with one. */
	BAD(4, "start_kyoku: previous kyoku has no end_kyoku", SG, SK, RY, SK, RY, EK, EG);
	BAD(7, "end_game: kyoku has no end_kyoku", SG, SK, RY, EK, SK, RY, EG);
	BAD(3, "end_game: kyoku has no end_kyoku", SG, SK, EG, EK);
	BAD(2, "dora: outside a kyoku", SG, "{\"type\":\"dora\",\"dora_marker\":\"3p\"}");
	BAD(2, "hora: outside a kyoku", SG, HORA);
	BAD(2, "ryukyoku: outside a kyoku", SG, RY);
	BAD(2, "reach: outside a kyoku", SG, REACH(0));
	BAD(2, "pon: outside a kyoku", SG, CALL("pon", 1, 0, "1m", "\"1m\",\"1m\""));
}

static void test_calls(void **state)
{
	(void)state;
	OK(SK, CALL("chi", 1, 0, "3m", "\"1m\",\"2m\""));
	OK(SK, CALL("chi", 0, 3, "5mr", "\"4m\",\"6m\""));
	OK(SK, CALL("chi", 0, 3, "7s", "\"8s\",\"9s\""));
	OK(SK, CALL("pon", 2, 0, "5p", "\"5pr\",\"5p\""));
	OK(SK, CALL("daiminkan", 2, 0, "C", "\"C\",\"C\",\"C\""));
	OK(SK, CALL("kan", 2, 0, "5s", "\"5s\",\"5sr\",\"5s\""));
	OK(SK, "{\"type\":\"kakan\",\"actor\":0,\"pai\":\"E\",\"consumed\":[\"E\",\"E\",\"E\"]}");
	OK(SK, "{\"type\":\"ankan\",\"actor\":0,\"consumed\":[\"5m\",\"5m\",\"5mr\",\"5m\"]}");

	BAD(2, "pon: target 1 is the actor", SK, CALL("pon", 1, 1, "1m", "\"1m\",\"1m\""));
	BAD(2, "daiminkan: target 3 is the actor", SK,
	    CALL("daiminkan", 3, 3, "1m", "\"1m\",\"1m\",\"1m\""));
	BAD(2, "chi: target 2 is not the player to the left of actor 0", SK,
	    CALL("chi", 0, 2, "3m", "\"1m\",\"2m\""));
	BAD(2, "chi: target 0 is the actor", SK,
	    CALL("chi", 0, 0, "3m", "\"1m\",\"2m\""));
	BAD(2, "chi: consumed 2m 4m and pai 7m do not form a run", SK,
	    CALL("chi", 1, 0, "7m", "\"2m\",\"4m\""));
	BAD(2, "chi: consumed 8m 9m and pai 1p do not form a run", SK,
	    CALL("chi", 1, 0, "1p", "\"8m\",\"9m\""));
	BAD(2, "chi: consumed E S and pai W do not form a run", SK,
	    CALL("chi", 1, 0, "W", "\"E\",\"S\""));
	BAD(2, "chi: consumed 2m 2m and pai 2m do not form a run", SK,
	    CALL("chi", 1, 0, "2m", "\"2m\",\"2m\""));
	BAD(2, "pon: consumed 2m 3m and pai 2m are not of one kind", SK,
	    CALL("pon", 1, 0, "2m", "\"2m\",\"3m\""));
	BAD(2, "daiminkan: consumed 2m 2m 2m and pai 2p are not of one kind", SK,
	    CALL("daiminkan", 1, 0, "2p", "\"2m\",\"2m\",\"2m\""));
	BAD(2, "kakan: consumed E E S and pai E are not of one kind", SK,
	    "{\"type\":\"kakan\",\"actor\":0,\"pai\":\"E\",\"consumed\":[\"E\",\"E\",\"S\"]}");
	BAD(2, "ankan: consumed 9s 9s 9s 9p are not of one kind", SK,
	    "{\"type\":\"ankan\",\"actor\":0,\"consumed\":[\"9s\",\"9s\",\"9s\",\"9p\"]}");
}

static void test_reach(void **state)
{
	(void)state;
	OK(SK, TS(0), REACH(0), DH(0), ACC(0), TS(1), DH(1));
	OK(SK, TS(0), REACH(0), DH(0), CALL("pon", 2, 0, "1m", "\"1m\",\"1m\""), ACC(0));
	BAD(3, "reach_accepted: no reach by actor 0 before it", SK, TS(0), ACC(0));
	BAD(5, "reach_accepted: no reach by actor 1 before it", SK, TS(0), REACH(0), DH(0), ACC(1));
	BAD(6, "reach_accepted: no reach by actor 0 before it", SK, REACH(0), DH(0), ACC(0), TS(1),
	    ACC(0));
	/* A reach does not carry over into the next kyoku. */
	BAD(4, "reach_accepted: no reach by actor 0 before it", SK, REACH(0), SK, ACC(0));
}

/* Events built by hand (another producer): no line → the message names the
 * event's position; missing fields are caught. */
static void test_built_events(void **state)
{
	(void)state;
	hy_game g;
	hy_game_init(&g);
	hy_event e;
	hy_event_blank(&e, HY_EV_START_KYOKU);
	e.oya = 0;
	e.dora_marker = 5;
	assert_non_null(hy_game_push(&g, &e));
	hy_event_blank(&e, HY_EV_TSUMO);
	e.actor = 0;
	e.pai = HY_TILE_UNKNOWN;
	assert_non_null(hy_game_push(&g, &e));
	hy_diag d;
	hy_diag_init(&d, "x");
	assert_int_equal(hy_game_validate(&g, &d), HY_OK);
	hy_event_blank(&e, HY_EV_PON);
	e.actor = 1;
	e.target = 0;
	e.pai = 3;
	e.nconsumed = 2;
	e.consumed[0] = 3;
	e.consumed[1] = 4;
	assert_non_null(hy_game_push(&g, &e));
	assert_int_equal(hy_game_validate(&g, &d), HY_EDATA);
	assert_int_equal(d.line, 0);
	assert_string_equal(d.msg, "event 3: pon: consumed 4m 5m and pai 4m are not of one kind");
	g.ev[2].consumed[1] = 3;
	g.ev[2].target = HY_NO_SEAT;
	assert_int_equal(hy_game_validate(&g, &d), HY_EDATA);
	assert_string_equal(d.msg, "event 3: pon: missing or bad target");
	g.ev[2].target = 0;
	g.ev[2].nconsumed = 3;
	assert_int_equal(hy_game_validate(&g, &d), HY_EDATA);
	assert_string_equal(d.msg, "event 3: pon: consumed has 3 tiles, expected 2");
	g.ev[2].nconsumed = 2;
	g.ev[1].pai = HY_TILE_NONE;
	assert_int_equal(hy_game_validate(&g, &d), HY_EDATA);
	assert_string_equal(d.msg, "event 2: tsumo: missing or bad pai");
	g.ev[1].pai = 0;
	g.ev[1].line = 42;
	g.ev[1].type = 99;
	assert_int_equal(hy_game_validate(&g, &d), HY_EDATA);
	assert_int_equal(d.line, 42);
	assert_string_equal(d.msg, "event: unknown event type 99");
	g.ev[1].type = HY_EV_TSUMO;
	assert_int_equal(hy_game_validate(&g, &d), HY_OK);
	hy_game_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_games),
		cmocka_unit_test(test_start_and_end_game),
		cmocka_unit_test(test_kyoku_nesting),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_reach),
		cmocka_unit_test(test_built_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
