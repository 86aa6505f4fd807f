/* The data-parallel step of hydra-fit under mpirun (ARCHITECTURE.md §8,
 * issue 13), split from the loop (loop.c) like the feed and PPO: every
 * rank trains on its part of each global batch (data.h
 * hy_data_next_part: disjoint parts, together the batch a single
 * process would take, read from disjoint shard chunks), the loss
 * normalisers and the gradients are summed over the ranks (mpi/grad.h),
 * and every rank takes the same optimiser step. The gradient sum runs
 * during the backward pass by default (hy_mpi_overlap: buckets of the
 * finished layers start while the earlier ones are computed), or after it
 * (hy_mpi_grad_sum) when asked.
 *
 *   hy_train_ranks_open(&rk, ds, m, overlap)        after the model is made
 *   hy_train_step(learner, rk, k, ...)              once a global batch
 *                                                   (train/step.h: it calls
 *                                                   the three sums below)
 *   hy_train_ranks_report(rk, &data_stats, ...)     the end-of-run lines
 *   hy_train_ranks_close(rk)
 *
 * A single rank never comes here (the step is the same arithmetic without
 * the sums). */
#ifndef HY_TRAIN_RANKS_H
#define HY_TRAIN_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "mpi/mpi.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "data/source.h"
#include "train/step.h"

typedef struct hy_train_ranks hy_train_ranks;

/* For model m on ds (not owned; both outlive rk). overlap: 1 to sum the
 * gradients during the backward pass, 0 after it. */
hy_status hy_train_ranks_open(hy_train_ranks **rk, const hy_mpi *ds, const hy_nn_model *m,
	int overlap, hy_diag *d);
void hy_train_ranks_close(hy_train_ranks *rk); /* NULL is fine */

/* The step's sums (train/step.h), in its order. The whole batch's losses
 * and normalisers from this rank's mine over its k samples (k may be 0):
 * *l the same on every rank. */
hy_status hy_train_ranks_losses(hy_train_ranks *rk, const hy_nn_model *m, const hy_nn_work *w,
	const hy_nn_losses *mine, int k, hy_nn_losses *l, hy_diag *d);
/* Before the backward pass: the overlapped sum starts watching the
 * gradients; with k > 0 the output gradients are rescaled from this rank's
 * normalisers to the whole batch's. */
void hy_train_ranks_begin(hy_train_ranks *rk, const hy_nn_model *m, hy_nn_work *w, int k);
/* After it: the gradient sum ends (every rank then holds the batch's). */
hy_status hy_train_ranks_end(hy_train_ranks *rk, const hy_nn_model *m, hy_nn_work *w,
	hy_diag *d);

/* The end-of-run figures, gathered on rank 0 (a collective: every rank
 * calls it): what each rank read from the inputs (mine: this rank's
 * hy_data_get_stats; samples: those the steps took, the global
 * batches' sum) and how the gradient sums went. Rank 0 gets two lines in
 * line1 and line2 (without a newline); the other ranks get empty strings. */
hy_status hy_train_ranks_report(const hy_train_ranks *rk, const hy_data_stats *mine,
	uint64_t samples, char *line1, char *line2, size_t size, hy_diag *d);

/* After a failure on this rank: says which rank failed and why through
 * notice (every rank's, not only rank 0's), then ends every rank of the job
 * (hy_mpi_abort: the others would wait forever in the next sum). Returns
 * without doing anything for a single rank. */
void hy_train_ranks_fail(const hy_mpi *ds, hy_status st, const hy_diag *d,
	void (*notice)(void *u, const char *msg), void *u);

#endif
