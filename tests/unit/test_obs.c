/* The 85 × 34 observation (lib/encode/obs): golden cell values for every
 * channel group of ARCHITECTURE.md §5, on states built by replaying short
 * hand-written mjai games through the encoder; and the half conversion. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "docs/source.h"
#include "encode/encode.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "events/event.h"

/* ------------------------------------------------------------ helpers */

typedef struct one {
	hy_game g;
	int n;
} one;

static hy_status keep(void *ctx, hy_game *g)
{
	one *o = ctx;
	assert_int_equal(o->n, 0);
	o->n++;
	assert_int_equal(hy_game_set_source(&o->g, "test", 0), HY_OK);
	for (size_t i = 0; i < g->n; i++) {
		hy_event ev = g->ev[i];
		ev.extra = NULL;
		for (int s = 0; s < 4; s++)
			ev.names[s] = NULL;
		ev.flags &= (uint16_t)~HY_EVF_NAMES;
		assert_non_null(hy_game_push(&o->g, &ev));
	}
	return HY_OK;
}

/* Encodes a one-game mjai text; returns a malloc'ed copy of the samples. */
static hy_sample *encode(const char *text, size_t *n)
{
	one o;
	memset(&o, 0, sizeof o);
	hy_game_init(&o.g);
	hy_game_sink sink = {.game = keep, .ctx = &o};
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_status st = hy_source_parse("test", text, strlen(text), &sink, &d);
	if (st != HY_OK)
		print_error("parse: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
	hy_encoder *enc;
	assert_int_equal(hy_encoder_new(&enc, NULL), HY_OK);
	const hy_sample *s;
	st = hy_encode_game(enc, &o.g, &s, n, &d);
	if (st != HY_OK)
		print_error("encode: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
	hy_sample *out = malloc(*n * sizeof *out + 1);
	assert_non_null(out);
	memcpy(out, s, *n * sizeof *out);
	hy_encoder_free(enc);
	hy_game_free(&o.g);
	return out;
}

static const hy_sample *find(const hy_sample *s, size_t n, int seat, int action)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].seat == seat && s[i].action == action)
			return &s[i];
	print_error("no sample of seat %d with action %d\n", seat, action);
	fail();
	return NULL;
}

#define H1 0x3C00
#define HHALF 0x3800

/* Asserts channel c equals exactly the listed cells (value v), 0 elsewhere. */
static void chan_is(const hy_sample *s, int c, uint16_t v, const char *mpsz)
{
	uint16_t want[34] = {0};
	if (mpsz && *mpsz) {
		uint8_t t[34];
		int k = hy_mpsz_parse(mpsz, t, 34, NULL);
		assert_true(k > 0);
		for (int i = 0; i < k; i++)
			want[hy_tile_kind(t[i])] = v;
	}
	for (int t = 0; t < 34; t++)
		if (s->obs[c * 34 + t] != want[t]) {
			print_error("channel %d tile %d (%s): %#06x, want %#06x\n", c, t,
				    hy_tile_to_mjai(t), s->obs[c * 34 + t], want[t]);
			fail();
		}
}

static void fill_is(const hy_sample *s, int c, uint16_t v)
{
	for (int t = 0; t < 34; t++)
		if (s->obs[c * 34 + t] != v) {
			print_error("channel %d tile %d: %#06x, want fill %#06x\n", c, t,
				    s->obs[c * 34 + t], v);
			fail();
		}
}

static uint16_t h(double v)
{
	return hy_half_from_float((float)v);
}

#define START_GAME "{\"type\":\"start_game\",\"names\":[\"a\",\"b\",\"c\",\"d\"]}\n"

/* seat 0: 123m 456p 789s EE S W; seat 1: 11m 99m 1p 9p 1s 9s N P F CC;
 * seat 2: 234m 234p 234s 67m 5pr5p; seat 3: 55m 66s 789p 23s NN P F.
 * Dora indicator 9s (dora 1s). */
