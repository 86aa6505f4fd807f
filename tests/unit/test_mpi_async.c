/* The overlapped gradient sum on a device backend that downloads behind
 * the ops (mpi/grad.h; backend to_host_async and the copy fences), on two
 * ranks: an emulated device — the CPU backend's ops, with downloads that
 * land only when their fence is found passed or waited for, and a fence
 * found "not yet" the first time it is asked — gives the gradient of the
 * blocking sum bit for bit (two ranks: one addition each), starts buckets
 * before the backward pass ends, and never sums a bucket before its
 * download has landed (a bucket summed early would hold the zeros of the
 * fresh staging buffer or the previous step's sums). A backend without
 * downloads (the synchronous path) gives the same.
 *
 * Run alone (one rank), it runs itself again under `mpirun -np 2` and
 * passes when both ranks pass; without mpirun or MPI it is skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/grad.h"
#include "nn/backend.h"
#include "nn/synth.h"

/* ---- the emulated device: downloads pending until their fence passes */

enum { MAXQ = 256 };
static struct {
	struct {
		void *dst;
		const void *src;
		size_t bytes;
		int fence; /* −1: not yet behind a fence */
	} q[MAXQ];
	int n;
	int asked[HY_NN_COPY_FENCES]; /* copy_done calls since the mark */
	long polls, landed;
} E;

static void land(int k) /* the copies behind fence k, and every one before */
{
	int last = -1;
	for (int i = 0; i < E.n; i++)
		if (E.q[i].fence == k)
			last = i;
	for (int i = 0; i <= last; i++)
		if (E.q[i].dst) {
			memcpy(E.q[i].dst, E.q[i].src, E.q[i].bytes);
			E.q[i].dst = NULL;
			E.landed++;
		}
}

static void *e_host_alloc(size_t bytes)
{
	return calloc(1, bytes);
}

static void e_to_host_async(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	(void)c;
	assert_true(E.n < MAXQ);
	E.q[E.n].dst = dst, E.q[E.n].src = src, E.q[E.n].bytes = bytes, E.q[E.n].fence = -1;
	E.n++;
}

static void e_copy_mark(const hy_nn_ctx *c, int k)
{
	(void)c;
	assert_true(k >= HY_NN_FENCE_GRAD && k < HY_NN_COPY_FENCES);
	for (int i = 0; i < E.n; i++)
		if (E.q[i].fence < 0)
			E.q[i].fence = k;
	E.asked[k] = 0;
}

static int e_copy_done(const hy_nn_ctx *c, int k)
{
	(void)c;
	E.polls++;
	if (E.asked[k]++ == 0)
		return 0; /* not yet, the first time */
	land(k);
	return 1;
}

static void e_copy_wait(const hy_nn_ctx *c, int k)
{
	(void)c;
	land(k);
}

static hy_nn_backend emul, plain;

static void backends(void)
{
	emul = *hy_nn_backend_cpu();
	emul.name = "emulated device";
	emul.host_alloc = e_host_alloc;
	emul.host_free = free;
	emul.to_host_async = e_to_host_async;
	emul.copy_mark = e_copy_mark;
	emul.copy_wait = e_copy_wait;
	emul.copy_done = e_copy_done;
	plain = emul; /* no downloads behind the ops: the synchronous path */
	plain.name = "device without async downloads";
	plain.to_host_async = NULL;
	plain.copy_done = NULL;
}

/* ---- one rank's step */

static hy_mpi ds;

static void setup_model(hy_nn_ctx *ctx, hy_nn_model *m, hy_nn_work *w, const hy_nn_backend *be,
	int B)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_ctx_init(ctx, 1);
	hy_nn_arch a;
	assert_int_equal(hy_nn_arch_preset("tiny", &a, &d), HY_OK);
	assert_int_equal(hy_nn_model_init(m, a, be, ctx, &d), HY_OK);
	hy_rng r;
	hy_rng_seed(&r, 20261126); /* the same weights on every rank */
	assert_int_equal(hy_nn_model_init_params(m, &r, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(w, m, B, &d), HY_OK);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	assert_non_null(s);
	hy_rng_seed(&r, 77 + (uint64_t)ds.rank); /* each rank its own samples */
	hy_nn_synth_samples(&r, s, B);
	assert_int_equal(hy_nn_work_load(w, m, s, B, &d), HY_OK);
	free(s);
}

