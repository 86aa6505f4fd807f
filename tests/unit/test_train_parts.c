/* A training source split across ranks (data/source.h, cfg rank of ranks):
 * for every batch the ranks' parts are disjoint, each in the global order,
 * and together exactly the batch of a single process (shards: over
 * several epochs and buffers, with a seek; streams: the ranks' blocks of
 * positions); from shards each rank reads only its own chunks, about
 * 1/ranks of the samples, and the ranks together read what one process
 * reads; a handle restarted with other settings reads what one opened with
 * them reads (hy_data_restart). Synthetic samples in a temporary
 * directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/mpi.h"
#include "nn/synth.h"
#include "samples/shard.h"
#include "samples/stream.h"
#include "data/source.h"

#include "fixture_train.h"

static const uint64_t SEED = 20261124;
enum { NA = 700, NB = 133, MAXR = 4 };

/* Shards a.h5 (NA samples) and b.h5 (NB), chunks of 16; the stream a.bin. */
static int setup(void **state)
{
	(void)state;
	if (fx_mkdir("hydra-parts", SEED))
		return -1;
	hy_sample *a = make_samples(NA, 0, SEED), *b = make_samples(NB, NA, SEED + 1);
	char p[512];
	path(p, "a.h5");
	write_shard(p, a, NA, 16);
	path(p, "b.h5");
	write_shard(p, b, NB, 16);
	path(p, "a.bin");
	write_stream(p, a, NA);
	free(a);
	free(b);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fx_rmdir();
}

static hy_data *open_src(const char *const *in, size_t nin, int rank, int ranks,
	const hy_data_cursor *at)
{
	hy_data_cfg c = {.paths = in, .npaths = nin, .seed = SEED, .shuffle_buffer = 100,
		.rank = rank, .ranks = ranks};
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_data_open(&td, &c, &d))
		fail_msg("open: %s", d.msg);
	if (at && hy_data_seek(td, at, &d))
		fail_msg("seek: %s", d.msg);
	return td;
}

/* `steps` batches of `batch` on 1 rank and on each of `ranks`: the parts
 * merge, in order, into the whole batch. *read: samples each rank read. */
static void check_parts(const char *const *in, size_t nin, int ranks, size_t batch, int steps,
	const hy_data_cursor *at, int blocks, uint64_t read[MAXR + 1])
{
	hy_data *one = open_src(in, nin, 0, 1, at), *td[MAXR];
	for (int r = 0; r < ranks; r++)
		td[r] = open_src(in, nin, r, ranks, at);
	hy_sample *all = malloc(batch * sizeof *all), *part = malloc(batch * sizeof *part);
	uint64_t *owner = malloc(batch * sizeof *owner);
	assert_true(all && part && owner);
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (int s = 0; s < steps; s++) {
		size_t n = 0;
		assert_int_equal(hy_data_next(one, all, batch, &n, &d), HY_OK);
		assert_int_equal(n, batch);
		for (size_t i = 0; i < n; i++)
			owner[i] = UINT64_MAX;
		size_t sum = 0;
		for (int r = 0; r < ranks; r++) {
			size_t nr = 0, k = 0;
			assert_int_equal(hy_data_next_part(td[r], part, batch, &nr, &k, &d), HY_OK);
			assert_int_equal(nr, n); /* the cursor moves by the global batch */
			hy_data_cursor c1, c2;
			hy_data_get_cursor(one, &c1);
			hy_data_get_cursor(td[r], &c2);
			assert_true(c1.epoch == c2.epoch && c1.pos == c2.pos);
			/* a subsequence of the batch, in order */
			size_t at_i = 0;
			for (size_t j = 0; j < k; j++) {
				while (at_i < n && all[at_i].game != part[j].game)
					at_i++;
				if (at_i == n)
					fail_msg("step %d, rank %d: sample %llu not in the batch, or out of "
						"order", s, r, (unsigned long long)part[j].game);
				assert_memory_equal(&all[at_i], &part[j], sizeof *part);
				assert_int_equal(owner[at_i], UINT64_MAX); /* disjoint */
				owner[at_i] = (uint64_t)r;
				at_i++;
			}
			if (blocks) { /* streams: rank r's block of positions */
				uint64_t lo, hi;
				hy_mpi_range_of(r, ranks, batch, &lo, &hi);
				assert_int_equal(k, hi - lo);
				for (uint64_t i = lo; i < hi; i++)
					assert_int_equal(owner[i], (uint64_t)r);
			}
			sum += k;
		}
		assert_int_equal(sum, n); /* together: the whole batch */
	}
	hy_data_stats st;
	hy_data_get_stats(one, &st);
	read[MAXR] = st.samples_read;
	for (int r = 0; r < ranks; r++) {
		hy_data_get_stats(td[r], &st);
		read[r] = st.samples_read;
		hy_data_close(td[r]);
	}
	hy_data_close(one);
	free(all);
	free(part);
	free(owner);
}

