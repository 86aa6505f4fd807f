/* Tenhou logs → events: every four-player Tenhou log in the shared data
 * converts, mjlog and tenhou.net/6 copies of a game agree event for event,
 * scores chain from kyoku to kyoku, and the tricky fragments (chankan,
 * double ron, rinshan, four kans, kyuushu, four riichi, confusing calls)
 * give the events written out below; chip-lobby score lists (made from real
 * logs) read as the plain ones. Data is read in place under
 * $HY_SHARED/data/logs (HY_SHARED defaults to ../shared). Past 1,000 lines
 * because every test shares the collectors and comparators above them; split
 * the helpers into a header when the file next grows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "core/tile.h"
#include "events/event.h"
#include "tenhou/tenhou.h"

/* ---------------------------------------------------------------- helpers */

typedef struct cgame {
	hy_event *ev;
	size_t n;
	char names[4][128];
	int has_names;
} cgame;

typedef struct coll {
	cgame g[8];
	int ngames;
	int nbad;
	hy_status keep; /* what bad() returns */
	hy_diag last;
} coll;

static hy_status on_game(void *ctx, hy_game *g)
{
	coll *c = ctx;
	assert_true(c->ngames < 8);
	cgame *o = &c->g[c->ngames++];
	o->ev = malloc(g->n * sizeof *o->ev);
	assert_non_null(o->ev);
	memcpy(o->ev, g->ev, g->n * sizeof *o->ev);
	o->n = g->n;
	for (size_t i = 0; i < g->n; i++) {
		o->ev[i].extra = NULL;
		if (g->ev[i].type == HY_EV_START_GAME && (g->ev[i].flags & HY_EVF_NAMES)) {
			o->has_names = 1;
			for (int p = 0; p < 4; p++)
				snprintf(o->names[p], sizeof o->names[p], "%s", g->ev[i].names[p]);
		}
		memset(o->ev[i].names, 0, sizeof o->ev[i].names);
	}
	return HY_OK;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	coll *c = ctx;
	c->nbad++;
	c->last = *d;
	return c->keep;
}

static void coll_free(coll *c)
{
	for (int i = 0; i < c->ngames; i++)
		free(c->g[i].ev);
	memset(c, 0, sizeof *c);
}

