/* Dataset evaluation of a model checkpoint (hydra-eval --model CKPT --data
 * PATH...): every sample of the inputs (sample streams or HDF5 shards, read
 * once in order like the trainer's validation set) goes through the
 * network's forward pass in batches; the result holds
 *   - policy accuracy, top-1 and top-3 among the legal actions, overall and
 *     per action type of the label (discard, riichi, chi, pon, kan, win,
 *     kyuushu, pass); ties between equal logits go to the lower action
 *     index, as in the trainer's top-1 count;
 *   - the confusion of the label's type with the type of the model's top-1
 *     legal action, and for the discards the model gets wrong (its top-1
 *     another discard) what kind of mistake it is, read off the
 *     sample's observation: with no opponent in riichi, whether each of the
 *     two discards keeps the minimum shanten (channel 9: an efficiency
 *     choice, or a broken shape); against a riichi, whether each is safe
 *     (genbutsu or discarded after the declaration, channels 11+3(o+1) and 68+o,
 *     against every opponent in riichi: a push where the label folds, or a
 *     fold where it pushes; a red five for the plain one apart);
 *   - the per-head losses of the trainer (nn/model.h hy_nn_loss, the same
 *     functions and weights), averaged over the whole input: policy, value
 *     and grp over all samples, tenpai over the samples with opponent
 *     labels (× 3 opponents), danger over the counted tenpai opponents'
 *     tiles, the total as the weighted sum of those means (ARCHITECTURE.md §7). */
#ifndef HY_PLAY_DSEVAL_H
#define HY_PLAY_DSEVAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "nn/evalacc.h"
#include "nn/model.h"
#include "play/readscore.h"
#include "samples/sample.h"

typedef enum hy_dseval_type {
	HY_DSEVAL_DISCARD = 0,
	HY_DSEVAL_RIICHI,
	HY_DSEVAL_CHI,
	HY_DSEVAL_PON,
	HY_DSEVAL_KAN,
	HY_DSEVAL_WIN,
	HY_DSEVAL_KYUUSHU,
	HY_DSEVAL_PASS,
	HY_DSEVAL_TYPES
} hy_dseval_type;

/* The type of an action index 0–45 (ARCHITECTURE.md §2); -1 out of range. */
int hy_dseval_type_of(int action);
/* "discard", "riichi", ... */
const char *hy_dseval_type_name(int type);

/* The discards the model gets wrong, by situation (hy_dseval_add_miss):
 * with no opponent in riichi by which of the two discards keeps the minimum
 * shanten, against a riichi by which of the two is safe. */
typedef enum hy_dseval_miss {
	HY_DSEVAL_MISS_RED = 0,      /* the same kind: red five for plain or back */
	HY_DSEVAL_MISS_KEEP_BOTH,    /* no riichi: both keep the minimum shanten */
	HY_DSEVAL_MISS_KEEP_LABEL,   /*   only the label's                        */
	HY_DSEVAL_MISS_KEEP_MODEL,   /*   only the model's                        */
	HY_DSEVAL_MISS_KEEP_NEITHER, /*   neither                                 */
	HY_DSEVAL_MISS_SAFE_BOTH,    /* a riichi: both safe                       */
	HY_DSEVAL_MISS_SAFE_LABEL,   /*   only the label's: the model pushes      */
	HY_DSEVAL_MISS_SAFE_MODEL,   /*   only the model's: the model folds       */
	HY_DSEVAL_MISS_SAFE_NEITHER, /*   neither                                 */
	HY_DSEVAL_MISSES
} hy_dseval_miss;

/* "red", "keep-both", ... */
const char *hy_dseval_miss_name(int m);

/* The waits read (issue 42, step 4): for every known sample, opponent o and
 * kind k, the prediction that a discard of k deals in to o,
 * p = σ(tenpai_o)·σ(danger_o,k) (a policy's auxiliary heads, or a wait
 * reader's: hydra-fit --mode reader), against the truth: o tenpai and k
 * among its waits (the samples' opp_tenpai and opp_waits). */