static const char deal[] =
	"{\"type\":\"start_kyoku\",\"bakaze\":\"E\",\"dora_marker\":\"9s\",\"kyoku\":1,\"honba\":0,"
	"\"kyotaku\":0,\"oya\":0,\"scores\":[25000,25000,25000,25000],\"tehais\":["
	"[\"1m\",\"2m\",\"3m\",\"4p\",\"5p\",\"6p\",\"7s\",\"8s\",\"9s\",\"E\",\"E\",\"S\",\"W\"],"
	"[\"1m\",\"1m\",\"9m\",\"9m\",\"1p\",\"9p\",\"1s\",\"9s\",\"N\",\"P\",\"F\",\"C\",\"C\"],"
	"[\"2m\",\"3m\",\"4m\",\"2p\",\"3p\",\"4p\",\"2s\",\"3s\",\"4s\",\"6m\",\"7m\",\"5pr\",\"5p\"],"
	"[\"5m\",\"5m\",\"6s\",\"6s\",\"7p\",\"8p\",\"9p\",\"2s\",\"3s\",\"N\",\"N\",\"P\",\"F\"]]}\n";

static const char play[] =
	"{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"W\"}\n"
	"{\"type\":\"dahai\",\"actor\":0,\"pai\":\"W\",\"tsumogiri\":true}\n"
	"{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"2p\"}\n"
	"{\"type\":\"dahai\",\"actor\":1,\"pai\":\"C\",\"tsumogiri\":false}\n"
	"{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"E\"}\n"
	"{\"type\":\"dahai\",\"actor\":2,\"pai\":\"E\",\"tsumogiri\":true}\n"
	"{\"type\":\"pon\",\"actor\":0,\"target\":2,\"pai\":\"E\",\"consumed\":[\"E\",\"E\"]}\n"
	"{\"type\":\"dahai\",\"actor\":0,\"pai\":\"S\",\"tsumogiri\":false}\n"
	"{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"8m\"}\n"
	"{\"type\":\"dahai\",\"actor\":1,\"pai\":\"8m\",\"tsumogiri\":true}\n"
	"{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"1s\"}\n"
	"{\"type\":\"reach\",\"actor\":2}\n"
	"{\"type\":\"dahai\",\"actor\":2,\"pai\":\"1s\",\"tsumogiri\":true}\n"
	"{\"type\":\"reach_accepted\",\"actor\":2,\"deltas\":[0,0,-1000,0],"
	"\"scores\":[25000,25000,24000,25000]}\n"
	"{\"type\":\"tsumo\",\"actor\":3,\"pai\":\"P\"}\n"
	"{\"type\":\"dahai\",\"actor\":3,\"pai\":\"P\",\"tsumogiri\":true}\n"
	"{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"9m\"}\n"
	"{\"type\":\"dahai\",\"actor\":0,\"pai\":\"9m\",\"tsumogiri\":true}\n";

static hy_sample *scenario(size_t *n)
{
	static char text[8192];
	snprintf(text, sizeof text, START_GAME "%s%s", deal, play);
	return encode(text, n);
}

/* ------------------------------------------------------------ tests */

/* Seat 0 after drawing 9m: 123m 9m 456p 789s W + pon E (from seat 2). */
static void test_own_hand(void **state)
{
	(void)state;
	size_t n;
	hy_sample *s = scenario(&n);
	const hy_sample *x = find(s, n, 0, 8); /* discards 9m */
	chan_is(x, HY_OBS_HAND + 0, H1, "1239m456p789s3z");
	chan_is(x, HY_OBS_HAND + 1, H1, "");
	chan_is(x, HY_OBS_HAND + 3, H1, "");
	chan_is(x, HY_OBS_MELDED + 0, H1, "1z");
	chan_is(x, HY_OBS_MELDED + 2, H1, "1z");
	chan_is(x, HY_OBS_MELDED + 3, H1, "");
	chan_is(x, HY_OBS_DRAWN, H1, "9m");
	/* tenpai after discarding 9m (tanki W) or W (tanki 9m), graded by live
	 * waits: W has 2 (one in hand, one in seat 0's river), 9m 3 (one in
	 * hand, none in sight) -> W discard 1, 9m discard 0.25 + 0.75 × 2/3 */
	uint16_t want9[34] = {0};
	want9[8] = h(0.75);
	want9[29] = H1;
	for (int t = 0; t < 34; t++)
		assert_int_equal(x->obs[HY_OBS_BEST_DISCARD * 34 + t], want9[t]);
	/* before the draw: 123m456p789s W, waiting on W */
	chan_is(x, HY_OBS_EFFECTIVE, H1, "3z");
	fill_is(x, HY_OBS_SHANTEN + 0, H1);
	fill_is(x, HY_OBS_SHANTEN + 1, 0);
	fill_is(x, HY_OBS_SHANTEN + 3, 0);
	for (int c = HY_OBS_RED; c < HY_OBS_RED + 3; c++)
		fill_is(x, c, 0);
	/* furiten: the W tanki, and W is in its own river */
	fill_is(x, HY_OBS_FURITEN, H1);
	free(s);
}

