/* The bucket schedule of the gradient sum that overlaps the backward pass
 * (mpi/grad.h hy_mpi_overlap): buckets counted from the end of the
 * gradient cover every float once; "ready" for a given `from` means
 * exactly the buckets lying wholly in [from, total), never one that
 * reaches below from; the bucket size rule; hy_nn_backward's ready calls
 * on a real model come in decreasing order, end with 0 and make every
 * bucket startable; on a single rank the overlapped sum leaves the
 * gradient as backward made it. The multi-rank sums are tested under
 * mpirun (tests/shell/t1300-mpi.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "mpi/grad.h"
#include "nn/synth.h"

static void test_buckets_cover(void **state)
{
	(void)state;
	const size_t totals[] = {1, 2, 5, 1023, 1024, 1025, 4096, 100000, 334373};
	const size_t sizes[] = {1, 3, 1024, 4096, 65536};
	for (size_t a = 0; a < sizeof totals / sizeof *totals; a++)
		for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++) {
			size_t total = totals[a], bucket = sizes[b];
			size_t nb = hy_mpi_buckets(total, bucket);
			assert_int_equal(nb, (total + bucket - 1) / bucket);
			size_t next_hi = total; /* bucket 0 ends at total, then downwards */
			for (size_t i = 0; i < nb; i++) {
				size_t lo, hi;
				hy_mpi_bucket_range(total, bucket, i, &lo, &hi);
				assert_int_equal(hi, next_hi);
				assert_true(lo < hi);
				assert_true(hi - lo <= bucket);
				if (i + 1 < nb)
					assert_int_equal(hi - lo, bucket); /* only the last is short */
				else
					assert_int_equal(lo, 0);
				next_hi = lo;
			}
			assert_int_equal(next_hi, 0);
		}
}

/* buckets_ready(from) against the definition, for every from. */
static void test_buckets_ready(void **state)
{
	(void)state;
	const size_t totals[] = {1, 7, 1000, 1024, 3000, 5000};
	const size_t sizes[] = {1, 2, 512, 1000, 1024};
	for (size_t a = 0; a < sizeof totals / sizeof *totals; a++)
		for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++) {
			size_t total = totals[a], bucket = sizes[b];
			size_t nb = hy_mpi_buckets(total, bucket), prev = 0;
			for (size_t from = total + 1; from-- > 0;) {
				size_t want = 0;
				for (size_t i = 0; i < nb; i++) {
					size_t lo, hi;
					hy_mpi_bucket_range(total, bucket, i, &lo, &hi);
					if (lo >= from)
						want = i + 1; /* a prefix: the buckets go downwards */
				}
				size_t got = hy_mpi_buckets_ready(total, bucket, from);
				if (got != want)
					fail_msg("total %zu, bucket %zu, from %zu: %zu buckets ready, want %zu",
						total, bucket, from, got, want);
				assert_true(got >= prev); /* from falls: never fewer */
				prev = got;
			}
			assert_int_equal(hy_mpi_buckets_ready(total, bucket, 0), nb);
			assert_int_equal(hy_mpi_buckets_ready(total, bucket, total), 0);
		}
	/* examples: 10 floats in buckets of 4 are [6,10) [2,6) [0,2) */
	assert_int_equal(hy_mpi_buckets_ready(10, 4, 7), 0);
	assert_int_equal(hy_mpi_buckets_ready(10, 4, 6), 1);
	assert_int_equal(hy_mpi_buckets_ready(10, 4, 3), 1);
	assert_int_equal(hy_mpi_buckets_ready(10, 4, 2), 2);
	assert_int_equal(hy_mpi_buckets_ready(10, 4, 1), 2);
	assert_int_equal(hy_mpi_buckets_ready(10, 4, 0), 3);
}

