/* The distillation term of the design's oracle guiding (issue 52 step 2;
 * ARCHITECTURE.md §8, "A student of the oracle"): the KL divergence of the
 * student's policy from the teacher's at a temperature, over each sample's
 * legal actions, with its gradient on the student's logits. */
#ifndef HY_NN_DISTIL_H
#define HY_NN_DISTIL_H

#include <stdint.h>

/* Mean over the B samples of KL(π_S,τ ‖ π_T,τ) = Σ p (log p − log q), p
 * and q the softmaxes of logits/τ and teacher/τ over mask[b] (the label's
 * action always counted), the direction the design writes (the student's
 * own distribution weighs the disagreement: mode-seeking). With dlogits,
 * adds coef · τ² · ∂KL/∂logits / B (τ² keeps the gradient's size across
 * temperatures, Hinton et al.): (coef·τ / B) · p_i (log p_i − log q_i − KL_b). */
double hy_nn_distil_kl(int B, const float *logits, const float *teacher,
	const uint64_t *mask, const uint8_t *action, float tau, float coef, float *dlogits);

#endif