static void test_rivers_melds(void **state)
{
	(void)state;
	size_t n;
	hy_sample *s = scenario(&n);
	const hy_sample *x = find(s, n, 0, 8);
	/* p0 = seat 0: W (tsumogiri), S (tedashi) */
	chan_is(x, HY_OBS_RIVER + 0, H1, "23z");
	chan_is(x, HY_OBS_RIVER + 1, H1, "2z");
	assert_int_equal(x->obs[(HY_OBS_RIVER + 2) * 34 + 28], H1);     /* S last  */
	assert_int_equal(x->obs[(HY_OBS_RIVER + 2) * 34 + 29], 0x3A8D); /* e^-0.2 */
	/* p1 = seat 1: C (tedashi), 8m (tsumogiri) */
	chan_is(x, HY_OBS_RIVER + 3, H1, "8m7z");
	chan_is(x, HY_OBS_RIVER + 4, H1, "7z");
	assert_int_equal(x->obs[(HY_OBS_RIVER + 5) * 34 + 7], H1);
	assert_int_equal(x->obs[(HY_OBS_RIVER + 5) * 34 + 33], h(exp(-0.2)));
	/* p2 = seat 2: E (called away, still in the river), 1s (declaration) */
	chan_is(x, HY_OBS_RIVER + 6, H1, "1s1z");
	chan_is(x, HY_OBS_RIVER + 7, H1, "");
	/* p3 = seat 3: P */
	chan_is(x, HY_OBS_RIVER + 9, H1, "5z");
	chan_is(x, HY_OBS_RIVER + 11, H1, "5z");
	/* melds: seat 0's pon of E */
	chan_is(x, HY_OBS_MELD_CHI + 0, H1, "");
	chan_is(x, HY_OBS_MELD_CHI + 1, H1, "1z");
	chan_is(x, HY_OBS_MELD_CHI + 2, H1, "");
	for (int p = 1; p < 4; p++)
		for (int k = 0; k < 3; k++)
			chan_is(x, HY_OBS_MELD_CHI + 3 * p + k, H1, "");
	/* opponents' open melds: none; from seat 1, seat 0 (p = 3, o = 2) has one */
	for (int o = 0; o < 3; o++)
		fill_is(x, HY_OBS_OPEN_MELDS + o, 0);
	const hy_sample *y = find(s, n, 1, 7); /* seat 1 discards 8m */
	fill_is(y, HY_OBS_OPEN_MELDS + 2, h(0.25));
	fill_is(y, HY_OBS_OPEN_MELDS + 0, 0);
	chan_is(y, HY_OBS_MELD_CHI + 3 * 3 + 1, H1, "1z");
	free(s);
}

