/* The mjai bot protocol (lib/play/mjaibot.c) and one seat's view of a game
 * (lib/play/seatview.c):
 *   - seat views of events (hidden hands and draws, "id", no extra fields),
 *     protocol lines ⇄ events, actions ⇄ answer lines for every legal
 *     action of every decision of self-played games, malformed and illegal
 *     answers;
 *   - the view's equivalence: for every seat of every game (self-played
 *     games, and every log under $HY_SHARED/data/logs when present: the
 *     golden event stream holds no full-information game), the view fed only that seat's
 *     events has the same legal mask as the full-information replay at
 *     every event, and the same observation at every decision of the seat.
 * Randomised parts print the seed (HY_SEED overrides it). */
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

#include "core/tile.h"
#include "docs/source.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "engine/replay.h"
#include "engine/table.h"
#include "events/event.h"
#include "mjai/mjai.h"
#include "play/mjaibot.h"
#include "play/seatview.h"

static uint64_t test_seed(void)
{
	const char *e = getenv("HY_SEED");
	return e && *e ? strtoull(e, NULL, 0) : 20261124;
}

static uint64_t next_rand(uint64_t *s)
{
	uint64_t x = *s += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* A uniformly random legal index, discards weighted up so that games last. */
static int pick(uint64_t mask, uint64_t *rng)
{
	int idx[HY_A_COUNT], n = 0;
	for (int a = 0; a < HY_A_COUNT; a++)
		if (mask >> a & 1)
			idx[n++] = a;
	return idx[next_rand(rng) % (uint64_t)n];
}

/* Plays one self-play game with random moves into log. */
static void play_game(uint64_t seed, uint64_t game, uint64_t *rng, hy_game *log)
{
	hy_table *t = calloc(1, sizeof *t);
	assert_non_null(t);
	hy_diag d;
	hy_diag_init(&d, "selfplay");
	assert_int_equal(hy_table_start(t, NULL, seed, game, log, &d), HY_OK);
	for (int guard = 0; t->e.phase != HY_PH_GAME_END; guard++) {
		assert_true(guard < 100000);
		unsigned who = hy_engine_deciders(&t->e);
		int s = __builtin_ctz(who);
		int a = pick(hy_engine_legal_mask(&t->e, s), rng);
		if (hy_table_act(t, s, a, &d) != HY_OK)
			fail_msg("seed %" PRIu64 " game %" PRIu64 ": %s", seed, game, d.msg);
	}
	free(t);
}

static int fmt(const hy_event *ev, char *buf, size_t n)
{
	int k = hy_mjai_format_event(ev, buf, n - 1);
	assert_true(k > 0);
	buf[k] = 0;
	return k;
}

/* ------------------------------------------------------------ codec */

static void test_view_events(void **state)
{
	(void)state;
	hy_game src, dst;
	hy_game_init(&src);
	hy_game_init(&dst);
	static const char *const lines[] = {
		"{\"type\":\"start_game\",\"names\":[\"a\",\"b\",\"c\",\"d\"],\"seed\":\"0x1234\"}",
		"{\"type\":\"start_kyoku\",\"bakaze\":\"E\",\"dora_marker\":\"1m\",\"kyoku\":1,"
		"\"honba\":0,\"kyotaku\":0,\"oya\":0,\"scores\":[25000,25000,25000,25000],"
		"\"tehais\":[[\"1m\",\"2m\",\"3m\",\"4m\",\"5m\",\"6m\",\"7m\",\"8m\",\"9m\",\"1p\","
		"\"2p\",\"3p\",\"4p\"],[\"1s\",\"2s\",\"3s\",\"4s\",\"5s\",\"6s\",\"7s\",\"8s\",\"9s\","
		"\"E\",\"S\",\"W\",\"N\"],[\"5p\",\"6p\",\"7p\",\"8p\",\"9p\",\"P\",\"F\",\"C\",\"1m\","
		"\"2m\",\"3m\",\"4m\",\"5m\"],[\"6m\",\"7m\",\"8m\",\"9m\",\"1p\",\"2p\",\"3p\",\"4p\","
		"\"5p\",\"6p\",\"7p\",\"8p\",\"9p\"]]}",
		"{\"type\":\"tsumo\",\"actor\":0,\"pai\":\"C\"}",
		"{\"type\":\"dahai\",\"actor\":0,\"pai\":\"C\",\"tsumogiri\":true,\"meta\":{\"q\":1}}",
		"{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"P\"}",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		hy_event ev;
		hy_diag d;
		hy_diag_init(&d, "t");
		assert_int_equal(hy_mjai_parse_event(&src, lines[i], strlen(lines[i]), 1, &ev, &d),
				 HY_OK);
		assert_non_null(hy_game_push(&src, &ev));
	}
	for (int seat = 0; seat < 4; seat++) {
		hy_game_clear(&dst);
		for (size_t i = 0; i < src.n; i++)
			assert_int_equal(hy_mjaibot_view_event(&dst, &src.ev[i], seat, NULL), HY_OK);
		char b[2048];
		assert_int_equal(hy_mjaibot_start_id(&dst.ev[0]), seat);
		fmt(&dst.ev[0], b, sizeof b);
		assert_null(strstr(b, "seed"));
		assert_non_null(strstr(b, "\"names\":[\"a\",\"b\",\"c\",\"d\"]"));
		for (int s = 0; s < 4; s++)
			for (int k = 0; k < 13; k++)
				if (s == seat)
					assert_int_equal(dst.ev[1].tehais[s][k], src.ev[1].tehais[s][k]);
				else
					assert_int_equal(dst.ev[1].tehais[s][k], HY_TILE_UNKNOWN);
		assert_int_equal(dst.ev[2].pai, seat == 0 ? 33 : HY_TILE_UNKNOWN);
		assert_int_equal(dst.ev[4].pai, seat == 1 ? 31 : HY_TILE_UNKNOWN);
		fmt(&dst.ev[3], b, sizeof b);
		assert_string_equal(b, "{\"type\":\"dahai\",\"actor\":0,\"pai\":\"C\",\"tsumogiri\":true}");

		/* one protocol line and back */
		char *line;
		size_t len;
		assert_int_equal(hy_mjaibot_format_batch(dst.ev, dst.n, &line, &len, NULL), HY_OK);
		assert_int_equal(strlen(line), len);
		assert_int_equal(line[0], '[');
		assert_null(strchr(line, '\n'));
		hy_game back;
		hy_game_init(&back);
		hy_diag d;
		hy_diag_init(&d, "t");
		assert_int_equal(hy_mjaibot_parse_batch(&back, line, len, 7, &d), HY_OK);
		assert_int_equal(back.n, dst.n);
		for (size_t i = 0; i < dst.n; i++) {
			char x[2048], y[2048];
			fmt(&dst.ev[i], x, sizeof x);
			fmt(&back.ev[i], y, sizeof y);
			assert_string_equal(x, y);
		}
		free(line);
		hy_game_free(&back);
	}
	/* malformed lines name the line */
	static const char *const bad[] = {"", "[", "{\"type\":\"dahai\"}", "[1]", "\"x\"",
					  "[{\"type\":\"nonsense\"}]", "[{\"type\":\"tsumo\",\"actor\":9,\"pai\":\"1m\"}]"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hy_game g;
		hy_game_init(&g);
		hy_diag d;
		hy_diag_init(&d, "stdin");
		assert_int_equal(hy_mjaibot_parse_batch(&g, bad[i], strlen(bad[i]), 42, &d), HY_EDATA);
		assert_int_equal(d.line, 42);
		assert_true(d.msg[0] != 0);
		hy_game_free(&g);
	}
	/* a single event object is one event */
	hy_game g;
	hy_game_init(&g);
	const char *one = "{\"type\":\"end_game\"}";
	assert_int_equal(hy_mjaibot_parse_batch(&g, one, strlen(one), 1, NULL), HY_OK);
	assert_int_equal(g.n, 1);
	hy_game_free(&g);
	hy_game_free(&src);
	hy_game_free(&dst);
}

/* Every legal action of every decision of self-played games: the answer
 * line parses back to the same action and index. */
static void test_answers_round_trip(void **state)
{
	(void)state;
	uint64_t seed = test_seed(), rng = seed;
	print_message("answers: seed %" PRIu64 " (HY_SEED)\n", seed);
	hy_game scratch;
	hy_game_init(&scratch);
	hy_table *t = calloc(1, sizeof *t);
	assert_non_null(t);
	uint64_t checked = 0, per_type[16] = {0};
	/* games until every kind of answer was seen (random play riichis and
	 * wins seldom) */
#define SEEN(t) (per_type[t] != 0)
	for (uint64_t game = 0;
	     game < 6 || (game < 80 && !(SEEN(HY_ACT_RIICHI) && SEEN(HY_ACT_TSUMO) &&
					 SEEN(HY_ACT_RON) && SEEN(HY_ACT_ANKAN) &&
					 SEEN(HY_ACT_KAKAN) && SEEN(HY_ACT_DAIMINKAN)));
	     game++) {
		hy_diag d;
		hy_diag_init(&d, "selfplay");
		assert_int_equal(hy_table_start(t, NULL, seed, game, NULL, &d), HY_OK);
		while (t->e.phase != HY_PH_GAME_END) {
			unsigned who = hy_engine_deciders(&t->e);
			for (int s = 0; s < 4; s++) {
				if (!(who >> s & 1))
					continue;
				hy_action acts[64];
				int n = hy_engine_legal_actions(&t->e, s, acts, 64);
				for (int i = 0; i < n && i < 64; i++) {
					char line[512];
					int k = hy_mjaibot_format_answer(&t->e, s, &acts[i], line,
									 sizeof line);
					assert_true(k > 0);
					hy_action a;
					int index, illegal;
					hy_diag ad;
					hy_diag_init(&ad, NULL);
					if (hy_mjaibot_parse_answer(&t->e, s, line, (size_t)k, &scratch,
								    &a, &index, &illegal, &ad) != HY_OK)
						fail_msg("seed %" PRIu64 " game %" PRIu64 ": '%s': %s",
							 seed, game, line, ad.msg);
					assert_int_equal(index, hy_engine_index_of(&t->e, s, &acts[i]));
					assert_int_equal(a.type, acts[i].type);
					if (a.type != HY_ACT_PASS && a.type != HY_ACT_RIICHI &&
					    a.type != HY_ACT_KYUUSHU)
						assert_int_equal(a.tile, acts[i].tile);
					assert_int_equal(a.nconsumed, acts[i].nconsumed);
					assert_true(hy_engine_is_legal(&t->e, s, &a));
					per_type[acts[i].type]++;
					checked++;
				}
			}
			int s = __builtin_ctz(who);
			int a = pick(hy_engine_legal_mask(&t->e, s), &rng);
			assert_int_equal(hy_table_act(t, s, a, &d), HY_OK);
		}
	}
	print_message("answers: %" PRIu64 " actions round-tripped (by type:", checked);
	for (int ty = HY_ACT_DISCARD; ty <= HY_ACT_PASS; ty++)
		print_message(" %" PRIu64, per_type[ty]);
	print_message(")\n");
	assert_true(per_type[HY_ACT_DISCARD] && per_type[HY_ACT_RIICHI] && per_type[HY_ACT_CHI] &&
		    per_type[HY_ACT_PON] && per_type[HY_ACT_PASS]);
	assert_true(SEEN(HY_ACT_DAIMINKAN) && SEEN(HY_ACT_ANKAN) && SEEN(HY_ACT_KAKAN));
	assert_true(SEEN(HY_ACT_TSUMO) && SEEN(HY_ACT_RON));
#undef SEEN
	free(t);
	hy_game_free(&scratch);
}

/* Answers that must be refused, in a state where seat 0 is on turn. */
static void test_bad_answers(void **state)
{
	(void)state;
	hy_table *t = calloc(1, sizeof *t);
	assert_non_null(t);
	hy_diag d;
	hy_diag_init(&d, "t");
	assert_int_equal(hy_table_start(t, NULL, 1, 0, NULL, &d), HY_OK);
	assert_int_equal(t->e.phase, HY_PH_TURN);
	int s = t->e.actor;
	/* a tile the seat does not hold */
	int missing = -1;
	for (int k = 0; k < 34 && missing < 0; k++)
		if (!t->e.p[s].cnt[k])
			missing = k;
	char nohold[128];
	snprintf(nohold, sizeof nohold, "{\"type\":\"dahai\",\"actor\":%d,\"pai\":\"%s\",\"tsumogiri\":false}",
		 s, hy_tile_to_mjai(missing));
	char other[128];
	snprintf(other, sizeof other, "{\"type\":\"dahai\",\"actor\":%d,\"pai\":\"%s\",\"tsumogiri\":true}",
		 (s + 1) % 4, hy_tile_to_mjai(t->e.p[s].drawn));
	struct {
		const char *line;
		int illegal;
	} cases[] = {
		{"", 0},
		{"{\"type\":", 0},
		{"[]", 0},
		{"{\"type\":\"dahai\",\"actor\":0}", 0},
		{"{\"type\":\"bogus\"}", 0},
		{"{\"type\":\"none\"}", 1},
		{nohold, 1},
		{other, 1},
		{"{\"type\":\"start_game\"}", 1},
	};
	hy_game scratch;
	hy_game_init(&scratch);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hy_action a;
		int index, illegal;
		hy_diag ad;
		hy_diag_init(&ad, NULL);
		hy_status st = hy_mjaibot_parse_answer(&t->e, s, cases[i].line, strlen(cases[i].line),
						       &scratch, &a, &index, &illegal, &ad);
		if (st != HY_EDATA || illegal != cases[i].illegal)
			fail_msg("'%s': status %d illegal %d (%s)", cases[i].line, st, illegal,
				 ad.msg);
		assert_int_equal(index, -1);
		assert_true(ad.msg[0] != 0);
	}
	/* the other seats have no decision: any answer but none is refused */
	hy_action a;
	int index, illegal;
	const char *none = "{\"type\":\"none\"}";
	assert_int_equal(hy_mjaibot_parse_answer(&t->e, (s + 1) % 4, none, strlen(none), &scratch,
						 &a, &index, &illegal, NULL),
			 HY_EDATA);
	hy_game_free(&scratch);
	free(t);
}

