/* mjai JSON lines ⇄ hy_event: every real mjai log under $HY_SHARED/data/logs
 * round-trips line by line (jansson json_equal against the original), whole
 * documents split into games and validate; broken inputs give exact messages
 * and lines; --keep-going skips exactly the bad game; a JSON document is
 * taken for mjai only when its first object has a "type" (an mjx State is an
 * unrecognised format). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/tile.h"
#include "docs/source.h"
#include "events/event.h"
#include "mjai/mjai.h"

/* ------------------------------------------------------------ helpers */

typedef struct collect {
	int ngames, nbad, nevents;
	uint32_t idx[16];
	size_t nev[16];
	hy_diag bad[4];
	hy_status bad_ret; /* what `bad` returns */
} collect;

static hy_status on_game(void *ctx, hy_game *g)
{
	collect *c = ctx;
	if (c->ngames < 16) {
		c->idx[c->ngames] = g->index;
		c->nev[c->ngames] = g->n;
	}
	c->ngames++;
	c->nevents += (int)g->n;
	return HY_OK;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	collect *c = ctx;
	if (c->nbad < 4)
		c->bad[c->nbad] = *d;
	c->nbad++;
	return c->bad_ret;
}

static hy_status parse_doc(const char *doc, collect *c, hy_diag *d)
{
	hy_game_sink sink = {on_game, on_bad, c};
	return hy_mjai_parse_doc("t.jsonl", doc, strlen(doc), &sink, d);
}

/* Parses one line, expecting failure with exactly `msg`. */
static void expect_line_error(const char *line, const char *msg)
{
	hy_game g;
	hy_game_init(&g);
	hy_event e;
	hy_diag d;
	hy_diag_init(&d, "x");
	hy_status s = hy_mjai_parse_event(&g, line, strlen(line), 7, &e, &d);
	if (s != HY_EDATA || strcmp(d.msg, msg) != 0)
		fail_msg("%s\n  status %d message '%s'\n  expected '%s'", line, s, d.msg, msg);
	assert_int_equal(d.line, 7);
	hy_game_free(&g);
}

/* Parses then formats one line, expecting exactly `want` as text. */
static void expect_format(const char *line, const char *want)
{
	hy_game g;
	hy_game_init(&g);
	hy_event e;
	hy_diag d;
	hy_diag_init(&d, "x");
	hy_status s = hy_mjai_parse_event(&g, line, strlen(line), 1, &e, &d);
	if (s != HY_OK)
		fail_msg("%s: %s", line, d.msg);
	char buf[4096];
	int n = hy_mjai_format_event(&e, buf, sizeof buf);
	assert_true(n > 0);
	buf[n] = 0;
	if (strcmp(buf, want) != 0)
		fail_msg("formatted\n  %s\nexpected\n  %s", buf, want);
	hy_game_free(&g);
}

/* Two parsed events hold the same content (strings compared by value). */
static int same_event(const hy_event *a, const hy_event *b)
{
	hy_event x = *a, y = *b;
	for (int i = 0; i < 4; i++) {
		if (!x.names[i] != !y.names[i] || (x.names[i] && strcmp(x.names[i], y.names[i])))
			return 0;
		x.names[i] = y.names[i] = NULL;
	}
	if (!x.extra != !y.extra || (x.extra && strcmp(x.extra, y.extra)))
		return 0;
	x.extra = y.extra = NULL;
	return memcmp(&x, &y, sizeof x) == 0;
}

/* The line with its "type" key written as "\u0074ype": the same JSON with
 * an escaped key, which must parse to the same event. NULL if the line has
 * no "type" key text. Caller frees. */
static char *slow_variant(const char *p, size_t n, size_t *outlen)
{
	const char *k = memmem(p, n, "\"type\"", 6);
	if (!k)
		return NULL;
	char *v = malloc(n + 6);
	if (!v)
		return NULL;
	size_t pre = (size_t)(k - p);
	memcpy(v, p, pre);
	memcpy(v + pre, "\"\\u0074ype\"", 11);
	memcpy(v + pre + 11, k + 6, n - pre - 6);
	*outlen = n + 5;
	return v;
}

/* Parses the line as given and with an escaped "type" key; the results
 * must agree. Returns the status of the normal parse. */
static hy_status parse_both(hy_game *g, const char *p, size_t n, uint32_t line, hy_event *ev,
			    hy_diag *d, int *agree)
{
	hy_status s = hy_mjai_parse_event(g, p, n, line, ev, d);
	*agree = 1;
	size_t vn;
	char *v = slow_variant(p, n, &vn);
	if (v) {
		hy_event ev2;
		hy_diag d2;
		hy_status s2 = hy_mjai_parse_event(g, v, vn, line, &ev2, &d2);
		if (s2 != s || (s == HY_OK && !same_event(ev, &ev2)))
			*agree = 0;
		free(v);
	}
	return s;
}

