/* Cost of the gradient all-reduce of data-parallel hydra-fit (lib/dist):
 *   mpirun -np N mpi_bench ARCH [ITERS]      (default 20)
 * The model's whole gradient buffer (fp32, every tensor of the table,
 * alignment padding included: what hy_dist_grad_sum reduces) summed over
 * the ranks ITERS times after 2 warm-up sums; rank 0 prints the gradient
 * size, the median and minimum time of one sum, and the bus bandwidth
 * 2(N−1)/N · bytes / time (the bytes a ring all-reduce moves per rank). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dist/dist.h"
#include "dist/grad.h"
#include "nn/model.h"

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

static int die(const hy_dist *ds, const hy_diag *d)
{
	fprintf(stderr, "mpi_bench: %s\n", d->msg);
	hy_dist_abort(ds, 1);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: mpirun -np N mpi_bench ARCH [ITERS]\n");
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	if (iters < 1 || iters > 100000) {
		fprintf(stderr, "mpi_bench: bad ITERS\n");
		return 2;
	}
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_dist ds;
	if (hy_dist_init(&ds, &d))
		return die(&ds, &d);
	hy_nn_arch a;
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_model m;
	if (hy_nn_arch_preset(argv[1], &a, &d) ||
	    hy_nn_model_init(&m, a, hy_nn_backend_cpu(), &ctx, &d))
		return die(&ds, &d);
	for (size_t i = 0; i < m.table.total; i++)
		m.g[i] = (float)((i + (size_t)ds.rank) % 97) * 1e-3f;
	double *t = malloc((size_t)iters * sizeof *t);
	if (!t)
		return 1;
	for (int i = -2; i < iters; i++) {
		if (hy_dist_barrier(&ds, &d))
			return die(&ds, &d);
		double t0 = now();
		if (hy_dist_grad_sum(&ds, &m, &d))
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
	hy_dist_free(&ds);
	return 0;
}