/* ------------------------------------------------------------ equivalence */

typedef struct eqctx {
	const hy_game *g;
	int seat;
	hy_seatview v;
	hy_game view;       /* the seat's events so far */
	size_t next;        /* next event of g to give the view */
	hy_obs_track trk;   /* the full replay's tracker */
	uint64_t masks, decisions;
	char err[1024];
} eqctx;

static hy_status feed(eqctx *c, size_t i)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status s = hy_mjaibot_view_event(&c->view, &c->g->ev[i], c->seat, &d);
	if (s == HY_OK)
		s = hy_seatview_event(&c->v, &c->view.ev[c->view.n - 1], &d);
	if (s != HY_OK)
		snprintf(c->err, sizeof c->err, "event %zu (%s): %s", i + 1,
			 hy_ev_type_name(c->g->ev[i].type), d.msg);
	return s;
}

static hy_status on_event(void *ctx, const hy_engine *e, const hy_game *g, size_t i, int live)
{
	eqctx *c = ctx;
	while (c->next < i)
		if (feed(c, c->next++) != HY_OK)
			return HY_EDATA;
	if (i >= g->n)
		return HY_OK;
	const hy_event *ev = &g->ev[i];
	if (ev->type == HY_EV_START_KYOKU)
		hy_obs_track_reset(&c->trk);
	if (!live)
		return HY_OK;
	uint64_t full = hy_engine_legal_mask(e, c->seat), mine = hy_seatview_legal(&c->v);
	c->masks++;
	if (full != mine) {
		char a[200], b[200];
		hy_engine_describe(e, a, sizeof a);
		hy_engine_describe(&c->v.e, b, sizeof b);
		snprintf(c->err, sizeof c->err,
			 "before event %zu (%s): legal mask %#llx, view %#llx; full: %s; view: %s",
			 i + 1, hy_ev_type_name(ev->type), (unsigned long long)full,
			 (unsigned long long)mine, a, b);
		return HY_EDATA;
	}
	if (full) {
		static uint16_t x[HY_OBS_SIZE], y[HY_OBS_SIZE];
		hy_obs_encode(e, &c->trk, c->seat, x);
		hy_seatview_obs(&c->v, y);
		c->decisions++;
		for (int k = 0; k < HY_OBS_SIZE; k++)
			if (x[k] != y[k]) {
				snprintf(c->err, sizeof c->err,
					 "before event %zu (%s): observation channel %d tile %d: "
					 "%#x, view %#x",
					 i + 1, hy_ev_type_name(ev->type), k / 34, k % 34, x[k], y[k]);
				return HY_EDATA;
			}
	}
	hy_obs_track_event(&c->trk, e, ev);
	return HY_OK;
}

