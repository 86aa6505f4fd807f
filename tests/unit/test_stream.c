/* Event stream (formats/events.md): golden files written by an independent
 * implementation (tests/golden/events/make-golden.py), round trips through
 * the memory and FILE readers, pipes, every documented error, and random
 * mutations of a valid stream (the seed is printed; HY_SEED=N repeats it). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/tile.h"
#include "events/event.h"
#include "events/stream.h"

#define REC HY_EVS_RECORD_SIZE
#define HDR HY_EVS_HEADER_SIZE

/* ------------------------------------------------------------ helpers */

typedef struct buf {
	char *data;
	size_t len;
} buf;

static void buf_free(buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

static char *golden_path(const char *name)
{
	const char *top = getenv("HY_TOP");
	static char path[4096];
	snprintf(path, sizeof path, "%s%stests/golden/events/%s", top ? top : "", top ? "/" : "",
		 name);
	return path;
}

static buf read_golden(const char *name)
{
	const char *path = golden_path(name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: cannot open: %s (run from the repository root or set HY_TOP)", path,
			 strerror(errno));
	buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		b.data = realloc(b.data, b.len + n);
		assert_non_null(b.data);
		memcpy(b.data + b.len, chunk, n);
		b.len += n;
	}
	assert_false(ferror(f));
	fclose(f);
	return b;
}

/* Writes games into one frame per group: groups[i] games each. */
static buf write_frames(const hy_game *games, const size_t *groups, size_t ngroups)
{
	buf b = {0};
	FILE *f = open_memstream(&b.data, &b.len);
	assert_non_null(f);
	size_t k = 0;
	for (size_t i = 0; i < ngroups; i++) {
		hy_evs_writer *w;
		hy_diag d;
		hy_diag_init(&d, "mem");
		assert_int_equal(hy_evs_writer_open(&w, f), HY_OK);
		for (size_t j = 0; j < groups[i]; j++, k++)
			assert_int_equal(hy_evs_write_game(w, &games[k], &d), HY_OK);
		assert_int_equal(hy_evs_writer_close(w, &d), HY_OK);
	}
	assert_int_equal(fclose(f), 0);
	return b;
}

typedef struct result {
	hy_game *games;
	size_t n;
	hy_status status; /* the status that ended the read (HY_STOP = clean) */
	hy_diag d;
	uint64_t records;
} result;

static void result_free(result *r)
{
	for (size_t i = 0; r->games && i < r->n; i++) /* games kept only with keep */
		hy_game_free(&r->games[i]);
	free(r->games);
	memset(r, 0, sizeof *r);
}

/* Reads every game until an error or the end; keep = 0 frees them as it goes. */
static result read_all(hy_evs_reader *rd, int keep)
{
	result res = {0};
	hy_game g;
	hy_game_init(&g);
	hy_diag_init(&res.d, NULL);
	for (;;) {
		hy_status s = hy_evs_read_game(rd, &g, &res.d);
		if (s != HY_OK) {
			res.status = s;
			break;
		}
		if (keep) {
			res.games = realloc(res.games, (res.n + 1) * sizeof *res.games);
			assert_non_null(res.games);
			res.games[res.n] = g; /* hand over the storage */
			hy_game_init(&g);
		}
		res.n++;
	}
	hy_game_free(&g);
	res.records = hy_evs_reader_records(rd);
	return res;
}

static result read_mem(const void *data, size_t len, int keep)
{
	hy_evs_reader *rd;
	assert_int_equal(hy_evs_reader_open_mem(&rd, "mem.bin", data, len), HY_OK);
	result res = read_all(rd, keep);
	/* errors are sticky, the end too */
	hy_game g;
	hy_game_init(&g);
	hy_diag d2;
	hy_diag_init(&d2, NULL);
	assert_int_equal(hy_evs_read_game(rd, &g, &d2), res.status);
	if (res.status != HY_STOP) {
		assert_int_equal(d2.line, res.d.line);
		assert_string_equal(d2.msg, res.d.msg);
	}
	hy_game_free(&g);
	hy_evs_reader_close(rd);
	return res;
}

static result read_file(const void *data, size_t len, int keep)
{
	/* fmemopen may reject size 0 */
	FILE *f = len ? fmemopen((void *)data, len, "rb") : fopen("/dev/null", "rb");
	assert_non_null(f);
	hy_evs_reader *rd;
	assert_int_equal(hy_evs_reader_open_file(&rd, "mem.bin", f), HY_OK);
	result res = read_all(rd, keep);
	hy_evs_reader_close(rd);
	fclose(f);
	return res;
}

static void assert_str_eq(const char *a, const char *b, const char *what, size_t ev)
{
	if (!a || !b) {
		if (a != b)
			fail_msg("event %zu: %s: %s vs %s", ev, what, a ? a : "NULL",
				 b ? b : "NULL");
		return;
	}
	if (strcmp(a, b) != 0)
		fail_msg("event %zu: %s: '%s' vs '%s'", ev, what, a, b);
}

