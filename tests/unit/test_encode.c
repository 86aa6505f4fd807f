/* The encoder (lib/encode/encode): sample rules on small hand-written games,
 * outcome labels, the game id, and on every game under $HY_SHARED/data/logs:
 * every label legal, counts per action type, and for all 6 suit
 * permutations encode(permute(game)) == augment(encode(game)). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/perm.h"
#include "core/tile.h"
#include "docs/source.h"
#include "encode/encode.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "engine/replay.h"
#include "events/event.h"
#include "events/permute.h"
#include "samples/augment.h"
#include "samples/stream.h"

/* ------------------------------------------------------------ helpers */

typedef struct games {
	hy_game g[8];
	int n;
} games;

static void copy_game(hy_game *dst, const hy_game *src)
{
	hy_game_init(dst);
	assert_int_equal(hy_game_set_source(dst, src->source ? src->source : "", src->index), HY_OK);
	for (size_t i = 0; i < src->n; i++) {
		hy_event ev = src->ev[i];
		ev.extra = NULL;
		for (int s = 0; s < 4; s++)
			ev.names[s] = NULL;
		ev.flags &= (uint16_t)~HY_EVF_NAMES;
		assert_non_null(hy_game_push(dst, &ev));
	}
}

static hy_status keep_game(void *ctx, hy_game *g)
{
	games *gs = ctx;
	if (gs->n < 8)
		copy_game(&gs->g[gs->n++], g);
	return HY_OK;
}

/* Parses mjai JSON lines text into games. */
static void parse_mjai(const char *text, games *gs)
{
	memset(gs, 0, sizeof *gs);
	hy_game_sink sink = {.game = keep_game, .bad = NULL, .ctx = gs};
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_status s = hy_source_parse("test", text, strlen(text), &sink, &d);
	if (s != HY_OK)
		print_error("parse: %s\n", d.msg);
	assert_int_equal(s, HY_OK);
}

static void free_games(games *gs)
{
	for (int i = 0; i < gs->n; i++)
		hy_game_free(&gs->g[i]);
}

#define START_GAME "{\"type\":\"start_game\",\"names\":[\"a\",\"b\",\"c\",\"d\"]}\n"

/* A kyoku: seat 0 deals; each seat's 13 tiles. */
static const char *const deal =
	"{\"type\":\"start_kyoku\",\"bakaze\":\"E\",\"dora_marker\":\"9s\",\"kyoku\":1,\"honba\":0,"
	"\"kyotaku\":0,\"oya\":0,\"scores\":[25000,25000,25000,25000],\"tehais\":["
	"[\"1m\",\"2m\",\"3m\",\"4p\",\"5p\",\"6p\",\"7s\",\"8s\",\"9s\",\"E\",\"E\",\"S\",\"W\"],"
	"[\"1m\",\"1m\",\"9m\",\"9m\",\"1p\",\"9p\",\"1s\",\"9s\",\"N\",\"P\",\"F\",\"C\",\"C\"],"
	"[\"2m\",\"3m\",\"4m\",\"2p\",\"3p\",\"4p\",\"2s\",\"3s\",\"4s\",\"6m\",\"7m\",\"5pr\",\"5p\"],"
	"[\"5m\",\"5m\",\"6s\",\"6s\",\"7p\",\"8p\",\"9p\",\"2s\",\"3s\",\"N\",\"N\",\"P\",\"F\"]]}\n";