typedef struct eqstats {
	uint64_t games, seats, skipped, masks, decisions;
	int failures;
} eqstats;

static hy_status count_issue(void *ctx, const hy_replay_issue *is)
{
	(void)is;
	(*(uint64_t *)ctx)++;
	return HY_OK;
}

/* A dahai without `tsumogiri` gets the flag the full replay would infer
 * (the drawn tile's code): the seat's view cannot infer it. */
static void fill_tsumogiri(hy_game *g)
{
	for (size_t i = 0; i < g->n; i++) {
		hy_event *ev = &g->ev[i];
		if (ev->type != HY_EV_DAHAI || (ev->flags & HY_EVF_TSUMOGIRI))
			continue;
		int tg = 0;
		for (size_t j = i; j-- > 0;) {
			const hy_event *p = &g->ev[j];
			if (p->actor != ev->actor || p->type == HY_EV_REACH)
				continue;
			if (p->type == HY_EV_START_KYOKU || p->type == HY_EV_END_KYOKU)
				break;
			tg = p->type == HY_EV_TSUMO && p->pai == ev->pai;
			break;
		}
		ev->tsumogiri = (uint8_t)tg;
		ev->flags |= HY_EVF_TSUMOGIRI;
	}
}

static void check_game(hy_game *g, eqstats *st)
{
	/* only clean full-information games: every kyoku replayable */
	uint64_t issues = 0;
	hy_replay_report rep;
	memset(&rep, 0, sizeof rep);
	rep.issue = count_issue;
	rep.ctx = &issues;
	hy_diag d;
	hy_diag_init(&d, g->source);
	if (hy_replay_game(g, &rep, &d) != HY_OK || rep.illegal || rep.skipped_kyoku ||
	    !rep.kyoku) {
		st->skipped++;
		return;
	}
	fill_tsumogiri(g);
	st->games++;
	for (int seat = 0; seat < 4; seat++) {
		eqctx *c = calloc(1, sizeof *c);
		assert_non_null(c);
		c->g = g;
		c->seat = seat;
		hy_seatview_init(&c->v, seat);
		hy_game_init(&c->view);
		hy_obs_track_reset(&c->trk);
		hy_replay_report r2;
		memset(&r2, 0, sizeof r2);
		r2.before = on_event;
		r2.ctx = c;
		hy_status s = hy_replay_game(g, &r2, &d);
		if (s != HY_OK) {
			print_error("%s: game %u, seat %d: %s\n", g->source ? g->source : "?",
				    g->index + 1, seat, c->err);
			st->failures++;
		}
		st->seats++;
		st->masks += c->masks;
		st->decisions += c->decisions;
		hy_game_free(&c->view);
		free(c);
	}
}