static void assert_event_eq(const hy_event *a, const hy_event *b, size_t i)
{
#define F(x)                                                                             \
	do {                                                                             \
		if ((long long)a->x != (long long)b->x)                                  \
			fail_msg("event %zu: %s: %lld vs %lld", i, #x, (long long)a->x,   \
				 (long long)b->x);                                       \
	} while (0)
	F(type);
	F(actor);
	F(target);
	F(pai);
	F(nconsumed);
	F(tsumogiri);
	F(flags);
	F(bakaze);
	F(kyoku);
	F(honba);
	F(kyotaku);
	F(oya);
	F(dora_marker);
	F(nura);
	F(line);
	for (int k = 0; k < 4; k++) {
		F(consumed[k]);
		F(scores[k]);
		F(deltas[k]);
		for (int j = 0; j < 13; j++)
			F(tehais[k][j]);
	}
	for (int k = 0; k < 5; k++)
		F(ura[k]);
#undef F
	for (int k = 0; k < 4; k++)
		assert_str_eq(a->names[k], b->names[k], "names", i);
	assert_str_eq(a->extra, b->extra, "extra", i);
}

static void assert_game_eq(const hy_game *a, const hy_game *b)
{
	assert_non_null(a->source);
	assert_string_equal(a->source, b->source ? b->source : "");
	assert_int_equal(a->index, b->index);
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_event_eq(&a->ev[i], &b->ev[i], i);
}

static void assert_games_eq(const result *r, const hy_game *games, size_t n)
{
	assert_int_equal(r->status, HY_STOP);
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++)
		assert_game_eq(&r->games[i], &games[i]);
}

/* ------------------------------------------------------------ golden games */

/* Mirrors tests/golden/events/make-golden.py; change both together. */
enum { U = HY_TILE_UNKNOWN, N = HY_TILE_NONE };
static const uint8_t HAND0[13] = {0, 1, 2, 34, 9, 10, 11, 18, 19, 20, 27, 27, 31};
static const char LONG_EXTRA[] =
	"{\"yakus\":[[\"reach\",1],[\"ippatsu\",1],[\"menzenchin_tsumoho\",1],"
	"[\"pinfu\",1],[\"tanyaochu\",1],[\"iipeikou\",1],[\"dora\",2],[\"akadora\",1]],"
	"\"fu\":20,\"fan\":9,\"comment\":\"跳満 — haneman, ツモ\",\"meta\":{\"source\":"
	"\"tenhou\",\"id\":\"2024010100gm-00a9-0000-deadbeef\"}}";
#define SRC_A "logs/2024/東風戦-α.mjson"

static hy_event *push(hy_game *g, hy_ev_type type, uint32_t line)
{
	hy_event e;
	hy_event_blank(&e, type);
	e.line = line;
	hy_event *p = hy_game_push(g, &e);
	assert_non_null(p);
	return p;
}

static void set4(int32_t *dst, int32_t a, int32_t b, int32_t c, int32_t d)
{
	dst[0] = a;
	dst[1] = b;
	dst[2] = c;
	dst[3] = d;
}

static void hands(hy_event *e, int seat_with_hand)
{
	for (int s = 0; s < 4; s++)
		for (int i = 0; i < 13; i++)
			e->tehais[s][i] = s == seat_with_hand ? HAND0[i] : U;
}

static void consumed(hy_event *e, int n, const uint8_t *t)
{
	e->nconsumed = (uint8_t)n;
	memcpy(e->consumed, t, n);
}

static const char *sdup(hy_game *g, const char *s)
{
	const char *p = hy_game_strdup(g, s, strlen(s));
	assert_non_null(p);
	return p;
}

