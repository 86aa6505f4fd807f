/* lib/play/arena: seat rotation, Student's t quantile, confidence intervals
 * from per-seed means (against a direct computation), rank distribution,
 * rates, aborted games leaving their seed out; the strided share of the
 * games of one rank (lib/mpi, issue 13): the runner's games first +
 * k·stride are the games of a consecutive run, and the arena's seeds
 * r, r + N, ... of N ranks together give one process's results. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "mpi/mpi.h"
#include "mjai/mjai.h"
#include "nn/rng.h"
#include "play/arena.h"
#include "play/report.h"
#include "samples/stream.h"

#include "fixture_play.h"

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
/* No interval below HY_ARENA_MIN_SEEDS seeds: two equal per-seed means
 * would otherwise read as an interval of width 0 (certainty). */
static void test_few_seeds(void **state)
{
	(void)state;
	const double x[3] = {2.5, 2.5, 2.25};
	hy_arena_interval iv;
	hy_arena_interval_of(x, 2, &iv);
	assert_true(iv.mean == 2.5 && isnan(iv.half) && isnan(iv.lo) && isnan(iv.hi) &&
		    isnan(iv.sd));
	hy_arena_interval_of(x, 3, &iv);
	assert_true(isfinite(iv.half) && iv.half > 0 && iv.lo < iv.mean && iv.hi > iv.mean);
	hy_report_arena_info info = {.challenger = "a", .opponent = "b", .chal_temp = 1,
				     .opp_temp = -1};
	hy_arena_summary sm;
	memset(&sm, 0, sizeof sm);
	sm.seeds = sm.seeds_counted = 2;
	hy_arena_interval_of(x, 2, &sm.rank);
	hy_arena_interval_of(x, 2, &sm.points);
	sm.t = NAN;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_report_arena_table(f, &info, &sm, &d), HY_OK);
	fclose(f);
	assert_non_null(strstr(buf, "interval not available (2 seeds)"));
	assert_null(strstr(buf, "CI ["));
	/* how a checkpoint played: its temperature; nothing for a rule bot */
	assert_non_null(strstr(buf, "a (temperature 1)\n"));
	assert_non_null(strstr(buf, "b (3 seats)\n"));
	free(buf);
	info.chal_temp = -1;
	info.opp_temp = 0;
	f = open_memstream(&buf, &len);
	assert_int_equal(hy_report_arena_json(f, &info, &sm, &d), HY_OK);
	assert_int_equal(hy_report_arena_table(f, &info, &sm, &d), HY_OK);
	fclose(f);
	assert_non_null(strstr(buf, "\"challenger_temperature\":null"));
	assert_non_null(strstr(buf, "\"opponent_temperature\":0"));
	assert_non_null(strstr(buf, "b (3 seats, greedy)\n"));
	free(buf);
}

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

/* ------------------------------------------------------------ strides */

enum { NGAMES = 7 };

/* Per game index: a CRC of its log and recorded steps, and the order in
 * which the sink saw the games. */
typedef struct games_seen {
	uint32_t crc[NGAMES];
	int seen[NGAMES];
	uint64_t order[NGAMES];
	size_t n;
} games_seen;

static hy_status crc_sink(void *ctx, const hy_play_game *g, hy_diag *d)
{
	(void)d;
	games_seen *c = ctx;
	assert_true(g->game < NGAMES);
	assert_false(g->aborted);
	assert_int_equal(c->seen[g->game], 0);
	c->seen[g->game] = 1;
	c->order[c->n++] = g->game;
	uint32_t crc = 0;
	char buf[65536];
	for (size_t i = 0; i < g->log->n; i++) {
		int n = hy_mjai_format_event(&g->log->ev[i], buf, sizeof buf);
		assert_true(n > 0);
		crc = (uint32_t)crc32(crc, (const Bytef *)buf, (uInt)n);
	}
	static uint8_t rec[HY_SMS_RECORD_SIZE];
	for (size_t i = 0; i < g->nsteps; i++) {
		hy_sms_encode(&g->steps[i].s, rec);
		crc = (uint32_t)crc32(crc, rec, sizeof rec);
	}
	assert_true(g->nsteps > 0);
	c->crc[g->game] = crc;
	return HY_OK;
}