/* ------------------------------------------------------------ real logs */

static const char *shared_dir(void)
{
	const char *s = getenv("HY_SHARED");
	return s && *s ? s : "../shared";
}

typedef struct rt_stats {
	int files, lines, docs_games, failures, expected_unknown;
	char first_failure[1024];
} rt_stats;

static rt_stats *g_rt; /* nftw has no user pointer; test-local */

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

static void rt_fail(rt_stats *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rt_fail(rt_stats *st, const char *fmt, ...)
{
	if (!st->failures++) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(st->first_failure, sizeof st->first_failure, fmt, ap);
		va_end(ap);
	}
}

static void roundtrip_file(const char *path, rt_stats *st)
{
	size_t len;
	char *data = slurp(path, &len);
	if (!data) {
		rt_fail(st, "%s: cannot read", path);
		return;
	}
	const char *nl = memchr(data, '\n', len);
	size_t l1 = nl ? (size_t)(nl - data) : len;
	/* An mjai log: the first line is an object with a "type" string
	 * (tenhou.net/6 JSON and mjx files are not). A file whose first event is
	 * not a game event (the protocol's "hello") must fail with the
	 * unknown-type message. */
	json_t *first = json_loadb(data, l1, 0, NULL);
	const char *ft = first ? json_string_value(json_object_get(first, "type")) : NULL;
	int game_log = ft && hy_ev_type_from_name(ft, strlen(ft)) != HY_EV_NONE;
	json_decref(first);
	if (!ft) {
		free(data);
		return;
	}
	st->files++;

	hy_game g;
	hy_game_init(&g);
	char *out = malloc(1 << 20);
	uint32_t line = 0;
	const char *p = data, *end = data + len;
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	while (p < end && out) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *le = e ? e : end;
		line++;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n == 0) {
			p = e ? e + 1 : end;
			continue;
		}
		hy_event ev;
		hy_diag d;
		hy_diag_init(&d, path);
		int agree;
		hy_status s = parse_both(&g, p, n, line, &ev, &d, &agree);
		if (!agree)
			rt_fail(st, "%s:%u: escaped-key variant parses differently", path, line);
		if (!game_log) {
			if (s != HY_EDATA || !strstr(d.msg, "unknown event type"))
				rt_fail(st, "%s:%u: expected an unknown-type error, got '%s'", path,
					line, d.msg);
			else
				st->expected_unknown++;
		} else if (s != HY_OK) {
			rt_fail(st, "%s:%u: %s", path, line, d.msg);
		} else {
			int m = hy_mjai_format_event(&ev, out, 1 << 20);
			json_t *a = json_loadb(p, n, 0, NULL);
			json_t *b = m > 0 ? json_loadb(out, (size_t)m, 0, NULL) : NULL;
			if (!b || !a || !json_equal(a, b))
				rt_fail(st, "%s:%u: round trip differs\n  in:  %.*s\n  out: %.*s", path,
					line, (int)n, p, m > 0 ? m : 0, out);
			json_decref(a);
			json_decref(b);
			st->lines++;
		}
		p = e ? e + 1 : end;
	}
	if (game_log) {
		collect c = {0};
		hy_diag d;
		hy_status s = hy_mjai_parse_doc(path, data, len, &(hy_game_sink){on_game, on_bad, &c},
						&d);
		if (s != HY_OK || c.nbad || c.ngames < 1) {
			char buf[1200];
			rt_fail(st, "%s: document: status %d, %d bad, %d games: %s", path, s, c.nbad,
				c.ngames, c.nbad ? hy_diag_format(&c.bad[0], buf, sizeof buf) : d.msg);
		}
		st->docs_games += c.ngames;
	}
	free(out);
	hy_game_free(&g);
	free(data);
}

static int visit(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_F && (has_suffix(path, ".json") || has_suffix(path, ".jsonl") ||
			      has_suffix(path, ".mjson")))
		roundtrip_file(path, g_rt);
	return 0;
}

static void test_real_logs_roundtrip(void **state)
{
	(void)state;
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/data/logs", shared_dir());
	struct stat sb;
	if (stat(dir, &sb) != 0) {
		print_message("skipped: %s not found (set HY_SHARED)\n", dir);
		skip();
	}
	rt_stats st = {0};
	g_rt = &st;
	assert_int_equal(nftw(dir, visit, 16, FTW_PHYS), 0);
	g_rt = NULL;
	print_message("mjai logs: %d files, %d lines round-tripped, %d games, %d unknown-type lines\n",
		      st.files, st.lines, st.docs_games, st.expected_unknown);
	if (st.failures)
		fail_msg("%d failures; first: %s", st.failures, st.first_failure);
	assert_true(st.files >= 10);
	assert_true(st.lines >= 5000);
}

