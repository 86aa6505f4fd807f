/* The search policy (lib/play/policies/search.c): choices are functions of the
 * key; the policy answers legally and, where no turn of its own is
 * searched, as rulebot; its spec is checked, the deal part (a belief
 * checkpoint or an oracle) included; an oracle search plays only where
 * the run allows it. Its deals are test_deal.c's.
 * The oracle labeller on the same rollouts (lib/play/policies/qlabel.c): it values
 * an action other than rulebot's choice, as a function of the key, and
 * not rulebot's own; a discard into a riichi's wait is valued below
 * rulebot's safe choice; it is refused at a seat and without advantage
 * labels. */
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
#include "play/policies/qlabel.h"
#include "play/runner.h"
#include "play/policies/search.h"

#include "fixture_play.h"
#include "fixture_table.h"
#include "fixture_deal.h"

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
	const char *bad[] = {"search:", "search:x.h5,1", "search:x.h5,999", "search:x.h5,8,9",
			     "search:x.h5,abc,def", "search:x.h5,8,oracle,9", "search:x.h5,8,",
			     "search:,8", "qlabel:", "qlabel:x.h5,0", "qlabel:x.h5,8,oracle",
			     "qlabel:x.h5,m.h5"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_policy_open(&p, bad[i], NULL, &d), HY_EUSAGE);
	}
	hy_diag_init(&d, NULL);
	assert_int_not_equal(hy_policy_open(&p, "search:/nonexistent/grp.h5", NULL, &d), HY_OK);
	assert_non_null(strstr(d.msg, "grp.h5"));
	/* a belief checkpoint that is not there */
	char spec[512];
	snprintf(spec, sizeof spec, "search:%s,4,/nonexistent/belief.h5", grp_path);
	hy_diag_init(&d, NULL);
	assert_int_not_equal(hy_policy_open(&p, spec, NULL, &d), HY_OK);
	assert_non_null(strstr(d.msg, "belief.h5"));
	/* the deals: a guess, or an oracle in either place after the GRP */
	const char *deal[] = {"4", "oracle-who", "4,oracle-tenpai", "oracle,4"};
	for (size_t i = 0; i < sizeof deal / sizeof deal[0]; i++) {
		snprintf(spec, sizeof spec, "search:%s,%s", grp_path, deal[i]);
		hy_policy q = open_policy(spec);
		hy_search_rollouts *R = q.impl;
		assert_int_equal(q.oracle, i > 0);
		static const int want[] = {0, HY_DEAL_KNOW_TENPAI, HY_DEAL_KEEP_TENPAI,
					   HY_DEAL_KEEP_ALL};
		assert_int_equal(R->oracle, want[i]);
		assert_int_equal(R->k, i == 1 ? HY_SEARCH_ROLLOUTS : 4);
		hy_policy_close(&q);
		/* without hidden tiles to give (a bot, a review): the oracles are
		 * refused at open, the guess opens */
		hy_diag_init(&d, NULL);
		hy_status st = hy_policy_open(&q, spec, NULL, &d);
		if (i == 0) {
			assert_int_equal(st, HY_OK);
			hy_policy_close(&q);
		} else {
			assert_int_equal(st, HY_EUSAGE);
			assert_non_null(strstr(d.msg, "reads the hidden tiles"));
		}
	}
	snprintf(spec, sizeof spec, "qlabel:%s", grp_path);
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_policy_open(&p, spec, NULL, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "reads the hidden tiles"));
}

/* A run of policy p (labelled by `label`, with advantage labels when
 * adv) that the runner refuses, saying `why`. */
static void refused(hy_policy *p, hy_policy *label, int adv, const char *why)
{
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.count = 1;
	o.record_steps = label != NULL;
	o.label = label;
	o.label_adv = adv;
	hy_policy *pp[1] = {p};
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_play_run(&o, pp, 1, NULL, NULL, &d), HY_EUSAGE);
	if (!strstr(d.msg, why))
		print_error("refused with '%s', not '%s'\n", d.msg, why);
	assert_non_null(strstr(d.msg, why));
}

/* Counts the finished games that were not aborted. */
static hy_status count_game(void *ctx, const hy_play_game *g, hy_diag *d)
{
	(void)d;
	*(int *)ctx += !g->aborted;
	return HY_OK;
}

/* An oracle search plays only where the run allows it (hydra-eval
 * --oracle): refused by default and as a teacher, a whole game when
 * allowed. */
static void test_oracle_play(void **state)
{
	(void)state;
	char spec[512];
	snprintf(spec, sizeof spec, "search:%s,4,oracle", grp_path);
	hy_policy os = open_policy(spec), rb = open_policy("rulebot");
	refused(&os, NULL, 0, "--oracle");
	/* nor does it teach, and it gives no advantages */
	refused(&rb, &os, 0, "not a teacher");
	refused(&rb, &os, 1, "advantage labeller");
	hy_policy_close(&rb);
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.count = 1;
	o.allow_oracle = 1;
	hy_policy *pp[1] = {&os};
	hy_diag d;
	int games = 0;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_play_run(&o, pp, 1, count_game, &games, &d), HY_OK);
	assert_int_equal(games, 1);
	hy_policy_close(&os);
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
	refused(&ql, NULL, 0, "it labels");
	refused(&rb, &ql, 0, "--label-adv");
	hy_policy_close(&ql);
	hy_policy_close(&rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_oracle_play),
		cmocka_unit_test(test_qlabel),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
