/* The global reward predictor, GRP (ARCHITECTURE.md §9a): a small
 * model of the distribution over the 24 final orders of a game given the
 * state at a kyoku boundary — the four scores, round wind and kyoku, honba,
 * riichi sticks and the dealer's seat. Its expected placement points give
 * the per-kyoku rewards of self-play (play/reward.h).
 *
 * Departure from the design's 2-layer GRU over the prefix of boundary
 * states: an MLP on the current boundary state alone. The state at a
 * boundary determines the rest of the game given the players (it is
 * Markov), so the history adds nothing a GRU could use but the players'
 * style; and a function of the state alone makes "after kyoku k" and
 * "before kyoku k+1" the same value, so the rewards telescope exactly.
 *
 * Features (HY_GRP_NIN = 22, absolute seats: ties are broken by seat order,
 * so seats are not interchangeable):
 *   [0, 4)    (score[s] − 25000) / 10000, s = 0…3
 *   [4, 16)   grand kyoku one-hot, E1 … W4 (later kyoku count as W4)
 *   16        honba / 4 (capped at 20 honba)
 *   17        riichi sticks / 4 (capped at 20)
 *   [18, 22)  dealer seat one-hot
 * Network: Linear(22→H) → ReLU → Linear(H→H) → ReLU → Linear(H→24), H 128
 * by default; Kaiming-normal weights, zero biases, the last layer scaled by
 * 0.1 (as the policy network's heads). Output k is the logit of the order
 * whose index is k: the lexicographic index (core/perm.h hy_perm_index) of
 * the absolute seats listed from 1st to 4th place, ties by seat order —
 * the samples' grp label, but over absolute seats instead of relative ones.
 *
 * Everything runs on the CPU in fp32 (a forward pass is ≈ 20K
 * multiply-adds); one thread, a fixed order of every sum, so results do not
 * depend on anything but the inputs. */
#ifndef HY_NN_GRP_H
#define HY_NN_GRP_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "nn/optim.h"
#include "nn/params.h"

enum {
	HY_GRP_NIN = 22,
	HY_GRP_NOUT = 24,
	HY_GRP_HIDDEN = 128,     /* the default width */
	HY_GRP_HIDDEN_MAX = 1024,
	HY_GRP_KYOKU = 12,       /* E1 … W4 */
	HY_GRP_CKPT_VERSION = 1,
};

/* A kyoku-boundary state (the start_kyoku of a kyoku), absolute seats. */
typedef struct hy_grp_state {
	int32_t scores[4];
	uint8_t grand_kyoku; /* 4·wind + kyoku − 1: 0 = E1, 4 = S1, 8 = W1, … */
	uint8_t honba;
	uint8_t kyotaku;     /* riichi sticks on the table */
	uint8_t oya;         /* dealer seat 0–3 */
} hy_grp_state;

void hy_grp_features(const hy_grp_state *s, float x[HY_GRP_NIN]);

/* Order index 0–23 of final scores: the absolute seats from 1st to 4th,
 * ties by seat order (the rank rule of encode.h hy_encode_final_labels). */
int hy_grp_order_index(const int32_t final_scores[4]);
/* rank[s] (0 = first) of every seat in order k. */
void hy_grp_order_ranks(int k, uint8_t rank[4]);

typedef struct hy_grp {
	int hidden;
	hy_nn_params table;       /* fc1, fc2, fc3 weights and biases */
	float *p, *g, *m, *v;     /* params, grads, AdamW moments (table.total each) */
	int64_t step;             /* optimiser steps done */
	uint64_t seed;
} hy_grp;

/* Allocates a GRP of width `hidden` (1…HY_GRP_HIDDEN_MAX) initialised from
 * seed; grads and moments zero. */
hy_status hy_grp_init(hy_grp *m, int hidden, uint64_t seed, hy_diag *d);
void hy_grp_free(hy_grp *m);

/* Logits of n inputs x[n][NIN] → out[n][NOUT]. */
void hy_grp_forward(const hy_grp *m, const float *x, size_t n, float *out);
/* Softmax probabilities of the 24 orders of one state (double). */
void hy_grp_probs(const hy_grp *m, const hy_grp_state *s, double p[HY_GRP_NOUT]);
/* Expected points of every seat, Σ_k P(k) · pts[rank of the seat in k]. */
void hy_grp_expected(const hy_grp *m, const hy_grp_state *s, const double pts[4],
	double e[4]);

/* Mean cross-entropy of n samples (inputs x[n][NIN], targets y[n] 0–23);
 * *correct (if not NULL) counts argmax hits. With grad, m->g is set to the
 * gradient of the mean loss (overwritten, not accumulated). */
double hy_grp_loss(hy_grp *m, const float *x, const uint8_t *y, size_t n, int grad,
	size_t *correct);

/* One AdamW step from m->g at learning rate lr (c: betas, eps, weight decay
 * on the weights only, global-norm clip when c->clip > 0); returns the
 * gradient norm before clipping. */
double hy_grp_adamw(hy_grp *m, const hy_nn_optim_cfg *c, float lr);

/* A scalar attribute a caller adds to the checkpoint (the trainer's run
 * settings and calibration). */
typedef struct hy_grp_attr {
	const char *name;
	double value;
} hy_grp_attr;

/* Saves the GRP as an HDF5 checkpoint of kind "grp" (formats/grp.md):
 * /params/<name> and /adam/{m,v}/<name> fp32 with fletcher32, root
 * attributes format "hydra-checkpoint", kind "grp", version, inputs,
 * hidden, outputs, step, seed and the extras (f64). Atomic: temporary
 * beside the target, fsync, rename. */
hy_status hy_grp_save(const char *path, const hy_grp *m, const hy_grp_attr *extra, int nextra,
	hy_diag *d);

/* Loads a GRP checkpoint into m (initialised here; free with hy_grp_free).
 * A policy checkpoint (no kind "grp"), another format, a newer version,
 * other input/output sizes, a wrong shape or a non-finite parameter:
 * HY_EFORMAT / HY_EVERSION / HY_ETRUNC naming the path. */
hy_status hy_grp_load(const char *path, hy_grp *m, hy_diag *d);

#endif