/* ------------------------------------------------------------ formatting */

static void test_format_exact(void **state)
{
	(void)state;
	/* Field order: type, the type's fields in mjai order, then extra. */
	expect_format("{\"pai\":\"5mr\",\"type\":\"dahai\",\"tsumogiri\":false,\"actor\":2}",
		      "{\"type\":\"dahai\",\"actor\":2,\"pai\":\"5mr\",\"tsumogiri\":false}");
	expect_format("{\"type\":\"dahai\",\"actor\":0,\"pai\":\"E\"}",
		      "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"E\"}");
	/* Aliases are written back as given. */
	expect_format("{\"type\":\"kan\",\"actor\":1,\"target\":0,\"pai\":\"P\","
		      "\"consumed\":[\"P\",\"P\",\"P\"]}",
		      "{\"type\":\"kan\",\"actor\":1,\"target\":0,\"pai\":\"P\","
		      "\"consumed\":[\"P\",\"P\",\"P\"]}");
	expect_format("{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"2m\","
		      "\"uradora_markers\":[],\"fu\":30,\"deltas\":[-2000,0,3000,0]}",
		      "{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"2m\","
		      "\"deltas\":[-2000,0,3000,0],\"uradora_markers\":[],\"fu\":30}");
	expect_format("{\"type\":\"hora\",\"actor\":3,\"target\":3,\"ura_markers\":[\"1s\"]}",
		      "{\"type\":\"hora\",\"actor\":3,\"target\":3,\"ura_markers\":[\"1s\"]}");
	/* Extra fields keep their order and nested values. */
	expect_format("{\"type\":\"end_kyoku\",\"b\":1,\"a\":{\"x\":[1,2.5,null],\"y\":\"\\u00e9\"}}",
		      "{\"type\":\"end_kyoku\",\"b\":1,\"a\":{\"x\":[1,2.5,null],\"y\":\"\xc3\xa9\"}}");
	/* names: escapes; an irregular names array goes through extra. */
	expect_format("{\"type\":\"start_game\",\"names\":[\"a\\\"b\",\"c\\\\d\",\"\\n\",\"\xe7\xa7\x81\"]}",
		      "{\"type\":\"start_game\",\"names\":[\"a\\\"b\",\"c\\\\d\",\"\\u000a\",\"\xe7\xa7\x81\"]}");
	expect_format("{\"kyoku_first\":4,\"names\":[],\"type\":\"start_game\"}",
		      "{\"type\":\"start_game\",\"kyoku_first\":4,\"names\":[]}");
	/* scores and deltas on any type; ryukyoku actor kept. */
	expect_format("{\"type\":\"reach_accepted\",\"actor\":1,\"deltas\":[0,-1000,0,0],"
		      "\"scores\":[25000,24000,25000,25000]}",
		      "{\"type\":\"reach_accepted\",\"actor\":1,\"deltas\":[0,-1000,0,0],"
		      "\"scores\":[25000,24000,25000,25000]}");
	expect_format("{\"type\":\"ryukyoku\",\"actor\":3,\"reason\":\"kyushukyuhai\"}",
		      "{\"type\":\"ryukyoku\",\"actor\":3,\"reason\":\"kyushukyuhai\"}");
	/* Old start_kyoku: only oya, dora_marker, tehais. */
	const char *sk = "{\"type\":\"start_kyoku\",\"dora_marker\":\"8m\",\"oya\":3,\"tehais\":["
			 "[\"1m\",\"2m\",\"3m\",\"E\",\"E\",\"E\",\"S\",\"S\",\"S\",\"W\",\"W\",\"W\",\"N\"],"
			 "[\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\"],"
			 "[\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\"],"
			 "[\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\"]]}";
	expect_format(sk, sk);
	expect_format("{\"type\":\"kakan\",\"actor\":0,\"target\":2,\"pai\":\"5p\","
		      "\"consumed\":[\"5pr\",\"5p\",\"5p\"]}",
		      "{\"type\":\"kakan\",\"actor\":0,\"target\":2,\"pai\":\"5p\","
		      "\"consumed\":[\"5pr\",\"5p\",\"5p\"]}");
	expect_format("{\"type\":\"ankan\",\"actor\":0,\"consumed\":[\"9s\",\"9s\",\"9s\",\"9s\"]}",
		      "{\"type\":\"ankan\",\"actor\":0,\"consumed\":[\"9s\",\"9s\",\"9s\",\"9s\"]}");
}

static void test_format_small_buffer(void **state)
{
	(void)state;
	hy_event e;
	hy_event_blank(&e, HY_EV_TSUMO);
	e.actor = 1;
	e.pai = 0;
	char buf[64];
	int n = hy_mjai_format_event(&e, buf, sizeof buf);
	assert_int_equal(n, (int)strlen("{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"1m\"}"));
	for (size_t sz = 0; sz < (size_t)n; sz++)
		assert_int_equal(hy_mjai_format_event(&e, buf, sz), -1);
	assert_int_equal(hy_mjai_format_event(&e, buf, (size_t)n), n);
}