static hy_status on_game(void *ctx, hy_game *g)
{
	check_game(g, ctx);
	return HY_OK;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	(void)ctx;
	(void)d;
	return HY_OK;
}

static void check_file(const char *path, eqstats *st)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	char *data = NULL;
	size_t n = 0, cap = 0, r;
	do {
		if (n + 65536 > cap) {
			cap = cap ? 2 * cap : 1 << 20;
			data = realloc(data, cap);
			assert_non_null(data);
		}
		r = fread(data + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	hy_source_kind k = hy_source_detect(data, n);
	if (k != HY_SOURCE_UNKNOWN && k != HY_SOURCE_EMPTY) {
		hy_game_sink sink = {.game = on_game, .bad = on_bad, .ctx = st};
		hy_diag d;
		hy_diag_init(&d, path);
		hy_source_parse(path, data, n, &sink, &d);
	}
	free(data);
}

static void walk(const char *dir, eqstats *st)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		char path[4096];
		const char *name = ents[i]->d_name;
		if (name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, name);
			struct stat sb;
			if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
				walk(path, st);
			else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
				check_file(path, st);
		}
		free(ents[i]);
	}
	free(ents);
}

static void report(const char *what, const eqstats *st)
{
	print_message("view %s: %" PRIu64 " games (%" PRIu64 " skipped: not full information), "
		      "%" PRIu64 " seats, %" PRIu64 " masks and %" PRIu64
		      " observations compared, %d failures\n",
		      what, st->games, st->skipped, st->seats, st->masks, st->decisions,
		      st->failures);
}