static void golden_game_a(hy_game *g)
{
	hy_event *e;
	assert_int_equal(hy_game_set_source(g, SRC_A, 0), HY_OK);
	e = push(g, HY_EV_START_GAME, 1);
	e->flags = HY_EVF_NAMES;
	e->names[0] = sdup(g, "Alice");
	e->names[1] = sdup(g, "ボブ");
	e->names[2] = sdup(g, "Ça va");
	e->names[3] = sdup(g, "");
	e->extra = sdup(g, "{\"seed\":\"0x1f\",\"meta\":{\"room\":\"東南\"}}");
	e = push(g, HY_EV_START_KYOKU, 2);
	e->flags = HY_EVF_BAKAZE | HY_EVF_KYOKU | HY_EVF_HONBA | HY_EVF_KYOTAKU | HY_EVF_SCORES |
		   HY_EVF_TEHAIS;
	e->bakaze = 27, e->kyoku = 1, e->honba = 0, e->kyotaku = 0, e->oya = 0;
	e->dora_marker = HY_TILE_5PR;
	set4(e->scores, 25000, 25000, 25000, 25000);
	hands(e, 0);
	e = push(g, HY_EV_TSUMO, 3);
	e->actor = 0, e->pai = 3;
	e = push(g, HY_EV_DAHAI, 4);
	e->flags = HY_EVF_TSUMOGIRI, e->actor = 0, e->pai = 27, e->tsumogiri = 0;
	e = push(g, HY_EV_TSUMO, 5);
	e->actor = 1, e->pai = U;
	e = push(g, HY_EV_DAHAI, 6);
	e->flags = HY_EVF_TSUMOGIRI, e->actor = 1, e->pai = 26, e->tsumogiri = 1;
	e = push(g, HY_EV_CHI, 7);
	e->actor = 2, e->target = 1, e->pai = 24;
	consumed(e, 2, (const uint8_t[]){HY_TILE_5SR, 23});
	e = push(g, HY_EV_DAHAI, 8);
	e->flags = HY_EVF_TSUMOGIRI, e->actor = 2, e->pai = 30, e->tsumogiri = 0;
	e = push(g, HY_EV_PON, 9);
	e->actor = 0, e->target = 2, e->pai = 30;
	consumed(e, 2, (const uint8_t[]){30, 30});
	e = push(g, HY_EV_DAHAI, 10);
	e->actor = 0, e->pai = 31;
	e = push(g, HY_EV_DAIMINKAN, 11);
	e->flags = HY_EVF_KAN_ALIAS, e->actor = 1, e->target = 0, e->pai = 31;
	consumed(e, 3, (const uint8_t[]){31, 31, 31});
	e = push(g, HY_EV_DORA, 12);
	e->dora_marker = 8;
	e = push(g, HY_EV_TSUMO, 13);
	e->actor = 1, e->pai = 13;
	e = push(g, HY_EV_KAKAN, 14);
	e->actor = 0, e->pai = 30;
	consumed(e, 3, (const uint8_t[]){30, 30, 30});
	e = push(g, HY_EV_ANKAN, 15);
	e->actor = 3;
	consumed(e, 4, (const uint8_t[]){13, 13, 13, HY_TILE_5PR});
	e = push(g, HY_EV_REACH, 16);
	e->actor = 2;
	e = push(g, HY_EV_DAHAI, 17);
	e->actor = 2, e->pai = 0;
	e = push(g, HY_EV_REACH_ACCEPTED, 18);
	e->flags = HY_EVF_DELTAS | HY_EVF_SCORES, e->actor = 2;
	set4(e->deltas, 0, 0, -1000, 0);
	set4(e->scores, 25000, 25000, 24000, 25000);
	e = push(g, HY_EV_HORA, 19);
	e->flags = HY_EVF_DELTAS | HY_EVF_SCORES | HY_EVF_URA;
	e->actor = 0, e->target = 2, e->pai = 0;
	e->nura = 2, e->ura[0] = 4, e->ura[1] = 28;
	set4(e->deltas, 9000, 0, -8000, 0);
	set4(e->scores, 34000, 25000, 16000, 25000);
	e->extra = sdup(g, LONG_EXTRA);
	push(g, HY_EV_END_KYOKU, 20);
	e = push(g, HY_EV_START_KYOKU, 21);
	e->flags = HY_EVF_BAKAZE | HY_EVF_KYOKU | HY_EVF_HONBA | HY_EVF_KYOTAKU | HY_EVF_SCORES |
		   HY_EVF_TEHAIS;
	e->bakaze = 27, e->kyoku = 2, e->honba = 1, e->kyotaku = 1, e->oya = 1;
	e->dora_marker = U;
	set4(e->scores, 34000, 25000, 16000, 25000);
	hands(e, 1);
	e = push(g, HY_EV_RYUKYOKU, 22);
	e->flags = HY_EVF_DELTAS | HY_EVF_SCORES;
	set4(e->deltas, 1500, -1500, 1500, -1500);
	set4(e->scores, 35500, 23500, 17500, 23500);
	e->extra = sdup(g, "{\"reason\":\"fanpai\"}");
	push(g, HY_EV_END_KYOKU, 23);
	e = push(g, HY_EV_END_GAME, 24);
	e->flags = HY_EVF_SCORES;
	set4(e->scores, 35500, 23500, 17500, 23500);
}

static void golden_game_b(hy_game *g)
{
	hy_event *e;
	assert_int_equal(hy_game_set_source(g, SRC_A, 1), HY_OK);
	e = push(g, HY_EV_START_KYOKU, 30);
	e->flags = HY_EVF_BAKAZE | HY_EVF_KYOKU | HY_EVF_TEHAIS;
	e->bakaze = 28, e->kyoku = 3, e->oya = 2, e->dora_marker = HY_TILE_5MR;
	hands(e, 2);
	e = push(g, HY_EV_TSUMO, 31);
	e->actor = 2, e->pai = HY_TILE_5SR;
	e = push(g, HY_EV_HORA, 32);
	e->flags = HY_EVF_DELTAS | HY_EVF_URA | HY_EVF_URA_ALIAS | HY_EVF_ACTOR;
	e->actor = 2, e->target = 2, e->pai = HY_TILE_5SR;
	e->nura = 1, e->ura[0] = U;
	set4(e->deltas, -4000, -2000, 8000, -2000);
}

static const char *x_extra(hy_game *g, char c, int n)
{
	char s[200];
	int k = snprintf(s, sizeof s, "{\"x\":\"");
	memset(s + k, c, n);
	snprintf(s + k + n, sizeof s - k - n, "\"}");
	return sdup(g, s);
}