/* The summed gradient of one step: overlapped (o) or blocking. */
static float *step(hy_nn_model *m, hy_nn_work *w, hy_mpi_overlap *o)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_losses l;
	hy_nn_forward(m, w);
	hy_nn_loss(m, w, &l);
	if (o)
		hy_mpi_overlap_begin(o, w);
	hy_nn_backward(m, w);
	hy_status st = o ? hy_mpi_overlap_end(o, w, &d) : hy_mpi_grad_sum(&ds, m, &d);
	if (st)
		fail_msg("rank %d: %s", ds.rank, d.msg);
	float *g = malloc(m->table.total * sizeof *g);
	assert_non_null(g);
	memcpy(g, m->g, m->table.total * sizeof *g);
	return g;
}

static void test_two_ranks(void **state)
{
	(void)state;
	const int B = 24;
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
	hy_diag d;
	hy_diag_init(&d, NULL);
	setup_model(&ctx, &m, &w, &emul, B);
	const size_t n = m.table.total;
	float *want = step(&m, &w, NULL);
	hy_mpi_overlap *o;
	assert_int_equal(hy_mpi_overlap_init(&o, &ds, &m, &d), HY_OK);
	for (int k = 0; k < 2; k++) { /* twice: the second over the first's sums */
		memset(&E, 0, sizeof E);
		float *got = step(&m, &w, o);
		assert_memory_equal(got, want, n * sizeof *got);
		assert_true(E.landed == E.n && E.n > 1); /* every bucket downloaded */
		assert_true(E.polls > 0);
		free(got);
	}
	hy_mpi_overlap_stats s;
	hy_mpi_overlap_get_stats(o, &s);
	assert_int_equal(s.steps, 2);
	assert_true(s.staged);
	assert_true(s.early > 0); /* some bucket started before backward ended */
	hy_mpi_overlap_free(o);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);

	/* the synchronous path gives the same */
	setup_model(&ctx, &m, &w, &plain, B);
	assert_int_equal(hy_mpi_overlap_init(&o, &ds, &m, &d), HY_OK);
	memset(&E, 0, sizeof E);
	float *got = step(&m, &w, o);
	assert_memory_equal(got, want, n * sizeof *got);
	assert_int_equal(E.n, 0);
	free(got);
	free(want);
	hy_mpi_overlap_free(o);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

#ifndef HY_HAVE_MPI
static void test_skip_no_mpi(void **state)
{
	(void)state;
	skip(); /* a build without MPI has one rank only */
}
#endif

/* One rank: the same binary under mpirun -np 2. */
static void test_under_mpirun(void **state)
{
	(void)state;
	if (system("command -v mpirun >/dev/null 2>&1") != 0)
		skip();
	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	assert_true(k > 0);
	self[k] = '\0';
	char cmd[10000];
	/* OpenMPI's plugins leave allocations LeakSanitizer cannot name
	 * (tests/shell/t1300-mpi.sh): leak checks off in the ranks */
	snprintf(cmd, sizeof cmd, "OMPI_MCA_btl_vader_single_copy_mechanism=none "
		"ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} timeout 120 "
		"mpirun --oversubscribe --allow-run-as-root -np 2 '%s' >/dev/null 2>&1 || "
		"{ echo 'test_mpi_async: under mpirun -np 2:'; OMPI_MCA_btl_vader_single_copy_"
		"mechanism=none ASAN_OPTIONS=detect_leaks=0 timeout 120 mpirun --oversubscribe "
		"--allow-run-as-root -np 2 '%s'; exit 1; }", self, self);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	backends();
	if (hy_mpi_init(&ds, &d)) {
		fprintf(stderr, "test_mpi_async: %s\n", d.msg);
		return 1;
	}
	int rc;
	if (ds.size == 2) {
		const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_ranks)};
		rc = cmocka_run_group_tests(tests, NULL, NULL);
	} else if (ds.size == 1) {
#ifdef HY_HAVE_MPI
		const struct CMUnitTest tests[] = {cmocka_unit_test(test_under_mpirun)};
#else
		const struct CMUnitTest tests[] = {cmocka_unit_test(test_skip_no_mpi)};
#endif
		rc = cmocka_run_group_tests(tests, NULL, NULL);
	} else {
		fprintf(stderr, "test_mpi_async: runs on 1 or 2 ranks, not %d\n", ds.size);
		rc = 1;
	}
	hy_mpi_free(&ds);
	return rc;
}
