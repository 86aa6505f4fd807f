/* Cost of the gradient all-reduce of data-parallel hydra-fit (lib/mpi):
 *   mpirun -np N mpi_bench ARCH [ITERS]      (default 20)
 * The model's whole gradient buffer (fp32, every tensor of the table,
 * alignment padding included: what hy_mpi_grad_sum reduces) summed over
 * the ranks ITERS times after 2 warm-up sums; rank 0 prints the gradient
 * size, the median and minimum time of one sum, and the bus bandwidth
 * 2(N−1)/N · bytes / time (the bytes a ring all-reduce moves per rank).
 *
 *   mpirun -np N mpi_bench ARCH ITERS step BATCH [THREADS]
 * Whole data-parallel training steps (train/step.h hy_train_step with train/ranks.h:
 * forward, loss, backward, gradient sum, AdamW) on a synthetic global
 * batch of BATCH (BATCH/N a rank), alternately with the sum overlapped
 * with the backward pass and after it, ITERS of each after 2 warm-up
 * pairs; rank 0 prints the median and minimum step time of each and the
 * buckets started before the backward pass ended. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/mpi.h"
#include "mpi/grad.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/synth.h"
#include "nn/threads.h"
#include "train/ranks.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int die(const hy_mpi *ds, const hy_diag *d)
{
	fprintf(stderr, "mpi_bench: %s\n", d->msg);
	hy_mpi_abort(ds, 1);
	return 1;
}

/* The step mode (see the top). */
static int steps(hy_mpi *ds, hy_nn_model *m, hy_nn_ctx *ctx, const char *arch, int iters,
	int batch)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	uint64_t lo, hi;
	hy_mpi_range(ds, (uint64_t)batch, &lo, &hi);
	const int k = (int)(hi - lo);
	hy_rng r;
	hy_rng_seed(&r, 7 + (uint64_t)ds->rank);
	hy_sample *s = calloc((size_t)(k > 0 ? k : 1), sizeof *s);
	double *t[2] = {malloc((size_t)iters * sizeof(double)),
			malloc((size_t)iters * sizeof(double))};
	if (!s || !t[0] || !t[1])
		return 1;
	hy_nn_synth_samples(&r, s, k);
	hy_nn_work w;
	hy_train_ranks *rk[2];
	if (hy_nn_model_init_params(m, &r, &d) || hy_nn_work_init(&w, m, k > 0 ? k : 1, &d) ||
	    hy_train_ranks_open(&rk[0], ds, m, 0, &d) || hy_train_ranks_open(&rk[1], ds, m, 1, &d))
		return die(ds, &d);
	hy_nn_optim_cfg opt;
	hy_nn_optim_defaults(&opt, 1000000);
	int64_t step = 0;
	hy_train_net net;
	hy_train_net_init(&net, m, &w);
	net.part = s;
	for (int i = -2; i < iters; i++)
		for (int ov = 0; ov < 2; ov++) {
			hy_nn_losses l;
			hy_nn_step_info info;
			if (hy_mpi_barrier(ds, &d))
				return die(ds, &d);
			double t0 = now();
			if (hy_train_step(&net.L, rk[ov], k, &opt, &step, &l, &info, &d))
				return die(ds, &d);
			if (i >= 0)
				t[ov][i] = now() - t0;
		}
	char l1[1200], l2[1200];
	hy_data_stats none = {0, 0};
	for (int ov = 0; ov < 2; ov++) {
		qsort(t[ov], (size_t)iters, sizeof *t[ov], cmp_d);
		if (hy_train_ranks_report(rk[ov], &none, 0, l1, l2, sizeof l1, &d))
			return die(ds, &d);
		if (ds->rank == 0)
			printf("mpi  %-5s step, global batch %d (%d a rank), %d rank%s, %d thread%s: sum %s: "
			       "median %.2f ms, min %.2f ms (%s)\n", arch, batch, k, ds->size,
			       ds->size > 1 ? "s" : "", ctx->threads, ctx->threads > 1 ? "s" : "",
			       ov ? "during backward" : "after backward ", t[ov][iters / 2] * 1e3,
			       t[ov][0] * 1e3, l2 + strlen("ranks: "));
	}
	hy_train_ranks_close(rk[0]);
	hy_train_ranks_close(rk[1]);
	hy_nn_work_free(&w, m);
	free(s);
	free(t[0]);
	free(t[1]);
	return 0;
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* passive OpenMP waits, no OpenBLAS pool (nn/threads.h) */
	if (argc < 2) {
		fprintf(stderr, "usage: mpirun -np N mpi_bench ARCH [ITERS [step BATCH [THREADS]]]\n");
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	if (iters < 1 || iters > 100000) {
		fprintf(stderr, "mpi_bench: bad ITERS\n");
		return 2;
	}
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_mpi ds;
	if (hy_mpi_init(&ds, &d))
		return die(&ds, &d);
	int step_mode = argc > 3 && strcmp(argv[3], "step") == 0;
	int batch = step_mode && argc > 4 ? atoi(argv[4]) : 0;
	int threads = step_mode && argc > 5 ? atoi(argv[5]) : 1;
	if (step_mode && (batch < 1 || batch > 1 << 16 || threads < 1 || threads > 1024)) {
		fprintf(stderr, "mpi_bench: bad BATCH or THREADS\n");
		return 2;
	}
	hy_nn_arch a;
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, threads);
	hy_nn_model m;
	if (hy_nn_arch_preset(argv[1], &a, &d) ||
	    hy_nn_model_init(&m, a, hy_nn_backend_cpu(), &ctx, &d))
		return die(&ds, &d);
	if (step_mode) {
		int rc = steps(&ds, &m, &ctx, argv[1], iters, batch);
		hy_nn_model_free(&m);
		hy_mpi_free(&ds);
		return rc;
	}
	for (size_t i = 0; i < m.table.total; i++)
		m.g[i] = (float)((i + (size_t)ds.rank) % 97) * 1e-3f;
	double *t = malloc((size_t)iters * sizeof *t);
	if (!t)
		return 1;
	for (int i = -2; i < iters; i++) {
		if (hy_mpi_barrier(&ds, &d))
			return die(&ds, &d);
		double t0 = now();
		if (hy_mpi_grad_sum(&ds, &m, &d))
			return die(&ds, &d);
		if (i >= 0)
			t[i] = now() - t0;
	}
	qsort(t, (size_t)iters, sizeof *t, cmp_d);
	double bytes = (double)m.table.total * sizeof(float), med = t[iters / 2];
	if (ds.rank == 0)
		printf("mpi  %-5s %dx%d: %zu params (%.2f MiB fp32 gradient), %d ranks: all-reduce "
		       "median %.3f ms, min %.3f ms, bus bandwidth %.2f GB/s\n",
		       argv[1], a.blocks, a.channels, hy_nn_model_param_count(&m), bytes / 1048576.0,
		       ds.size, med * 1e3, t[0] * 1e3,
		       ds.size > 1 ? 2.0 * (ds.size - 1) / ds.size * bytes / med / 1e9 : 0.0);
	free(t);
	hy_nn_model_free(&m);
	hy_mpi_free(&ds);
	return 0;
}