static const char *shared(void)
{
	const char *s = getenv("HY_SHARED");
	return s && *s ? s : "../shared";
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	assert_non_null(buf);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static char *gunzip(const char *data, size_t len, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	size_t cap = len * 8 + 1024;
	char *out = malloc(cap + 1);
	assert_non_null(out);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	int rc;
	do {
		if (z.total_out == cap) {
			cap *= 2;
			out = realloc(out, cap + 1);
			assert_non_null(out);
		}
		z.next_out = (Bytef *)out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		rc = inflate(&z, Z_NO_FLUSH);
	} while (rc == Z_OK);
	assert_int_equal(rc, Z_STREAM_END);
	*outlen = z.total_out;
	out[*outlen] = 0;
	inflateEnd(&z);
	return out;
}

/* Reads a data file, or skips the test when the shared data is absent. */
static char *data_file(const char *rel, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/data/logs/%s", shared(), rel);
	char *s = slurp(path, len);
	if (!s) {
		print_message("no shared data at %s (set HY_SHARED): skipped\n", path);
		skip();
	}
	return s;
}

static hy_status parse(const char *name, const char *data, size_t len, coll *c, int keep_going)
{
	hy_game_sink sink = {on_game, keep_going ? on_bad : NULL, c};
	hy_diag d;
	hy_status st = hy_tenhou_parse_doc(name, data, len, &sink, &d);
	if (st && !keep_going)
		c->last = d;
	return st;
}

static void fmt_event(const hy_event *e, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s", hy_ev_type_name(e->type));
	if (e->actor != HY_NO_SEAT)
		n += snprintf(buf + n, size - n, " a%d", e->actor);
	if (e->target != HY_NO_SEAT)
		n += snprintf(buf + n, size - n, " t%d", e->target);
	if (e->pai != HY_TILE_NONE)
		n += snprintf(buf + n, size - n, " %s", hy_tile_to_mjai(e->pai));
	for (int i = 0; i < e->nconsumed; i++)
		n += snprintf(buf + n, size - n, "%s%s", i ? "," : " [", hy_tile_to_mjai(e->consumed[i]));
	if (e->nconsumed)
		n += snprintf(buf + n, size - n, "]");
	if (e->flags & HY_EVF_TSUMOGIRI)
		n += snprintf(buf + n, size - n, " %s", e->tsumogiri ? "tg" : "te");
	if (e->type == HY_EV_DORA || e->type == HY_EV_START_KYOKU)
		n += snprintf(buf + n, size - n, " d=%s", hy_tile_to_mjai(e->dora_marker));
	if (e->flags & HY_EVF_DELTAS)
		n += snprintf(buf + n, size - n, " (%d,%d,%d,%d)", e->deltas[0], e->deltas[1],
			      e->deltas[2], e->deltas[3]);
	if (e->flags & HY_EVF_SCORES)
		n += snprintf(buf + n, size - n, " s=%d,%d,%d,%d", e->scores[0], e->scores[1],
			      e->scores[2], e->scores[3]);
	if (e->flags & HY_EVF_URA) {
		n += snprintf(buf + n, size - n, " ura");
		for (int i = 0; i < e->nura; i++)
			n += snprintf(buf + n, size - n, " %s", hy_tile_to_mjai(e->ura[i]));
	}
}

/* The events of game g as one line each, ev[from..to). */
static void dump(const cgame *g, size_t from, size_t to)
{
	char buf[256];
	for (size_t i = from; i < to && i < g->n; i++) {
		fmt_event(&g->ev[i], buf, sizeof buf);
		print_message("  %zu: %s\n", i, buf);
	}
}

static int same_event(const hy_event *a, const hy_event *b)
{
	hy_event x = *a, y = *b;
	x.line = y.line = 0;
	return memcmp(&x, &y, sizeof x) == 0;
}

/* Scores chain: start + deltas − 1000 per accepted riichi = next start;
 * the last, with leftover sticks to the top player, = end_game scores. */
static void check_chain(const char *name, const cgame *g)
{
	int32_t cur[4] = {0, 0, 0, 0};
	int have = 0, sticks = 0, nk = 0;
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		switch (e->type) {
		case HY_EV_START_KYOKU:
			if (have && memcmp(cur, e->scores, sizeof cur) != 0) {
				print_message("%s: kyoku %d starts with %d,%d,%d,%d; chain gives %d,%d,%d,%d\n",
					      name, nk, e->scores[0], e->scores[1], e->scores[2],
					      e->scores[3], cur[0], cur[1], cur[2], cur[3]);
				fail();
			}
			if (have)
				assert_int_equal(sticks, e->kyotaku);
			memcpy(cur, e->scores, sizeof cur);
			sticks = e->kyotaku;
			have = 1;
			nk++;
			break;
		case HY_EV_REACH_ACCEPTED:
			cur[e->actor] -= 1000;
			sticks++;
			break;
		case HY_EV_HORA:
			for (int p = 0; p < 4; p++)
				cur[p] += e->deltas[p];
			sticks = 0;
			break;
		case HY_EV_RYUKYOKU:
			for (int p = 0; p < 4; p++)
				cur[p] += e->deltas[p];
			break;
		case HY_EV_END_GAME: {
			int top = 0;
			for (int p = 1; p < 4; p++)
				if (cur[p] > cur[top])
					top = p;
			cur[top] += 1000 * sticks;
			if (memcmp(cur, e->scores, sizeof cur) != 0) {
				print_message("%s: final %d,%d,%d,%d; chain gives %d,%d,%d,%d\n", name,
					      e->scores[0], e->scores[1], e->scores[2], e->scores[3],
					      cur[0], cur[1], cur[2], cur[3]);
				fail();
			}
			break;
		}
		default:
			break;
		}
	}
	assert_true(nk > 0);
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted file names in a data directory with the suffix; count returned. */
static int list_dir(const char *rel, const char *suf, char ***out)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/data/logs/%s", shared(), rel);
	DIR *dir = opendir(path);
	if (!dir) {
		print_message("no shared data at %s (set HY_SHARED): skipped\n", path);
		skip();
	}
	char **names = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || !ends_with(de->d_name, suf))
			continue;
		names = realloc(names, (n + 1) * sizeof *names);
		assert_non_null(names);
		names[n] = malloc(strlen(rel) + strlen(de->d_name) + 2);
		assert_non_null(names[n]);
		sprintf(names[n], "%s/%s", rel, de->d_name);
		n++;
	}
	closedir(dir);
	qsort(names, n, sizeof *names, cmp_str);
	*out = names;
	return n;
}

static void free_list(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static void convert_ok(const char *rel, coll *c)
{
	size_t len;
	char *data = data_file(rel, &len);
	memset(c, 0, sizeof *c);
	hy_status st = parse(rel, data, len, c, 0);
	if (st != HY_OK) {
		char buf[1200];
		print_message("%s\n", hy_diag_format(&c->last, buf, sizeof buf));
	}
	assert_int_equal(st, HY_OK);
	assert_int_equal(c->ngames, 1);
	free(data);
	check_chain(rel, &c->g[0]);
	assert_int_equal(c->g[0].ev[0].type, HY_EV_START_GAME);
	assert_int_equal(c->g[0].ev[c->g[0].n - 1].type, HY_EV_END_GAME);
}

static void compare_games(const char *what, const cgame *a, const cgame *b, int names)
{
	size_t n = a->n < b->n ? a->n : b->n;
	for (size_t i = 0; i < n; i++)
		if (!same_event(&a->ev[i], &b->ev[i])) {
			print_message("%s: event %zu differs:\n", what, i);
			dump(a, i > 3 ? i - 3 : 0, i + 2);
			print_message(" vs\n");
			dump(b, i > 3 ? i - 3 : 0, i + 2);
			fail();
		}
	assert_int_equal(a->n, b->n);
	if (names) {
		assert_true(a->has_names && b->has_names);
		for (int p = 0; p < 4; p++)
			assert_string_equal(a->names[p], b->names[p]);
	}
}

static size_t count_type(const cgame *g, int type)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->ev[i].type == type;
	return n;
}