static void golden_game_d(hy_game *g)
{
	hy_event *e;
	assert_int_equal(hy_game_set_source(g, "b.json", UINT32_MAX), HY_OK);
	e = push(g, HY_EV_DORA, UINT32_MAX);
	e->dora_marker = 33;
	e->extra = x_extra(g, 'a', 108); /* exactly one full chunk */
	assert_int_equal(strlen(e->extra), 116);
	e = push(g, HY_EV_END_GAME, 0);
	set4(e->scores, -12300, INT32_MAX, INT32_MIN, 0); /* no presence bit: verbatim */
	e->extra = x_extra(g, 'b', 109); /* 116 + 1 */
}

#define NGOLDEN 4
static void golden_games(hy_game g[NGOLDEN])
{
	for (int i = 0; i < NGOLDEN; i++)
		hy_game_init(&g[i]);
	golden_game_a(&g[0]);
	golden_game_b(&g[1]);
	assert_int_equal(hy_game_set_source(&g[2], "", 7), HY_OK); /* empty game */
	golden_game_d(&g[3]);
}

static void golden_free(hy_game g[NGOLDEN])
{
	for (int i = 0; i < NGOLDEN; i++)
		hy_game_free(&g[i]);
}

/* ------------------------------------------------------------ golden tests */

static void test_golden_good(void **state)
{
	(void)state;
	buf b = read_golden("good.bin");
	hy_game want[NGOLDEN];
	golden_games(want);
	assert_true(hy_evs_is_stream(b.data, b.len));

	result rm = read_mem(b.data, b.len, 1);
	assert_games_eq(&rm, want, NGOLDEN);
	assert_int_equal(rm.records, (b.len - 2 * HDR) / REC); /* two frames */
	result rf = read_file(b.data, b.len, 1);
	assert_games_eq(&rf, want, NGOLDEN);
	assert_int_equal(rf.records, rm.records);

	/* re-encode what was read, as the two frames of the file */
	const size_t groups[2] = {2, 2};
	buf again = write_frames(rm.games, groups, 2);
	assert_int_equal(again.len, b.len);
	assert_memory_equal(again.data, b.data, b.len);
	/* and what was built */
	buf built = write_frames(want, groups, 2);
	assert_int_equal(built.len, b.len);
	assert_memory_equal(built.data, b.data, b.len);

	buf_free(&built);
	buf_free(&again);
	result_free(&rf);
	result_free(&rm);
	golden_free(want);
	buf_free(&b);
}

static void test_golden_empty(void **state)
{
	(void)state;
	buf b = read_golden("empty.bin");
	assert_int_equal(b.len, HDR + REC);
	result r = read_mem(b.data, b.len, 1);
	assert_int_equal(r.status, HY_STOP);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.records, 1);
	result_free(&r);
	buf again = write_frames(NULL, (const size_t[]){0}, 1);
	assert_int_equal(again.len, b.len);
	assert_memory_equal(again.data, b.data, b.len);
	/* empty frames concatenate with others */
	size_t both = 3 * b.len;
	char *cat = malloc(both);
	assert_non_null(cat);
	for (int i = 0; i < 3; i++)
		memcpy(cat + i * b.len, b.data, b.len);
	r = read_file(cat, both, 1);
	assert_int_equal(r.status, HY_STOP);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.records, 3);
	result_free(&r);
	free(cat);
	buf_free(&again);
	buf_free(&b);
}

static const struct broken {
	const char *file;
	hy_status status;
	uint32_t line;
	const char *msg;
} broken[] = {
	{"bad-magic.bin", HY_EFORMAT, 0, "not an event stream (bad magic)"},
	{"newer-version.bin", HY_EVERSION, 0,
	 "event stream version 2 is newer than this program supports (1)"},
	{"wrong-record-size.bin", HY_EFORMAT, 0, "event stream record size 64 is not 128"},
	{"truncated.bin", HY_ETRUNC, 4,
	 "truncated event stream: no trailer after record 3 (record 4 is cut short: 50 of "
	 "128 bytes)"},
	{"no-trailer.bin", HY_ETRUNC, 7, "truncated event stream: no trailer after record 7"},
	{"bad-crc.bin", HY_EDATA, 8, "checksum mismatch: trailer says CRC-32 "},
	{"bad-count.bin", HY_EDATA, 8, "record count mismatch: trailer says 8, frame has 7"},
	{"aborted.bin", HY_EDATA, 8,
	 "input stream was aborted by its producer: mjai-parse failed: x.mjlog:3: truncated log"},
};

static void test_golden_broken(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
		const struct broken *t = &broken[i];
		buf b = read_golden(t->file);
		assert_true(b.len < 8192);
		for (int mode = 0; mode < 2; mode++) {
			result r = mode ? read_file(b.data, b.len, 0) : read_mem(b.data, b.len, 0);
			char line[1200];
			hy_diag_format(&r.d, line, sizeof line);
			print_message("%-22s %s\n", t->file, line);
			if (r.status != t->status || r.d.line != t->line ||
			    strncmp(r.d.msg, t->msg, strlen(t->msg)) != 0)
				fail_msg("%s: got status %d line %u '%s', want %d line %u '%s'",
					 t->file, r.status, r.d.line, r.d.msg, t->status, t->line,
					 t->msg);
			assert_int_equal(r.n, 0);
			assert_string_equal(r.d.source, "mem.bin");
			result_free(&r);
		}
		buf_free(&b);
	}
}