static int seat_by_game(void *ctx, uint64_t game, int seat)
{
	(void)ctx;
	return seat == (int)(game % 4) ? 0 : 1;
}

/* Options with every field zero but the ones given: stride 0 is 1. */
static void play(hy_policy **pol, uint64_t first, uint64_t count, uint64_t stride, int tables,
		 games_seen *c)
{
	hy_play_opts o;
	memset(&o, 0, sizeof o);
	o.seed = 5;
	o.first = first;
	o.count = count;
	o.stride = stride;
	o.tables = tables;
	o.threads = 1;
	o.record_steps = 1;
	o.gamma = 1.0f;
	o.gae_lambda = 0.95f;
	o.seat_policy = seat_by_game;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_play_run(&o, pol, 2, crc_sink, c, &d);
	if (st != HY_OK)
		print_error("run: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
}

/* Games first + k·stride of a strided run are those of the consecutive
 * run, in that order, whatever the tables; N strided runs (first = r,
 * stride = N) together play every game once. */
static void test_runner_stride(void **state)
{
	hy_policy b = open_policy("baseline"), r = open_policy("random");
	hy_policy *pol[2] = {&b, &r};
	games_seen all;
	memset(&all, 0, sizeof all);
	play(pol, 0, NGAMES, 0, 3, &all); /* stride 0: consecutive */
	assert_int_equal(all.n, NGAMES);
	for (uint64_t i = 0; i < NGAMES; i++)
		assert_int_equal(all.order[i], i);
	games_seen one;
	memset(&one, 0, sizeof one);
	play(pol, 0, NGAMES, 1, 2, &one);
	assert_memory_equal(one.crc, all.crc, sizeof all.crc);
	for (int size = 2; size <= 4; size++) {
		games_seen u;
		memset(&u, 0, sizeof u);
		uint64_t total = 0;
		for (int rk = 0; rk < size; rk++) {
			uint64_t n = hy_mpi_stride_count(rk, size, NGAMES);
			size_t before = u.n;
			play(pol, (uint64_t)rk, n, (uint64_t)size, 1 + rk % 3, &u);
			assert_int_equal(u.n - before, n);
			for (uint64_t k = 0; k < n; k++)
				assert_int_equal(u.order[before + k], (uint64_t)rk + k * size);
			total += n;
		}
		assert_int_equal(total, NGAMES);
		for (int i = 0; i < NGAMES; i++)
			assert_int_equal(u.seen[i], 1);
		assert_memory_equal(u.crc, all.crc, sizeof all.crc);
	}
	/* a start past 0: games 2, 5 */
	games_seen p;
	memset(&p, 0, sizeof p);
	play(pol, 2, 2, 3, 4, &p);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.order[0], 2);
	assert_int_equal(p.order[1], 5);
	assert_int_equal(p.crc[2], all.crc[2]);
	assert_int_equal(p.crc[5], all.crc[5]);
	/* the last game's index must not overflow */
	hy_play_opts o;
	hy_play_opts_default(&o);
	assert_int_equal(o.stride, 1);
	o.first = UINT64_MAX - 4;
	o.count = 3;
	o.stride = 3;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_play_run(&o, pol, 2, crc_sink, &p, &d), HY_EUSAGE);
	hy_policy_close(&b);
	hy_policy_close(&r);
}

static void test_stride_count(void **state)
{
	for (int size = 1; size <= 5; size++)
		for (uint64_t n = 0; n < 12; n++) {
			uint64_t sum = 0;
			for (int r = 0; r < size; r++) {
				uint64_t want = 0;
				for (uint64_t i = 0; i < n; i++)
					want += i % (uint64_t)size == (uint64_t)r;
				assert_int_equal(hy_mpi_stride_count(r, size, n), want);
				sum += want;
			}
			assert_int_equal(sum, n);
		}
}

