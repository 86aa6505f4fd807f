/* qlabel: rollout advantages from the true state, the labels of
 * `hydra-sp --label-by qlabel:GRP.h5[,K] --label-adv`: a policy-gradient
 * step on the action values of rulebot (bench/learn/RESULTS.md, "Oracle
 * rollout advantages").
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
 * Asked for the action a the seat took (hy_decision.taken) at a decision
 * of its turn, its riichi discard or a call window, no win offered, with
 * b = rulebot's choice in the same state and a ≠ b:
 *   - K rollouts j: every hand kept, the tiles no hand holds (live wall,
 *     replacement tiles, unrevealed and ura indicators) shuffled from
 *     (key, j); a, resp. b, played, then four rulebots to the end of the
 *     kyoku; Q = the seat's expected placement points after it
 *     (hy_search_rollout); both actions on the same shuffles;
 *   - the answer: index a, value mean_j (Q_a − Q_b).
 * Otherwise (a = b, a win offered, another phase, a failed rollout, no
 * taken action) no label: value NAN, index a (b when none was given).
 *
 * For a seat that samples a from its policy π, Q_b is a baseline that
 * does not depend on a, so E_a[∇log π(a)·(Q_a − Q_b)] = ∇ Σ_a π(a)·Q(a):
 * the samples are an on-policy policy gradient of rulebot's action values
 * with a paired, nearly noise-free baseline, and a step where the seat
 * agreed with rulebot carries no gradient (it is dropped). Deterministic
 * in the request.
 *
 * Measured (bench/learn/RESULTS.md): 332K such samples of the BC start's
 * games, fitted by PPO, left it at parity with itself against rulebot
 * (2.60–2.64 against 2.59); the advantages' noise (sd 0.09 at K = 8, 0.055
 * of it from the hidden deal) is about ten times their signal. */
#ifndef HY_PLAY_QLABEL_H
#define HY_PLAY_QLABEL_H

#include "core/status.h"
#include "play/policy.h"

enum { HY_QLABEL_ROLLOUTS = 8 };

/* Opens the labeller of a spec's argument "GRP.h5[,K]". */
hy_status hy_policy_open_qlabel(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d);

#endif
