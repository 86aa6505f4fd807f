/* The PPO loss of `hydra-fit --mode ppo` (ARCHITECTURE.md §8) on the policy and
 * value outputs of the network, with its output gradients. Host arrays
 * only: a backend copies its logits and values to the host, calls this, and
 * copies the two gradients back (B × 47 floats, small beside the network).
 *
 * For a batch of B samples with logits l [B][46], legal mask, taken action
 * a, behaviour log-probability logp_old, advantage A, value prediction v
 * and return target R:
 *
 *   p       = softmax of l over the legal actions (mask | bit a)
 *   logp    = log p[a]
 *   r       = exp(logp − logp_old)                          (ratio)
 *   Â       = (A − mean A) / (max(std A, 1e-3·rms R) + 1e-8)   per batch,
 *             std with 1/B, rms R = √mean(R²): advantages that agree closer
 *             than a thousandth of the returns' scale are equal up to
 *             float rounding, and stay near 0 instead of being blown up
 *             to unit size (the raw A when norm_adv is 0)
 *   surr    = min(r·Â, clip(r, 1 − ε, 1 + ε)·Â)
 *   H       = −Σ_legal p log p                              (entropy)
 *   loss    = mean(−surr) + vf_coef·mean((v − R)²) − ent_coef·mean(H)
 *
 * The value loss is unclipped. Gradients of loss (means over the batch):
 *   ∂/∂l_i = (1/B)·[−g·(δ_ia − p_i) + ent_coef·p_i·(log p_i + H)],
 *            g = r·Â where the unclipped term is the active one, i.e.
 *            unless (Â > 0 and r > 1 + ε) or (Â < 0 and r < 1 − ε); else 0
 *            (at a tie both branches have the same derivative)
 *   ∂/∂v   = (2·vf_coef/B)·(v − R);   illegal logits get 0.
 *
 * Statistics: approx KL = mean((r − 1) − log r) (the non-negative k3
 * estimator of KL(old ‖ new)), clip fraction = share of |r − 1| > ε,
 * entropy = mean H, and the sums that give the explained variance
 * 1 − Var(R − v)/Var(R) over any number of batches. */
#ifndef HY_NN_PPO_H
#define HY_NN_PPO_H

#include <stdint.h>

typedef struct hy_nn_ppo_cfg {
	float clip;     /* ε, 0.2 here; the trainer's default is 0.1 (train/ppo.h) */
	float vf_coef;  /* value loss, 0.5    */
	float ent_coef; /* entropy bonus, 0.01 */
	int norm_adv;   /* 1: normalise A per batch (the default) */
} hy_nn_ppo_cfg;

void hy_nn_ppo_defaults(hy_nn_ppo_cfg *c);

typedef struct hy_nn_ppo_stats {
	int n;                /* samples                                   */
	double loss;          /* the PPO loss above                        */
	double surrogate;     /* mean surr (the objective PPO maximises)   */
	double value;         /* mean (v − R)²                             */
	double entropy;       /* mean H                                    */
	double approx_kl;     /* mean (r − 1) − log r                      */
	double clip_frac;     /* share of |r − 1| > ε                      */
	/* sums for the explained variance: Σ R, Σ R², Σ (R − v), Σ (R − v)² */
	double sum_ret, sum_ret2, sum_err, sum_err2;
} hy_nn_ppo_stats;

/* Computes the loss and statistics of B ≥ 1 samples; writes dlogits
 * [B][46] and dvalue [B] (either may be NULL: not wanted). */
void hy_nn_ppo_loss(const hy_nn_ppo_cfg *c, int B, const float *logits, const uint64_t *mask,
	const uint8_t *action, const float *logp_old, const float *adv, const float *value,
	const float *ret, float *dlogits, float *dvalue, hy_nn_ppo_stats *st);

/* The KL anchor of the league's PPO (ARCHITECTURE.md §9a): the mean over
 * the batch of KL(p_anchor ‖ p) between the anchor policy's and the
 * current policy's softmax over the legal actions (mask | bit action),
 * from their logits [B][46]. When dlogits is not NULL, adds the gradient
 * of coef × that mean, coef·(p_i − p_anchor,i)/B, to it (illegal entries
 * untouched). Returns the mean KL. */
double hy_nn_ppo_anchor(int B, const float *logits, const float *anchor, const uint64_t *mask,
	const uint8_t *action, float coef, float *dlogits);

/* Adds the statistics of b to a (means weighted by n). */
void hy_nn_ppo_stats_add(hy_nn_ppo_stats *a, const hy_nn_ppo_stats *b);

/* 1 − Var(R − v)/Var(R) from the sums of s; NAN when Var(R) = 0 or n = 0. */
double hy_nn_ppo_explained_var(const hy_nn_ppo_stats *s);

#endif