/* The arena's seeds shared out by index over 3 "ranks" (seed k on rank
 * k mod 3, as hydra-eval under mpirun): the union of their results is one
 * run's, result for result. */
static void test_arena_stride(void **state)
{
	const uint64_t nseeds = 5;
	hy_policy b = open_policy("baseline"), r = open_policy("random");
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_arena_acc full, merged;
	assert_int_equal(hy_arena_acc_init(&full, nseeds, &d), HY_OK);
	assert_int_equal(hy_arena_acc_init(&merged, nseeds, &d), HY_OK);
	hy_arena_opts o = {.seed = 9, .nseeds = nseeds, .tables = 2, .threads = 1};
	assert_int_equal(hy_arena_run(&o, &r, &b, &full, &d), HY_OK);
	for (int rk = 0; rk < 3; rk++) {
		hy_arena_acc a;
		assert_int_equal(hy_arena_acc_init(&a, nseeds, &d), HY_OK);
		hy_arena_opts ro = o;
		ro.first = (uint64_t)rk;
		ro.count = hy_mpi_stride_count(rk, 3, nseeds);
		ro.stride = 3;
		assert_int_equal(hy_arena_run(&ro, &r, &b, &a, &d), HY_OK);
		for (uint64_t k = 0; k < nseeds; k++)
			for (int j = 0; j < HY_ARENA_ROTATIONS; j++) {
				const hy_arena_result *x = &a.res[k * HY_ARENA_ROTATIONS + j];
				assert_int_equal(x->state != HY_ARENA_UNPLAYED, k % 3 == (uint64_t)rk);
				if (x->state != HY_ARENA_UNPLAYED)
					assert_int_equal(hy_arena_record(&merged, k, j, x, &d), HY_OK);
			}
		hy_arena_acc_free(&a);
	}
	assert_memory_equal(merged.res, full.res, nseeds * HY_ARENA_ROTATIONS * sizeof *full.res);
	/* a share that runs past the seeds, or a stride without a count */
	hy_arena_opts bad = o;
	bad.first = 1;
	bad.count = 3;
	bad.stride = 2; /* seeds 1, 3, 5 */
	assert_int_equal(hy_arena_run(&bad, &r, &b, &merged, &d), HY_EUSAGE);
	bad.first = 0;
	bad.count = 0;
	bad.stride = 2;
	assert_int_equal(hy_arena_run(&bad, &r, &b, &merged, &d), HY_EUSAGE);
	hy_arena_acc_free(&full);
	hy_arena_acc_free(&merged);
	hy_policy_close(&b);
	hy_policy_close(&r);
}

/* The sequential rule: the looks double up to the most seeds, each at
 * 1 − 0.05/looks; a look decides when the rank interval excludes 2.5; run
 * on simulated even players (each rotation's rank uniform) the procedure
 * decides in at most about 5% of the runs, and on a clearly better player
 * it decides, mostly at the first look. */
static int seq_run(hy_arena_acc *a, const hy_arena_seq *q, hy_rng *r, int better, int *at)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	uint64_t prev = 0;
	for (int l = 0; l < q->n; l++) {
		for (uint64_t k = prev; k < q->look[l]; k++)
			for (int rot = 0; rot < 4; rot++) {
				/* better: 1st with weight 2, others 1 */
				int rank = better ? (int)hy_rng_below(r, 5) : (int)hy_rng_below(r, 4);
				hy_arena_result res = played(rank > 3 ? 0 : rank, 25000, 8, 1);
				assert_int_equal(hy_arena_record(a, k, rot, &res, &d), HY_OK);
			}
		prev = q->look[l];
		hy_arena_acc view = *a;
		view.nseeds = prev;
		hy_arena_summary s;
		hy_arena_summarise_at(&view, q->conf, &s);
		assert_true(s.conf == q->conf);
		if (hy_arena_decided(&s)) {
			*at = l;
			return 1;
		}
	}
	return 0;
}

