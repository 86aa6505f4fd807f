/* search: the rule bot improved by a one-step lookahead over determinized
 * rollouts — the teacher of expert iteration (bench/learn/RESULTS.md).
 *
 * Spec: `search:GRP.h5[,K][,DEAL]`: K rollouts per candidate (default
 * 16); DEAL how the rollouts deal the hidden tiles (play/deal.h): a guess
 * from the seat's view when absent; MODEL.h5, the guess drawn from that
 * checkpoint's tenpai and danger heads (play/belief.h); `oracle-who`,
 * which opponents are tenpai; `oracle-tenpai`, the true hands of the
 * tenpai opponents; `oracle`, every true hand. The oracles read hidden
 * tiles (hy_policy.oracle): they are diagnostics
 * of what a reading of the hands is worth, played only where hydra-eval
 * --oracle allows it.
 *
 * On its own turns (TURN and RIICHI phases, no win offered) where a
 * lookahead can matter — its hand one step from tenpai or closer,
 * or an opponent in riichi or with two open melds — it scores rulebot's
 * choice and the other candidates (every discard that keeps the best
 * shanten, riichi, a kan, kyuushu) by K rollouts to the end of the kyoku,
 * and plays the best candidate when its mean gain over rulebot's choice
 * passes two standard errors of the paired differences; every other
 * decision (calls, wins, forced discards, early shape choices) is
 * rulebot's.
 *
 * Measured (bench/learn/RESULTS.md, "A search teacher"): at parity with
 * rulebot, not above it — 2.49 [2.43, 2.56] with K = 64 against three
 * rulebots, 100 seeds. Searching every legal discard with K = 8 was far
 * worse (2.91): with many candidates and few rollouts the luck of one
 * candidate's rollouts decides. It is kept as the tool those measurements
 * came from and as a `--label-by` teacher for expert iteration, not as a
 * stronger player. What a better guess could give ("What a reading of the
 * hands is worth", 100 seeds each): every true hand 2.12 [2.03, 2.21];
 * the tenpai opponents' true hands 2.16 [2.09, 2.24]; knowing only who is
 * tenpai 2.50; the guess drawn from the BC start's heads 2.47 [2.41, 2.54].
 * The strength is in reading the waits, which those heads barely do.
 *
 * Rollout j (the same j for every candidate: common random numbers, so
 * that the comparison of two candidates sees the same deal of the hidden
 * tiles):
 *   - deal j of the hidden tiles (play/deal.h: the tiles the seat cannot
 *     see shuffled into the opponents' hands and the wall, an opponent in
 *     riichi given a tenpai hand it is not furiten on);
 *   - the candidate is applied, then four rulebots play to the end of the
 *     kyoku;
 *   - the value is the seat's expected placement points after the kyoku
 *     (play/reward.h's points, 90/45/0/−135 / 100): the GRP's expectation
 *     at the next kyoku's start, or the final placement when the game ends.
 * Without an oracle only what the seat can see decides: its own hand, the
 * public table, the tracker's riichi-safe kinds and a belief computed
 * from the seat's observation; the true hidden tiles are never read.
 *
 * Deterministic: the draws come from the decision's key alone. Rulebot's
 * deterministic play makes a rollout a function of (candidate, deal). */
#ifndef HY_PLAY_SEARCH_H
#define HY_PLAY_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/engine.h"
#include "nn/grp.h"
#include "play/policies/belief.h"
#include "play/policies/deal.h"
#include "play/policy.h"

enum { HY_SEARCH_ROLLOUTS = 16, HY_SEARCH_MAX_ROLLOUTS = 256 };


/* Opens the policy of a spec's argument "GRP.h5[,K]". */
hy_status hy_policy_open_search(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d);

/* What a rollout needs, shared with play/qlabel.c: the GRP that values the
 * kyoku's end, the rulebot that plays every seat, and the number of
 * rollouts per action. The impl of a search: or qlabel: policy. */
typedef struct hy_search_rollouts {
	hy_grp grp;
	hy_policy base;
	int k;
	hy_belief *belief; /* search's deals from a checkpoint's heads; NULL: none */
	int oracle;        /* search's deals: HY_DEAL_KNOW_TENPAI, _KEEP_TENPAI,
			    * _KEEP_ALL (play/deal.h) or 0 (a guess)      */
} hy_search_rollouts;

/* Opens policy p of kind ("search", "qlabel") from its spec's argument
 * "GRP.h5[,K]" (K rollouts, 2..256; k0 when not given) with ops, whose
 * free is hy_search_free_policy: p->impl is the hy_search_rollouts, and
 * p is stochastic (the rollouts come from the key), has a value and is
 * concurrent. HY_EUSAGE for a bad argument, the GRP's status otherwise. */
hy_status hy_search_open_policy(hy_policy *p, const char *kind, const char *arg, int k0,
				const hy_policy_ops *ops, hy_diag *d);
void hy_search_free_policy(hy_policy *p);

/* Rulebot's choice for seat s in e (−1 when it has none). */
int hy_search_rule_choice(hy_search_rollouts *R, const hy_engine *e, const hy_obs_track *trk,
			  int s);

/* A request's tracker copied into trk (zeros when it has none) and
 * rulebot's choice in the request's state (−1 when it has none). */
int hy_search_request_choice(hy_search_rollouts *R, const hy_decision *r, hy_obs_track *trk);

/* Plays legal index idx of seat on deal D, then rulebots to the end of
 * the kyoku; the seat's expected placement points after it (the GRP's
 * expectation at the next kyoku's start, the final placement when the game
 * ends). NAN when something failed. */
double hy_search_rollout(hy_search_rollouts *R, const hy_deal *D,
			 const hy_obs_track *trk, int seat, int idx);

#endif
