/* The search policy (lib/play/search.c): its determinization keeps what
 * the seat sees and redeals exactly the tiles it cannot see; an opponent
 * in riichi gets a tenpai hand whose waits are not furiten; deals and
 * choices are functions of the key; the policy answers legally and, where
 * no turn of its own is searched, as rulebot; its spec is checked.
 * The oracle labeller on the same rollouts (lib/play/qlabel.c): its redeal
 * keeps every hand and redeals only the wall; it values an action other
 * than rulebot's choice, as a function of the key, and not rulebot's own;
 * a discard into a riichi's wait is valued below rulebot's safe choice; it
 * is refused at a seat and without advantage labels. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tile.h"
#include "engine/engine.h"
#include "engine/table.h"
#include "hand/shanten.h"
#include "nn/grp.h"
#include "play/policy.h"
#include "play/qlabel.h"
#include "play/runner.h"
#include "play/search.h"

#include "fixture_play.h"
#include "fixture_table.h"

static char grp_dir[] = "/tmp/hydra-search-XXXXXX";
static char grp_path[160];

/* A GRP that has learnt that the final order is the order of the scores
 * (states of random scores, 300 AdamW steps): its expectation then rises
 * with a seat's own score, which qlabel's deal-in check needs. */
static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(grp_dir))
		return -1;
	snprintf(grp_path, sizeof grp_path, "%s/grp.h5", grp_dir);
	hy_grp m;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_grp_init(&m, 16, 5, &d) != HY_OK)
		return -1;
	enum { N = 256 };
	static float x[N][HY_GRP_NIN];
	uint8_t y[N];
	uint64_t r = 12345;
	for (int i = 0; i < N; i++) {
		hy_grp_state g;
		memset(&g, 0, sizeof g);
		int32_t left = 100000;
		for (int s = 0; s < 3; s++) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			g.scores[s] = (int32_t)((r >> 33) % 40) * 1000 + 5000;
			left -= g.scores[s];
		}
		g.scores[3] = left;
		g.grand_kyoku = (uint8_t)(i % 8);
		g.oya = (uint8_t)(i % 4);
		hy_grp_features(&g, x[i]);
		y[i] = (uint8_t)hy_grp_order_index(g.scores);
	}
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 300);
	for (int step = 0; step < 300; step++) {
		hy_grp_loss(&m, &x[0][0], y, N, 1, NULL);
		hy_grp_adamw(&m, &oc, 3e-3f);
	}
	hy_status st = hy_grp_save(grp_path, &m, NULL, 0, &d);
	hy_grp_free(&m);
	return st == HY_OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(grp_path);
	rmdir(grp_dir);
	return 0;
}

/* Copies per tile code of everything the seat sees: own hand, rivers not
 * called away, melds, revealed indicators. */
static void seen(const hy_engine *e, int seat, int c[HY_TILE_UNKNOWN])
{
	memset(c, 0, sizeof(int) * HY_TILE_UNKNOWN);
	const hy_player *me = &e->p[seat];
	for (int k = 0; k < 34; k++) {
		int r = hy_tile_red_of(k), nr = r >= 0 ? me->red[r - HY_TILE_5MR] : 0;
		c[k] += me->cnt[k] - nr;
		if (r >= 0)
			c[r] += nr;
	}
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED))
				c[p->river[i]]++;
		for (int m = 0; m < p->nmelds; m++)
			for (int j = 0; j < p->melds[m].ntiles; j++)
				c[p->melds[m].tiles[j]]++;
	}
	for (int i = 0; i < e->ndora; i++)
		c[e->dora_ind[i]]++;
}

static void add_hand(const hy_player *p, int c[HY_TILE_UNKNOWN])
{
	for (int k = 0; k < 34; k++) {
		int r = hy_tile_red_of(k), nr = r >= 0 ? p->red[r - HY_TILE_5MR] : 0;
		c[k] += p->cnt[k] - nr;
		if (r >= 0)
			c[r] += nr;
	}
}