static void test_write_game(void **state)
{
	(void)state;
	const char *doc = "{\"type\":\"start_game\",\"names\":[\"a\",\"b\",\"c\",\"d\"]}\n"
			  "{\"type\":\"end_game\",\"scores\":[1,2,3,-4]}\n";
	hy_game g;
	hy_game_init(&g);
	const char *p = doc;
	for (uint32_t line = 1; *p; line++) {
		const char *nl = strchr(p, '\n');
		hy_event e;
		assert_int_equal(hy_mjai_parse_event(&g, p, (size_t)(nl - p), line, &e, NULL), HY_OK);
		assert_int_equal(e.line, line);
		assert_non_null(hy_game_push(&g, &e));
		p = nl + 1;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(hy_mjai_write_game(f, &g), HY_OK);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, doc);
	free(buf);
	hy_game_free(&g);
}

/* ------------------------------------------------------------ bad lines */

static void test_line_errors(void **state)
{
	(void)state;
	expect_line_error("{\"type\":\"xyz\"}", "unknown event type 'xyz'");
	expect_line_error("{\"type\":\"dahai\",\"actor\":0,\"pai\":\"5z\"}", "bad tile '5z'");
	expect_line_error("{\"type\":\"dahai\",\"actor\":0,\"pai\":\"?\"}", "bad tile '?'");
	expect_line_error("{\"type\":\"dahai\",\"actor\":0}", "dahai: missing field 'pai'");
	expect_line_error("{\"type\":\"tsumo\",\"actor\":7,\"pai\":\"1m\"}",
			  "actor 7 out of range 0-3");
	expect_line_error("{\"type\":\"pon\",\"actor\":0,\"target\":1,\"pai\":\"1m\","
			  "\"consumed\":[\"1m\",\"1m\",\"1m\"]}",
			  "pon: consumed has 3 tiles, expected 2");
	expect_line_error("{\"type\":\"kan\",\"actor\":0,\"target\":1,\"pai\":\"1m\","
			  "\"consumed\":[\"1m\",\"1m\"]}",
			  "kan: consumed has 2 tiles, expected 3");
	expect_line_error("{\"type\":\"chi\",\"actor\":0,\"pai\":\"1m\",\"consumed\":[\"2m\",\"3m\"]}",
			  "chi: missing field 'target'");
	expect_line_error("{\"type\":\"start_kyoku\",\"oya\":0,\"dora_marker\":\"1m\",\"kyoku\":\"1\"}",
			  "start_kyoku: field 'kyoku' is not an integer");
	expect_line_error("{\"type\":\"start_kyoku\",\"oya\":0,\"dora_marker\":\"1m\",\"honba\":300}",
			  "honba 300 out of range 0-255");
	expect_line_error("{\"type\":\"start_kyoku\",\"oya\":0,\"dora_marker\":\"1m\",\"bakaze\":\"P\"}",
			  "bad bakaze 'P'");
	expect_line_error("{\"type\":\"start_kyoku\",\"dora_marker\":\"1m\"}",
			  "start_kyoku: missing field 'oya'");
	expect_line_error("{\"type\":\"start_kyoku\",\"oya\":0,\"dora_marker\":\"1m\",\"tehais\":["
			  "[\"1m\",\"2m\",\"3m\",\"4m\",\"5m\",\"6m\",\"7m\",\"8m\",\"9m\",\"1p\",\"2p\",\"3p\"],"
			  "[],[],[]]}",
			  "start_kyoku: tehais[0] has 12 tiles, expected 13");
	expect_line_error("{\"type\":\"start_game\",\"names\":[\"a\",1,\"c\",\"d\"]}",
			  "start_game: field 'names' is not an array of strings");
	expect_line_error("{\"type\":\"end_game\",\"scores\":[1,2,3]}",
			  "end_game: scores has 3 values, expected 4");
	expect_line_error("{\"type\":\"end_game\",\"scores\":[1,2,3,4294967296]}",
			  "scores 4294967296 out of range -2147483648-2147483647");
	expect_line_error("{\"type\":\"dahai\",\"actor\":0,\"pai\":\"1m\",\"tsumogiri\":1}",
			  "dahai: field 'tsumogiri' is not a boolean");
	expect_line_error("{\"type\":\"hora\",\"actor\":0,\"target\":0,"
			  "\"ura_markers\":[\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\"]}",
			  "hora: ura_markers has 6 tiles, expected at most 5");
	expect_line_error("[1,2]", "not a JSON object");
	expect_line_error("{\"actor\":1}", "missing field 'type'");
	expect_line_error("{\"type\":1}", "field 'type' is not a string");
	expect_line_error("{\"type\":\"end_game\",\"a\":1,\"a\":2}",
			  "invalid JSON: duplicate object key near '\"a\"' (column 28)");
	expect_line_error("{\"type\":\"end_game\"} x",
			  "invalid JSON: end of file expected near 'x' (column 21)");
}