static void encode_text(const char *text, hy_encoder *enc, hy_sample **out, size_t *n)
{
	games gs;
	parse_mjai(text, &gs);
	assert_int_equal(gs.n, 1);
	const hy_sample *s;
	hy_diag d;
	hy_status st = hy_encode_game(enc, &gs.g[0], &s, n, &d);
	if (st != HY_OK)
		print_error("encode: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
	*out = malloc(*n * sizeof **out + 1);
	assert_non_null(*out);
	memcpy(*out, s, *n * sizeof **out);
	free_games(&gs);
}

/* ------------------------------------------------------------ rules */

static void test_sample_rules(void **state)
{
	(void)state;
	/* seat 0 draws W, discards it; seat 1 draws and discards C: seat 3 can
	 * pon? (no C pair) — seat 1's C: seat 0 none. seat 1 discards 1m: seat 3
	 * none. Then seat 2 draws 5m, discards 5m; seat 3 pons 5m (seat 0 no
	 * chi chance: seat 3 is kamicha? no). Then seat 3 discards F; ... */
	char text[8192];
	snprintf(text, sizeof text,
		 START_GAME "%s"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"W\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"W\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"2p\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"2p\",\"tsumogiri\":true}\n"
		 /* seat 2 can chi 2p? it holds 3p 4p: yes (low) — and it does */
		 "{\"type\":\"chi\",\"actor\":2,\"target\":1,\"pai\":\"2p\",\"consumed\":[\"3p\",\"4p\"]}\n"
		 "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"5m\",\"tsumogiri\":false}\n"
		 "{\"type\":\"ryukyoku\",\"deltas\":[0,0,0,0]}\n"
		 "{\"type\":\"end_kyoku\"}\n"
		 "{\"type\":\"end_game\"}\n",
		 deal);
	/* That ryukyoku is not a legal event: the encoder must refuse it. */
	games gs;
	parse_mjai(text, &gs);
	hy_encoder *enc;
	assert_int_equal(hy_encoder_new(&enc, NULL), HY_OK);
	const hy_sample *s;
	size_t n;
	hy_diag d;
	assert_int_equal(hy_encode_game(enc, &gs.g[0], &s, &n, &d), HY_EDATA);
	print_message("expected error: %s\n", d.msg);
	assert_non_null(strstr(d.msg, "game 1, event"));
	free_games(&gs);
	hy_encoder_free(enc);
}

/* Seat 0 discards 5m-adjacent tiles so that seat 1 may chi; seat 3 holds a
 * 5m pair: pon beats chi. */
static void test_call_window(void **state)
{
	(void)state;
	char text[8192];
	snprintf(text, sizeof text,
		 START_GAME "%s"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"5m\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"5m\",\"tsumogiri\":true}\n"
		 /* seat 3 (5m 5m) may pon; seat 1 (no 4m/6m... holds none) */
		 "{\"type\":\"pon\",\"actor\":3,\"target\":0,\"pai\":\"5m\",\"consumed\":[\"5m\",\"5m\"]}\n"
		 "{\"type\":\"dahai\",\"actor\":3,\"pai\":\"F\",\"tsumogiri\":false}\n"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"1s\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"1s\",\"tsumogiri\":true}\n"
		 /* seat 1 holds 1s 9s: no pon; seat 2: 2s 3s — not shimocha of 0 */
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"6p\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"6p\",\"tsumogiri\":true}\n"
		 /* seat 2 holds 4p 5p 5pr: chi 6p (high) possible, and pon? no.
		  * next event is a draw: pass */
		 "{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"8m\"}\n"
		 "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"5pr\",\"tsumogiri\":false}\n"
		 "{\"type\":\"tsumo\",\"actor\":3,\"pai\":\"1p\"}\n",
		 deal);
	hy_encoder *enc;
	assert_int_equal(hy_encoder_new(&enc, NULL), HY_OK);
	hy_sample *s;
	size_t n;
	encode_text(text, enc, &s, &n);
	for (size_t i = 0; i < n; i++)
		print_message("sample %zu: seat %d step %d action %d mask %#llx\n", i, s[i].seat,
			      s[i].step, s[i].action, (unsigned long long)s[i].mask);
	/* 0: seat 0 discards 5m; 1: seat 2 could ron the 5m (tanyao) but seat 3
	 * pons: seat 2 declined a ron, an unambiguous pass; 2: seat 3 pons;
	 * 3: seat 3 discards F; 4: seat 0 discards 1s; 5: seat 1 discards 6p;
	 * 6: seat 2 passes chi (the next event is a draw); 7: seat 2 discards
	 * 5pr (red) */
	assert_int_equal(n, 8);
	static const uint8_t seat[8] = {0, 2, 3, 3, 0, 1, 2, 2};
	static const uint8_t act[8] = {4,  HY_A_PASS, HY_A_PON, 32,
				       18, 14,        HY_A_PASS, HY_TILE_5PR};
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].seat, seat[i]);
		assert_int_equal(s[i].action, act[i]);
		assert_int_equal(s[i].step, i);
		assert_true(s[i].mask >> s[i].action & 1);
		assert_null(hy_sample_check(&s[i]));
	}
	assert_int_equal(s[1].mask, 1ull << HY_A_WIN | 1ull << HY_A_PASS);
	/* seat 2's pass: chi 6p with 4p 5p is "high"; no pon */
	assert_int_equal(s[6].mask, 1ull << HY_A_CHI_HIGH | 1ull << HY_A_PASS);
	/* no result: kyoku_delta 0, no end_game: ranks by seat order */
	assert_int_equal(s[0].rank, 0);
	assert_int_equal(s[0].score, 25000);
	assert_int_equal(s[0].kyoku_delta, 0);
	assert_int_equal(s[2].rank, 3); /* seat 3 */
	assert_int_equal(s[1].rank, 2); /* seat 2 */
	free(s);

	/* the seat filter keeps steps */
	hy_encoder_free(enc);
	hy_encode_opts o = {.seats = 1u << 2};
	assert_int_equal(hy_encoder_new(&enc, &o), HY_OK);
	encode_text(text, enc, &s, &n);
	assert_int_equal(n, 3);
	assert_int_equal(s[0].step, 1);
	assert_int_equal(s[1].step, 6);
	assert_int_equal(s[2].step, 7);
	assert_int_equal(hy_encoder_stats(enc)->filtered, 5);
	free(s);
	hy_encoder_free(enc);
}