static void test_view_selfplay(void **state)
{
	(void)state;
	uint64_t seed = test_seed(), rng = seed ^ 0x5eed;
	print_message("view selfplay: seed %" PRIu64 " (HY_SEED)\n", seed);
	eqstats st = {0};
	for (uint64_t game = 0; game < 12; game++) {
		hy_game log;
		hy_game_init(&log);
		play_game(seed, game, &rng, &log);
		check_game(&log, &st);
		hy_game_free(&log);
	}
	report("selfplay", &st);
	assert_int_equal(st.failures, 0);
	assert_int_equal(st.games, 12);
	assert_true(st.decisions > 1000);
}

static void test_view_logs(void **state)
{
	(void)state;
	const char *shared = getenv("HY_SHARED");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/data/logs", shared && *shared ? shared : "../shared");
	struct stat sb;
	if (stat(dir, &sb) != 0) {
		print_message("skipped: %s not found (set HY_SHARED)\n", dir);
		skip();
	}
	eqstats st = {0};
	walk(dir, &st);
	report("shared logs", &st);
	assert_int_equal(st.failures, 0);
	assert_true(st.games >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_events),
		cmocka_unit_test(test_answers_round_trip),
		cmocka_unit_test(test_bad_answers),
		cmocka_unit_test(test_view_selfplay),
		cmocka_unit_test(test_view_logs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