/* ------------------------------------------------------------ documents */

#define SG "{\"type\":\"start_game\",\"names\":[\"A\",\"B\",\"C\",\"D\"]}\n"
#define SK "{\"type\":\"start_kyoku\",\"bakaze\":\"E\",\"kyoku\":1,\"honba\":0,\"kyotaku\":0,\"oya\":0,\"dora_marker\":\"1m\"}\n"
#define TS "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"1m\"}\n"
#define DH "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"1m\",\"tsumogiri\":true}\n"
#define RY "{\"type\":\"ryukyoku\",\"deltas\":[0,0,0,0]}\n"
#define EK "{\"type\":\"end_kyoku\"}\n"
#define EG "{\"type\":\"end_game\"}\n"
#define GAME SG SK TS DH RY EK EG

static void test_doc_invalid_json_line3(void **state)
{
	(void)state;
	collect c = {0};
	c.bad_ret = HY_EDATA;
	hy_diag d;
	hy_status s = parse_doc(SG SK "{\"type\":\"tsumo\",\"actor\":0,\n" TS, &c, &d);
	assert_int_equal(s, HY_EDATA);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.ngames, 0);
	assert_int_equal(d.line, 3);
	assert_int_equal(d.game, 0);
	assert_string_equal(d.msg, "invalid JSON: string or '}' expected near end of file (column 26)");
	char buf[1024];
	assert_string_equal(hy_diag_format(&d, buf, sizeof buf),
			    "t.jsonl:3: invalid JSON: string or '}' expected near end of file (column 26)");
}

static void test_doc_messages(void **state)
{
	(void)state;
	struct {
		const char *doc;
		uint32_t line;
		const char *msg;
	} cases[] = {
		{SG SK "{\"type\":\"xyz\"}\n", 3, "unknown event type 'xyz'"},
		{SG SK "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"5z\"}\n", 3, "bad tile '5z'"},
		{SG SK TS DH "{\"type\":\"pon\",\"actor\":1,\"target\":0,\"pai\":\"1m\","
			     "\"consumed\":[\"1m\",\"1m\",\"1m\"]}\n",
		 5, "pon: consumed has 3 tiles, expected 2"},
		{SG SK "{\"type\":\"tsumo\",\"actor\":7,\"pai\":\"1m\"}\n", 3,
		 "actor 7 out of range 0-3"},
		{SG "{\"type\":\"start_kyoku\",\"oya\":0,\"dora_marker\":\"1m\",\"tehais\":["
		    "[\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\"],"
		    "[\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\"],"
		    "[\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\"],"
		    "[\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\",\"1m\"]]}\n",
		 2, "start_kyoku: tehais[2] has 12 tiles, expected 13"},
		{SG SK TS DH RY EK EG TS, 8, "tsumo: comes after end_game"},
		{"\n\n" SG SK TS DH RY EK EG EK, 10, "end_kyoku: comes after end_game"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		collect c = {0};
		c.bad_ret = HY_EDATA;
		hy_diag d;
		hy_status s = parse_doc(cases[i].doc, &c, &d);
		if (s != HY_EDATA || d.line != cases[i].line || strcmp(d.msg, cases[i].msg) ||
		    c.nbad != 1 || c.ngames != 0)
			fail_msg("case %zu: status %d line %u msg '%s' (bad %d, games %d); "
				 "expected line %u '%s'",
				 i, s, d.line, d.msg, c.nbad, c.ngames, cases[i].line, cases[i].msg);
		assert_int_equal(c.bad[0].line, cases[i].line);
		assert_int_equal(c.bad[0].game, 0);
		assert_string_equal(c.bad[0].source, "t.jsonl");
	}
}

static void test_doc_keep_going(void **state)
{
	(void)state;
	/* Middle game broken on its 4th line: games 0 and 2 delivered, bad once. */
	const char *doc = GAME SG SK TS "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"0m\"}\n" RY EK EG GAME;
	collect c = {0};
	c.bad_ret = HY_OK;
	hy_diag d;
	assert_int_equal(parse_doc(doc, &c, &d), HY_OK);
	assert_int_equal(c.ngames, 2);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.idx[0], 0);
	assert_int_equal(c.idx[1], 2);
	assert_int_equal(c.nev[0], 7);
	assert_int_equal(c.nev[1], 7);
	assert_int_equal(c.bad[0].line, 11);
	assert_int_equal(c.bad[0].game, 1);
	assert_string_equal(c.bad[0].msg, "bad tile '0m'");

	/* A validation failure (found at the game's end) is skipped the same way. */
	const char *doc2 = GAME SG SK EK TS EG GAME;
	memset(&c, 0, sizeof c);
	assert_int_equal(parse_doc(doc2, &c, &d), HY_OK);
	assert_int_equal(c.ngames, 2);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.idx[1], 2);
	assert_int_equal(c.bad[0].line, 11);
	assert_int_equal(c.bad[0].game, 1);
	assert_string_equal(c.bad[0].msg, "tsumo: outside a kyoku");

	/* A broken start_game line still begins a new (bad) game. */
	const char *doc3 = GAME "{\"type\":\"start_game\",\"names\":7}\n" SK TS EG GAME;
	memset(&c, 0, sizeof c);
	assert_int_equal(parse_doc(doc3, &c, &d), HY_OK);
	assert_int_equal(c.ngames, 2);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.idx[0], 0);
	assert_int_equal(c.idx[1], 2);
	assert_int_equal(c.bad[0].line, 8);
	assert_int_equal(c.bad[0].game, 1);

	/* `bad` returning an error stops the parse with it. */
	memset(&c, 0, sizeof c);
	c.bad_ret = HY_EDATA;
	assert_int_equal(parse_doc(doc, &c, &d), HY_EDATA);
	assert_int_equal(c.ngames, 1);
	assert_int_equal(c.nbad, 1);

	/* No `bad` at all: stop at the first bad game. */
	memset(&c, 0, sizeof c);
	hy_game_sink sink = {on_game, NULL, &c};
	assert_int_equal(hy_mjai_parse_doc("t", doc, strlen(doc), &sink, &d), HY_EDATA);
	assert_int_equal(c.ngames, 1);
	assert_int_equal(d.line, 11);
	assert_int_equal(d.game, 1);
}