static void test_table_state(void **state)
{
	(void)state;
	size_t n;
	hy_sample *s = scenario(&n);
	const hy_sample *x = find(s, n, 0, 8);
	chan_is(x, HY_OBS_DORA + 0, H1, "1s");
	chan_is(x, HY_OBS_DORA + 1, H1, "");
	chan_is(x, HY_OBS_INDICATOR, H1, "9s");
	fill_is(x, HY_OBS_RIICHI + 0, 0);
	fill_is(x, HY_OBS_RIICHI + 2, H1); /* seat 2 */
	fill_is(x, HY_OBS_RIICHI + 3, 0);
	fill_is(x, HY_OBS_SCORE + 0, h(0.25));
	fill_is(x, HY_OBS_SCORE + 2, h(0.24));
	fill_is(x, HY_OBS_WALL, h(63.0 / 70.0)); /* 7 draws */
	fill_is(x, HY_OBS_ROUND, 0);
	fill_is(x, HY_OBS_HONBA, 0);
	fill_is(x, HY_OBS_STICKS, h(0.1));
	chan_is(x, HY_OBS_ROUND_WIND, H1, "1z");
	chan_is(x, HY_OBS_SEAT_WIND, H1, "1z");
	/* seat 1 is South; seat 2 holds the red 5p */
	const hy_sample *y = find(s, n, 1, 7);
	chan_is(y, HY_OBS_SEAT_WIND, H1, "2z");
	fill_is(y, HY_OBS_RIICHI + 1, 0);
	const hy_sample *r = find(s, n, 2, HY_A_RIICHI);
	fill_is(r, HY_OBS_RED + 0, 0);
	fill_is(r, HY_OBS_RED + 1, H1);
	fill_is(r, HY_OBS_RED + 2, 0);
	chan_is(r, HY_OBS_SEAT_WIND, H1, "3z");
	chan_is(r, HY_OBS_DRAWN, H1, "1s");
	fill_is(r, HY_OBS_SHANTEN + 0, H1);
	/* seat 2 let seat 1's 8m (a winning tile) pass: temporary furiten
	 * until its own discard */
	fill_is(r, HY_OBS_FURITEN, H1);
	const hy_sample *p8 = find(s, n, 2, HY_A_PASS);
	assert_true(p8->mask >> HY_A_WIN & 1);
	fill_is(p8, HY_OBS_FURITEN, 0);
	free(s);
}

static void test_safety(void **state)
{
	(void)state;
	size_t n;
	hy_sample *s = scenario(&n);
	const hy_sample *x = find(s, n, 0, 8);
	/* o = 0: seat 1 (C tedashi, 8m tsumogiri) */
	chan_is(x, HY_OBS_RIICHI_SAFE + 0, H1, "");
	chan_is(x, HY_OBS_SUJI + 0, HHALF, "5m");   /* 2m-5m-8m: one of two */
	chan_is(x, HY_OBS_MATAGI + 0, H1, "");      /* honour tedashi only */
	/* o = 1: seat 2 in riichi; E (called), 1s (declaration); then P */
	chan_is(x, HY_OBS_RIICHI_SAFE + 1, H1, "1s5z");
	chan_is(x, HY_OBS_SUJI + 1, HHALF, "4s");
	/* o = 2: seat 3: P */
	chan_is(x, HY_OBS_RIICHI_SAFE + 2, H1, "");
	chan_is(x, HY_OBS_SUJI + 2, H1, "");
	/* kabe / one-chance: E three (pon); nothing has four */
	chan_is(x, HY_OBS_KABE, H1, "");
	chan_is(x, HY_OBS_ONE_CHANCE, H1, "1z");
	free(s);
}

/* Asserts channel c holds exactly the values v[i] at the kinds of mpsz,
 * in the order mpsz names them (one kind each), 0 elsewhere. */
static void cells_are(const hy_sample *s, int c, const char *mpsz, const double *v)
{
	uint16_t want[34] = {0};
	uint8_t t[34];
	int k = *mpsz ? hy_mpsz_parse(mpsz, t, 34, NULL) : 0;
	assert_true(k >= 0);
	for (int i = 0; i < k; i++)
		want[hy_tile_kind(t[i])] = h(v[i]);
	for (int j = 0; j < 34; j++)
		if (s->obs[c * 34 + j] != want[j]) {
			print_error("channel %d tile %d (%s): %#06x, want %#06x\n", c, j,
				    hy_tile_to_mjai(j), s->obs[c * 34 + j], want[j]);
			fail();
		}
}

/* Version 4's order planes: 62+o earliness of each kind's first discard,
 * 65+o recency of the latest discard from hand, 74+o the riichi tile and
 * the called tiles by the call's earliness. */