/* Riichi gives two samples; the ron gives a win sample; outcome labels. */
static void test_riichi_ron(void **state)
{
	(void)state;
	/* seat 2: 234m 234p 234s 67m 5pr5p — tenpai on 5m/8m with the 5p pair */
	char text[8192];
	snprintf(text, sizeof text,
		 START_GAME "%s"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"N\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"N\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"W\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"W\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"E\"}\n"
		 "{\"type\":\"reach\",\"actor\":2}\n"
		 "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"E\",\"tsumogiri\":true}\n"
		 /* seat 0 holds E E: may pon the E; declines (next is a draw) */
		 "{\"type\":\"reach_accepted\",\"actor\":2,\"deltas\":[0,0,-1000,0],"
		 "\"scores\":[25000,25000,24000,25000]}\n"
		 "{\"type\":\"tsumo\",\"actor\":3,\"pai\":\"8m\"}\n"
		 "{\"type\":\"dahai\",\"actor\":3,\"pai\":\"8m\",\"tsumogiri\":true}\n"
		 "{\"type\":\"hora\",\"actor\":2,\"target\":3,\"pai\":\"8m\",\"ura_markers\":[\"1z\"]}\n"
		 "{\"type\":\"end_kyoku\"}\n"
		 "{\"type\":\"end_game\"}\n",
		 deal);
	/* ura "1z" is not mjai: use E */
	char *u = strstr(text, "\"1z\"");
	assert_non_null(u);
	memcpy(u, "\"E\" ", 4);
	hy_encoder *enc;
	assert_int_equal(hy_encoder_new(&enc, NULL), HY_OK);
	hy_sample *s;
	size_t n;
	encode_text(text, enc, &s, &n);
	for (size_t i = 0; i < n; i++)
		print_message("sample %zu: seat %d step %d action %d mask %#llx delta %d\n", i,
			      s[i].seat, s[i].step, s[i].action, (unsigned long long)s[i].mask,
			      s[i].kyoku_delta);
	/* 0 seat0 N; 1 seat3 pass (pon N); 2 seat1 W; 3 seat2 riichi; (the
	 * declaration discard E is the only tenpai-keeping one: no choice, no
	 * sample); 4 seat0 pass (pon E); 5 seat3 8m; 6 seat2 win */
	assert_int_equal(n, 7);
	static const uint8_t seat[7] = {0, 3, 1, 2, 0, 3, 2};
	static const uint8_t act[7] = {30, HY_A_PASS, 29, HY_A_RIICHI, HY_A_PASS, 7, HY_A_WIN};
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].seat, seat[i]);
		assert_int_equal(s[i].action, act[i]);
	}
	/* double riichi, ippatsu, tanyao, pinfu, sanshoku, aka: baiman 16000;
	 * the winner's stick comes back */
	int32_t won = s[6].kyoku_delta;
	assert_int_equal(won, 16000);
	assert_int_equal(s[5].kyoku_delta, -16000);
	assert_int_equal(s[3].kyoku_delta, 16000);
	assert_int_equal(s[0].kyoku_delta, 0);
	assert_int_equal(s[6].rank, 0);
	assert_int_equal(s[5].rank, 3);
	/* grp of seat 2: order 2,0,1,3 → relative 0,2,3,1 → index of (0,2,3,1) = 3 */
	assert_int_equal(s[6].grp, 3);
	/* opponent labels: seat 2 in riichi, tenpai on 5m 8m, seen from seat 3
	 * (o = 2: seat 2 is kamicha of 3 → p = 3) */
	assert_true(s[5].flags & HY_SAMPLE_F_OPP_KNOWN);
	assert_int_equal(s[5].opp_tenpai, 1u << 2);
	assert_int_equal(s[5].opp_waits[2], (1ull << 4) | (1ull << 7));
	free(s);
	hy_encoder_free(enc);
}

