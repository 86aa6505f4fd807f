/* lib/play/arena: seat rotation, Student's t quantile, confidence intervals
 * from per-seed means (against a direct computation), rank distribution,
 * rates, aborted games leaving their seed out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "play/arena.h"

static void test_rotation(void **state)
{
	for (int r = 0; r < HY_ARENA_ROTATIONS; r++) {
		int chal = 0;
		for (int s = 0; s < 4; s++) {
			int p = hy_arena_seat_policy(r, s);
			assert_true(p == HY_ARENA_CHALLENGER || p == HY_ARENA_OPPONENT);
			if (p == HY_ARENA_CHALLENGER) {
				chal++;
				assert_int_equal(s, hy_arena_challenger_seat(r));
			}
		}
		assert_int_equal(chal, 1);
	}
	/* over the 4 rotations the challenger sits once at every seat */
	int seen = 0;
	for (int r = 0; r < HY_ARENA_ROTATIONS; r++)
		seen |= 1 << hy_arena_challenger_seat(r);
	assert_int_equal(seen, 0xf);
}

/* 0.975 quantiles (two-sided 95%) of Student's t, checked independently by
 * numerical integration of the density. */
static void test_t_quantile(void **state)
{
	static const struct {
		uint64_t df;
		double t;
	} ref[] = {
		{1, 12.706204736174707},   {2, 4.302652729749464},   {3, 3.182446305284263},
		{4, 2.7764451051977987},   {5, 2.5705818356363146},  {10, 2.2281388519862744},
		{30, 2.0422724563012373},  {100, 1.9839715184496334}, {1000, 1.9623390808264078},
	};
	for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
		double t = hy_arena_t_quantile(0.95, ref[i].df);
		if (fabs(t - ref[i].t) > 1e-9 * ref[i].t)
			fail_msg("df %llu: %.15g, expected %.15g", (unsigned long long)ref[i].df, t,
				 ref[i].t);
	}
	/* towards the normal quantile, monotone in df */
	double prev = INFINITY;
	for (uint64_t df = 1; df < 5000; df = df * 3 / 2 + 1) {
		double t = hy_arena_t_quantile(0.95, df);
		assert_true(t < prev && t > 1.959963984540054);
		prev = t;
	}
	/* 50%: df 1 is tan(π/4) = 1; df 2: x/√(2+x²) = 0.5 → x = √(2/3) */
	assert_true(fabs(hy_arena_t_quantile(0.5, 1) - 1.0) < 1e-12);
	assert_true(fabs(hy_arena_t_quantile(0.5, 2) - sqrt(2.0 / 3.0)) < 1e-12);
	assert_true(isnan(hy_arena_t_quantile(0.95, 0)));
	assert_true(isnan(hy_arena_t_quantile(1.0, 5)));
}

static hy_arena_result played(int rank, int32_t score, uint64_t kyoku, uint64_t wins)
{
	hy_arena_result r;
	memset(&r, 0, sizeof r);
	r.state = HY_ARENA_PLAYED;
	r.rank = (uint8_t)rank;
	r.score = score;
	r.chal.kyoku = kyoku;
	r.chal.wins = wins;
	r.chal.deal_ins = 1;
	r.chal.calls = 2;
	r.chal.riichi = 3;
	r.opp.kyoku = 3 * kyoku;
	r.opp.wins = kyoku - wins;
	r.opp.deal_ins = 2;
	return r;
}

static const int pts[4] = {90, 45, 0, -135};

/* Pseudo-random ranks for n seeds; statistics against a direct
 * computation of mean, sample sd and t·sd/√n over the per-seed means. */