/* Index of the first event of a type at or after from, or g->n. */
static size_t find_type(const cgame *g, size_t from, int type)
{
	while (from < g->n && g->ev[from].type != type)
		from++;
	return from;
}

/* ---------------------------------------------------------------- tests */

static void test_detect(void **state)
{
	(void)state;
	const char *x1 = "<mjloggm ver=\"2.3\"></mjloggm>";
	const char *x2 = "\xef\xbb\xbf<?xml version=\"1.0\"?>\n <mjloggm ver=\"2.3\">";
	const char *j1 = "{\"title\":[\"\",\"\"],\"log\":[]}";
	const char *j2 = " {\"name\":[], \"log\" : [[]]}\n{\"log\":[]}\n";
	const char *m1 = "{\"type\":\"start_game\",\"names\":[\"log\",\"b\",\"c\",\"d\"]}\n";
	assert_int_equal(hy_tenhou_detect(x1, strlen(x1)), HY_TENHOU_MJLOG);
	assert_int_equal(hy_tenhou_detect(x2, strlen(x2)), HY_TENHOU_MJLOG);
	assert_int_equal(hy_tenhou_detect(j1, strlen(j1)), HY_TENHOU_JSON6);
	assert_int_equal(hy_tenhou_detect(j2, strlen(j2)), HY_TENHOU_JSON6);
	assert_int_equal(hy_tenhou_detect(m1, strlen(m1)), HY_TENHOU_NONE);
	assert_int_equal(hy_tenhou_detect("<html>", 6), HY_TENHOU_NONE);
	assert_int_equal(hy_tenhou_detect("", 0), HY_TENHOU_NONE);
}

#define MJX "mjx-project_mjx/tests_py/resources/"

static void test_all_mjlog(void **state)
{
	(void)state;
	char **l;
	int n = list_dir(MJX "mjlog", ".mjlog", &l), done = 0;
	for (int i = 0; i < n; i++) {
		if (strstr(l[i], "-no-"))
			continue;
		coll c;
		convert_ok(l[i], &c);
		assert_true(count_type(&c.g[0], HY_EV_START_KYOKU) >= 1);
		coll_free(&c);
		done++;
	}
	print_message("%d mjlog games converted\n", done);
	assert_true(done >= 30);
	free_list(l, n);
}

static void test_all_json6(void **state)
{
	(void)state;
	static const char *const dirs[] = {MJX "mjscore", "tsubakisakura_mjlog2json/data",
					   "Equim-chan_mjai-reviewer/convlog/tests/testdata"};
	int done = 0;
	for (int d = 0; d < 3; d++) {
		char **l;
		int n = list_dir(dirs[d], ".json", &l);
		for (int i = 0; i < n; i++) {
			coll c;
			convert_ok(l[i], &c);
			coll_free(&c);
			done++;
		}
		free_list(l, n);
	}
	print_message("%d tenhou.net/6 games converted\n", done);
	assert_true(done >= 50);
}

static void test_same_game(void **state)
{
	(void)state;
	char **l;
	int n = list_dir(MJX "mjscore", ".json", &l), pairs = 0;
	for (int i = 0; i < n; i++) {
		char other[1024];
		const char *base = strrchr(l[i], '/') + 1;
		snprintf(other, sizeof other, MJX "mjlog/%.*s.mjlog", (int)(strlen(base) - 5), base);
		char path[1200];
		snprintf(path, sizeof path, "%s/data/logs/%s", shared(), other);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		fclose(f);
		coll a, b;
		convert_ok(l[i], &a);
		convert_ok(other, &b);
		compare_games(base, &a.g[0], &b.g[0], 0); /* mjscore names are anonymised */
		coll_free(&a);
		coll_free(&b);
		pairs++;
	}
	free_list(l, n);
	n = list_dir("tsubakisakura_mjlog2json/data", ".xml", &l);
	for (int i = 0; i < n; i++) {
		char other[1024];
		snprintf(other, sizeof other, "%.*s.json", (int)(strlen(l[i]) - 4), l[i]);
		coll a, b;
		convert_ok(l[i], &a);
		convert_ok(other, &b);
		compare_games(l[i], &a.g[0], &b.g[0], 1);
		coll_free(&a);
		coll_free(&b);
		pairs++;
	}
	free_list(l, n);
	print_message("%d games compared as mjlog and tenhou.net/6\n", pairs);
	assert_true(pairs >= 30);
}

static void test_gimite_gzip(void **state)
{
	(void)state;
	size_t len, n;
	char *gz = data_file("gimite_mjai/test/test.mjlog", &len);
	char *xml = gunzip(gz, len, &n);
	coll c;
	memset(&c, 0, sizeof c);
	assert_int_equal(parse("test.mjlog", xml, n, &c, 0), HY_OK);
	assert_int_equal(c.ngames, 1);
	check_chain("test.mjlog", &c.g[0]);
	assert_true(c.g[0].has_names);
	assert_string_equal(c.g[0].names[0], "koudai23");
	assert_string_equal(c.g[0].names[1], "（≧▽≦）");
	/* the golden log starts E1 with dora marker 6s, dealer 0 */
	size_t k = find_type(&c.g[0], 0, HY_EV_START_KYOKU);
	assert_int_equal(c.g[0].ev[k].dora_marker, hy_tile_from_mjai("6s", 2));
	assert_int_equal(c.g[0].ev[k].oya, 0);
	coll_free(&c);
	free(xml);
	free(gz);
}