static void test_doc_layout(void **state)
{
	(void)state;
	/* BOM, CRLF, blank and whitespace lines, no final newline; a fragment
	 * before the first start_game is game 0. */
	const char *doc = "\xEF\xBB\xBF" "{\"type\":\"start_kyoku\",\"oya\":0,\"dora_marker\":\"1m\"}\r\n"
			  "\r\n"
			  "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"?\"}\r\n"
			  "   \n"
			  SG SK TS "{\"type\":\"end_game\"}";
	collect c = {0};
	hy_diag d;
	assert_int_equal(parse_doc(doc, &c, &d), HY_OK);
	assert_int_equal(c.nbad, 0);
	assert_int_equal(c.ngames, 2);
	assert_int_equal(c.idx[0], 0);
	assert_int_equal(c.nev[0], 2);
	assert_int_equal(c.idx[1], 1);
	assert_int_equal(c.nev[1], 4);

	/* Line numbers count blank lines. */
	const char *doc2 = "\r\n\n" SG "\n" SK "{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"xx\"}\r\n";
	memset(&c, 0, sizeof c);
	c.bad_ret = HY_EDATA;
	assert_int_equal(parse_doc(doc2, &c, &d), HY_EDATA);
	assert_int_equal(d.line, 6);
	assert_string_equal(d.msg, "bad tile 'xx'");

	/* Empty and blank documents deliver nothing. */
	memset(&c, 0, sizeof c);
	assert_int_equal(parse_doc("", &c, &d), HY_OK);
	assert_int_equal(parse_doc("\n \r\n", &c, &d), HY_OK);
	assert_int_equal(c.ngames + c.nbad, 0);
}

typedef struct keepsrc {
	char src[64];
	uint32_t index;
	const char *name0;
} keepsrc;

static hy_status keep_source(void *ctx, hy_game *g)
{
	keepsrc *k = ctx;
	snprintf(k->src, sizeof k->src, "%s", g->source);
	k->index = g->index;
	assert_true(g->n > 0);
	assert_int_equal(g->ev[0].type, HY_EV_START_GAME);
	assert_string_equal(g->ev[0].names[3], "D");
	return HY_OK;
}

static void test_doc_provenance(void **state)
{
	(void)state;
	keepsrc k = {0};
	hy_game_sink sink = {keep_source, NULL, &k};
	const char *doc = GAME GAME GAME;
	hy_diag d;
	assert_int_equal(hy_mjai_parse_doc("dir/x.mjson", doc, strlen(doc), &sink, &d), HY_OK);
	assert_string_equal(k.src, "dir/x.mjson");
	assert_int_equal(k.index, 2);
}

static hy_status stop_now(void *ctx, hy_game *g)
{
	(void)g;
	++*(int *)ctx;
	return HY_STOP;
}

static void test_doc_sink_stop(void **state)
{
	(void)state;
	int n = 0;
	hy_game_sink sink = {stop_now, NULL, &n};
	const char *doc = GAME GAME;
	assert_int_equal(hy_mjai_parse_doc("x", doc, strlen(doc), &sink, NULL), HY_STOP);
	assert_int_equal(n, 1);
}