static void test_summary_direct(void **state)
{
	const uint64_t n = 37;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	hy_arena_acc a;
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_arena_acc_init(&a, n, &d), HY_OK);
	int ranks[37][4];
	uint64_t cnt[4] = {0};
	double sum_score = 0;
	for (uint64_t k = 0; k < n; k++)
		for (int r = 0; r < 4; r++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			ranks[k][r] = (int)(x % 4);
			cnt[ranks[k][r]]++;
			int32_t score = 25000 + 1000 * (int32_t)(x % 7);
			sum_score += score;
			hy_arena_result res = played(ranks[k][r], score, 10, (uint64_t)r);
			assert_int_equal(hy_arena_record(&a, k, r, &res, &d), HY_OK);
		}
	hy_arena_summary s;
	hy_arena_summarise(&a, &s);
	assert_int_equal(s.seeds, n);
	assert_int_equal(s.seeds_counted, n);
	assert_int_equal(s.games, 4 * n);
	assert_int_equal(s.aborted, 0);
	assert_int_equal(s.unplayed, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s.rank_count[i], cnt[i]);

	/* direct: per-seed means, then mean, sd (n-1), t_{0.975, n-1} */
	double mr[37], mp[37], sr = 0, sp = 0;
	for (uint64_t k = 0; k < n; k++) {
		mr[k] = mp[k] = 0;
		for (int r = 0; r < 4; r++) {
			mr[k] += (ranks[k][r] + 1) / 4.0;
			mp[k] += pts[ranks[k][r]] / 4.0;
		}
		sr += mr[k];
		sp += mp[k];
	}
	double mean_r = sr / n, mean_p = sp / n, vr = 0, vp = 0;
	for (uint64_t k = 0; k < n; k++) {
		vr += (mr[k] - mean_r) * (mr[k] - mean_r);
		vp += (mp[k] - mean_p) * (mp[k] - mean_p);
	}
	double sd_r = sqrt(vr / (n - 1)), sd_p = sqrt(vp / (n - 1));
	const double t36 = 2.0280940009804502; /* t_{0.975, 36} */
	assert_true(fabs(s.t - t36) < 1e-9);
	assert_true(fabs(s.rank.mean - mean_r) < 1e-12);
	assert_true(fabs(s.points.mean - mean_p) < 1e-9);
	assert_true(fabs(s.rank.sd - sd_r) < 1e-12);
	assert_true(fabs(s.points.sd - sd_p) < 1e-9);
	assert_true(fabs(s.rank.half - t36 * sd_r / sqrt(n)) < 1e-9);
	assert_true(fabs(s.points.half - t36 * sd_p / sqrt(n)) < 1e-6);
	assert_true(fabs(s.rank.lo - (mean_r - s.rank.half)) < 1e-12);
	assert_true(fabs(s.rank.hi - (mean_r + s.rank.half)) < 1e-12);
	/* the mean over games equals the mean of the complete seeds' means */
	double all = 0;
	for (int i = 0; i < 4; i++)
		all += (double)cnt[i] * (i + 1);
	assert_true(fabs(all / (4.0 * n) - s.rank.mean) < 1e-12);
	assert_true(fabs(s.score - sum_score / (4.0 * n)) < 1e-9);
	/* rates: chal 10 kyoku per game, wins = rotation (0+1+2+3 per seed) */
	assert_int_equal(s.chal.kyoku, 40 * n);
	assert_true(fabs(s.chal.win - 6.0 * n / (40.0 * n)) < 1e-12);
	assert_true(fabs(s.chal.deal_in - 0.1) < 1e-12);
	assert_true(fabs(s.chal.call - 0.2) < 1e-12);
	assert_true(fabs(s.chal.riichi - 0.3) < 1e-12);
	assert_int_equal(s.opp.kyoku, 120 * n);
	assert_true(fabs(s.opp.win - (40.0 - 6.0) * n / (120.0 * n)) < 1e-12);
	assert_true(fabs(s.opp.riichi) < 1e-12);
	hy_arena_acc_free(&a);
}

/* An aborted game leaves its whole seed out; a seed that was not played to
 * the end is reported as unplayed; one seed gives no interval. */
