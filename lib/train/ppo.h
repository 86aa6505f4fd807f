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

/* The schedule (ARCHITECTURE.md §9a): progress f runs from progress0 at the
 * run's first step to progress1 at its planned last step (f stays at
 * progress0 when the total is unknown, a stream without --steps), so a
 * league whose iterations are separate runs passes each its share. At f:
 * the entropy coefficient is loss.ent_coef + (ent_end − loss.ent_coef)·f,
 * the anchor weight anchor_coef·max(0, 1 − f/anchor_frac). The first
 * value_warmup optimiser steps of the run update the value head alone
 * (every other gradient zeroed: the policy does not move while the critic
 * learns the new reward). */
typedef struct hy_train_ppo_cfg {
	hy_nn_ppo_cfg loss;   /* ε 0.1, value 0.5, entropy 0.01 at f = 0,
			       * normalised A                                 */
	int epochs;           /* passes over each rollout batch; 0: 3         */
	int minibatch;        /* samples per step; 0: a quarter of the batch  */
	float ent_end;        /* entropy coefficient at f = 1 (0.005); < 0:
			       * loss.ent_coef throughout                     */
	float kl_stop;        /* a pass whose mean approx-KL passes this ends
			       * the rollout batch's update (0.03); 0: never  */
	int64_t value_warmup; /* critic-only steps at the run's start (0)     */
	const char *anchor;   /* checkpoint of the anchor policy (the BC
			       * start); NULL: no anchor                      */
	float anchor_coef;    /* KL(anchor ‖ policy) weight at f = 0 (0.05)   */
	float anchor_frac;    /* annealed to 0 at f = anchor_frac (0.3); 0:
			       * constant                                     */
	float progress0, progress1; /* 0 and 1                               */
} hy_train_ppo_cfg;

/* The defaults above. */
void hy_train_ppo_defaults(hy_train_ppo_cfg *c);

/* Which fields a command line gave (hy_train_cfg.ppo_given): on --resume
 * the others come from the checkpoint, where every field is stored. Each
 * field's bit is 1 << its HY_PPO_BIT_* (hydra-fit's option rows are
 * indexed by the bit numbers: their names are written once, in the rows). */
enum {
	HY_PPO_BIT_EPOCHS, HY_PPO_BIT_MINIBATCH, HY_PPO_BIT_CLIP, HY_PPO_BIT_VF, HY_PPO_BIT_ENT,
	HY_PPO_BIT_ENT_END, HY_PPO_BIT_KL_STOP, HY_PPO_BIT_VALUE_WARMUP, HY_PPO_BIT_ANCHOR,
	HY_PPO_BIT_ANCHOR_COEF, HY_PPO_BIT_ANCHOR_FRAC, HY_PPO_BIT_PROGRESS, HY_PPO_BIT_NORM_ADV,
	HY_PPO_NBITS
};
enum {
	HY_PPO_GIVEN_EPOCHS = 1 << HY_PPO_BIT_EPOCHS, HY_PPO_GIVEN_MINIBATCH = 1 << HY_PPO_BIT_MINIBATCH,
	HY_PPO_GIVEN_CLIP = 1 << HY_PPO_BIT_CLIP, HY_PPO_GIVEN_VF = 1 << HY_PPO_BIT_VF,
	HY_PPO_GIVEN_ENT = 1 << HY_PPO_BIT_ENT, HY_PPO_GIVEN_ENT_END = 1 << HY_PPO_BIT_ENT_END,
	HY_PPO_GIVEN_KL_STOP = 1 << HY_PPO_BIT_KL_STOP,
	HY_PPO_GIVEN_VALUE_WARMUP = 1 << HY_PPO_BIT_VALUE_WARMUP,
	HY_PPO_GIVEN_ANCHOR = 1 << HY_PPO_BIT_ANCHOR,
	HY_PPO_GIVEN_ANCHOR_COEF = 1 << HY_PPO_BIT_ANCHOR_COEF,
	HY_PPO_GIVEN_ANCHOR_FRAC = 1 << HY_PPO_BIT_ANCHOR_FRAC,
	HY_PPO_GIVEN_PROGRESS = 1 << HY_PPO_BIT_PROGRESS,
	HY_PPO_GIVEN_NORM_ADV = 1 << HY_PPO_BIT_NORM_ADV,
};
_Static_assert(HY_PPO_GIVEN_PROGRESS == 1 << 11 && HY_PPO_GIVEN_NORM_ADV == 1 << 12,
	"the bits are stored in checkpoints: they keep their values");

/* a = the fields of `given` (a mask of HY_PPO_GIVEN_*) from cli, the rest
 * from stored. */
void hy_train_ppo_merge(hy_train_ppo_cfg *a, const hy_train_ppo_cfg *stored,
	const hy_train_ppo_cfg *cli, unsigned given);


/* The schedule's values at optimiser step `step` (0-based, within the run)
 * of a run of `total` planned steps (0: unknown). */
typedef struct hy_train_ppo_sched {
	double progress;   /* f */
	float ent_coef, anchor_coef;
	int warm;          /* a critic-only step */
} hy_train_ppo_sched;
void hy_train_ppo_schedule(const hy_train_ppo_cfg *c, int64_t step, int64_t step0,
	int64_t total, hy_train_ppo_sched *s);

typedef struct hy_train_ppo hy_train_ppo;

/* For rollout batches of up to `batch` samples. `input` names the data in
 * messages about a batch (e.g. "standard input"); may be NULL. */
hy_status hy_train_ppo_init(hy_train_ppo **p, const hy_train_ppo_cfg *c, int batch,
	const char *input, hy_diag *d);
void hy_train_ppo_free(hy_train_ppo *p);
/* The configuration an update runs with (defaults filled in). */
const hy_train_ppo_cfg *hy_train_ppo_config(const hy_train_ppo *p);

/* Loads the anchor policy c->anchor for a learner m (its backend and
 * context; the anchor's own architecture from its file) and sets the run's
 * first step and planned total for the schedule. Call once after init. */
/* The anchor's observation version, read with its weights by
 * hy_train_ppo_start (0: no anchor, or an unmarked one). */
int hy_train_ppo_anchor_obs(const hy_train_ppo *p);
hy_status hy_train_ppo_start(hy_train_ppo *p, const hy_nn_model *m, int64_t step0,
	int64_t total, hy_diag *d);

/* Optimiser steps one rollout batch of n samples takes (at most: a pass
 * over the KL threshold skips the rest, the step counter moving to the
 * batch's end so that schedules and totals count rollout batches). */
int64_t hy_train_ppo_steps(const hy_train_ppo *p, int n);
/* The shape of a rollout batch of `batch` samples under c, before any
 * update (train/plan.h): *mb samples a minibatch (c minibatch, or a quarter
 * of the batch) and *steps optimiser steps (c epochs, 3 by default, passes
 * of ⌈batch / mb⌉). HY_EUSAGE when the minibatch is larger than the batch. */
hy_status hy_train_ppo_shape(const hy_train_ppo_cfg *c, int batch, int *mb, int64_t *steps,
	hy_diag *d);
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
 * against ret; null when ret is constant), "ppo_steps" (optimiser updates
 * made), "ppo_passes" (passes made), "kl_stopped" (1 when a pass went past
 * kl_stop), "anchor_kl" (mean KL to the anchor over the last pass; null
 * without one), "ent_coef", "anchor_coef", "progress" (the schedule at the
 * batch's start) and "value_warmup" (1 while critic-only). */
void hy_train_ppo_metrics(const hy_train_ppo *p, FILE *f);

#endif