static void test_perm4_and_id(void **state)
{
	(void)state;
	uint8_t p[4] = {0, 1, 2, 3};
	assert_int_equal(hy_perm_index(p, 4), 0);
	uint8_t q[4] = {3, 2, 1, 0};
	assert_int_equal(hy_perm_index(q, 4), 23);
	uint8_t r[4] = {0, 2, 3, 1};
	assert_int_equal(hy_perm_index(r, 4), 3);
	uint8_t t[4] = {1, 0, 2, 3};
	assert_int_equal(hy_perm_index(t, 4), 6);
	/* the game id hashes the play, not where it was read from */
	uint64_t a, b, c;
	hy_game g1, g2;
	hy_game_init(&g1);
	hy_game_init(&g2);
	assert_int_equal(hy_game_set_source(&g1, "logs/x.json", 0), HY_OK);
	assert_int_equal(hy_game_set_source(&g2, "/abs/./logs/x.json", 7), HY_OK);
	hy_event e;
	hy_event_blank(&e, HY_EV_START_GAME);
	assert_non_null(hy_game_push(&g1, &e));
	e.line = 9;
	e.extra = "{\"x\":1}";
	assert_non_null(hy_game_push(&g2, &e));
	hy_event_blank(&e, HY_EV_DAHAI);
	e.actor = 0;
	e.pai = 5;
	assert_non_null(hy_game_push(&g1, &e));
	e.flags |= HY_EVF_TSUMOGIRI;
	assert_non_null(hy_game_push(&g2, &e));
	assert_int_equal(hy_encode_game_id(&g1, &a, NULL), HY_OK);
	assert_int_equal(hy_encode_game_id(&g2, &b, NULL), HY_OK);
	assert_true(a == b);
	g2.ev[1].pai = 5 + 9; /* the same play with m and p swapped: the same id */
	assert_int_equal(hy_encode_game_id(&g2, &c, NULL), HY_OK);
	assert_true(a == c);
	g2.ev[1].pai = 6; /* another tile: another game */
	assert_int_equal(hy_encode_game_id(&g2, &c, NULL), HY_OK);
	assert_true(a != c);
	/* hands and calls listed in another order (mjai as dealt, Tenhou
	 * sorted), a ryukyoku with or without its declarer: the same id */
	hy_game_clear(&g1);
	hy_game_clear(&g2);
	hy_event_blank(&e, HY_EV_START_KYOKU);
	for (int s = 0; s < 4; s++)
		for (int k = 0; k < 13; k++)
			e.tehais[s][k] = (uint8_t)(s * 7 + k);
	assert_non_null(hy_game_push(&g1, &e));
	for (int s = 0; s < 4; s++)
		for (int k = 0; k < 13; k++)
			e.tehais[s][k] = (uint8_t)(s * 7 + 12 - k);
	assert_non_null(hy_game_push(&g2, &e));
	hy_event_blank(&e, HY_EV_PON);
	e.actor = 1;
	e.target = 0;
	e.pai = 31;
	e.nconsumed = 2;
	e.consumed[0] = 4;
	e.consumed[1] = 34;
	assert_non_null(hy_game_push(&g1, &e));
	e.consumed[0] = 34;
	e.consumed[1] = 4;
	assert_non_null(hy_game_push(&g2, &e));
	hy_event_blank(&e, HY_EV_RYUKYOKU);
	assert_non_null(hy_game_push(&g1, &e));
	e.actor = 2;
	e.flags |= HY_EVF_ACTOR;
	assert_non_null(hy_game_push(&g2, &e));
	assert_int_equal(hy_encode_game_id(&g1, &a, NULL), HY_OK);
	assert_int_equal(hy_encode_game_id(&g2, &b, NULL), HY_OK);
	assert_true(a == b);
	/* a kan's indicator before or after the discard that reveals it */
	hy_event_blank(&e, HY_EV_DORA);
	e.dora_marker = 7;
	hy_event dh;
	hy_event_blank(&dh, HY_EV_DAHAI);
	dh.actor = 1;
	dh.pai = 8;
	assert_non_null(hy_game_push(&g1, &dh));
	assert_non_null(hy_game_push(&g1, &e));
	assert_non_null(hy_game_push(&g2, &e));
	assert_non_null(hy_game_push(&g2, &dh));
	assert_int_equal(hy_encode_game_id(&g1, &a, NULL), HY_OK);
	assert_int_equal(hy_encode_game_id(&g2, &b, NULL), HY_OK);
	assert_true(a == b);
	g2.ev[0].tehais[3][0] = 30; /* another deal: another game */
	assert_int_equal(hy_encode_game_id(&g2, &b, NULL), HY_OK);
	assert_true(a != b);
	/* pinned: SHA-256("hydra/game-content/2" 00) for a game without events */
	hy_game_clear(&g1);
	assert_int_equal(hy_encode_game_id(&g1, &a, NULL), HY_OK);
	print_message("id(empty) = %016llx\n", (unsigned long long)a);
	assert_int_equal(a, UINT64_C(0xb228653127ef8222));
	hy_game_free(&g1);
	hy_game_free(&g2);
	assert_int_equal(hy_action_class(0), 0);
	assert_int_equal(hy_action_class(36), 0);
	assert_int_equal(hy_action_class(37), 1);
	assert_int_equal(hy_action_class(40), 2);
	assert_int_equal(hy_action_class(45), 7);
	assert_string_equal(hy_action_class_name(5), "win");
}