/* ------------------------------------------------------------ round trips */

static uint64_t rng_state;
static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static uint64_t seed_from_env(const char *test)
{
	const char *s = getenv("HY_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
	print_message("%s: seed %" PRIu64 " (HY_SEED=%" PRIu64 " repeats it)\n", test, seed, seed);
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	return seed;
}

static const char *rnd_str(hy_game *g, size_t maxlen)
{
	size_t n = rnd() % (maxlen + 1);
	char *s = malloc(n + 1);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(1 + rnd() % 255);
	const char *p = hy_game_strdup(g, s, n);
	free(s);
	assert_non_null(p);
	return p;
}

static void rnd_game(hy_game *g, uint32_t index, size_t maxev)
{
	hy_game_init(g);
	assert_int_equal(hy_game_set_source(g, rnd_str(g, 300), index), HY_OK);
	size_t n = rnd() % (maxev + 1);
	for (size_t i = 0; i < n; i++) {
		hy_event e;
		hy_event_blank(&e, (hy_ev_type)(rnd() % HY_EV_TYPE_COUNT));
		e.actor = (uint8_t)rnd(), e.target = (uint8_t)rnd(), e.pai = (uint8_t)rnd();
		e.nconsumed = (uint8_t)(rnd() % 5), e.nura = (uint8_t)(rnd() % 6);
		for (int k = 0; k < 4; k++)
			e.consumed[k] = (uint8_t)rnd();
		for (int k = 0; k < 5; k++)
			e.ura[k] = (uint8_t)rnd();
		e.tsumogiri = (uint8_t)rnd(), e.flags = (uint16_t)rnd();
		e.bakaze = (uint8_t)rnd(), e.kyoku = (uint8_t)rnd(), e.honba = (uint8_t)rnd();
		e.kyotaku = (uint8_t)rnd(), e.oya = (uint8_t)rnd(), e.dora_marker = (uint8_t)rnd();
		for (int k = 0; k < 4; k++) {
			e.scores[k] = (int32_t)rnd(), e.deltas[k] = (int32_t)rnd();
			for (int j = 0; j < 13; j++)
				e.tehais[k][j] = (uint8_t)rnd();
		}
		e.line = rnd();
		for (int k = 0; k < 4; k++)
			if (rnd() % 8 == 0)
				e.names[k] = rnd_str(g, rnd() % 4 ? 20 : 400);
		if (rnd() % 4 == 0)
			e.extra = rnd_str(g, rnd() % 4 ? 100 : 3000);
		assert_non_null(hy_game_push(g, &e));
	}
}

static void test_roundtrip_random(void **state)
{
	(void)state;
	seed_from_env("roundtrip");
	for (int iter = 0; iter < 20; iter++) {
		size_t ngroups = 1 + rnd() % 4, total = 0;
		size_t groups[4];
		for (size_t i = 0; i < ngroups; i++)
			total += groups[i] = rnd() % 5;
		hy_game *games = calloc(total ? total : 1, sizeof *games);
		assert_non_null(games);
		for (size_t i = 0; i < total; i++)
			rnd_game(&games[i], rnd(), 200);
		buf b = write_frames(games, groups, ngroups);
		result rm = read_mem(b.data, b.len, 1);
		assert_games_eq(&rm, games, total);
		result rf = read_file(b.data, b.len, 1);
		assert_games_eq(&rf, games, total);
		assert_int_equal(rf.records, rm.records);
		/* and once more: byte-identical */
		buf again = write_frames(rm.games, groups, ngroups);
		assert_int_equal(again.len, b.len);
		assert_memory_equal(again.data, b.data, b.len);
		buf_free(&again);
		result_free(&rf);
		result_free(&rm);
		buf_free(&b);
		for (size_t i = 0; i < total; i++)
			hy_game_free(&games[i]);
		free(games);
	}
}

/* A stream far larger than the reader's buffer, through a pipe from a child
 * process: refills, CRC across refills, strings across buffer boundaries. */
static void test_pipe(void **state)
{
	(void)state;
	seed_from_env("pipe");
	enum { NG = 60 };
	hy_game games[NG];
	for (int i = 0; i < NG; i++)
		rnd_game(&games[i], (uint32_t)i, 600);
	size_t groups[3] = {20, 0, 40};
	buf b = write_frames(games, groups, 3);
	print_message("pipe: %zu bytes\n", b.len);
	assert_true(b.len > 1u << 20);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		size_t off = 0;
		while (off < b.len) {
			size_t n = b.len - off < 1000 ? b.len - off : 1000; /* odd sizes */
			ssize_t k = write(fds[1], b.data + off, n);
			if (k <= 0)
				_exit(1);
			off += (size_t)k;
		}
		_exit(0);
	}
	close(fds[1]);
	FILE *f = fdopen(fds[0], "rb");
	assert_non_null(f);
	hy_evs_reader *rd;
	assert_int_equal(hy_evs_reader_open_file(&rd, "pipe", f), HY_OK);
	result r = read_all(rd, 1);
	hy_evs_reader_close(rd);
	fclose(f);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_games_eq(&r, games, NG);
	result_free(&r);
	buf_free(&b);
	for (int i = 0; i < NG; i++)
		hy_game_free(&games[i]);
}

