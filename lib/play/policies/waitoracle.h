/* The degraded wait oracle (issue 42, step 2): what a reader of the
 * opponents' waits would be worth to rulebot, before one is built.
 *
 * rulebot's belief about an opponent o is a threat weight w_o (a dealer's
 * times 1.5) and, per kind k, a danger in percent (rulebot.c's header).
 * Read as probabilities: o is tenpai with τ = w_o / dealer_o (at most 1),
 * k is a winning tile of o's with q(k) = danger / 100, and a discard of k
 * deals in with τ·q(k). The oracle blends each with the truth at α:
 *
 *   τ_α = α·[o tenpai] + (1 − α)·τ,   q_α(k) = α·[k wins for o] + (1 − α)·q(k)
 *
 * for the opponents in scope: those in riichi (τ stays rulebot's, which is 1
 * for them), or every opponent (`tenpai`). That linear blend keeps the
 * truth's order of the kinds at every α > 0 (a wait always outranks a
 * safe kind), which no real reader has; `logit` blends as evidence
 * instead, a shift of the log-odds by α·S toward the truth (S = 12):
 *
 *   logit q_α(k) = logit q(k) ± α·S   (+ on a wait, − elsewhere)
 *
 * and τ_α likewise, so at small α a kind the model fears more still
 * outranks a wait it fears little: a reader whose quality grows with α, in
 * both its calibration and its order. "Wins for o" is the engine's
 * waits of o's 13 tiles, none while o is furiten (a discard of a wait then
 * does not deal in); a yaku is not checked. α = 0 is rulebot move for move,
 * α = 1 plays the true waits. rulebot then plays with w_o = dealer_o·τ_α and
 * a danger of 100·q_α(k).
 *
 * It also measures the blend: at each of the seat's discards, the log-loss
 * of τ_α·q_α(k) (clamped to [1e-4, 1 − 1e-4]) on the truth [o tenpai and k
 * wins], over every opponent in scope and every kind, beside the log-loss of
 * the base rate of the same cells, and the area under the ROC curve. With
 * `reader=R.h5` a wait reader is scored on the same cells at the same
 * decisions (readercheck.h): its prediction against rulebot's belief,
 * state for state. It reads the hidden tiles: the policy is an oracle
 * (play/policy.h), played only under hydra-eval --oracle. */
#ifndef HY_PLAY_WAITORACLE_H
#define HY_PLAY_WAITORACLE_H

#include <pthread.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/engine.h"
#include "play/readscore.h"

typedef struct hy_wait_oracle {
	double alpha;    /* 0 (rulebot's belief) to 1 (the truth) */
	int every;       /* 1: every opponent in scope; 0: those in riichi */
	int logit;       /* 1: blend the log-odds (evidence), 0: the probabilities */
	char *reader;    /* reader=PATH (malloc'd), or NULL */
	pthread_mutex_t mu;
	hy_read_tally belief, read; /* the blend's; the reader's (with reader=);
				     * over cells (opponent in scope, kind) */
	uint64_t decisions;
} hy_wait_oracle;

/* Parses "ALPHA[,riichi|tenpai][,logit][,reader=PATH]" into o (tally
 * zeroed); *rest: what follows (the rulebot parameters). HY_EUSAGE naming
 * the part that is wrong. */
hy_status hy_wait_oracle_parse(hy_wait_oracle *o, const char *spec, const char **rest,
	hy_diag *d);
void hy_wait_oracle_free(hy_wait_oracle *o);

/* 1 when opponent o's belief is blended (in scope). */
int hy_wait_oracle_scope(const hy_wait_oracle *o, const hy_engine *e, int opp);
/* The kinds whose discard deals in to opponent opp: its waits, none while
 * it is furiten or not tenpai. */
uint64_t hy_wait_oracle_truth(const hy_engine *e, int opp);
/* The blended tenpai belief of an opponent in scope, from rulebot's τ. */
double hy_wait_oracle_tenpai(const hy_wait_oracle *o, const hy_engine *e, int opp, double tau);
/* The blended danger in percent of kind k, from rulebot's. */
double hy_wait_oracle_danger(const hy_wait_oracle *o, const hy_engine *e, int opp, int k,
	double pct);

/* Adds one discard decision of seat: for every opponent in scope, the
 * blended deal-in probability of each kind p[opp][k] (τ_α·q_α(k), the
 * caller's) against the truth. */
void hy_wait_oracle_tally(hy_wait_oracle *o, const hy_engine *e, int seat,
	const double p[4][34]);
/* The same for the reader's prediction at that decision. */
void hy_wait_oracle_tally_reader(hy_wait_oracle *o, const hy_engine *e, int seat,
	const double p[4][34]);
/* The mean log-loss per cell, the base rate's (the share of winning cells,
 * as a constant prediction) and the cells; 0 cells: both NaN. */
void hy_wait_oracle_result(hy_wait_oracle *o, double *ll, double *base, uint64_t *cells,
	uint64_t *decisions);

#endif
