/* The data-parallel step of hydra-fit over MPI ranks (see ranks.h). */
#include "train/ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/grad.h"

struct hy_train_ranks {
	const hy_mpi *ds;
	hy_mpi_overlap *ov; /* NULL: the sum after the backward pass */
	uint64_t steps;
	double sum_s;        /* time in the sum after backward returned */
	/* this rank's and the whole batch's loss normalisers of the step */
	double v[HY_MPI_LOSS_N], g[HY_MPI_LOSS_N];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

hy_status hy_train_ranks_open(hy_train_ranks **out, const hy_mpi *ds, const hy_nn_model *m,
	int overlap, hy_diag *d)
{
	*out = NULL;
	hy_train_ranks *rk = calloc(1, sizeof *rk);
	if (!rk)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	rk->ds = ds;
	hy_status st = overlap ? hy_mpi_overlap_init(&rk->ov, ds, m, d) : HY_OK;
	if (st) {
		free(rk);
		return st;
	}
	*out = rk;
	return HY_OK;
}

void hy_train_ranks_close(hy_train_ranks *rk)
{
	if (!rk)
		return;
	hy_mpi_overlap_free(rk->ov);
	free(rk);
}

hy_status hy_train_ranks_losses(hy_train_ranks *rk, const hy_nn_model *m, const hy_nn_work *w,
	const hy_nn_losses *mine, int k, hy_nn_losses *l, hy_diag *d)
{
	hy_mpi_loss_local(w, mine, k, rk->v);
	memcpy(rk->g, rk->v, sizeof rk->g);
	hy_status st = hy_mpi_sum_f64(rk->ds, rk->g, HY_MPI_LOSS_N, d);
	if (!st)
		hy_mpi_loss_global(rk->g, &m->lw, l);
	return st;
}

void hy_train_ranks_begin(hy_train_ranks *rk, const hy_nn_model *m, hy_nn_work *w, int k)
{
	if (rk->ov)
		hy_mpi_overlap_begin(rk->ov, w);
	if (k > 0)
		hy_mpi_loss_rescale(m, w, rk->v, rk->g);
}

hy_status hy_train_ranks_end(hy_train_ranks *rk, const hy_nn_model *m, hy_nn_work *w,
	hy_diag *d)
{
	double t0 = now_s();
	hy_status st = rk->ov ? hy_mpi_overlap_end(rk->ov, w, d) : hy_mpi_grad_sum(rk->ds, m, d);
	rk->sum_s += now_s() - t0;
	if (!st)
		rk->steps++;
	return st;
}

hy_status hy_train_ranks_report(const hy_train_ranks *rk, const hy_data_stats *mine,
	uint64_t samples, char *line1, char *line2, size_t size, hy_diag *d)
{
	const hy_mpi *ds = rk->ds;
	const int n = ds->size;
	line1[0] = line2[0] = '\0';
	double *v = calloc(2 * (size_t)n, sizeof *v);
	if (!v)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	v[2 * ds->rank] = (double)mine->samples_read;
	v[2 * ds->rank + 1] = (double)mine->chunks_read;
	hy_status st = hy_mpi_sum_f64(ds, v, 2 * (size_t)n, d);
	if (st || ds->rank != 0) {
		free(v);
		return st;
	}
	/* rank 0: "input read by rank: 0 4100 samples (33 chunks), 1 ..." */
	size_t at = 0;
	at += (size_t)snprintf(line1, size, "ranks: input read by rank:");
	enum { SHOWN = 16 }; /* then the total and the extremes */
	double tot = 0, lo = v[0], hi = v[0];
	for (int r = 0; r < n; r++) {
		double s = v[2 * r], c = v[2 * r + 1];
		tot += s;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
		if (r < SHOWN && at < size)
			at += (size_t)snprintf(line1 + at, size - at, "%s %d %.0f samples", r ? "," : "",
				r, s);
		if (r < SHOWN && c > 0 && at < size)
			at += (size_t)snprintf(line1 + at, size - at, " (%.0f chunks)", c);
	}
	if (n > SHOWN && at < size)
		at += (size_t)snprintf(line1 + at, size - at, ", ... (%.0f to %.0f a rank)", lo, hi);
	if (at < size)
		snprintf(line1 + at, size - at, "; %.0f read in all, %llu in the steps", tot,
			(unsigned long long)samples);
	free(v);

	double ms = rk->steps ? 1e3 * rk->sum_s / (double)rk->steps : 0;
	if (rk->ov) {
		hy_mpi_overlap_stats os;
		hy_mpi_overlap_get_stats(rk->ov, &os);
		snprintf(line2, size, "ranks: gradient sum during the backward pass%s: %.1f buckets a "
			"step, %.1f started before it ended; %.3f ms a step waiting for the sums "
			"after it", os.staged ? " (through page-locked host memory)" : "",
			os.steps ? (double)os.buckets / (double)os.steps : 0.0,
			os.steps ? (double)os.early / (double)os.steps : 0.0, ms);
	} else {
		snprintf(line2, size, "ranks: gradient sum after the backward pass: %.3f ms a step",
			ms);
	}
	return HY_OK;
}

void hy_train_ranks_fail(const hy_mpi *ds, hy_status st, const hy_diag *d,
	void (*notice)(void *u, const char *msg), void *u)
{
	if (ds->size < 2)
		return;
	if (notice) { /* the diagnostic whole, subject included, as a plain run says it */
		char msg[1400], buf[1200];
		snprintf(msg, sizeof msg, "rank %d of %d failed: %s; ending all ranks", ds->rank,
			ds->size, !d ? "error" : d->source[0] || d->line
				? hy_diag_format(d, buf, sizeof buf) : d->msg);
		notice(u, msg);
	}
	hy_mpi_abort(ds, hy_status_exit(st));
}