/* ------------------------------------------------------------ errors */

static void put32(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> 8 * i);
}

/* Recomputes count and CRC of a one-frame stream after an edit. */
static void refresh_trailer(buf *b)
{
	size_t n = (b->len - HDR) / REC - 1;
	char *t = b->data + HDR + n * REC;
	assert_int_equal(t[0], 3);
	uint32_t crc = (uint32_t)crc32(0, (const Bytef *)b->data + HDR, (uInt)(n * REC));
	put32(t + 24, crc);
}

/* The broken game of the golden files, built: source, start_game, 4 names,
 * end_game (records 1–7), trailer (8). */
static buf small_stream(void)
{
	hy_game g;
	hy_game_init(&g);
	assert_int_equal(hy_game_set_source(&g, "broken.mjson", 0), HY_OK);
	hy_event *e = push(&g, HY_EV_START_GAME, 1);
	e->flags = HY_EVF_NAMES;
	const char *nm[4] = {"a", "b", "c", "d"};
	for (int i = 0; i < 4; i++)
		g.ev[0].names[i] = sdup(&g, nm[i]);
	e = push(&g, HY_EV_END_GAME, 2);
	e->flags = HY_EVF_SCORES;
	set4(e->scores, 25000, 25000, 25000, 25000);
	buf b = write_frames(&g, (const size_t[]){1}, 1);
	hy_game_free(&g);
	assert_int_equal(b.len, HDR + 8 * REC);
	return b;
}

static void expect(const buf *b, hy_status status, uint32_t line, const char *msg)
{
	for (int mode = 0; mode < 2; mode++) {
		result r = mode ? read_file(b->data, b->len, 0) : read_mem(b->data, b->len, 0);
		if (r.status != status || r.d.line != line || !strstr(r.d.msg, msg))
			fail_msg("got status %d line %u '%s', want %d line %u '%s'", r.status,
				 r.d.line, r.d.msg, status, line, msg);
		result_free(&r);
	}
}

#define REC_AT(b, i) ((b).data + HDR + ((i)-1) * REC) /* record i, 1-based */

static void test_errors(void **state)
{
	(void)state;
	buf b;

	b = small_stream();
	expect(&b, HY_STOP, 0, "");
	buf_free(&b);

	/* empty input, header cut short, garbage */
	expect(&(buf){"", 0}, HY_ETRUNC, 0, "input is empty");
	expect(&(buf){"HYEVEN", 6}, HY_ETRUNC, 0, "frame header cut short (6 of 32 bytes)");
	expect(&(buf){"HYEVEX", 6}, HY_EFORMAT, 0, "not an event stream (bad magic)");
	expect(&(buf){"{\"type\":\"start_game\"}\n", 22}, HY_EFORMAT, 0, "bad magic");

	b = small_stream();
	b.data[8] = 0; /* version 0 */
	expect(&b, HY_EFORMAT, 0, "version 0 is invalid");
	b.data[8] = 1, b.data[10] = 64;
	expect(&b, HY_EFORMAT, 0, "header size 64 is not 32");
	b.data[10] = 32, b.data[16] = 7, b.data[31] = 9; /* reserved: ignored */
	expect(&b, HY_STOP, 0, "");
	buf_free(&b);

	b = small_stream();
	REC_AT(b, 2)[0] = 9;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "unknown record type 9");
	REC_AT(b, 2)[0] = 0;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "unknown record type 0");
	buf_free(&b);

	b = small_stream();
	REC_AT(b, 2)[1] = HY_EV_TYPE_COUNT;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "event type 17 is out of range (0-16)");
	REC_AT(b, 2)[1] = HY_EV_NONE; /* representable */
	REC_AT(b, 2)[120] = 1;       /* reserved: ignored */
	refresh_trailer(&b);
	expect(&b, HY_STOP, 0, "");
	REC_AT(b, 2)[15] = 5;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "nconsumed 5 is over 4");
	REC_AT(b, 2)[15] = 4, REC_AT(b, 2)[27] = 6;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "nura 6 is over 5");
	REC_AT(b, 2)[27] = 0, REC_AT(b, 2)[4] = 1;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "game index 1 differs from the game's 0");
	buf_free(&b);

	/* text records */
	b = small_stream();
	REC_AT(b, 3)[1] = 6;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 3, "kind 6 is out of range");
	REC_AT(b, 3)[1] = 1; /* name1 twice */
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 4, "(name1): given twice for one event");
	REC_AT(b, 3)[1] = 0, REC_AT(b, 3)[3] = 117;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 3, "chunk length 117 is over 116");
	REC_AT(b, 3)[3] = 2;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 3, "does not fit");
	REC_AT(b, 3)[3] = 1, REC_AT(b, 3)[12] = 0;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 3, "NUL byte in text");
	REC_AT(b, 3)[12] = 'a', REC_AT(b, 3)[2] = 1; /* continued, but complete */
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 3, "does not fit a continued string");
	REC_AT(b, 3)[2] = 0, REC_AT(b, 3)[4] = 2;
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 3, "(name0): game index 2 differs");
	buf_free(&b);

	/* a name before any event; an event before any source */
	b = small_stream();
	memcpy(REC_AT(b, 2), REC_AT(b, 3), REC);
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 2, "(name0): no event before it");
	memcpy(REC_AT(b, 1), REC_AT(b, 7), REC);
	refresh_trailer(&b);
	expect(&b, HY_EDATA, 1, "no source record before it");
	buf_free(&b);

	/* a continuation of a long string replaced by an event */
	{
		hy_game g;
		hy_game_init(&g);
		char src[300];
		memset(src, 's', sizeof src - 1);
		src[sizeof src - 1] = 0;
		assert_int_equal(hy_game_set_source(&g, src, 3), HY_OK);
		push(&g, HY_EV_END_GAME, 1);
		b = write_frames(&g, (const size_t[]){1}, 1);
		hy_game_free(&g);
		assert_int_equal(b.len, HDR + 5 * REC); /* 3 source chunks, event, trailer */
		expect(&b, HY_STOP, 0, "");
		memcpy(REC_AT(b, 2), REC_AT(b, 4), REC);
		refresh_trailer(&b);
		expect(&b, HY_EDATA, 2, "continuation of the source string expected");
		buf_free(&b);
	}

	/* trailer */
	b = small_stream();
	REC_AT(b, 8)[9] = 'X';
	expect(&b, HY_EDATA, 8, "magic is not \"HYEVEND\"");
	buf_free(&b);

	/* second frame: record numbers go on across frames */
	{
		buf one = small_stream();
		buf two = {malloc(2 * one.len + 5), 2 * one.len};
		assert_non_null(two.data);
		memcpy(two.data, one.data, one.len);
		memcpy(two.data + one.len, one.data, one.len);
		expect(&two, HY_STOP, 0, "");
		two.data[one.len + HDR + 7 * REC + 30] ^= 1; /* frame 2 trailer: reserved */
		expect(&two, HY_STOP, 0, "");
		two.data[one.len + HDR + 6 * REC + 40] ^= 1; /* frame 2, record 7 */
		expect(&two, HY_EDATA, 16, "checksum mismatch");
		two.data[one.len + HDR + 6 * REC + 40] ^= 1;
		two.data[one.len + 3] = 'x';
		expect(&two, HY_EFORMAT, 8, "bad magic) in frame 2 at byte 1056");
		two.data[one.len + 3] = 'V';
		memcpy(two.data + two.len, "HYEVE", 5);
		two.len += 5;
		expect(&two, HY_ETRUNC, 16, "frame header cut short (5 of 32 bytes) in frame 3");
		two.len = 2 * one.len - 1;
		expect(&two, HY_ETRUNC, 16,
		       "no trailer after record 15 (record 16 is cut short: 127 of 128 bytes)");
		two.len = one.len + HDR;
		expect(&two, HY_ETRUNC, 8, "no trailer after record 8");
		buf_free(&two);
		buf_free(&one);
	}
}