static void test_aborted(void **state)
{
	hy_arena_acc a;
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_arena_acc_init(&a, 3, &d), HY_OK);
	/* seed 0: ranks 1,2,3,4 (0-based 0..3); seed 1: rotation 2 aborted;
	 * seed 2: only rotations 0 and 1 */
	for (int r = 0; r < 4; r++) {
		hy_arena_result res = played(r, 25000, 8, 1);
		assert_int_equal(hy_arena_record(&a, 0, r, &res, &d), HY_OK);
		if (r == 2) {
			hy_arena_result ab;
			memset(&ab, 0, sizeof ab);
			ab.state = HY_ARENA_ABORTED;
			assert_int_equal(hy_arena_record(&a, 1, r, &ab, &d), HY_OK);
		} else {
			res = played(0, 40000, 8, 1);
			assert_int_equal(hy_arena_record(&a, 1, r, &res, &d), HY_OK);
		}
		if (r < 2)
			assert_int_equal(hy_arena_record(&a, 2, r, &res, &d), HY_OK);
	}
	hy_arena_summary s;
	hy_arena_summarise(&a, &s);
	assert_int_equal(s.seeds, 3);
	assert_int_equal(s.seeds_counted, 1);
	assert_int_equal(s.games, 4);
	assert_int_equal(s.aborted, 1);
	assert_int_equal(s.seeds_excluded, 1);
	assert_int_equal(s.unplayed, 2);
	assert_true(s.rank.mean == 2.5);
	assert_true(s.points.mean == 0.0);
	assert_true(isnan(s.rank.half) && isnan(s.rank.lo) && isnan(s.t));
	for (int i = 0; i < 4; i++)
		assert_int_equal(s.rank_count[i], 1);
	assert_int_equal(s.chal.kyoku, 32);
	assert_true(s.score == 25000);

	/* errors: out of range, recorded twice, rank out of range */
	hy_arena_result res = played(0, 0, 1, 0);
	assert_int_equal(hy_arena_record(&a, 3, 0, &res, &d), HY_EUSAGE);
	assert_int_equal(hy_arena_record(&a, 0, 4, &res, &d), HY_EUSAGE);
	assert_int_equal(hy_arena_record(&a, 0, 0, &res, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "twice"));
	res.rank = 4;
	assert_int_equal(hy_arena_record(&a, 2, 3, &res, &d), HY_EUSAGE);
	hy_arena_acc_free(&a);

	/* nothing counted: NaN everywhere, no crash */
	assert_int_equal(hy_arena_acc_init(&a, 2, &d), HY_OK);
	hy_arena_summarise(&a, &s);
	assert_int_equal(s.games, 0);
	assert_int_equal(s.unplayed, 8);
	assert_true(isnan(s.rank.mean) && isnan(s.points.mean) && isnan(s.score));
	assert_true(isnan(s.chal.win));
	hy_arena_acc_free(&a);
	assert_int_equal(hy_arena_acc_init(&a, 0, &d), HY_EUSAGE);
}

/* The result of a runner game for each rotation: the challenger's seat. */
static void test_result_of(void **state)
{
	hy_play_game g;
	memset(&g, 0, sizeof g);
	static const uint8_t rank[4] = {2, 0, 3, 1};
	static const int32_t sc[4] = {20000, 41000, 9000, 30000};
	for (int s = 0; s < 4; s++) {
		g.rank[s] = rank[s];
		g.final_scores[s] = sc[s];
		g.stats[s].kyoku = 9;
		g.stats[s].wins = (uint32_t)s;
		g.stats[s].riichi = 1;
	}
	for (int r = 0; r < 4; r++) {
		hy_arena_result res;
		hy_arena_result_of(&g, r, &res);
		assert_int_equal(res.state, HY_ARENA_PLAYED);
		assert_int_equal(res.rank, rank[r]);
		assert_int_equal(res.score, sc[r]);
		assert_int_equal(res.chal.wins, r);
		assert_int_equal(res.opp.wins, 6 - r);
		assert_int_equal(res.opp.kyoku, 27);
		assert_int_equal(res.opp.riichi, 3);
	}
	g.aborted = 1;
	hy_arena_result res;
	hy_arena_result_of(&g, 1, &res);
	assert_int_equal(res.state, HY_ARENA_ABORTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_summary_direct),
		cmocka_unit_test(test_aborted),
		cmocka_unit_test(test_result_of),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