static void test_order(void **state)
{
	(void)state;
	size_t n;
	hy_sample *s = scenario(&n);
	const hy_sample *x = find(s, n, 0, 8);
	const double e0[] = {1, 23.0 / 24}, first[] = {1};
	/* o = 0: seat 1: C (tedashi), then 8m (tsumogiri) */
	cells_are(x, HY_OBS_EARLY + 0, "7z8m", e0);
	cells_are(x, HY_OBS_TEDASHI_ORDER + 0, "7z", (const double[]){exp(-0.2)});
	cells_are(x, HY_OBS_DECLARED + 0, "", NULL);
	/* o = 1: seat 2: E (tsumogiri, called away), 1s (declaration tile) */
	cells_are(x, HY_OBS_EARLY + 1, "1z1s", e0);
	cells_are(x, HY_OBS_TEDASHI_ORDER + 1, "", NULL);
	cells_are(x, HY_OBS_DECLARED + 1, "1s", first);
	/* o = 2: seat 3: P */
	cells_are(x, HY_OBS_EARLY + 2, "5z", first);
	cells_are(x, HY_OBS_DECLARED + 2, "", NULL);
	/* seen from seat 1, seat 0 (o = 2) discarded W, ponned E after first
	 * discard, then discarded S from hand */
	const hy_sample *y = find(s, n, 1, 7);
	cells_are(y, HY_OBS_EARLY + 2, "3z2z", e0);
	cells_are(y, HY_OBS_TEDASHI_ORDER + 2, "2z", first);
	cells_are(y, HY_OBS_DECLARED + 2, "1z", (const double[]){23.0 / 24});
	/* the observer's own discards have no order planes of their own: the
	 * 62/65/74 planes are the opponents' */
	cells_are(y, HY_OBS_DECLARED + 0, "", NULL);
	free(s);
}

/* Calls on plane 74+o: seat 3 chis 9p after one discard; seat 0's pon of
 * E, made after one discard, keeps its time when it becomes a kakan. And
 * the furiten flag of the opponent labels: seat 2, in riichi on 5m-8m,
 * lets seat 1's 5m pass and is furiten from then on. */
static void test_order_calls(void **state)
{
	(void)state;
	static char text[8192];
	snprintf(text, sizeof text, START_GAME "%s%s%s", deal, play,
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"5m\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"5m\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"9p\"}\n"
		 "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"9p\",\"tsumogiri\":true}\n"
		 "{\"type\":\"chi\",\"actor\":3,\"target\":2,\"pai\":\"9p\",\"consumed\":[\"7p\",\"8p\"]}\n"
		 "{\"type\":\"dahai\",\"actor\":3,\"pai\":\"F\",\"tsumogiri\":false}\n"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"E\"}\n"
		 "{\"type\":\"kakan\",\"actor\":0,\"pai\":\"E\",\"consumed\":[\"E\",\"E\",\"E\"]}\n"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"N\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"N\",\"tsumogiri\":true}\n"
		 "{\"type\":\"dora\",\"dora_marker\":\"S\"}\n"
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"3p\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"3p\",\"tsumogiri\":true}\n");
	size_t n;
	hy_sample *s = encode(text, &n);
	const hy_sample *x = find(s, n, 1, 11); /* seat 1 discards 3p */
	const double late = 23.0 / 24;
	cells_are(x, HY_OBS_DECLARED + 1, "9p", &late); /* seat 3 */
	cells_are(x, HY_OBS_DECLARED + 2, "1z", &late); /* seat 0: the kakan's pon */
	cells_are(x, HY_OBS_TEDASHI_ORDER + 1, "6z", (const double[]){1});
	cells_are(x, HY_OBS_TEDASHI_ORDER + 2, "2z", (const double[]){exp(-0.4)});
	cells_are(x, HY_OBS_EARLY + 2, "3z2z9m4z",
		  (const double[]){1, 23.0 / 24, 22.0 / 24, 21.0 / 24});
	/* seat 2 (o = 0 from seat 1) tenpai on 5m 8m: not furiten at seat 1's
	 * 8m, furiten at its 3p */
	const uint64_t w58 = 1ull << 4 | 1ull << 7;
	const hy_sample *b8 = find(s, n, 1, 7);
	assert_int_equal(b8->opp_tenpai & 1, 1);
	assert_true(b8->opp_waits[0] == w58);
	/* (seat 0, o = 2, waits on W with W in its river: furiten too) */
	assert_int_equal(b8->flags, HY_SAMPLE_F_OPP_KNOWN | HY_SAMPLE_F_FURITEN_OF(2));
	assert_int_equal(x->opp_tenpai & 1, 1);
	assert_true(x->opp_waits[0] == w58); /* the waits stay; the flag says */
	assert_int_equal(x->flags & HY_SAMPLE_F_FURITEN_OF(0), HY_SAMPLE_F_FURITEN_OF(0));
	/* seen from seat 3 (o = 2) after the pass: its discard of F */
	const hy_sample *f = find(s, n, 3, 32);
	assert_int_equal(f->flags & HY_SAMPLE_F_FURITEN_OF(2), HY_SAMPLE_F_FURITEN_OF(2));
	free(s);
}

