/* The degraded wait oracle (play/policies/waitoracle.h): its spec, the truth (the
 * waits, none while furiten), the blends at alpha 0 and 1, and the
 * log-loss tally against the base rate. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "play/policies/waitoracle.h"

static void test_parse(void **state)
{
	(void)state;
	hy_wait_oracle o;
	hy_diag d;
	const char *rest;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_wait_oracle_parse(&o, "0.25", &rest, &d), HY_OK);
	assert_true(o.alpha == 0.25 && !o.every && !*rest);
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "1,tenpai,t1.params", &rest, &d), HY_OK);
	assert_true(o.alpha == 1 && o.every);
	assert_string_equal(rest, "t1.params");
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "0,riichi", &rest, &d), HY_OK);
	assert_true(o.alpha == 0 && !o.every && !*rest);
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "0.5,a.params", &rest, &d), HY_OK);
	assert_string_equal(rest, "a.params");
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "0.5,logit,tenpai,x=1", &rest, &d), HY_OK);
	assert_true(o.logit && o.every);
	assert_string_equal(rest, "x=1");
	hy_wait_oracle_free(&o);
	/* reader=PATH among the flags, the parameters after it */
	assert_int_equal(hy_wait_oracle_parse(&o, "0,tenpai,reader=r.h5,x=1", &rest, &d), HY_OK);
	assert_true(o.every && o.reader && !strcmp(o.reader, "r.h5"));
	assert_string_equal(rest, "x=1");
	hy_wait_oracle_free(&o);
	assert_null(o.reader);
	const char *bad[] = {"", "x", "1.5", "-0.1", "0.5x", "nan"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_wait_oracle_parse(&o, bad[i], &rest, &d), HY_EUSAGE);
		assert_non_null(strstr(d.msg, "from 0 to 1"));
	}
}

static void test_truth_and_blend(void **state)
{
	(void)state;
	hy_engine e;
	memset(&e, 0, sizeof e);
	e.p[1].riichi = 2;
	e.p[1].waits = 1ull << 3 | 1ull << 6; /* 4m and 7m */
	e.p[2].waits = 1ull << 30;           /* silent tenpai */
	hy_wait_oracle o;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_wait_oracle_parse(&o, "0.5", NULL, &d), HY_OK);
	assert_true(hy_wait_oracle_scope(&o, &e, 1));
	assert_false(hy_wait_oracle_scope(&o, &e, 2)); /* riichi only */
	assert_true(hy_wait_oracle_truth(&e, 1) == (1ull << 3 | 1ull << 6));
	/* blends: half of 100 on a wait plus half the model */
	assert_true(fabs(hy_wait_oracle_danger(&o, &e, 1, 3, 10) - 55) < 1e-9);
	assert_true(fabs(hy_wait_oracle_danger(&o, &e, 1, 4, 10) - 5) < 1e-9);
	assert_true(fabs(hy_wait_oracle_tenpai(&o, &e, 2, 0.2) - 0.6) < 1e-9);
	assert_true(fabs(hy_wait_oracle_tenpai(&o, &e, 3, 0.2) - 0.1) < 1e-9);
	hy_wait_oracle_free(&o);
	/* as evidence (logit): at a small alpha a kind the model fears much
	 * still outranks a wait it fears little; at 1 the truth */
	assert_int_equal(hy_wait_oracle_parse(&o, "0.25,logit", NULL, &d), HY_OK);
	double safe_feared = hy_wait_oracle_danger(&o, &e, 1, 4, 30);
	double wait_unfeared = hy_wait_oracle_danger(&o, &e, 1, 3, 0.1);
	print_message("logit 0.25: a non-wait feared at 30%% -> %.3f%%, a wait at 0.1%% -> %.3f%%\n",
		safe_feared, wait_unfeared);
	assert_true(safe_feared > wait_unfeared && safe_feared < 30 && wait_unfeared > 0.1);
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "1,logit", NULL, &d), HY_OK);
	assert_true(hy_wait_oracle_danger(&o, &e, 1, 3, 0.1) > 90);
	assert_true(hy_wait_oracle_danger(&o, &e, 1, 4, 30) < 0.01);
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "0.5", NULL, &d), HY_OK);
	/* furiten: a wait discarded before, or a passed-over ron, deals in nowhere */
	e.p[1].discarded = 1ull << 6;
	assert_true(hy_wait_oracle_truth(&e, 1) == 0);
	e.p[1].discarded = 0;
	e.p[1].riichi_furiten = 1;
	assert_true(hy_wait_oracle_truth(&e, 1) == 0);
	e.p[1].riichi_furiten = 0;
	/* the tally: the truth itself costs (almost) nothing; a constant at the
	 * base rate costs the base rate's log-loss */
	double p[4][34];
	memset(p, 0, sizeof p);
	p[1][3] = p[1][6] = 1;
	hy_wait_oracle_tally(&o, &e, 0, p);
	double ll, base;
	uint64_t cells, dec;
	hy_wait_oracle_result(&o, &ll, &base, &cells, &dec);
	assert_int_equal(cells, 34);
	assert_int_equal(dec, 1);
	assert_true(ll < 1e-3);
	double r = 2.0 / 34;
	assert_true(fabs(base - -(r * log(r) + (1 - r) * log(1 - r))) < 1e-12);
	hy_wait_oracle_free(&o);
	assert_int_equal(hy_wait_oracle_parse(&o, "0", NULL, &d), HY_OK);
	for (int k = 0; k < 34; k++)
		p[1][k] = r;
	hy_wait_oracle_tally(&o, &e, 0, p);
	hy_wait_oracle_result(&o, &ll, &base, &cells, &dec);
	assert_true(fabs(ll - base) < 1e-12);
	/* a constant prediction ranks nothing: AUC one half; the reader's tally
	 * is its own, on the same cells */
	assert_true(fabs(hy_read_tally_auc(&o.belief) - 0.5) < 1e-12);
	assert_true(isnan(hy_read_tally_auc(&o.read)));
	for (int k = 0; k < 34; k++)
		p[1][k] = (o.belief.wins && (hy_wait_oracle_truth(&e, 1) >> k & 1)) ? 0.9 : 0.1;
	hy_wait_oracle_tally_reader(&o, &e, 0, p);
	assert_int_equal(o.read.cells, 34);
	assert_true(fabs(hy_read_tally_auc(&o.read) - 1.0) < 1e-12);
	assert_int_equal(o.belief.cells, 34);
	/* a seat with nobody in scope adds nothing */
	e.p[1].riichi = 0;
	hy_wait_oracle_tally(&o, &e, 0, p);
	hy_wait_oracle_result(&o, &ll, &base, &cells, &dec);
	assert_int_equal(dec, 1);
	hy_wait_oracle_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_truth_and_blend),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