/* Expected events, one per string in fmt_event's notation. */
static void expect_seq(const cgame *g, size_t at, const char *const *want, int n)
{
	char buf[256];
	for (int i = 0; i < n; i++) {
		assert_true(at + i < g->n);
		fmt_event(&g->ev[at + i], buf, sizeof buf);
		if (strcmp(buf, want[i]) != 0) {
			print_message("event %zu: got '%s', want '%s'\n", at + i, buf, want[i]);
			dump(g, at, at + n);
			fail();
		}
	}
}

#define CONVLOG "Equim-chan_mjai-reviewer/convlog/tests/testdata/"

static void test_chankan(void **state)
{
	(void)state;
	coll c;
	convert_ok(CONVLOG "chankan.json", &c);
	const cgame *g = &c.g[0];
	/* seat 3 added 6s to its pon of 6s; seat 2 robbed it */
	static const char *const want[] = {
		"kakan a3 6s [6s,6s,6s]",
		"hora a2 t3 6s (0,0,8000,-8000)",
		"end_kyoku",
		"end_game s=25000,25000,33000,17000",
	};
	expect_seq(g, g->n - 4, want, 4);
	coll_free(&c);
}

static void test_double_ron(void **state)
{
	(void)state;
	coll c;
	convert_ok(CONVLOG "double_ron.json", &c);
	const cgame *g = &c.g[0];
	size_t h = find_type(g, 0, HY_EV_HORA);
	assert_true(h >= 2);
	/* seat 3's riichi discard is ronned by seats 0 and 2: no reach_accepted;
	 * two hora events in log order, the stick on the table to the first
	 * winner; ura markers only for the winner in riichi */
	static const char *const want[] = {
		"reach a3",
		"dahai a3 7m te",
		"hora a0 t3 7m (13000,0,0,-12000) ura S",
		"hora a2 t3 7m (0,0,2000,-2000)",
		"end_kyoku",
	};
	expect_seq(g, h - 2, want, 5);
	assert_int_equal(count_type(g, HY_EV_HORA), 2);
	coll_free(&c);
}

static void test_rinshan(void **state)
{
	(void)state;
	coll c;
	convert_ok(CONVLOG "rinshan.json", &c);
	const cgame *g = &c.g[0];
	size_t k = find_type(g, 0, HY_EV_ANKAN);
	/* ankan: the new dora at once, then the replacement draw, then tsumo */
	static const char *const want[] = {
		"ankan a3 [6m,6m,6m,6m]",
		"dora d=1m",
		"tsumo a3 6p",
		"hora a3 t3 6p (-2000,-4000,-2000,9000) ura W 8s",
		"end_kyoku",
	};
	expect_seq(g, k, want, 5);
	coll_free(&c);
}

static void test_suukantsu(void **state)
{
	(void)state;
	for (int f = 0; f < 2; f++) {
		coll c;
		convert_ok(f ? CONVLOG "suukantsu_1.json" : CONVLOG "suukantsu_0.json", &c);
		const cgame *g = &c.g[0];
		size_t kans = count_type(g, HY_EV_ANKAN) + count_type(g, HY_EV_KAKAN) +
			      count_type(g, HY_EV_DAIMINKAN);
		print_message("suukantsu_%d: %zu kans, %zu dora events\n", f, kans,
			      count_type(g, HY_EV_DORA));
		assert_true(kans >= 4);
		/* every kan event is followed by its dora: at once for ankan, after
		 * the replacement draw's discard for daiminkan / kakan */
		for (size_t i = 0; i < g->n; i++) {
			int t = g->ev[i].type;
			if (t == HY_EV_ANKAN) {
				assert_int_equal(g->ev[i + 1].type, HY_EV_DORA);
				assert_int_equal(g->ev[i + 2].type, HY_EV_TSUMO);
			} else if (t == HY_EV_DAIMINKAN || t == HY_EV_KAKAN) {
				assert_int_equal(g->ev[i + 1].type, HY_EV_TSUMO);
				if (g->ev[i + 2].type == HY_EV_DAHAI)
					assert_int_equal(g->ev[i + 3].type, HY_EV_DORA);
			}
		}
		coll_free(&c);
	}
}

static void test_kyuushu(void **state)
{
	(void)state;
	coll c;
	convert_ok(CONVLOG "kyushukyuhai.json", &c);
	const cgame *g = &c.g[0];
	size_t r = find_type(g, 0, HY_EV_RYUKYOKU);
	assert_true(r < g->n);
	assert_int_equal(g->ev[r - 1].type, HY_EV_TSUMO);
	static const char *const want[] = {"ryukyoku (0,0,0,0)", "end_kyoku"};
	expect_seq(g, r, want, 2);
	coll_free(&c);
}