/* The deal holds the full set: 4 of each kind, one red five per suit. */
static void check_deal(const hy_engine *e, int seat, const hy_search_deal *x)
{
	int c[HY_TILE_UNKNOWN];
	seen(e, seat, c);
	for (int s = 0; s < 4; s++) {
		assert_int_equal(x->e.p[s].nconc, e->p[s].nconc);
		if (s == seat)
			assert_memory_equal(x->e.p[s].cnt, e->p[s].cnt, 34);
		else
			add_hand(&x->e.p[s], c);
		/* the public table is the same */
		assert_int_equal(x->e.p[s].nriver, e->p[s].nriver);
		assert_memory_equal(x->e.p[s].river, e->p[s].river, e->p[s].nriver);
		assert_int_equal(x->e.p[s].riichi, e->p[s].riichi);
	}
	assert_int_equal(x->nlive, e->live_left);
	for (int i = 0; i < x->nlive; i++)
		c[x->live[i]]++;
	for (int i = 0; i < x->nrinshan; i++)
		c[x->rinshan[i]]++;
	for (int i = e->ndora; i < 5; i++)
		c[x->e.dora_ind[i]]++;
	for (int i = 0; i < 5; i++)
		c[x->e.ura[i]]++;
	assert_memory_equal(x->e.dora_ind, e->dora_ind, e->ndora);
	assert_memory_equal(x->e.scores, e->scores, sizeof e->scores);
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		int want = t >= HY_TILE_5MR ? 1 : hy_tile_red_of(t) >= 0 ? 3 : 4;
		if (c[t] != want)
			print_error("tile code %d: %d copies in the deal, want %d\n", t, c[t], want);
		assert_int_equal(c[t], want);
	}
}

/* Self-play with rulebot at every seat from seed until the n-th turn of
 * a seat (TURN phase); the tracker fed from the log. */
typedef struct game {
	hy_table t;
	hy_game log;
	hy_obs_track trk;
	size_t fed;
} game;

static void game_feed(game *g)
{
	for (; g->fed < g->log.n; g->fed++) {
		const hy_event *ev = &g->log.ev[g->fed];
		if (ev->type == HY_EV_START_KYOKU)
			hy_obs_track_reset(&g->trk);
		else
			hy_obs_track_event(&g->trk, &g->t.e, ev);
	}
}

/* Plays to the n-th TURN decision; returns its seat, −1 at game end. */
static int play_to(game *g, hy_policy *rb, uint64_t seed, int n)
{
	memset(g, 0, sizeof *g);
	hy_game_init(&g->log);
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_table_start(&g->t, NULL, seed, 0, &g->log, &d), HY_OK);
	game_feed(g);
	int turns = 0;
	while (g->t.e.phase != HY_PH_GAME_END) {
		unsigned who = hy_engine_deciders(&g->t.e);
		int s = __builtin_ctz(who);
		if (g->t.e.phase == HY_PH_TURN && turns++ == n)
			return s;
		int c = decide1(rb, &g->t.e, &g->trk, s, 0);
		assert_int_equal(hy_table_act(&g->t, s, c, &d), HY_OK);
		game_feed(g);
	}
	return -1;
}

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
		hy_search_deal a, b, c;
		assert_int_equal(hy_search_determinize(&g.t.e, seat, g.trk.riichi_safe, 1, &a), 0);
		assert_int_equal(hy_search_determinize(&g.t.e, seat, g.trk.riichi_safe, 1, &b), 0);
		assert_int_equal(hy_search_determinize(&g.t.e, seat, g.trk.riichi_safe, 2, &c), 0);
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
		hy_search_deal x;
		assert_int_equal(hy_search_determinize(&t.e, 0, t.trk.riichi_safe, seed, &x), 0);
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

static void test_policy(void **state)
{
	(void)state;
	char spec[256];
	snprintf(spec, sizeof spec, "search:%s,4", grp_path);
	hy_policy s = open_policy(spec), rb = open_policy("rulebot");
	assert_true(s.has_value);
	/* a win and a riichi pass straight through (no search on a win;
	 * riichi's declaration discard is rulebot's) */
	check_win_and_riichi(&s);
	/* whole game: legal, and the same choice for the same key */
	game g;
	int seat, searched = 0, differ = 0;
	for (int n = 0; n < 120 && (seat = play_to(&g, &rb, 3, n)) >= 0; n += 3) {
		int a = decide1(&s, &g.t.e, &g.trk, seat, 77 + (uint64_t)n);
		int b = decide1(&s, &g.t.e, &g.trk, seat, 77 + (uint64_t)n);
		assert_int_equal(a, b);
		differ += a != decide1(&rb, &g.t.e, &g.trk, seat, 0);
		searched++;
		hy_game_free(&g.log);
	}
	hy_game_free(&g.log);
	print_message("search: %d turns, %d differ from rulebot\n", searched, differ);
	assert_true(searched >= 30);
	assert_true(differ < searched / 2);
	hy_policy_close(&s);
	hy_policy_close(&rb);
}

static void test_spec(void **state)
{
	(void)state;
	hy_policy p;
	hy_diag d;
	const char *bad[] = {"search:", "search:x.h5,1", "search:x.h5,abc", "search:x.h5,999",
			     "qlabel:", "qlabel:x.h5,0"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_policy_open(&p, bad[i], NULL, &d), HY_EUSAGE);
	}
	hy_diag_init(&d, NULL);
	assert_int_not_equal(hy_policy_open(&p, "search:/nonexistent/grp.h5", NULL, &d), HY_OK);
	assert_non_null(strstr(d.msg, "grp.h5"));
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
		hy_search_deal a, b, c;
		assert_int_equal(hy_search_redeal(&g.t.e, 1, &a), 0);
		assert_int_equal(hy_search_redeal(&g.t.e, 1, &b), 0);
		assert_int_equal(hy_search_redeal(&g.t.e, 2, &c), 0);
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