/* ------------------------------------------------------------ real logs */

typedef struct logctx {
	hy_encoder *enc;
	long games, bad, docs;
	long failed_known; /* encode errors on games the replay also rejects */
	uint64_t samples, perm_checked;
	uint64_t per_class[HY_ACTION_CLASSES];
	int check_perms;
} logctx;

static void check_samples(const hy_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = hy_sample_check(&s[i]);
		if (why)
			print_error("sample %zu: %s\n", i, why);
		assert_null(why);
		assert_true(s[i].mask >> s[i].action & 1);
		assert_true(__builtin_popcountll(s[i].mask) >= 2);
		for (int c = 0; c < HY_OBS_SIZE; c++)
			assert_true((s[i].obs[c] & 0x7C00) != 0x7C00); /* finite */
		/* grp lists relative seats 1st to 4th: the observer (0) is at its rank */
		static const uint8_t perms[24][4] = {
			{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2},
			{0, 3, 2, 1}, {1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0},
			{1, 3, 0, 2}, {1, 3, 2, 0}, {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3},
			{2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0}, {3, 0, 1, 2}, {3, 0, 2, 1},
			{3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
		assert_int_equal(perms[s[i].grp][s[i].rank], 0);
		assert_true(s[i].flags & HY_SAMPLE_F_OPP_KNOWN);
		assert_int_equal(s[i].opp_tenpai & ~7, 0);
		/* furiten flags only on tenpai opponents; no other bit */
		assert_int_equal(s[i].flags >> 1 & ~s[i].opp_tenpai, 0);
	}
}

static int replay_rejects(const hy_game *g)
{
	hy_replay_report rep;
	memset(&rep, 0, sizeof rep);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_replay_game(g, &rep, &d);
	return rep.illegal != 0;
}

static hy_status on_game(void *ctx, hy_game *g)
{
	logctx *c = ctx;
	const hy_sample *s;
	size_t n;
	hy_diag d;
	c->games++;
	hy_status st = hy_encode_game(c->enc, g, &s, &n, &d);
	if (st != HY_OK) {
		char buf[1200];
		print_message("  %s\n", hy_diag_format(&d, buf, sizeof buf));
		assert_int_equal(st, HY_EDATA);
		assert_true(replay_rejects(g)); /* only games the engine rejects */
		c->failed_known++;
		return HY_OK;
	}
	check_samples(s, n);
	c->samples += n;
	for (size_t i = 0; i < n; i++)
		c->per_class[hy_action_class(s[i].action)]++;
	if (!c->check_perms || n == 0)
		return HY_OK;
	hy_sample *orig = malloc(n * sizeof *orig);
	hy_sample *want = malloc(sizeof *want);
	assert_non_null(orig);
	assert_non_null(want);
	memcpy(orig, s, n * sizeof *orig);
	for (int p = 0; p < HY_SUIT_PERMS; p++) {
		hy_game pg;
		copy_game(&pg, g);
		assert_int_equal(hy_game_permute_suits(&pg, p), HY_OK);
		const hy_sample *ps;
		size_t pn;
		st = hy_encode_game(c->enc, &pg, &ps, &pn, &d);
		if (st != HY_OK)
			print_error("perm %d: %s\n", p, d.msg);
		assert_int_equal(st, HY_OK);
		assert_int_equal(pn, n);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(hy_augment_sample(&orig[i], want, p), HY_OK);
			if (memcmp(want, &ps[i], sizeof *want) != 0) {
				for (int k = 0; k < HY_OBS_SIZE; k++)
					if (want->obs[k] != ps[i].obs[k])
						print_error("%s game %u perm %d sample %zu: obs ch %d "
							    "tile %d: augment %#x, encode %#x\n",
							    g->source, g->index, p, i, k / 34,
							    k % 34, want->obs[k], ps[i].obs[k]);
				print_error("%s game %u perm %d sample %zu differs (action %d/%d)\n",
					    g->source, g->index, p, i, want->action, ps[i].action);
				fail();
			}
		}
		c->perm_checked += n;
		hy_game_free(&pg);
	}
	free(orig);
	free(want);
	return HY_OK;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	logctx *c = ctx;
	c->bad++;
	return HY_OK;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? 2 * cap : 1 << 20;
			char *nb = realloc(b, cap);
			if (!nb) {
				free(b);
				fclose(f);
				return NULL;
			}
			b = nb;
		}
		size_t r = fread(b + n, 1, 65536, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	b[n] = 0;
	*len = n;
	return b;
}