typedef struct hy_dseval_acc {
	uint64_t n;                          /* samples                    */
	uint64_t count[HY_DSEVAL_TYPES];     /* samples per label type     */
	uint64_t top1[HY_DSEVAL_TYPES], top3[HY_DSEVAL_TYPES];
	/* [label type][type of the model's top-1] */
	uint64_t confusion[HY_DSEVAL_TYPES][HY_DSEVAL_TYPES];
	uint64_t miss[HY_DSEVAL_MISSES];     /* discard misses by situation */
	hy_nn_evalacc loss;                  /* losses over the batches     */
	hy_read_tally rd;                    /* the waits read (readscore.h) */
} hy_dseval_acc;

/* Adds sample s's reading (skipped unless its opponent labels are known):
 * ten[3] the tenpai logits, dan the danger logits in the network's layout
 * ([36][3]: row 1 + k for kind k, nn/model.h). */
void hy_dseval_add_reader(hy_dseval_acc *a, const hy_sample *s, const float ten[3],
	const float *dan);

/* Adds one sample's policy logits (46, any scale) with its legal mask and
 * label to the accuracy counts: the label's rank among the legal actions
 * (mask | label bit) decides top-1 / top-3, and the type of the model's
 * top-1 among them (ties to the lower index) the confusion. Returns that
 * top-1 action, or -1 for a label out of range (nothing counted). */
int hy_dseval_add_policy(hy_dseval_acc *a, const float *logits, uint64_t mask, int label);

/* Counts a discard miss of sample s: its label a discard, the model's top-1
 * `top` a discard of another kind or the other copy of a five; anything
 * else is not a discard miss and counts nothing. Returns the class counted
 * or -1. */
int hy_dseval_add_miss(hy_dseval_acc *a, const hy_sample *s, int top);

typedef struct hy_dseval_result {
	hy_nn_arch arch;
	uint64_t n;
	uint64_t count[HY_DSEVAL_TYPES], top1[HY_DSEVAL_TYPES], top3[HY_DSEVAL_TYPES];
	uint64_t top1_all, top3_all;
	uint64_t confusion[HY_DSEVAL_TYPES][HY_DSEVAL_TYPES], miss[HY_DSEVAL_MISSES];
	/* accuracies (NaN for a type with no sample) */
	double acc1[HY_DSEVAL_TYPES], acc3[HY_DSEVAL_TYPES], acc1_all, acc3_all;
	/* per-head mean losses (NaN for a head with nothing to count) and
	 * the weighted total */
	double policy, value, grp, tenpai, danger, total;
	uint64_t n_tenpai, n_danger;  /* opponent labels counted */
	/* the waits read: cells (sample, opponent, kind), the mean log-loss
	 * per cell, the base rate's (the share of winning cells as a constant
	 * prediction), the area under the ROC curve (NaN without both kinds
	 * of cell) */
	uint64_t rd_cells, rd_wins;
	double rd_logloss, rd_base, rd_auc;
} hy_dseval_result;

/* The figures of the counts, the total loss weighted by lw (the model's:
 * hy_nn_model.lw). */
void hy_dseval_finish(const hy_dseval_acc *a, const hy_nn_loss_w *lw, hy_dseval_result *r);

typedef struct hy_dseval_cfg {
	const char *ckpt;
	const char *const *paths; /* NULL/none: standard input */
	size_t npaths;
	int batch;                /* samples per forward pass (≥ 1) */
	int threads;              /* ≥ 1 */
	const char *device;       /* "cpu" (NULL), "auto", "cuda" or "cuda:N"
				   * (nn/cuda/cuda.h hy_nn_device_pick)   */
	const struct hy_nn_device *dev; /* resolved once by the program (then
				   * device is not read); NULL: resolved here */
	/* optional: called after every batch with the samples done so far */
	void (*progress)(void *u, uint64_t done);
	void *u;
} hy_dseval_cfg;

/* Loads the checkpoint (its recorded architecture), evaluates every sample
 * and fills r. HY_EDATA when the inputs hold no sample; the reader's,
 * the checkpoint's or the model's status otherwise. */
hy_status hy_dseval_run(const hy_dseval_cfg *c, hy_dseval_result *r, hy_diag *d);

#endif
