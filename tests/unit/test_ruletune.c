/* rulebot's named parameters (play/policies/ruleparams.h) and their tuner
 * (play/ruletune.h): the table, the parser and its messages, the file form
 * read back, `rulebot:` at its defaults playing rulebot's games, and the
 * tuner's search: deterministic, never worse than its start on its walls,
 * its figure the arena's, its frozen parameters untouched. */
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

#include "play/arena.h"
#include "play/policies/policies.h"
#include "play/policy.h"
#include "play/policies/ruleparams.h"
#include "play/ruletune.h"

#include "fixture_play.h"

static void test_table(void **state)
{
	(void)state;
	hy_rule_params p;
	hy_rule_params_default(&p);
	for (int i = 0; i < HY_RP_COUNT; i++) {
		const hy_rule_param_info *in = hy_rule_param_info_of(i);
		assert_non_null(in);
		assert_non_null(in->name);
		assert_int_equal(hy_rule_param_index(in->name), i);
		assert_true(in->lo <= in->def && in->def <= in->hi && in->lo < in->hi);
		if (in->integer)
			assert_true(in->def == floor(in->def));
		assert_true(p.v[i] == in->def);
	}
	assert_null(hy_rule_param_info_of(HY_RP_COUNT));
	assert_int_equal(hy_rule_param_index("nonsense"), -1);
}

/* Parses text over the defaults; the status, and the message in msg. */
static hy_status parse(const char *text, hy_rule_params *p, char msg[512])
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_rule_params_default(p);
	hy_status st = hy_rule_params_parse(p, text, &d);
	snprintf(msg, 512, "%s", d.msg);
	return st;
}

static void test_parse(void **state)
{
	(void)state;
	hy_rule_params p, def;
	char msg[512];
	hy_rule_params_default(&def);
	assert_int_equal(parse("push_value=8000, score_danger = 0.45;danger_dora=2", &p, msg), HY_OK);
	assert_true(p.v[HY_RP_PUSH_VALUE] == 8000);
	assert_true(p.v[HY_RP_SCORE_DANGER] == 0.45);
	assert_true(p.v[HY_RP_D_DORA] == 2);
	assert_true(p.v[HY_RP_D_RYANMEN] == def.v[HY_RP_D_RYANMEN]);
	assert_int_equal(parse("# a comment\n\n push_wall=12  # trailing\n", &p, msg), HY_OK);
	assert_true(p.v[HY_RP_PUSH_WALL] == 12);
	assert_int_equal(parse("", &p, msg), HY_OK);
	assert_memory_equal(&p, &def, sizeof p);
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"push_vlaue=8000", "unknown rulebot parameter 'push_vlaue'"},
		{"push_value", "'push_value': want NAME=VALUE"},
		{"score_danger=lots", "'score_danger': 'lots' is not a number"},
		{"score_danger=", "is not a number"},
		{"score_danger=0.3x", "is not a number"},
		{"score_danger=inf", "is not a number"},
		{"danger_dora=0.5", "'danger_dora': 0.5 outside [1, 3]"},
		{"push_wall=12.5", "'push_wall': 12.5 is not a whole number"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(parse(bad[i].text, &p, msg), HY_EUSAGE);
		if (!strstr(msg, bad[i].want))
			print_error("'%s': message '%s' lacks '%s'\n", bad[i].text, msg, bad[i].want);
		assert_non_null(strstr(msg, bad[i].want));
	}
	/* the line of a bad entry in a file's text */
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_rule_params_default(&p);
	assert_int_equal(hy_rule_params_parse(&p, "push_wall=12\n# x\nnope=1\n", &d), HY_EUSAGE);
	assert_int_equal(d.line, 3);
}

/* The file hy_rule_params_write gives is read back to the same numbers,
 * through a file spec and through `rulebot:FILE`; a bad file is named. */
static void test_file(void **state)
{
	(void)state;
	char path[] = "/tmp/hy-ruleparams-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	hy_rule_params p, q;
	hy_rule_params_default(&p);
	p.v[HY_RP_PUSH_VALUE] = 3100;
	p.v[HY_RP_SCORE_DANGER] = 0.725;
	p.v[HY_RP_THREAT_OPEN2V] = 0.1;
	assert_int_equal(hy_rule_params_write(&p, f), 0);
	fclose(f);
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_rule_params_from_spec(&q, path, &d), HY_OK);
	assert_memory_equal(&p, &q, sizeof p);
	char spec[64];
	snprintf(spec, sizeof spec, "rulebot:%s", path);
	hy_policy pol = open_policy(spec);
	hy_policy_close(&pol);
	f = fopen(path, "w");
	fputs("push_value=3100\nscore_danger=-1\n", f);
	fclose(f);
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_rule_params_from_spec(&q, path, &d), HY_EUSAGE);
	assert_int_equal(d.line, 2);
	char want[64];
	snprintf(want, sizeof want, "%s:2: rulebot parameter 'score_danger'", path);
	assert_non_null(strstr(d.msg, want));
	unlink(path);
	/* a spec without '=' is a file: one that is not there says so */
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_rule_params_from_spec(&q, "/nonexistent/params", &d), HY_EIO);
	assert_non_null(strstr(d.msg, "'/nonexistent/params': No such file or directory"));
	/* a name given twice: refused, in a list and in a file's lines */
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_rule_params_from_spec(&q, "push_wall=12,push_wall=10", &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "'push_wall' given twice"));
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_rule_params_parse(&q, "push_wall=12\n# x\npush_wall=10\n", &d),
		HY_EUSAGE);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "first on line 1"));
}