static void test_four_reach(void **state)
{
	(void)state;
	coll c;
	convert_ok(CONVLOG "four_reach.json", &c);
	const cgame *g = &c.g[0];
	assert_int_equal(count_type(g, HY_EV_REACH), 4);
	assert_int_equal(count_type(g, HY_EV_REACH_ACCEPTED), 4);
	size_t r = find_type(g, 0, HY_EV_RYUKYOKU);
	/* the fourth riichi is accepted, then the abortive draw */
	assert_int_equal(g->ev[r - 1].type, HY_EV_REACH_ACCEPTED);
	assert_int_equal(g->ev[r - 2].type, HY_EV_DAHAI);
	assert_int_equal(g->ev[r - 3].type, HY_EV_REACH);
	for (size_t i = 0; i < g->n; i++)
		if (g->ev[i].type == HY_EV_REACH) {
			assert_int_equal(g->ev[i + 1].type, HY_EV_DAHAI);
			assert_int_equal(g->ev[i + 2].type, HY_EV_REACH_ACCEPTED);
			assert_int_equal(g->ev[i + 2].actor, g->ev[i].actor);
		}
	coll_free(&c);
}

static void test_confusing_nakis(void **state)
{
	(void)state;
	char rel[256];
	for (int i = 0; i <= 7; i++) {
		coll c;
		snprintf(rel, sizeof rel, CONVLOG "confusing_nakis_%d.json", i);
		convert_ok(rel, &c);
		const cgame *g = &c.g[0];
		/* every call takes the tile just discarded, from its discarder */
		for (size_t j = 1; j < g->n; j++) {
			int t = g->ev[j].type;
			if (t != HY_EV_CHI && t != HY_EV_PON && t != HY_EV_DAIMINKAN)
				continue;
			const hy_event *dp = &g->ev[j - 1];
			if (dp->type == HY_EV_DORA || dp->type == HY_EV_REACH_ACCEPTED)
				dp = &g->ev[j - 2];
			if (dp->type == HY_EV_DORA || dp->type == HY_EV_REACH_ACCEPTED)
				dp = &g->ev[j - 3];
			assert_int_equal(dp->type, HY_EV_DAHAI);
			assert_int_equal(dp->actor, g->ev[j].target);
			assert_int_equal(dp->pai, g->ev[j].pai);
		}
		coll_free(&c);
	}
}

static void test_confusing_nakis_0_exact(void **state)
{
	(void)state;
	coll c;
	convert_ok(CONVLOG "confusing_nakis_0.json", &c);
	/* seat 2's pon of chun is the first chun seat 3 discards (seat 1's
	 * later chun cannot be it: the pon names seat 3) */
	static const char *const want[] = {
		"tsumo a3 7s", "dahai a3 C te", "pon a2 t3 C [C,C]", "dahai a2 W te",
		"tsumo a3 6m",
	};
	expect_seq(&c.g[0], 18, want, 5);
	/* the kakan of 5m (red five drawn) reveals its dora after the discard */
	static const char *const kan[] = {
		"tsumo a2 5mr", "kakan a2 5mr [5m,5m,5m]", "tsumo a2 W", "dahai a2 W tg",
		"dora d=2m",
	};
	expect_seq(&c.g[0], 60, kan, 5);
	coll_free(&c);
}

static void test_truncated(void **state)
{
	(void)state;
	static const char *const files[] = {
		MJX "mjlog/2011020401gm-00a9-0000-f6eff225-no-game-end.mjlog",
		MJX "mjlog/2011020401gm-00a9-0000-f6eff225-no-round-end.mjlog",
	};
	coll full;
	convert_ok(MJX "mjlog/2011020401gm-00a9-0000-f6eff225.mjlog", &full);
	for (int i = 0; i < 2; i++) {
		size_t len;
		char *data = data_file(files[i], &len);
		coll c;
		memset(&c, 0, sizeof c);
		assert_int_equal(parse(files[i], data, len, &c, 0), HY_ETRUNC);
		assert_int_equal(c.ngames, 0);
		assert_non_null(strstr(c.last.msg, "truncated log"));
		assert_int_equal(c.last.game, 0);
		char buf[1200];
		print_message("%s\n", hy_diag_format(&c.last, buf, sizeof buf));
		/* keep-going: reported once, and the bad game skipped whole (no
		 * kyoku of it is delivered) */
		memset(&c, 0, sizeof c);
		c.keep = HY_OK;
		assert_int_equal(parse(files[i], data, len, &c, 1), HY_OK);
		assert_int_equal(c.nbad, 1);
		assert_int_equal(c.last.status, HY_ETRUNC);
		assert_int_equal(c.ngames, 0);
		/* a bad() that refuses stops with its status */
		coll_free(&c);
		c.keep = HY_EDATA;
		assert_int_equal(parse(files[i], data, len, &c, 1), HY_EDATA);
		assert_int_equal(c.ngames, 0);
		coll_free(&c);
		free(data);
	}
	coll_free(&full);
}

static hy_status count_game(void *ctx, hy_game *g)
{
	(void)g;
	(*(int *)ctx)++;
	return HY_OK;
}

static hy_status accept_bad(void *ctx, const hy_diag *d)
{
	(void)ctx;
	(void)d;
	return HY_OK;
}