/* ------------------------------------------------------------ fuzz */

/* Random edits of valid lines: never a crash; an escaped key parses the same;
 * whatever parses formats back to an equal event. */
static void test_fuzz_lines(void **state)
{
	(void)state;
	static const char *const corpus[] = {
		"{\"type\":\"start_game\",\"names\":[\"A\",\"B\",\"C\",\"D\"],\"seed\":[1,2]}",
		"{\"type\":\"start_kyoku\",\"bakaze\":\"E\",\"dora_marker\":\"2s\",\"kyoku\":1,\"honba\":0,"
		"\"kyotaku\":0,\"oya\":0,\"scores\":[25000,25000,25000,25000],\"tehais\":["
		"[\"8p\",\"C\",\"5s\",\"9s\",\"N\",\"4s\",\"4p\",\"3s\",\"8m\",\"5p\",\"W\",\"7p\",\"8m\"],"
		"[\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\",\"?\"],"
		"[\"4p\",\"4p\",\"2m\",\"7s\",\"6s\",\"3p\",\"6s\",\"7s\",\"E\",\"N\",\"C\",\"3s\",\"S\"],"
		"[\"2s\",\"9m\",\"P\",\"5sr\",\"1s\",\"9m\",\"9s\",\"1p\",\"4m\",\"4s\",\"N\",\"8s\",\"3m\"]]}",
		"{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"?\"}",
		"{\"type\":\"dahai\",\"actor\":3,\"pai\":\"5pr\",\"tsumogiri\":false}",
		"{\"type\":\"chi\",\"actor\":1,\"target\":0,\"pai\":\"3m\",\"consumed\":[\"1m\",\"2m\"]}",
		"{\"type\":\"kan\",\"actor\":1,\"target\":0,\"pai\":\"P\",\"consumed\":[\"P\",\"P\",\"P\"]}",
		"{\"type\":\"ankan\",\"actor\":0,\"consumed\":[\"9s\",\"9s\",\"9s\",\"9s\"]}",
		"{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"2m\",\"uradora_markers\":[\"1s\"],"
		"\"deltas\":[-2000,0,3000,0],\"scores\":[1,2,3,4]}",
		"{\"type\":\"ryukyoku\",\"deltas\":[0,0,0,0],\"reason\":\"fanpai\"}",
		"{\"type\":\"reach_accepted\",\"actor\":1}",
		"{\"type\":\"dora\",\"dora_marker\":\"E\"}",
		"{\"type\":\"end_game\",\"scores\":[25000,25000,25000,25000]}",
		"{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"S\",\"logs\":[null,\"a\\nb\\\"c\","
		"{\"x\":[1,-2,true,{}],\"y\":false}],\"meta\": {\"waits\": [\"3m\", \"6m\"]}}",
	};
	static const char alphabet[] = "{}[]\",:0123456789-. tfnu\\?5mpsrESWN";
	unsigned seed = getenv("HY_SEED") ? (unsigned)strtoul(getenv("HY_SEED"), NULL, 0)
					  : (unsigned)time(NULL);
	print_message("fuzz seed %u (HY_SEED=%u reproduces)\n", seed, seed);
	srand(seed);
	hy_game g;
	hy_game_init(&g);
	char line[1024], out[2048];
	int ok = 0;
	for (int it = 0; it < 30000; it++) {
		const char *src = corpus[(size_t)rand() % (sizeof corpus / sizeof corpus[0])];
		size_t n = strlen(src);
		memcpy(line, src, n);
		for (int k = 1 + rand() % 3; k > 0 && n > 1; k--) {
			size_t at = (size_t)rand() % n;
			char c = alphabet[(size_t)rand() % (sizeof alphabet - 1)];
			switch (rand() % 4) {
			case 0: line[at] = c; break;
			case 1: memmove(line + at, line + at + 1, n - at - 1); n--; break;
			case 2:
				memmove(line + at + 1, line + at, n - at);
				line[at] = c;
				n++;
				break;
			default: n = at + 1; break;
			}
		}
		hy_event e, e2;
		hy_diag d;
		int agree;
		hy_status s = parse_both(&g, line, n, 1, &e, &d, &agree);
		if (!agree)
			fail_msg("seed %u iteration %d: escaped-key variant differs on %.*s", seed, it,
				 (int)n, line);
		if (s != HY_OK) {
			assert_int_equal(s, HY_EDATA);
			assert_true(d.msg[0] != 0);
			continue;
		}
		ok++;
		int m = hy_mjai_format_event(&e, out, sizeof out);
		assert_true(m > 0);
		if (hy_mjai_parse_event(&g, out, (size_t)m, 1, &e2, &d) != HY_OK || !same_event(&e, &e2))
			fail_msg("seed %u iteration %d: %.*s formats as %.*s which does not read back",
				 seed, it, (int)n, line, m, out);
		if (g.nstrs > 10000)
			hy_game_clear(&g);
	}
	print_message("fuzz: %d of 30000 edited lines still parsed\n", ok);
	hy_game_free(&g);
}

