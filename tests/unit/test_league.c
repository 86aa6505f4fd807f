/* The league's seating (lib/play/league.c): the learner's seat rotates with
 * the game, the mix of the other seats over 40,000 games is within 1% of
 * the weights (pool checkpoints uniform within 1%), weights of an absent
 * pool or start go to the learner, the seating depends on the seed only,
 * and bad mixes are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "play/league.h"

static void test_mix(void **state)
{
	(void)state;
	hy_league l;
	hy_diag d;
	hy_diag_init(&d, NULL);
	double mix[3];
	assert_int_equal(hy_league_parse_mix("0.5,0.3,0.2", mix, &d), HY_OK);
	assert_int_equal(hy_league_init(&l, 42, mix, 3, 1, &d), HY_OK);
	long cnt[5] = {0};
	const int G = 40000;
	for (int g = 0; g < G; g++)
		for (int s = 0; s < 4; s++) {
			int p = hy_league_seat(&l, (uint64_t)g, s);
			assert_true(p >= 0 && p <= 4);
			if (s == g % 4)
				assert_int_equal(p, 0);
			else
				cnt[p]++;
		}
	double n = 3.0 * G;
	print_message("self %.4f pool %.4f %.4f %.4f start %.4f\n", cnt[0] / n, cnt[1] / n,
		      cnt[2] / n, cnt[3] / n, cnt[4] / n);
	assert_true(fabs(cnt[0] / n - 0.5) < 0.01);
	assert_true(fabs((cnt[1] + cnt[2] + cnt[3]) / n - 0.3) < 0.01);
	for (int i = 1; i <= 3; i++)
		assert_true(fabs(cnt[i] / n - 0.1) < 0.01);
	assert_true(fabs(cnt[4] / n - 0.2) < 0.01);
	/* the same seed, the same seating; another seed, another */
	hy_league l2;
	assert_int_equal(hy_league_init(&l2, 42, mix, 3, 1, &d), HY_OK);
	hy_league l3;
	assert_int_equal(hy_league_init(&l3, 43, mix, 3, 1, &d), HY_OK);
	int diff = 0;
	for (int g = 0; g < 200; g++)
		for (int s = 0; s < 4; s++) {
			assert_int_equal(hy_league_seat(&l, g, s), hy_league_seat(&l2, g, s));
			diff += hy_league_seat(&l, g, s) != hy_league_seat(&l3, g, s);
		}
	assert_true(diff > 100);
}

static void test_absent(void **state)
{
	(void)state;
	hy_league l;
	hy_diag d;
	hy_diag_init(&d, NULL);
	const double mix[3] = {0.5, 0.3, 0.2};
	/* no pool: its 0.3 plays the learner */
	assert_int_equal(hy_league_init(&l, 1, mix, 0, 1, &d), HY_OK);
	assert_true(fabs(l.w_self - 0.8) < 1e-12 && fabs(l.w_start - 0.2) < 1e-12);
	for (int g = 0; g < 1000; g++)
		for (int s = 0; s < 4; s++) {
			int p = hy_league_seat(&l, g, s);
			assert_true(p == 0 || p == 1);
		}
	/* neither: pure self-play */
	assert_int_equal(hy_league_init(&l, 1, mix, 0, 0, &d), HY_OK);
	for (int g = 0; g < 1000; g++)
		for (int s = 0; s < 4; s++)
			assert_int_equal(hy_league_seat(&l, g, s), 0);
	/* refusals */
	double bad[3];
	assert_int_equal(hy_league_parse_mix("0.5,0.3", bad, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "SELF,POOL,START"));
	assert_int_equal(hy_league_parse_mix("0.5,-1,0.2", bad, &d), HY_EUSAGE);
	assert_int_equal(hy_league_parse_mix("0.5,0.3,0.2x", bad, &d), HY_EUSAGE);
	const double zero[3] = {0, 0, 0};
	assert_int_equal(hy_league_init(&l, 1, zero, 2, 1, &d), HY_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
