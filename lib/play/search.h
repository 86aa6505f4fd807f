/* search: the rule bot improved by a one-step lookahead over determinized
 * rollouts — the teacher of expert iteration (bench/RESULTS-learn.md).
 *
 * Spec: `search:GRP.h5` or `search:GRP.h5,K` (K rollouts per candidate,
 * default 16). On its own turns (TURN and RIICHI phases, no win offered)
 * where a lookahead can matter — its hand one step from tenpai or closer,
 * or an opponent in riichi or with two open melds — it scores rulebot's
 * choice and the other candidates (every discard that keeps the best
 * shanten, riichi, a kan, kyuushu) by K rollouts to the end of the kyoku,
 * and plays the best candidate when its mean gain over rulebot's choice
 * passes two standard errors of the paired differences; every other
 * decision (calls, wins, forced discards, early shape choices) is
 * rulebot's.
 *
 * Measured (bench/RESULTS-learn.md, "A search teacher"): at parity with
 * rulebot, not above it — 2.49 [2.43, 2.56] with K = 64 against three
 * rulebots, 100 seeds. Searching every legal discard with K = 8 was far
 * worse (2.91): with many candidates and few rollouts the luck of one
 * candidate's rollouts decides. It is kept as the tool those measurements
 * came from and as a `--label-by` teacher for expert iteration, not as a
 * stronger player.
 *
 * Rollout j (the same j for every candidate: common random numbers, so
 * that the comparison of two candidates sees the same deal of the hidden
 * tiles):
 *   - determinize: the tiles the seat cannot see (136 less its own hand,
 *     every river tile not called away, every meld, the revealed dora
 *     indicators) are shuffled into the opponents' concealed hands, the
 *     live wall, the replacement tiles, the unrevealed indicators and the
 *     ura indicators. An opponent in riichi gets a tenpai hand whose waits
 *     miss every kind it discarded and every kind discarded since its
 *     riichi (it would be furiten otherwise): a complete hand built from
 *     random groups of the unseen tiles, less one random tile, drawn again
 *     until the waits fit (64 tries, then any hand);
 *   - the candidate is applied, then four rulebots play to the end of the
 *     kyoku;
 *   - the value is the seat's expected placement points after the kyoku
 *     (play/reward.h's points, 90/45/0/−135 / 100): the GRP's expectation
 *     at the next kyoku's start, or the final placement when the game ends.
 * Only what the seat can see decides: its own hand, the public table and
 * the tracker's riichi-safe kinds; the true hidden tiles are never read.
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
#include "play/policy.h"

enum { HY_SEARCH_ROLLOUTS = 16, HY_SEARCH_MAX_ROLLOUTS = 256 };

/* Opens the policy of a spec's argument "GRP.h5[,K]". */
hy_status hy_policy_open_search(hy_policy *p, const char *arg, hy_diag *d);

/* The unseen-tile deal of one rollout: `seat`'s view of e, its hidden
 * tiles redealt from the 64-bit seed into out (a copy of e: opponents'
 * concealed hands, unrevealed indicators, ura) and into the draws. `safe`
 * is the tracker's riichi_safe (NULL: none). Returns 0, or −1 when the
 * counts do not add up (the caller then keeps the rulebot's choice). */
typedef struct hy_search_deal {
	hy_engine e;
	uint8_t live[136];     /* the live draws, first first; e.live_left of them */
	uint8_t rinshan[4];    /* replacement draws, first first */
	uint8_t nlive, nrinshan, live_next, rinshan_next;
} hy_search_deal;

int hy_search_determinize(const hy_engine *e, int seat, const uint64_t safe[4], uint64_t seed,
			  hy_search_deal *out);

/* The oracle's deal (play/qlabel.h): every hand of e kept as it truly is,
 * only the tiles no hand holds (the live wall, the replacement tiles, the
 * unrevealed and the ura indicators) shuffled from the seed. 0, or −1 when
 * the counts do not add up. */
int hy_search_redeal(const hy_engine *e, uint64_t seed, hy_search_deal *out);

/* What a rollout needs, shared with play/qlabel.c: the GRP that values the
 * kyoku's end, the rulebot that plays every seat, and the number of
 * rollouts per action. The impl of a search: or qlabel: policy. */
typedef struct hy_search_rollouts {
	hy_grp grp;
	hy_policy base;
	int k;
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
double hy_search_rollout(hy_search_rollouts *R, const hy_search_deal *D,
			 const hy_obs_track *trk, int seat, int idx);

#endif