static void test_sequential(void **state)
{
	(void)state;
	hy_arena_seq q;
	hy_arena_seq_plan(100, 400, &q);
	assert_int_equal(q.n, 3);
	assert_true(q.look[0] == 100 && q.look[1] == 200 && q.look[2] == 400);
	assert_true(fabs(q.conf - (1 - 0.05 / 3)) < 1e-15);
	hy_arena_seq_plan(100, 1000, &q);
	assert_int_equal(q.n, 5);
	assert_true(q.look[3] == 800 && q.look[4] == 1000);
	hy_arena_seq_plan(100, 100, &q);
	assert_int_equal(q.n, 1);
	assert_true(q.look[0] == 100 && q.conf == 1 - 0.05);
	hy_arena_seq_plan(100, 30, &q);
	assert_true(q.n == 1 && q.look[0] == 30);

	hy_arena_summary s;
	memset(&s, 0, sizeof s);
	s.rank = (hy_arena_interval){.mean = 2.3, .lo = 2.2, .hi = 2.4};
	assert_true(hy_arena_decided(&s));
	s.rank = (hy_arena_interval){.mean = 2.7, .lo = 2.6, .hi = 2.8};
	assert_true(hy_arena_decided(&s));
	s.rank = (hy_arena_interval){.mean = 2.45, .lo = 2.4, .hi = 2.5};
	assert_false(hy_arena_decided(&s));
	s.rank = (hy_arena_interval){.mean = 2.3, .lo = NAN, .hi = NAN};
	assert_false(hy_arena_decided(&s));

	/* the level: a wider interval at 99% than at 95% */
	hy_rng r;
	hy_rng_seed(&r, 20261126);
	hy_arena_acc a;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_arena_seq_plan(100, 400, &q);
	enum { RUNS = 1000 };
	int decided = 0, at = 0, first = 0;
	for (int run = 0; run < RUNS; run++) {
		assert_int_equal(hy_arena_acc_init(&a, 400, &d), HY_OK);
		decided += seq_run(&a, &q, &r, 0, &at);
		hy_arena_acc_free(&a);
	}
	/* at most 5% by Bonferroni (and ~3.6% in truth); 1,000 runs: the
	 * binomial's sd is 0.7% */
	assert_true(decided <= 65);
	decided = 0;
	for (int run = 0; run < 50; run++) {
		assert_int_equal(hy_arena_acc_init(&a, 400, &d), HY_OK);
		if (seq_run(&a, &q, &r, 1, &at)) {
			decided++;
			first += at == 0;
		}
		hy_arena_acc_free(&a);
	}
	assert_int_equal(decided, 50); /* mean rank 2.2 against 2.5 */
	assert_true(first >= 45);
	assert_int_equal(hy_arena_acc_init(&a, 50, &d), HY_OK);
	for (uint64_t k = 0; k < 50; k++)
		for (int rot = 0; rot < 4; rot++) {
			hy_arena_result res = played((int)hy_rng_below(&r, 4), 25000, 8, 1);
			assert_int_equal(hy_arena_record(&a, k, rot, &res, &d), HY_OK);
		}
	hy_arena_summary s95, s99;
	hy_arena_summarise(&a, &s95);
	hy_arena_summarise_at(&a, 0.99, &s99);
	assert_true(s95.conf == 0.95 && s99.conf == 0.99);
	assert_true(s99.rank.mean == s95.rank.mean && s99.rank.half > s95.rank.half);
	hy_arena_acc_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_few_seeds),
		cmocka_unit_test(test_summary_direct),
		cmocka_unit_test(test_aborted),
		cmocka_unit_test(test_result_of),
		cmocka_unit_test(test_stride_count),
		cmocka_unit_test(test_runner_stride),
		cmocka_unit_test(test_arena_stride),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