/* Games are delivered before the trailer is checked, and the reader counts. */
static void test_streaming_order(void **state)
{
	(void)state;
	buf b = read_golden("good.bin");
	b.data[b.len - REC + 24] ^= 1; /* CRC of frame 2 */
	hy_evs_reader *rd;
	assert_int_equal(hy_evs_reader_open_mem(&rd, "x", b.data, b.len), HY_OK);
	hy_game g;
	hy_game_init(&g);
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_evs_read_game(rd, &g, &d), HY_OK);
	assert_int_equal(g.n, 24);
	assert_int_equal(hy_evs_read_game(rd, &g, &d), HY_OK); /* ends at the trailer */
	assert_int_equal(g.index, 1);
	assert_int_equal(hy_evs_read_game(rd, &g, &d), HY_OK); /* the empty game */
	assert_int_equal(g.n, 0);
	assert_int_equal(g.index, 7);
	uint64_t before = hy_evs_reader_records(rd);
	assert_int_equal(hy_evs_read_game(rd, &g, &d), HY_EDATA); /* game d: at its trailer */
	/* source, dora + extra, end_game + 2 extra chunks, then the trailer */
	assert_int_equal(d.line, before + 7);
	assert_non_null(strstr(d.msg, "checksum mismatch"));
	hy_game_free(&g);
	hy_evs_reader_close(rd);
	buf_free(&b);
}

