/* Losses over many batches: each head's batch mean weighted by what it
 * averaged (the samples for policy, value and grp; the opponents with
 * labels for tenpai; the counted (opponent, tile) cells for danger), so
 * that the result does not depend on how the samples were batched. Shared
 * by the trainer's validation (lib/train) and hydra-eval's dataset mode
 * (lib/play/dseval). */
#ifndef HY_NN_EVALACC_H
#define HY_NN_EVALACC_H

#include <stdint.h>

#include "nn/model.h"

typedef struct hy_nn_evalacc {
	double n;                                  /* samples          */
	double sum_policy, sum_value, sum_grp, sum_tenpai, sum_danger;
	double n_tenpai, n_danger;                 /* their counts     */
	int64_t correct;                           /* policy top-1     */
} hy_nn_evalacc;

/* Adds the losses l of the n samples last loaded into w. */
void hy_nn_evalacc_add(hy_nn_evalacc *a, const hy_nn_work *w, const hy_nn_losses *l, int n);

/* Per-head means (NaN for a head with nothing counted), the total as the
 * trainer weighs it (a head with nothing counted adds 0), top-1 counts. */
void hy_nn_evalacc_mean(const hy_nn_evalacc *a, const hy_nn_loss_w *lw, hy_nn_losses *out);

#endif