static void test_shard_parts(void **state)
{
	(void)state;
	char a[512], b[512];
	path(a, "a.h5");
	path(b, "b.h5");
	const char *in[2] = {a, b};
	const hy_data_cursor start = {0, 0}, mid = {1, 317};
	for (int ranks = 2; ranks <= MAXR; ranks++) {
		uint64_t read[MAXR + 1];
		/* 3 epochs and a bit of 833 samples, buffers of 7 chunks of 16 */
		check_parts(in, 2, ranks, 37, 70, &start, 0, read);
		uint64_t sum = 0;
		for (int r = 0; r < ranks; r++) {
			sum += read[r];
			/* about 1/ranks each: within two chunks a buffer of it */
			double share = (double)read[r] / (double)read[MAXR];
			printf("# %d ranks: rank %d read %llu of the %llu samples one process reads\n",
				ranks, r, (unsigned long long)read[r], (unsigned long long)read[MAXR]);
			if (share > 1.0 / ranks + 0.08 || share < 1.0 / ranks - 0.08)
				fail_msg("%d ranks: rank %d read %llu of %llu samples", ranks, r,
					(unsigned long long)read[r], (unsigned long long)read[MAXR]);
		}
		assert_int_equal(sum, read[MAXR]); /* together: what one process reads */
		check_parts(in, 2, ranks, 64, 20, &mid, 0, read); /* after a seek */
	}
	/* a batch smaller than the ranks: some parts are empty */
	uint64_t read[MAXR + 1];
	check_parts(in, 2, 3, 1, 50, &start, 0, read);
}

static void test_stream_parts(void **state)
{
	(void)state;
	char a[512];
	path(a, "a.bin");
	const char *in[1] = {a};
	const hy_data_cursor start = {0, 0}, mid = {0, 250};
	for (int ranks = 2; ranks <= MAXR; ranks++) {
		uint64_t read[MAXR + 1];
		check_parts(in, 1, ranks, 45, 40, &start, 1, read);
		for (int r = 0; r < ranks; r++) /* a stream: every rank reads all of it */
			assert_int_equal(read[r], read[MAXR]);
		check_parts(in, 1, ranks, 32, 10, &mid, 1, read);
	}
}

/* hy_data_restart: a handle opened with other settings and restarted with
 * a run's seed, buffer and one_pass reads exactly what a handle opened with
 * them reads (shards on 1 and 2 ranks, a stream with one_pass: it ends);
 * not after a read; and a stream file's bound (hydra-fit's plan). */
static void restart_matches(const char *const *in, size_t nin, int rank, int ranks,
	int one_pass)
{
	hy_data_cfg want = {.paths = in, .npaths = nin, .seed = SEED, .shuffle_buffer = 100,
		.rank = rank, .ranks = ranks, .one_pass = one_pass};
	hy_data_cfg first = want;
	first.seed = 7, first.shuffle_buffer = 1, first.one_pass = 0;
	hy_data *a, *b;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_data_open(&a, &want, &d), HY_OK);
	assert_int_equal(hy_data_open(&b, &first, &d), HY_OK);
	assert_int_equal(hy_data_restart(b, SEED, 100, one_pass, &d), HY_OK);
	hy_sample sa[64], sb[64];
	size_t na = 0, nb = 0, ma = 0, mb = 0;
	for (int step = 0; step < 40; step++) {
		hy_status x = hy_data_next_part(a, sa, 64, &na, &ma, &d);
		hy_status y = hy_data_next_part(b, sb, 64, &nb, &mb, &d);
		assert_int_equal(x, y);
		if (x == HY_STOP)
			break;
		assert_int_equal(x, HY_OK);
		assert_int_equal(na, nb);
		assert_int_equal(ma, mb);
		assert_memory_equal(sa, sb, ma * sizeof *sa);
	}
	/* settings cannot change once read */
	assert_int_equal(hy_data_restart(b, SEED, 100, one_pass, &d), HY_EUSAGE);
	hy_data_close(a);
	hy_data_close(b);
}

static void test_restart(void **state)
{
	(void)state;
	char a[512], b[512], s[512];
	path(a, "a.h5");
	path(b, "b.h5");
	path(s, "a.bin");
	const char *shards[2] = {a, b}, *stream[1] = {s};
	restart_matches(shards, 2, 0, 1, 0);
	restart_matches(shards, 2, 1, 2, 0);
	restart_matches(stream, 1, 0, 1, 1); /* one pass: both end together */
	restart_matches(stream, 1, 0, 1, 0);
	hy_data_cfg c = {.paths = stream, .npaths = 1, .seed = 1, .shuffle_buffer = 10};
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_data_open(&td, &c, &d), HY_OK);
	uint64_t bound = hy_data_stream_bound(td);
	assert_true(bound >= NA && bound <= NA + 1);
	hy_data_close(td);
	c.paths = shards, c.npaths = 2;
	assert_int_equal(hy_data_open(&td, &c, &d), HY_OK);
	assert_int_equal(hy_data_stream_bound(td), 0);
	hy_data_close(td);
}

static void test_bad_rank(void **state)
{
	(void)state;
	char a[512];
	path(a, "a.h5");
	const char *in[1] = {a};
	hy_data_cfg c = {.paths = in, .npaths = 1, .seed = 1, .shuffle_buffer = 100,
		.rank = 2, .ranks = 2};
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_data_open(&td, &c, &d), HY_EUSAGE);
	c.rank = 1;
	assert_int_equal(hy_data_open(&td, &c, &d), HY_OK);
	hy_sample s[4];
	size_t n;
	/* whole batches are for a single rank */
	assert_int_equal(hy_data_next(td, s, 4, &n, &d), HY_EUSAGE);
	hy_data_close(td);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_parts),
		cmocka_unit_test(test_stream_parts),
		cmocka_unit_test(test_bad_rank),
		cmocka_unit_test(test_restart),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
