/* qlabel: rollout advantages from the true state, the labels of
 * `hydra-sp --label-by qlabel:GRP.h5[,K] --label-adv` for a policy-gradient
 * step beyond rulebot (bench/RESULTS-learn.md, "Oracle rollout advantages").
 *
 * The search teacher (play/search.h) guesses the hidden tiles: its deals
 * give the opponents uniform hands, slower and safer than the hands real
 * opponents hold at the same point, so its lookahead pushes too much. A
 * labeller can do without the guess. A self-play state is a draw from the
 * true distribution of hidden states given what the seat sees, so a value
 * measured on the true hands is, averaged over the states a network is
 * trained on, an unbiased value of the seat's information state. qlabel
 * therefore reads the whole engine state and is refused as a seat policy
 * (hy_policy.oracle): it only labels.
 *
 * For a decision of a seat (its turn, the riichi discard, or a call window;
 * not when a win is offered) with candidates C (every legal action, a red
 * five left out when its plain copy is legal and rulebot did not choose
 * it):
 *   - b = rulebot's choice, a = one candidate other than b, uniform over
 *     the |C| − 1 of them (from the decision's key);
 *   - K rollouts j: every hand kept, the tiles no hand holds (live wall,
 *     replacement tiles, unrevealed and ura indicators) shuffled from
 *     (key, j); a, resp. b, played, then four rulebots to the end of the
 *     kyoku; Q = the seat's expected placement points after it
 *     (hy_search_rollout); both actions on the same shuffles;
 *   - the answer: index a, value (|C| − 1)·mean_j (Q_a − Q_b).
 * With the sample's logp 0 the PPO surrogate of hydra-fit --mode ppo
 * (without advantage normalisation and with the clip wide open) is
 * r·A = π(a)·A, whose gradient in expectation over the uniform a is
 * Σ_{c ≠ b} (Q_c − Q_b)·∇π(c): the all-action policy gradient of
 * E_π[Q^rulebot], whose ascent moves the policy towards the one-step
 * improvement of rulebot.
 *
 * No label (value NAN, index b) for a decision with fewer than two
 * candidates, a win offered, a phase other than those above, or a rollout
 * that failed. Deterministic in the request. */
#ifndef HY_PLAY_QLABEL_H
#define HY_PLAY_QLABEL_H

#include "core/status.h"
#include "play/policy.h"

enum { HY_QLABEL_ROLLOUTS = 8 };

/* Opens the labeller of a spec's argument "GRP.h5[,K]". */
hy_status hy_policy_open_qlabel(hy_policy *p, const char *arg, hy_diag *d);

/* The candidates of a decision with legal mask `legal` as above (b =
 * rulebot's choice): their indices in out (≤ HY_A_COUNT), their count
 * returned. */
int hy_qlabel_candidates(uint64_t legal, int b, int *out);

#endif