/* ------------------------------------------------------------ detection */

static hy_status parse_source(const char *doc, collect *c, hy_diag *d)
{
	hy_game_sink sink = {on_game, NULL, c};
	return hy_source_parse("t.json", doc, strlen(doc), &sink, d);
}

/* A JSON document is mjai when its first object has a "type"; a JSON object
 * without one is no known format (status 3), JSON that does not parse is a
 * broken mjai log (status 1, the line named). */
static void test_detect_json(void **state)
{
	(void)state;
	static const char mjai[] = "{\"type\":\"start_game\",\"names\":[\"a\",\"b\",\"c\",\"d\"]}\n";
	static const char other[] = "{\"a\":1}\n{\"type\":\"start_game\"}\n";
	static const char broken[] = "{\"type\":\"start_game\",\n{\"type\":\"end_game\"}\n";
	static const char mjx[] = "{\n  \"hiddenState\": {\"wall\": [1, 2]},\n"
				  "  \"publicObservation\": {\"events\": [{\"type\": \"EVENT_TYPE_DRAW\"}]}\n}\n";
	static const char t6[] = "{\"title\":[\"\",\"\"],\"log\":[]}";
	assert_int_equal(hy_source_detect(mjai, strlen(mjai)), HY_SOURCE_MJAI);
	assert_int_equal(hy_source_detect(other, strlen(other)), HY_SOURCE_UNKNOWN);
	assert_int_equal(hy_source_detect(broken, strlen(broken)), HY_SOURCE_MJAI);
	assert_int_equal(hy_source_detect(mjx, strlen(mjx)), HY_SOURCE_UNKNOWN);
	assert_int_equal(hy_source_detect(t6, strlen(t6)), HY_SOURCE_TENHOU6);
	assert_int_equal(hy_source_detect("\xEF\xBB\xBF  \n", 6), HY_SOURCE_EMPTY);

	collect c = {0};
	hy_diag d;
	assert_int_equal(parse_source(other, &c, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "unrecognised input format (expected mjai JSON lines"));
	assert_int_equal(parse_source(mjx, &c, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "unrecognised input format: an mjx State JSON"));
	assert_int_equal(parse_source(broken, &c, &d), HY_EDATA);
	assert_int_equal(d.line, 1);
	assert_non_null(strstr(d.msg, "invalid JSON"));
	assert_int_equal(c.ngames, 0);
}

/* The mjx State files of the shared data (one kyoku's full state per line)
 * are reported as an unrecognised format, not as a broken mjai log. */
static void test_detect_mjx_state(void **state)
{
	(void)state;
	static const char *const ids[] = {"3e8b8aaf", "3ffa4858", "6db179be", "7c8869db"};
	int found = 0;
	for (int i = 0; i < 4; i++) {
		char path[1024];
		snprintf(path, sizeof path,
			 "%s/data/logs/mjx-project_mjx/workspace/suphx-reward-shaping/tests/"
			 "resources/2022060100gm-00a9-0000-%s.json", shared_dir(), ids[i]);
		size_t len;
		char *data = slurp(path, &len);
		if (!data)
			continue;
		found++;
		assert_int_equal(hy_source_detect(data, len), HY_SOURCE_UNKNOWN);
		collect c = {0};
		hy_diag d;
		hy_game_sink sink = {on_game, NULL, &c};
		assert_int_equal(hy_source_parse(path, data, len, &sink, &d), HY_EFORMAT);
		assert_non_null(strstr(d.msg, "an mjx State JSON (one kyoku's full state per line) "
					      "is not a game log"));
		assert_int_equal(c.ngames, 0);
		free(data);
	}
	if (!found) {
		print_message("skipped: no mjx State files under %s/data/logs (set HY_SHARED)\n",
			      shared_dir());
		skip();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_logs_roundtrip),
		cmocka_unit_test(test_format_exact),
		cmocka_unit_test(test_format_small_buffer),
		cmocka_unit_test(test_write_game),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test(test_doc_invalid_json_line3),
		cmocka_unit_test(test_doc_messages),
		cmocka_unit_test(test_doc_keep_going),
		cmocka_unit_test(test_doc_layout),
		cmocka_unit_test(test_doc_provenance),
		cmocka_unit_test(test_doc_sink_stop),
		cmocka_unit_test(test_fuzz_lines),
		cmocka_unit_test(test_detect_json),
		cmocka_unit_test(test_detect_mjx_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