/* Full suji, matagi and kabe: seat 1 discards 1m and 7m from hand; seat 0
 * holds 4m…; an ankan gives a kan meld, a second indicator and a kabe. */
static void test_suji_kan(void **state)
{
	(void)state;
	static const char deal2[] =
		"{\"type\":\"start_kyoku\",\"bakaze\":\"S\",\"dora_marker\":\"9s\",\"kyoku\":2,"
		"\"honba\":3,\"kyotaku\":12,\"oya\":1,\"scores\":[20000,30000,25000,25000],"
		"\"tehais\":["
		"[\"1p\",\"1p\",\"1p\",\"1p\",\"2p\",\"3p\",\"4p\",\"5s\",\"6s\",\"7s\",\"E\",\"S\",\"W\"],"
		"[\"1m\",\"7m\",\"9m\",\"9m\",\"1p\",\"9p\",\"1s\",\"9s\",\"N\",\"P\",\"F\",\"C\",\"C\"],"
		"[\"2m\",\"3m\",\"4m\",\"2p\",\"3p\",\"4p\",\"2s\",\"3s\",\"4s\",\"6m\",\"7m\",\"5pr\",\"5p\"],"
		"[\"5m\",\"5m\",\"6s\",\"6s\",\"7p\",\"8p\",\"9p\",\"2s\",\"3s\",\"N\",\"N\",\"P\",\"F\"]]}\n";
	/* (the tehais list 5 copies of 1p: fix seat 1's 1p → 8p) */
	static char text[8192];
	snprintf(text, sizeof text,
		 START_GAME "%s"
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"2s\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"1m\",\"tsumogiri\":false}\n"
		 "{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"W\"}\n"
		 "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"W\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":3,\"pai\":\"W\"}\n"
		 "{\"type\":\"dahai\",\"actor\":3,\"pai\":\"W\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"N\"}\n"
		 "{\"type\":\"ankan\",\"actor\":0,\"consumed\":[\"1p\",\"1p\",\"1p\",\"1p\"]}\n"
		 "{\"type\":\"dora\",\"dora_marker\":\"8s\"}\n"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"9p\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"N\",\"tsumogiri\":false}\n"
		 "{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"3s\"}\n"
		 "{\"type\":\"dahai\",\"actor\":1,\"pai\":\"7m\",\"tsumogiri\":false}\n"
		 "{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"S\"}\n"
		 "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"S\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":3,\"pai\":\"E\"}\n"
		 "{\"type\":\"dahai\",\"actor\":3,\"pai\":\"E\",\"tsumogiri\":true}\n"
		 "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"C\"}\n"
		 "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"C\",\"tsumogiri\":true}\n",
		 deal2);
	char *fix = strstr(text, "[\"1m\",\"7m\",\"9m\",\"9m\",\"1p\"");
	assert_non_null(fix);
	memcpy(fix + 22, "8p", 2);
	size_t n;
	hy_sample *s = encode(text, &n);
	/* seat 0's kan decision, then its discard after the replacement draw */
	const hy_sample *k = find(s, n, 0, HY_A_KAN);
	assert_true(k->mask >> 30 & 1);
	const hy_sample *x = find(s, n, 0, 30); /* discards N */
	chan_is(x, HY_OBS_MELDED + 3, H1, "1p");
	chan_is(x, HY_OBS_MELD_CHI + 2, H1, "1p"); /* p0 kan */
	chan_is(x, HY_OBS_DRAWN, H1, "9p");
	chan_is(x, HY_OBS_INDICATOR, H1, "89s");
	chan_is(x, HY_OBS_DORA + 0, H1, "19s");
	chan_is(x, HY_OBS_KABE, H1, "1p");
	fill_is(x, HY_OBS_WALL, h(65.0 / 70.0)); /* 5 draws incl. the replacement */
	fill_is(x, HY_OBS_ROUND, h(5.0 / 8.0));  /* S2 */
	fill_is(x, HY_OBS_HONBA, h(0.3));
	fill_is(x, HY_OBS_STICKS, H1);           /* 12 sticks, capped at 10 */
	chan_is(x, HY_OBS_ROUND_WIND, H1, "2z");
	chan_is(x, HY_OBS_SEAT_WIND, H1, "4z");  /* seat 0 with dealer 1: North */
	/* seat 0's last discard: seat 1 (o = 0) has discarded 1m, 7m from hand */
	const hy_sample *z = find(s, n, 0, 33);
	/* suji: 4m has both partners 1m, 7m; 1m-4m... 4m only; 7m → 4m, 10 none */
	chan_is(z, HY_OBS_SUJI + 0, H1, "4m");
	chan_is(z, HY_OBS_MATAGI + 0, H1, "268m");
	/* o = 2 (seat 3: W, E tsumogiri) */
	chan_is(z, HY_OBS_MATAGI + 2, H1, "");
	/* order: seat 1's 1m then 7m, both from hand */
	cells_are(z, HY_OBS_TEDASHI_ORDER + 0, "1m7m", (const double[]){exp(-0.2), 1});
	cells_are(z, HY_OBS_EARLY + 0, "1m7m", (const double[]){1, 23.0 / 24});
	cells_are(z, HY_OBS_TEDASHI_ORDER + 2, "", NULL); /* seat 3: tsumogiri only */
	cells_are(z, HY_OBS_EARLY + 2, "3z1z", (const double[]){1, 23.0 / 24});
	/* seat 0's ankan, seen by seat 1 (o = 2), is no call */
	cells_are(find(s, n, 1, 6), HY_OBS_DECLARED + 2, "", NULL);
	/* W: seat 2 and seat 3 discarded it, seat 0 holds one: 3 visible */
	assert_int_equal(z->obs[HY_OBS_ONE_CHANCE * 34 + 29], H1);
	free(s);
}