/* Asks a labeller once for the value of action `taken` (−1: none); the
 * index, and the value into *v. */
static int ask1(hy_policy *p, const hy_engine *e, const hy_obs_track *trk, int seat,
		uint64_t key, int taken, float *v)
{
	hy_decision q = {.e = e, .track = trk, .key = key, .seat = seat,
			 .legal = hy_engine_legal_mask(e, seat), .taken = taken + 1};
	hy_choice c = {.index = -1};
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(p->ops->decide(p, 1, &q, &c, &d), HY_OK);
	*v = c.value;
	return c.index;
}

static void test_qlabel(void **state)
{
	(void)state;
	char spec[256];
	snprintf(spec, sizeof spec, "qlabel:%s,4", grp_path);
	hy_policy ql = open_policy(spec), rb = open_policy("rulebot");
	assert_true(ql.oracle && ql.has_value && ql.concurrent);
	/* through a game: rulebot's own choice, or none given, has no value;
	 * another legal action has one, the same for the same key, and the
	 * index answered is the action asked about */
	game g;
	int seat, valued = 0, zero = 0;
	for (int n = 0; n < 150 && (seat = play_to(&g, &rb, 5, n)) >= 0; n += 3) {
		uint64_t legal = hy_engine_legal_mask(&g.t.e, seat);
		int r = decide1(&rb, &g.t.e, &g.trk, seat, 0);
		float v1, v2;
		assert_int_equal(ask1(&ql, &g.t.e, &g.trk, seat, 9, r, &v1), r);
		assert_true(isnan(v1));
		assert_int_equal(ask1(&ql, &g.t.e, &g.trk, seat, 9, -1, &v1), r);
		assert_true(isnan(v1));
		if (legal >> HY_A_WIN & 1)
			goto next;
		for (uint64_t m = legal & ~(1ull << r); m; m &= m - 1) {
			int a = __builtin_ctzll(m);
			uint64_t key = 31 + (uint64_t)n;
			assert_int_equal(ask1(&ql, &g.t.e, &g.trk, seat, key, a, &v1), a);
			assert_int_equal(ask1(&ql, &g.t.e, &g.trk, seat, key, a, &v2), a);
			assert_false(isnan(v1));
			assert_true(v1 == v2);
			valued++;
			zero += v1 == 0;
		}
	next:
		hy_game_free(&g.log);
	}
	hy_game_free(&g.log);
	print_message("qlabel: %d alternatives valued, %d at exactly 0\n", valued, zero);
	assert_true(valued >= 200);
	assert_true(zero < valued / 2);
	/* Seat 1 in riichi waits on 1p-4p; seat 0 holds 4p. Rulebot does not
	 * throw it; thrown, the ron that follows in every rollout values it
	 * well below rulebot's choice, whatever the shuffles. */
	table t;
	riichi_scene(&t, "19m46p379s12347z5m", "5p", "5m", "9s", "2s", "5z");
	assert_true(t.e.p[1].riichi != 0);
	int r = decide1(&rb, &t.e, &t.trk, 0, 0);
	assert_int_not_equal(r, tile("4p"));
	for (uint64_t key = 0; key < 3; key++) {
		float v;
		assert_int_equal(ask1(&ql, &t.e, &t.trk, 0, key, tile("4p"), &v), tile("4p"));
		print_message("qlabel: 4p into the riichi valued %+.3f against rulebot's %d\n",
			      (double)v, r);
		assert_true(v < -0.1);
	}
	hy_game_free(&t.log);
	/* a win offered: no value, whatever the seat took */
	deal(&t, "123456789m1235p", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "9m");
	draw(&t, "5p");
	float v;
	assert_int_equal(ask1(&ql, &t.e, &t.trk, 0, 1, tile("1m"), &v), tile("1m"));
	assert_true(isnan(v));
	hy_game_free(&t.log);
	/* it reads the hidden tiles: the runner refuses it at a seat, and as
	 * a labeller without advantage labels */
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.count = 1;
	hy_policy *pp[1] = {&ql};
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_play_run(&o, pp, 1, NULL, NULL, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "it labels"));
	hy_policy *rp[1] = {&rb};
	o.record_steps = 1;
	o.label = &ql;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_play_run(&o, rp, 1, NULL, NULL, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "--label-adv"));
	hy_policy_close(&ql);
	hy_policy_close(&rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinize),
		cmocka_unit_test(test_riichi_tenpai),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_redeal),
		cmocka_unit_test(test_qlabel),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