/* Mean rank and its interval's half-width of challenger against three
 * opponents over seeds at master seed 77. */
static double arena(hy_policy *c, hy_policy *o, uint64_t seeds, double *half)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_arena_acc a;
	assert_int_equal(hy_arena_acc_init(&a, seeds, &d), HY_OK);
	hy_arena_opts ao = {.seed = 77, .nseeds = seeds, .tables = 4, .threads = 2};
	assert_int_equal(hy_arena_run(&ao, c, o, &a, &d), HY_OK);
	hy_arena_summary s;
	hy_arena_summarise(&a, &s);
	hy_arena_acc_free(&a);
	assert_int_equal(s.aborted, 0);
	*half = s.rank.hi - s.rank.mean;
	return s.rank.mean;
}

/* `rulebot:` at the defaults is rulebot, game for game (every seed's four
 * rotations give ranks 1–4 once: mean 2.5 with no spread); moving one
 * number changes games. */
static void test_defaults_play_rulebot(void **state)
{
	(void)state;
	hy_policy rb = open_policy("rulebot");
	hy_policy same = open_policy("rulebot:push_value=5200,score_danger=0.3");
	hy_policy other = open_policy("rulebot:fold_open_shanten=1");
	double half;
	assert_true(arena(&same, &rb, 6, &half) == 2.5);
	assert_true(half == 0);
	arena(&other, &rb, 6, &half);
	assert_true(half > 0);
	hy_policy_close(&rb);
	hy_policy_close(&same);
	hy_policy_close(&other);
}

typedef struct log_ctx {
	int n, kept, start_seen;
	double last_kept;
	uint64_t moved;
} log_ctx;

static hy_status on_eval(void *ctx, int sweep, int param, double value, double rank, int kept)
{
	log_ctx *l = ctx;
	(void)sweep;
	(void)value;
	l->n++;
	if (param < 0) {
		l->start_seen = 1;
		l->last_kept = rank;
	} else if (kept) {
		assert_true(rank < l->last_kept);
		l->last_kept = rank;
		l->kept++;
		l->moved |= 1ull << param;
	}
	return HY_OK;
}

static hy_status stop_at_third(void *ctx, int sweep, int param, double value, double rank,
			       int kept)
{
	(void)sweep, (void)param, (void)value, (void)rank, (void)kept;
	return ++*(int *)ctx == 3 ? HY_STOP : HY_OK;
}

/* The tuner on a few walls: every kept move lowers the mean rank, the
 * result's rank is what an arena of the result on the same walls gives,
 * frozen parameters stay, and a second run with other threads finds the
 * same numbers; a callback's status stops it. */
static void test_tune(void **state)
{
	(void)state;
	hy_policy rb = open_policy("rulebot");
	hy_ruletune_opts o;
	hy_ruletune_opts_default(&o);
	o.seed = 77;
	o.nseeds = 8;
	o.sweeps = 1;
	o.frac = 0.5;
	o.margin = 0;
	o.threads = 2;
	o.tables = 4;
	/* search four parameters that act on folding and pushing */
	o.frozen = ~0ull;
	int search[] = {HY_RP_FOLD_OPEN_SHANTEN, HY_RP_PUSH_WALL, HY_RP_SCORE_DANGER,
			HY_RP_D_HONOUR3};
	for (size_t i = 0; i < sizeof search / sizeof search[0]; i++)
		o.frozen &= ~(1ull << search[i]);
	log_ctx l = {0};
	o.on_eval = on_eval;
	o.ctx = &l;
	hy_rule_params start, best, again;
	hy_rule_params_default(&start);
	double rank, rank2;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_ruletune_run(&o, &rb, &start, &best, &rank, &d), HY_OK);
	assert_true(l.start_seen);
	assert_true(l.n > 4);
	assert_true(rank <= 2.5);
	assert_true(rank == l.last_kept);
	assert_true(l.kept >= 1 && rank < 2.5); /* these walls have a better setting */
	for (int i = 0; i < HY_RP_COUNT; i++)
		if (o.frozen >> i & 1)
			assert_true(best.v[i] == start.v[i]);
		else if (!(l.moved >> i & 1))
			assert_true(best.v[i] == start.v[i]);
	/* the figure is the arena's */
	hy_policy tuned;
	assert_int_equal(hy_policy_open_rulebot_with(&tuned, &best, &d), HY_OK);
	double half;
	assert_true(fabs(arena(&tuned, &rb, 8, &half) - rank) < 1e-12);
	hy_policy_close(&tuned);
	/* deterministic whatever the threads */
	o.threads = 1;
	o.tables = 3;
	o.on_eval = NULL;
	assert_int_equal(hy_ruletune_run(&o, &rb, &start, &again, &rank2, &d), HY_OK);
	assert_memory_equal(&best, &again, sizeof best);
	assert_true(rank == rank2);
	/* a callback's status stops the search */
	int calls = 0;
	o.on_eval = stop_at_third;
	o.ctx = &calls;
	assert_int_equal(hy_ruletune_run(&o, &rb, &start, &again, &rank2, &d), HY_STOP);
	assert_int_equal(calls, 3);
	/* bad options */
	o.on_eval = NULL;
	o.nseeds = 2;
	assert_int_equal(hy_ruletune_run(&o, &rb, &start, &again, &rank2, &d), HY_EUSAGE);
	hy_policy_close(&rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_defaults_play_rulebot),
		cmocka_unit_test(test_tune),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
