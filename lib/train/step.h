/* One training step, the same for every kind of training (ARCHITECTURE.md
 * §8): behaviour cloning, PPO minibatches, the GRP, and each rank of an
 * mpirun job all go through hy_train_step. What differs is the learner —
 * what its loss is and how its parameters move — and, for several ranks,
 * the sums (train/ranks.h):
 *
 *   loss     forward pass and loss on this process's k samples
 *   (ranks)  the whole batch's losses, summed over the ranks
 *   verdict  every head's loss finite, else stop before anything moves
 *   (ranks)  the gradient sum starts (during the backward pass, or after)
 *   backward the gradients (k = 0: zeros, a rank with no part of the batch)
 *   (ranks)  the gradient sum ends
 *   update   one optimiser step; the gradient norm finite, else stop
 *
 * A failure says the step: "step S: loss of head 'H' is nan; stopping,
 * nothing new saved" (HY_EDATA), so every trainer words it alike. */
#ifndef HY_TRAIN_STEP_H
#define HY_TRAIN_STEP_H

#include <stdint.h>

#include "core/status.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "samples/sample.h"

typedef struct hy_train_ranks hy_train_ranks;
typedef struct hy_train_learner hy_train_learner;

struct hy_train_learner {
	/* The policy network and its workspace, for the ranks' sums (NULL for
	 * a learner that never runs on several ranks: the GRP). */
	const hy_nn_model *m;
	hy_nn_work *w;
	/* Forward pass and loss of k ≥ 1 samples; *l this process's losses
	 * (the heads a learner lacks left 0). HY_EDATA: the loss could not be
	 * formed (the message is prefixed with the step). */
	hy_status (*loss)(hy_train_learner *L, int k, hy_nn_losses *l, hy_diag *d);
	/* The gradients of that loss into the parameters' gradients; k = 0:
	 * zero gradients. */
	void (*backward)(hy_train_learner *L, int k);
	/* One optimiser update; increments *step, fills *info. */
	void (*update)(hy_train_learner *L, const hy_nn_optim_cfg *opt, int64_t *step,
		hy_nn_step_info *info);
};

/* One step on this process's k samples (put in place by the learner or the
 * data feed); rk NULL: one process. *l: the whole batch's losses (the same
 * on every rank). */
hy_status hy_train_step(hy_train_learner *L, hy_train_ranks *rk, int k,
	const hy_nn_optim_cfg *opt, int64_t *step, hy_nn_losses *l, hy_nn_step_info *info,
	hy_diag *d);

/* The supervised learner of the policy network: the masked losses of
 * nn/model.h and AdamW. part: the samples of the next step (NULL: already
 * in w, put there by the feed). */
typedef struct hy_train_net {
	hy_train_learner L;
	const hy_sample *part;
} hy_train_net;

void hy_train_net_init(hy_train_net *n, const hy_nn_model *m, hy_nn_work *w);

/* The net's pieces, for learners that change only the loss (PPO):
 * backward (k = 0: zeros) and AdamW. */
void hy_train_net_backward(hy_train_learner *L, int k);
void hy_train_net_update(hy_train_learner *L, const hy_nn_optim_cfg *opt, int64_t *step,
	hy_nn_step_info *info);

#endif