static void test_writer_errors(void **state)
{
	(void)state;
	hy_game g;
	hy_game_init(&g);
	assert_int_equal(hy_game_set_source(&g, "w", 0), HY_OK);
	hy_event *e = push(&g, HY_EV_CHI, 1);
	e->nconsumed = 5;
	hy_diag d;
	hy_diag_init(&d, "out");
	hy_evs_writer *w;
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(hy_evs_writer_open(&w, f), HY_OK);
	assert_int_equal(hy_evs_write_game(w, &g, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "nconsumed 5"));
	g.ev[0].nconsumed = 2;
	assert_int_equal(hy_evs_write_game(w, &g, &d), HY_OK);
	assert_int_equal(hy_evs_writer_close(w, &d), HY_OK);
	assert_int_equal(ftell(f), HDR + 3 * REC); /* the bad game left no trace */
	fclose(f);

	/* a full disk: the error shows at close at the latest */
	f = fopen("/dev/full", "wb");
	if (f) {
		assert_int_equal(hy_evs_writer_open(&w, f), HY_OK);
		assert_int_equal(hy_evs_write_game(w, &g, &d), HY_OK);
		assert_int_equal(hy_evs_writer_close(w, &d), HY_EIO);
		assert_non_null(strstr(d.msg, "cannot write event stream"));
		fclose(f);
	}
	/* a file open for reading only */
	FILE *ro = fopen("/dev/null", "rb");
	assert_non_null(ro);
	assert_int_equal(hy_evs_writer_open(&w, ro), HY_OK);
	assert_int_equal(hy_evs_write_game(w, &g, &d), HY_OK);
	assert_int_equal(hy_evs_writer_close(w, &d), HY_EIO);
	fclose(ro);
	hy_game_free(&g);

	assert_int_equal(hy_evs_writer_open(&w, NULL), HY_EUSAGE);
	/* a prefix of the magic is a stream cut short (truncated), not another format */
	assert_true(hy_evs_is_stream("HYEVENT", 7));
	assert_true(hy_evs_is_stream("H", 1));
	assert_false(hy_evs_is_stream("HYEVENX", 7));
	assert_false(hy_evs_is_stream("", 0));
	assert_false(hy_evs_is_stream(NULL, 0));
	assert_true(hy_evs_is_stream("HYEVENTS", 8));
}

/* Random mutations of a valid stream: every one gives an error or valid
 * games, never a crash (run under ASan), and both readers agree. */
static void test_fuzz(void **state)
{
	(void)state;
	uint64_t seed = seed_from_env("fuzz");
	hy_game want[NGOLDEN];
	golden_games(want);
	buf good = write_frames(want, (const size_t[]){2, 2}, 2);
	buf first = write_frames(want, (const size_t[]){2}, 1);
	size_t nrec1 = (first.len - HDR) / REC - 1, nrec2 = (good.len - first.len - HDR) / REC - 1;
	buf_free(&first);
	golden_free(want);
	size_t ok = 0, bad = 0;
	char *m = malloc(good.len + 512);
	assert_non_null(m);
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(m, good.data, good.len);
		size_t len = good.len;
		int nmut = 1 + (int)(rnd() % 4);
		for (int k = 0; k < nmut; k++) {
			switch (rnd() % 6) {
			case 0: /* flip a bit */
			case 1:
				if (len)
					m[rnd() % len] ^= (char)(1u << (rnd() % 8));
				break;
			case 2: /* a random byte in a record's first 16 */
				if (len >= HDR + REC)
					m[HDR + (rnd() % (len / REC)) * REC + rnd() % 16] = (char)rnd();
				break;
			case 3: /* truncate */
				len = rnd() % (len + 1);
				break;
			case 4: /* copy a record over another */
				if (len >= HDR + 2 * REC) {
					size_t nrec = (len - HDR) / REC;
					memmove(m + HDR + (rnd() % nrec) * REC,
						m + HDR + (rnd() % nrec) * REC, REC);
				}
				break;
			case 5: /* append garbage */
				for (int j = 0, n = (int)(rnd() % 200); j < n && len < good.len + 512;
				     j++)
					m[len++] = (char)rnd();
				break;
			}
		}
		/* half the time, make the checksums fit, to get past them */
		if (len == good.len && rnd() % 2) {
			size_t at2 = HDR + (nrec1 + 1) * REC;
			put32(m + HDR + nrec1 * REC + 24,
			      (uint32_t)crc32(0, (const Bytef *)m + HDR, (uInt)(nrec1 * REC)));
			put32(m + at2 + HDR + nrec2 * REC + 24,
			      (uint32_t)crc32(0, (const Bytef *)m + at2 + HDR, (uInt)(nrec2 * REC)));
		}
		result rm = read_mem(m, len, 1);
		result rf = read_file(m, len, 1);
		if (rm.status != rf.status || rm.n != rf.n || rm.d.line != rf.d.line ||
		    strcmp(rm.d.msg, rf.d.msg) != 0)
			fail_msg("seed %" PRIu64 " iteration %d: memory reader %d/%zu '%s', file "
				 "reader %d/%zu '%s'",
				 seed, iter, rm.status, rm.n, rm.d.msg, rf.status, rf.n, rf.d.msg);
		for (size_t i = 0; i < rm.n; i++)
			assert_game_eq(&rm.games[i], &rf.games[i]);
		if (rm.status == HY_STOP)
			ok++;
		else
			bad++;
		assert_true(rm.status == HY_STOP || rm.status == HY_EDATA ||
			    rm.status == HY_ETRUNC || rm.status == HY_EFORMAT ||
			    rm.status == HY_EVERSION);
		result_free(&rf);
		result_free(&rm);
	}
	print_message("fuzz: %zu mutants read cleanly, %zu rejected\n", ok, bad);
	free(m);
	buf_free(&good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_good),
		cmocka_unit_test(test_golden_empty),
		cmocka_unit_test(test_golden_broken),
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_streaming_order),
		cmocka_unit_test(test_writer_errors),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