static void test_half(void **state)
{
	(void)state;
	assert_int_equal(hy_half_from_float(0.0f), 0);
	assert_int_equal(hy_half_from_float(1.0f), H1);
	assert_int_equal(hy_half_from_float(0.5f), HHALF);
	assert_int_equal(hy_half_from_float(-2.0f), 0xC000);
	assert_int_equal(hy_half_from_float(65504.0f), 0x7BFF);
	assert_int_equal(hy_half_from_float(65520.0f), 0x7C00); /* rounds to inf */
	assert_int_equal(hy_half_from_float(1.0f + 1.0f / 2048), H1);     /* tie → even */
	assert_int_equal(hy_half_from_float(1.0f + 3.0f / 2048), 0x3C02); /* tie → even */
	assert_int_equal(hy_half_from_float(5.960464477539063e-08f), 1);  /* min subnormal */
	assert_int_equal(hy_half_from_float(2.9802322387695312e-08f), 0); /* tie → 0 */
	assert_true(isnan(hy_half_to_float(hy_half_from_float(NAN))));
	/* round trip of every finite half */
	for (uint32_t v = 0; v < 0x10000; v++) {
		if ((v & 0x7C00) == 0x7C00)
			continue;
		assert_int_equal(hy_half_from_float(hy_half_to_float((uint16_t)v)), v);
	}
#ifdef __FLT16_MAX__
	/* against the compiler's conversion on pseudo-random floats */
	uint32_t r = 12345;
	print_message("seed 12345\n");
	for (int i = 0; i < 1000000; i++) {
		r = r * 1664525u + 1013904223u;
		uint32_t bits = (r & 0x8FFFFFFFu) | ((r >> 3 & 0x1F) + 100) << 23;
		float f;
		memcpy(&f, &bits, 4);
		_Float16 g = (_Float16)f;
		uint16_t want;
		memcpy(&want, &g, 2);
		if (hy_half_from_float(f) != want) {
			print_error("%a: %#x, compiler %#x\n", (double)f, hy_half_from_float(f), want);
			fail();
		}
	}
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_own_hand),
		cmocka_unit_test(test_rivers_melds),
		cmocka_unit_test(test_table_state),
		cmocka_unit_test(test_safety),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_order_calls),
		cmocka_unit_test(test_suji_kan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
