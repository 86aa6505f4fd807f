/* Synchronous data parallelism for the model (nn/model.h) over hy_dist:
 * each rank runs forward, loss and backward on its slice of the global
 * batch; the loss normalisers are made global (samples, labelled tenpai
 * opponents, counted danger tiles summed over ranks) before backward, and
 * the gradients are summed over ranks, so the optimiser step equals the
 * one of a single process on the whole batch up to float summation order.
 *
 * Per step:
 *   hy_dist_loss_local(w, &l, n, v)       this slice's sums (zeros if empty)
 *   hy_dist_sum_f64(ds, g = v, HY_DIST_LOSS_N)
 *   hy_dist_loss_global(g, &l)            the whole batch's means
 *   hy_dist_loss_rescale(m, w, v, g)      output gradients → global normalisers
 *   hy_nn_backward(m, w)                  (or zero m->g for an empty slice)
 *   hy_dist_grad_sum(ds, m, d)            Σ over ranks, fixed buckets */
#ifndef HY_DIST_GRAD_H
#define HY_DIST_GRAD_H

#include "dist/dist.h"
#include "nn/model.h"

/* B, tenpai count, danger count, Σpolicy, Σvalue, Σgrp, Σtenpai, Σdanger,
 * correct, n. */
enum { HY_DIST_LOSS_N = 10 };

void hy_dist_loss_local(const hy_nn_work *w, const hy_nn_losses *l, int nslice,
	double v[HY_DIST_LOSS_N]);
void hy_dist_loss_global(const double g[HY_DIST_LOSS_N], hy_nn_losses *l);
/* Scales the output gradients hy_nn_loss wrote (normalised by this slice's
 * counts) to the global counts. */
void hy_dist_loss_rescale(const hy_nn_model *m, hy_nn_work *w,
	const double local[HY_DIST_LOSS_N], const double global[HY_DIST_LOSS_N]);
/* Sums m->g over all ranks in place. Device gradients (the CUDA backend):
 * handed to MPI directly when it is CUDA-aware (hy_dist_cuda_aware), else
 * through a page-locked host buffer, bucket by bucket. */
hy_status hy_dist_grad_sum(const hy_dist *ds, const hy_nn_model *m, hy_diag *d);

#endif