static void test_bucket_size(void **state)
{
	(void)state;
	const size_t totals[] = {1, 1000, 100000, 334373, 2000000, 16512013, 1u << 30};
	for (size_t a = 0; a < sizeof totals / sizeof *totals; a++) {
		size_t b = hy_mpi_overlap_bucket(totals[a]);
		assert_true(b >= HY_MPI_OVERLAP_MIN && b <= HY_MPI_BUCKET);
		assert_int_equal(b % 1024, 0);
		assert_true(hy_mpi_buckets(totals[a], b) <= (size_t)(totals[a] < 8 ? 1 : 8) ||
			b == HY_MPI_BUCKET);
	}
	/* a gradient of 334,373 floats (about `small`): 8 buckets of 41,984 */
	assert_int_equal(hy_mpi_overlap_bucket(334373), 41984);
	assert_int_equal(hy_mpi_buckets(334373, 41984), 8);
	assert_int_equal(hy_mpi_overlap_bucket(16512013), HY_MPI_BUCKET);
}

/* ---- hy_nn_backward's ready calls on a real model */

typedef struct rec {
	size_t from[64];
	int n;
} rec;

static void on_ready(void *arg, size_t from)
{
	rec *r = arg;
	assert_true(r->n < 64);
	r->from[r->n++] = from;
}

static void backward_setup(hy_nn_ctx *ctx, hy_nn_model *m, hy_nn_work *w, int B)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_ctx_init(ctx, 1);
	hy_nn_arch a;
	assert_int_equal(hy_nn_arch_preset("tiny", &a, &d), HY_OK);
	assert_int_equal(hy_nn_model_init(m, a, hy_nn_backend_cpu(), ctx, &d), HY_OK);
	hy_rng r;
	hy_rng_seed(&r, 20261124);
	assert_int_equal(hy_nn_model_init_params(m, &r, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(w, m, B, &d), HY_OK);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	assert_non_null(s);
	hy_nn_synth_samples(&r, s, B);
	assert_int_equal(hy_nn_work_load(w, m, s, B, &d), HY_OK);
	free(s);
	hy_nn_losses l;
	hy_nn_forward(m, w);
	hy_nn_loss(m, w, &l);
}

static void test_backward_calls(void **state)
{
	(void)state;
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
	backward_setup(&ctx, &m, &w, 8);
	rec r = {.n = 0};
	w.ready = on_ready;
	w.ready_arg = &r;
	hy_nn_backward(&m, &w);
	/* after the heads and trunk GN, after each block, then 0 */
	assert_int_equal(r.n, m.arch.blocks + 2);
	for (int i = 1; i < r.n; i++)
		assert_true(r.from[i] < r.from[i - 1]);
	assert_int_equal(r.from[r.n - 1], 0);
	const size_t total = m.table.total, bucket = hy_mpi_overlap_bucket(total);
	size_t started = 0;
	for (int i = 0; i < r.n; i++) {
		size_t k = hy_mpi_buckets_ready(total, bucket, r.from[i]);
		assert_true(k >= started);
		started = k;
	}
	assert_int_equal(started, hy_mpi_buckets(total, bucket));
	/* tiny has buckets that start before the end (the overlap is real) */
	assert_true(hy_mpi_buckets_ready(total, bucket, r.from[r.n - 2]) > 0);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

/* One rank: begin / backward / end gives backward's gradient bit for bit. */
static void test_single_rank(void **state)
{
	(void)state;
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
	backward_setup(&ctx, &m, &w, 8);
	hy_nn_backward(&m, &w);
	const size_t n = m.table.total;
	float *ref = malloc(n * sizeof *ref);
	assert_non_null(ref);
	memcpy(ref, m.g, n * sizeof *ref);
	hy_mpi ds = {.rank = 0, .size = 1};
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_mpi_overlap *o;
	assert_int_equal(hy_mpi_overlap_init(&o, &ds, &m, &d), HY_OK);
	for (int rep = 0; rep < 2; rep++) {
		hy_mpi_overlap_begin(o, &w);
		hy_nn_backward(&m, &w);
		assert_int_equal(hy_mpi_overlap_end(o, &w, &d), HY_OK);
		assert_null(w.ready);
		assert_memory_equal(m.g, ref, n * sizeof *ref);
	}
	hy_mpi_overlap_free(o);
	free(ref);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_cover),
		cmocka_unit_test(test_buckets_ready),
		cmocka_unit_test(test_bucket_size),
		cmocka_unit_test(test_backward_calls),
		cmocka_unit_test(test_single_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