/* Damaged copies (a byte changed, or cut) never crash and give a status. */
static void test_mutations(void **state)
{
	(void)state;
	static const char *const files[] = {
		MJX "mjlog/2019062300gm-00a9-0000-4224185c.mjlog",
		MJX "mjscore/2019062300gm-00a9-0000-4224185c.json",
		CONVLOG "suukantsu_0.json",
	};
	unsigned seed = (unsigned)time(NULL);
	print_message("mutation seed %u\n", seed);
	srand(seed);
	for (int f = 0; f < 3; f++) {
		size_t len;
		char *data = data_file(files[f], &len);
		char *copy = malloc(len + 1);
		assert_non_null(copy);
		static const char alphabet[] = "0123456789,\"<>/=[]{}pckmar-. xA";
		for (int i = 0; i < 300; i++) {
			memcpy(copy, data, len);
			size_t n = len;
			if (i % 3 == 0) {
				n = (size_t)rand() % len;
			} else {
				for (int j = 0; j < 1 + i % 4; j++)
					copy[(size_t)rand() % len] = alphabet[rand() % (sizeof alphabet - 1)];
			}
			copy[n] = 0;
			int games = 0;
			hy_game_sink sink = {count_game, accept_bad, &games};
			hy_diag d;
			hy_status st = hy_tenhou_parse_doc("m", copy, n, &sink, &d);
			assert_true(st == HY_OK || st == HY_EFORMAT);
			assert_true(games <= 1);
		}
		free(copy);
		free(data);
	}
}

static hy_status parse_str(const char *s, coll *c)
{
	memset(c, 0, sizeof *c);
	return parse("t", s, strlen(s), c, 0);
}

#define HAND "hai0=\"0,1,2,3,4,5,6,7,8,9,10,11,12\" hai1=\"13,14,15,17,18,19,20,21,22,23,24,25,26\" " \
	"hai2=\"27,28,29,30,31,32,33,34,35,36,37,38,39\" hai3=\"40,41,42,43,44,45,46,47,48,49,50,51,53\""
#define INIT "<INIT seed=\"0,0,0,1,2,100\" ten=\"250,250,250,250\" oya=\"0\" " HAND "/>"

static void test_bad_input(void **state)
{
	(void)state;
	coll c;
	/* malformed XML */
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/><INIT seed=</mjloggm>", &c), HY_EDATA);
	/* sanma by the GO flag, also skipped with keep-going */
	assert_int_equal(parse_str("<mjloggm><GO type=\"185\"/></mjloggm>", &c), HY_EUNSUP);
	assert_non_null(strstr(c.last.msg, "three-player"));
	memset(&c, 0, sizeof c);
	c.keep = HY_OK;
	const char *sanma = "<mjloggm><GO type=\"185\"/></mjloggm>";
	assert_int_equal(parse("t", sanma, strlen(sanma), &c, 1), HY_OK);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.ngames, 0);
	/* out-of-range tile id, named by the element index */
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/>" INIT "<T136/></mjloggm>", &c), HY_EDATA);
	assert_int_equal(c.last.line, 4);
	/* a bad meld code (nukidora) */
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/>" INIT "<T60/><D60/>"
				   "<N who=\"1\" m=\"32\"/></mjloggm>", &c), HY_EDATA);
	assert_non_null(strstr(c.last.msg, "meld"));
	/* a discard of a tile not in hand */
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/>" INIT "<T60/><D70/>"
				   "<RYUUKYOKU sc=\"250,0,250,0,250,0,250,0\" owari=\"250,0,250,0,250,0,250,0\"/>"
				   "</mjloggm>", &c), HY_EDATA);
	assert_non_null(strstr(c.last.msg, "not in hand"));
	/* a minimal good game: draw, discard, kyuushu-style draw */
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/><UN n0=\"%41%e3%81%82\" n1=\"b\" n2=\"c\" n3=\"d\"/>"
				   INIT "<T60/><D60/>"
				   "<RYUUKYOKU sc=\"250,0,250,0,250,0,250,0\" owari=\"250,0,250,0,250,0,250,0\"/>"
				   "</mjloggm>", &c), HY_OK);
	assert_string_equal(c.g[0].names[0], "Aあ");
	static const char *const want[] = {"start_game", "start_kyoku d=8s s=25000,25000,25000,25000",
					   "tsumo a0 7p", "dahai a0 7p tg", "ryukyoku (0,0,0,0)",
					   "end_kyoku", "end_game s=25000,25000,25000,25000"};
	expect_seq(&c.g[0], 0, want, 7);
	coll_free(&c);
	/* bad JSON, a non-object, sanma JSON */
	assert_int_equal(parse_str("{\"log\": [[[0,0,0],", &c), HY_EDATA);
	assert_int_equal(parse_str("{\"log\": 3}", &c), HY_EDATA);
	assert_int_equal(parse_str("{\"name\":[\"a\",\"b\",\"c\"],\"log\": []}", &c), HY_EUNSUP);
	assert_int_equal(parse_str("{\"rule\":{\"disp\":\"三般南喰赤\"},\"log\": []}", &c), HY_EUNSUP);
	/* a bad call string */
	assert_int_equal(parse_str("{\"log\":[[[0,0,0],[25000,25000,25000,25000],[11],[],"
				   "[11,11,11,12,12,12,13,13,13,14,14,14,15],[\"x1\"],[11],"
				   "[21,21,21,22,22,22,23,23,23,24,24,24,25],[],[],"
				   "[31,31,31,32,32,32,33,33,33,34,34,34,35],[],[],"
				   "[41,41,41,42,42,42,43,43,43,44,44,44,45],[],[],"
				   "[\"流局\",[0,0,0,0]]]]}", &c), HY_EDATA);
	/* a JSON kyoku without result */
	assert_int_equal(parse_str("{\"log\":[[[0,0,0],[25000,25000,25000,25000],[11],[],"
				   "[11,11,11,12,12,12,13,13,13,14,14,14,15],[16],[60],"
				   "[21,21,21,22,22,22,23,23,23,24,24,24,25],[],[],"
				   "[31,31,31,32,32,32,33,33,33,34,34,34,35],[],[],"
				   "[41,41,41,42,42,42,43,43,43,44,44,44,45],[],[]]]}", &c), HY_ETRUNC);
	/* garbage */
	assert_int_equal(parse_str("hello", &c), HY_EFORMAT);
}