static void walk(const char *dir, logctx *c)
{
	struct dirent **ents;
	int ne = scandir(dir, &ents, NULL, alphasort);
	if (ne < 0)
		return;
	for (int e = 0; e < ne; e++) {
		const char *nm = ents[e]->d_name;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, nm);
		struct stat st;
		if (nm[0] == '.' || stat(path, &st) != 0) {
			free(ents[e]);
			continue;
		}
		free(ents[e]);
		if (S_ISDIR(st.st_mode)) {
			walk(path, c);
			continue;
		}
		size_t len;
		char *data = slurp(path, &len);
		if (!data)
			continue;
		hy_source_kind k = hy_source_detect(data, len);
		if (k != HY_SOURCE_UNKNOWN && k != HY_SOURCE_EMPTY) {
			c->docs++;
			hy_game_sink sink = {.game = on_game, .bad = on_bad, .ctx = c};
			hy_diag d;
			hy_diag_init(&d, path);
			hy_source_parse(path, data, len, &sink, &d);
		}
		free(data);
	}
	free(ents);
}

static void run_logs(int perms)
{
	const char *shared = getenv("HY_SHARED");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/data/logs", shared && *shared ? shared : "../shared");
	struct stat st;
	if (stat(dir, &st) != 0) {
		print_message("skipped: %s not found (set HY_SHARED)\n", dir);
		skip();
	}
	logctx c;
	memset(&c, 0, sizeof c);
	c.check_perms = perms;
	assert_int_equal(hy_encoder_new(&c.enc, NULL), HY_OK);
	walk(dir, &c);
	const hy_encode_stats *es = hy_encoder_stats(c.enc);
	print_message("encode: %ld documents, %ld games (%ld unparsable, %ld rejected by the "
		      "engine), %" PRIu64 " kyoku (%" PRIu64 " skipped), %" PRIu64 " samples\n",
		      c.docs, c.games, c.bad, c.failed_known, es->kyoku, es->skipped_kyoku,
		      c.samples);
	for (int k = 0; k < HY_ACTION_CLASSES; k++)
		print_message("encode:   %-8s %" PRIu64 "\n", hy_action_class_name(k),
			      c.per_class[k]);
	if (perms)
		print_message("encode: %" PRIu64 " samples checked under 6 permutations\n",
			      c.perm_checked);
	assert_true(c.games >= 100);
	assert_true(c.failed_known <= 2);
	assert_true(c.samples > 10000);
	for (int k = 0; k < HY_ACTION_CLASSES; k++)
		assert_true(c.per_class[k] > 0);
	hy_encoder_free(c.enc);
}

static void test_logs(void **state)
{
	(void)state;
	run_logs(0);
}

static void test_logs_permuted(void **state)
{
	(void)state;
	run_logs(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perm4_and_id),
		cmocka_unit_test(test_sample_rules),
		cmocka_unit_test(test_call_window),
		cmocka_unit_test(test_riichi_ron),
		cmocka_unit_test(test_logs),
		cmocka_unit_test(test_logs_permuted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
