/* Synchronous data parallelism for the model (nn/model.h) over hy_mpi:
 * each rank runs forward, loss and backward on its slice of the global
 * batch; the loss normalisers are made global (samples, labelled tenpai
 * opponents, counted danger tiles summed over ranks) before backward, and
 * the gradients are summed over ranks, so the optimiser step equals the
 * one of a single process on the whole batch up to float summation order.
 *
 * Per step:
 *   hy_mpi_loss_local(w, &l, n, v)       this slice's sums (zeros if empty)
 *   hy_mpi_sum_f64(ds, g = v, HY_MPI_LOSS_N)
 *   hy_mpi_loss_global(g, &l)            the whole batch's means
 *   hy_mpi_loss_rescale(m, w, v, g)      output gradients → global normalisers
 *   hy_nn_backward(m, w)                  (or zero m->g for an empty slice)
 *   hy_mpi_grad_sum(ds, m, d)            Σ over ranks, fixed buckets
 *
 * or, overlapping the sum with the backward pass (hy_mpi_overlap, below):
 *   hy_mpi_overlap_begin(o, w)           w->ready: start finished buckets
 *   hy_nn_backward(m, w)                  (or zero m->g for an empty slice)
 *   hy_mpi_overlap_end(o, w, d)          start the rest, wait for all */
#ifndef HY_MPI_GRAD_H
#define HY_MPI_GRAD_H

#include "mpi/mpi.h"
#include "nn/model.h"

/* B, tenpai count, danger count, Σpolicy, Σvalue, Σgrp, Σtenpai, Σdanger,
 * correct, n. */
enum { HY_MPI_LOSS_N = 10 };

void hy_mpi_loss_local(const hy_nn_work *w, const hy_nn_losses *l, int nslice,
	double v[HY_MPI_LOSS_N]);
void hy_mpi_loss_global(const double g[HY_MPI_LOSS_N], const hy_nn_loss_w *lw,
	hy_nn_losses *l);
/* Scales the output gradients hy_nn_loss wrote (normalised by this slice's
 * counts) to the global counts. */
void hy_mpi_loss_rescale(const hy_nn_model *m, hy_nn_work *w,
	const double local[HY_MPI_LOSS_N], const double global[HY_MPI_LOSS_N]);
/* Sums m->g over all ranks in place. Device gradients (the CUDA backend)
 * go through a page-locked host buffer, bucket by bucket, whatever the MPI:
 * pool memory cannot be mapped by CUDA IPC, and Open MPI's CUDA support
 * does not cover non-blocking collectives. */
hy_status hy_mpi_grad_sum(const hy_mpi *ds, const hy_nn_model *m, hy_diag *d);

/* ---- the sum overlapped with the backward pass
 *
 * Buckets have fixed boundaries counted from the end of the gradient
 * vector (the heads' tensors are last in the table and final first):
 * bucket i is [max(total − (i+1)·bucket, 0), total − i·bucket), i = 0 ..
 * hy_mpi_buckets(total, bucket) − 1. hy_nn_backward says, through
 * w->ready, that [from, total) is final after the heads, after each block
 * and at the end (from = 0); the buckets wholly inside it are started then
 * (MPI_Iallreduce in place, in order 0, 1, 2 ... on every rank), and MPI
 * is given a chance to progress (MPI_Testall) at every call. Determinism:
 * the same buckets, sizes and order every step and every run, so with a
 * fixed rank count the sums are bit-identical from run to run (MPI's
 * reduction of a buffer of a given size over given ranks is fixed); they
 * may differ from hy_mpi_grad_sum's in the last bit with more than two
 * ranks (other buckets, so possibly another reduction algorithm).
 *
 * Device gradients (the CUDA backend): the buckets are summed in one
 * page-locked host buffer (be->host_alloc; the size of the whole
 * gradient), also under a CUDA-aware MPI (no device pointer goes to
 * MPI_Iallreduce). The callback queues each finished bucket's download
 * behind the ops that wrote it (be->to_host_async) with a fence of its own
 * (be->copy_mark) and goes back to queueing the backward pass; a bucket's
 * sum starts at a later callback once its fence has passed (be->copy_done,
 * in bucket order), the rest at hy_mpi_overlap_end, which then waits for
 * the sums and copies the summed gradient back to the device. A backend
 * without downloads behind the ops waits for its queue (be->sync) and
 * copies synchronously instead. */

/* The bucket size (floats) of hy_mpi_overlap for a gradient of total
 * floats: an eighth of it, rounded up to a multiple of 1,024, within
 * [HY_MPI_OVERLAP_MIN, HY_MPI_BUCKET]; so a small network still has a
 * few buckets to start early, a large one buckets of 4 MiB. A function of
 * the model alone: the same on every rank. */
enum { HY_MPI_OVERLAP_MIN = 1 << 14 };
size_t hy_mpi_overlap_bucket(size_t total);
/* The schedule (pure functions): the number of buckets; the range of
 * bucket i; how many buckets (0 .. k−1) lie wholly in [from, total). */
size_t hy_mpi_buckets(size_t total, size_t bucket);
void hy_mpi_bucket_range(size_t total, size_t bucket, size_t i, size_t *lo, size_t *hi);
size_t hy_mpi_buckets_ready(size_t total, size_t bucket, size_t from);

typedef struct hy_mpi_overlap hy_mpi_overlap;

typedef struct hy_mpi_overlap_stats {
	uint64_t steps;   /* hy_mpi_overlap_end calls                        */
	uint64_t buckets; /* buckets summed                                   */
	uint64_t early;   /* of them started before the backward pass ended   */
	int staged;       /* device gradients through page-locked host memory */
} hy_mpi_overlap_stats;

/* For model m (its backend, context and gradient table) on ds. */
hy_status hy_mpi_overlap_init(hy_mpi_overlap **o, const hy_mpi *ds, const hy_nn_model *m,
	hy_diag *d);
void hy_mpi_overlap_free(hy_mpi_overlap *o); /* NULL is fine */
/* Before hy_nn_backward: sets w->ready and w->ready_arg. */
void hy_mpi_overlap_begin(hy_mpi_overlap *o, hy_nn_work *w);
/* After hy_nn_backward (or after zeroing m->g without it): starts the
 * buckets not started yet, waits for every sum, copies a staged gradient
 * back to the device, clears w->ready. The first failure of the step (a
 * callback's included) is returned here. m->g then holds the sum. */
hy_status hy_mpi_overlap_end(hy_mpi_overlap *o, hy_nn_work *w, hy_diag *d);
void hy_mpi_overlap_get_stats(const hy_mpi_overlap *o, hy_mpi_overlap_stats *s);

#endif