/* ------------------------------------------ chip lobbies (constructed) */

/* No chip-lobby log is in the shared data: the tests below add the chip
 * column to real logs. add_chips copies text with every score list that
 * follows `open` and ends at `close` rewritten from 8 values (two per player)
 * to 12, three per player as the chip lobbies write them: "s0,d0,s1,d1,..."
 * → "s0,d0,c0,s1,d1,c1,...". The chips are made up and mostly not 0, so a
 * reader that took them for points would be caught. Lists of another length
 * are copied as they are; *lists counts the ones rewritten. */
static char *add_chips(const char *text, const char *open, char close, int *lists)
{
	static const int chip[4] = {3, -1, 0, -2};
	size_t cap = strlen(text) * 2 + 64, n = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	const char *p = text, *q;
	*lists = 0;
	while ((q = strstr(p, open)) != NULL) {
		q += strlen(open);
		const char *e = strchr(q, close);
		assert_non_null(e);
		memcpy(out + n, p, (size_t)(q - p));
		n += (size_t)(q - p);
		const char *tok[8];
		int tl[8], nt = 0;
		for (const char *s = q;; nt++) {
			const char *c = memchr(s, ',', (size_t)(e - s));
			if (nt == 8)
				break;
			tok[nt] = s;
			tl[nt] = (int)((c ? c : e) - s);
			if (!c) {
				nt++;
				break;
			}
			s = c + 1;
		}
		if (nt == 8) {
			for (int pl = 0; pl < 4; pl++) {
				int w = snprintf(out + n, cap - n, "%s%.*s,%.*s,%d", pl ? "," : "",
						 tl[2 * pl], tok[2 * pl], tl[2 * pl + 1], tok[2 * pl + 1],
						 chip[(pl + *lists) % 4]);
				assert_true(w > 0 && (size_t)w < cap - n);
				n += (size_t)w;
			}
			++*lists;
		} else {
			memcpy(out + n, q, (size_t)(e - q));
			n += (size_t)(e - q);
		}
		p = e;
	}
	size_t rest = strlen(p);
	assert_true(n + rest < cap);
	memcpy(out + n, p, rest + 1);
	return out;
}

/* An inline game: the chip column is skipped in sc and owari. */
static void test_chip_columns_inline(void **state)
{
	(void)state;
	coll c;
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/>" INIT "<T60/><D60/>"
				   "<RYUUKYOKU sc=\"250,10,2,250,-10,-2,250,0,0,250,0,0\" "
				   "owari=\"260,16.0,2,240,-4.0,-2,250,-12.0,0,250,0.0,0\"/>"
				   "</mjloggm>", &c), HY_OK);
	static const char *const want[] = {"ryukyoku (1000,-1000,0,0)", "end_kyoku",
					   "end_game s=26000,24000,25000,25000"};
	expect_seq(&c.g[0], c.g[0].n - 3, want, 3);
	coll_free(&c);
	/* neither 8 nor 12 values: an error naming the list */
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/>" INIT "<T60/><D60/>"
				   "<RYUUKYOKU sc=\"250,10,2,250,-10,-2,250,0,0,250\" "
				   "owari=\"260,16.0,240,-4.0,250,-12.0,250,0.0\"/></mjloggm>", &c),
			 HY_EDATA);
	assert_non_null(strstr(c.last.msg, "bad sc"));
	assert_int_equal(parse_str("<mjloggm><GO type=\"169\"/>" INIT "<T60/><D60/>"
				   "<RYUUKYOKU sc=\"250,10,250,-10,250,0,250,0\" "
				   "owari=\"260,16.0,2,240,-4.0,-2,250,-12.0,0\"/></mjloggm>", &c),
			 HY_EDATA);
	assert_non_null(strstr(c.last.msg, "bad owari"));
}

/* Every real mjlog with chip columns added gives the same events, names and
 * final scores included. */
