/* The PPO update of `hydra-fit --mode ppo` (ARCHITECTURE.md §8): for each rollout
 * batch of self-play samples (hydra-sp output: logp, value, adv, ret set),
 * `epochs` passes over shuffled minibatches, one AdamW step per minibatch.
 * The policy and value heads take the PPO loss (nn/ppo.h: clipped
 * surrogate, value loss against ret, entropy bonus); the auxiliary heads
 * (grp, tenpai, danger) keep their supervised losses and weights
 * (nn/model.h), the opponent heads only where the labels are known.
 *
 * The training loop (loop.c) draws the rollout batches from its data source
 * and calls hy_train_ppo_update once per batch, so checkpoints fall between
 * rollout batches and a resumed run repeats an uninterrupted one exactly.
 * The minibatch order of a rollout batch is a function of the seed and the
 * optimiser step at which the batch starts. */
#ifndef HY_TRAIN_PPO_H
#define HY_TRAIN_PPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/ppo.h"

typedef struct hy_train_ppo_cfg {
	hy_nn_ppo_cfg loss; /* ε 0.2, value 0.5, entropy 0.01, normalised A */
	int epochs;         /* passes over each rollout batch; 0: 4          */
	int minibatch;      /* samples per step; 0: a quarter of the batch   */
} hy_train_ppo_cfg;

typedef struct hy_train_ppo hy_train_ppo;

/* For rollout batches of up to `batch` samples. `input` names the data in
 * messages about a batch (e.g. "standard input"); may be NULL. */
hy_status hy_train_ppo_init(hy_train_ppo **p, const hy_train_ppo_cfg *c, int batch,
	const char *input, hy_diag *d);
void hy_train_ppo_free(hy_train_ppo *p);

/* Optimiser steps one rollout batch of n samples takes. */
int64_t hy_train_ppo_steps(const hy_train_ppo *p, int n);
/* Samples per minibatch (the workspace must hold as many). */
int hy_train_ppo_minibatch(const hy_train_ppo *p);

/* Refuses, before training, a named input (stream or shard; "-" is skipped:
 * standard input is checked batch by batch) in which no sample has a
 * behaviour log-probability or an advantage: logs from humans, encoded by
 * hydra-encode. HY_EDATA with the input as the diagnostic's source. Reads
 * an input only until its first self-play sample. */
hy_status hy_train_ppo_check_inputs(const char *const *paths, size_t n, hy_diag *d);

/* The gradient of one minibatch s[0..k), k ≤ the minibatch size: loads it,
 * runs forward, the PPO loss on the policy and value outputs and the
 * auxiliary losses, and backward, so that m->g holds ∂total/∂parameters.
 * l: total = the PPO loss + the weighted auxiliary losses, policy =
 * −surrogate, value = mean (v − ret)², grp/tenpai/danger as nn/model.h;
 * ps: the PPO statistics. HY_EDATA for a non-finite loss. No optimiser
 * step. */
hy_status hy_train_ppo_grad(hy_train_ppo *p, hy_nn_model *m, hy_nn_work *w, const hy_sample *s,
	int k, hy_nn_losses *l, hy_nn_ppo_stats *ps, hy_diag *d);

/* One PPO update on the rollout batch s[0..n): at most max_steps optimiser
 * steps (≤ 0: no limit), *step advanced by each. seed: the run's seed.
 * l gets the mean losses of the steps (policy = −surrogate, value = mean
 * (v − ret)², total = the PPO loss plus the weighted auxiliary losses),
 * info the last step's. HY_EDATA for a batch without behaviour
 * log-probabilities (all logp and adv 0), a sample with a log-probability
 * that is positive or not finite, or a non-finite loss or gradient norm. */
hy_status hy_train_ppo_update(hy_train_ppo *p, hy_nn_model *m, hy_nn_work *w,
	const hy_nn_optim_cfg *opt, int64_t *step, int64_t max_steps, uint64_t seed,
	const hy_sample *s, int n, hy_nn_losses *l, hy_nn_step_info *info, hy_diag *d);

/* Writes the PPO fields of the last update as JSON members, each preceded
 * by a comma: "surrogate" and "surrogate_first" (mean clipped surrogate of
 * the last and the first pass), "approx_kl", "clip_frac", "entropy" (means
 * over the last pass), "explained_var" (value predictions of the first pass
 * against ret; null when ret is constant), "ppo_steps". */
void hy_train_ppo_metrics(const hy_train_ppo *p, FILE *f);

#endif