static void test_chip_columns_mjlog(void **state)
{
	(void)state;
	char **l;
	int n = list_dir(MJX "mjlog", ".mjlog", &l), done = 0;
	for (int i = 0; i < n; i++) {
		if (strstr(l[i], "-no-"))
			continue;
		size_t len;
		char *orig = data_file(l[i], &len);
		int nsc, now;
		char *a = add_chips(orig, " sc=\"", '"', &nsc);
		char *b = add_chips(a, " owari=\"", '"', &now);
		assert_true(nsc >= 1);
		assert_int_equal(now, 1);
		coll x, y;
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		assert_int_equal(parse(l[i], orig, len, &x, 0), HY_OK);
		hy_status st = parse(l[i], b, strlen(b), &y, 0);
		if (st != HY_OK) {
			char buf[1200];
			print_message("%s with chips: %s\n", l[i], hy_diag_format(&y.last, buf, sizeof buf));
		}
		assert_int_equal(st, HY_OK);
		assert_int_equal(y.ngames, 1);
		compare_games(l[i], &x.g[0], &y.g[0], 1);
		coll_free(&x);
		coll_free(&y);
		free(orig);
		free(a);
		free(b);
		done++;
	}
	free_list(l, n);
	print_message("%d mjlog games read with chip columns\n", done);
	assert_true(done >= 30);
}

/* tenhou.net/6 games whose "sc" gets the chip column: the same events; the
 * final scores are read from "sc" (an edited score shows in end_game), and
 * an "sc" of another length is an error. */
static void test_chip_columns_json6(void **state)
{
	(void)state;
	static const char *const files[] = {
		"tsubakisakura_mjlog2json/data/2019021004gm-00a9-0000-e2f6516d.json",
		"tsubakisakura_mjlog2json/data/2019081518gm-00a9-0000-cce9d00c.json",
		"tsubakisakura_mjlog2json/data/2023053016gm-0029-0000-e54b3b98.json",
		CONVLOG "ranked_game.json",
		CONVLOG "suukantsu_1.json",
	};
	for (int f = 0; f < 5; f++) {
		size_t len;
		char *orig = data_file(files[f], &len);
		int nsc;
		char *chips = add_chips(orig, "\"sc\":[", ']', &nsc);
		assert_int_equal(nsc, 1);
		coll x, y;
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		assert_int_equal(parse(files[f], orig, len, &x, 0), HY_OK);
		assert_int_equal(parse(files[f], chips, strlen(chips), &y, 0), HY_OK);
		compare_games(files[f], &x.g[0], &y.g[0], 1);
		/* move 1000 from seat 1 to seat 0 in the chip "sc" */
		json_error_t err;
		json_t *o = json_loads(chips, 0, &err);
		assert_non_null(o);
		json_t *sc = json_object_get(o, "sc");
		assert_int_equal(json_array_size(sc), 12);
		json_int_t s0 = (json_int_t)json_number_value(json_array_get(sc, 0));
		json_int_t s1 = (json_int_t)json_number_value(json_array_get(sc, 3));
		json_array_set_new(sc, 0, json_integer(s0 + 1000));
		json_array_set_new(sc, 3, json_integer(s1 - 1000));
		char *edited = json_dumps(o, JSON_COMPACT);
		assert_non_null(edited);
		coll z;
		memset(&z, 0, sizeof z);
		assert_int_equal(parse(files[f], edited, strlen(edited), &z, 0), HY_OK);
		const hy_event *ex = &x.g[0].ev[x.g[0].n - 1], *ez = &z.g[0].ev[z.g[0].n - 1];
		assert_int_equal(ez->type, HY_EV_END_GAME);
		assert_int_equal(ez->scores[0], ex->scores[0] + 1000);
		assert_int_equal(ez->scores[1], ex->scores[1] - 1000);
		assert_int_equal(ez->scores[2], ex->scores[2]);
		assert_int_equal(ez->scores[3], ex->scores[3]);
		free(edited);
		coll_free(&z);
		/* five values: neither layout */
		json_object_set_new(o, "sc", json_pack("[iiiii]", 1, 2, 3, 4, 5));
		edited = json_dumps(o, JSON_COMPACT);
		assert_non_null(edited);
		memset(&z, 0, sizeof z);
		assert_int_equal(parse(files[f], edited, strlen(edited), &z, 0), HY_EDATA);
		assert_non_null(strstr(z.last.msg, "bad final scores"));
		free(edited);
		json_decref(o);
		coll_free(&x);
		coll_free(&y);
		free(orig);
		free(chips);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_all_mjlog),
		cmocka_unit_test(test_all_json6),
		cmocka_unit_test(test_same_game),
		cmocka_unit_test(test_gimite_gzip),
		cmocka_unit_test(test_chankan),
		cmocka_unit_test(test_double_ron),
		cmocka_unit_test(test_rinshan),
		cmocka_unit_test(test_suukantsu),
		cmocka_unit_test(test_kyuushu),
		cmocka_unit_test(test_four_reach),
		cmocka_unit_test(test_confusing_nakis),
		cmocka_unit_test(test_confusing_nakis_0_exact),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_chip_columns_inline),
		cmocka_unit_test(test_chip_columns_mjlog),
		cmocka_unit_test(test_chip_columns_json6),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
