/* The tuner of rulebot's parameters (play/policies/ruleparams.h) by self-play:
 * a pattern search whose every step is a duplicate arena (play/arena.h)
 * of `rulebot:PARAMS` against three copies of a fixed yardstick.
 *
 * The search, as chess engines tune their evaluation by self-play, but by
 * coordinates instead of SPSA's random directions (a step here is one
 * arena of a few seconds, and the parameters act on separate decisions):
 *   - x starts at `start`, f(x) = the challenger's mean rank over the
 *     tuning walls (opts.seed, opts.nseeds), every evaluation on the same
 *     walls (common random numbers: a change that alters no decision
 *     scores exactly as before);
 *   - a sweep visits the parameters in order; for each, it tries
 *     x_i + step_i, then x_i − step_i, and keeps a move when it lowers f
 *     by more than opts.margin, going on in that direction while it
 *     does; step_i = frac · (hi − lo), at least 1 for whole-number
 *     parameters, values clamped to [lo, hi];
 *   - after each sweep frac halves; opts.sweeps sweeps.
 * f is measured on the tuning walls only, so its final value is biased
 * low by the selection: the tuned parameters' strength is what an arena
 * on other walls says (pipelines/strength.mk measures it at master seed
 * 9100, the tuner's default walls start at 1000). Deterministic: the same
 * options and start give the same parameters whatever the thread count. */
#ifndef HY_PLAY_RULETUNE_H
#define HY_PLAY_RULETUNE_H

#include <stdint.h>

#include "core/status.h"
#include "play/policy.h"
#include "play/policies/ruleparams.h"

/* One evaluation, as it happens: the parameter moved (−1 for the start),
 * its value, the mean rank, and whether the move was kept. A status
 * other than HY_OK stops the search with that status. */
typedef hy_status (*hy_ruletune_fn)(void *ctx, int sweep, int param, double value, double rank,
				    int kept);

typedef struct hy_ruletune_opts {
	uint64_t seed;      /* master seed of the tuning walls (1000)       */
	uint64_t nseeds;    /* seeds per evaluation (800)                   */
	int sweeps;         /* sweeps (4)                                   */
	double frac;        /* first step, a fraction of each range (0.2)   */
	double margin;      /* a move must lower the mean rank by more (0.002) */
	int threads, tables;
	uint64_t frozen;    /* bit i set: parameter i is not searched       */
	struct hy_reader_check *reader; /* the wait reader rulebot plays with,
			     * opened once by hy_ruletune_open_reader (NULL: none) */
	const char *read;   /* its mode: danger, threats or all (NULL: all)  */
	hy_ruletune_fn on_eval;
	void *ctx;
} hy_ruletune_opts;

void hy_ruletune_opts_default(hy_ruletune_opts *o);

/* Searches from *start against `opponent` (opened by the caller, a
 * deterministic policy: the yardstick); *best gets the parameters found,
 * *rank their mean rank on the tuning walls. A game aborted by a policy
 * is an error (HY_EDATA naming the evaluation). */
/* Opens the wait reader at path once for every evaluation of the search
 * (o->reader; hy_ruletune_close_reader frees it) and gives it to a rulebot
 * with o->read as each evaluation will: a missing or wrong reader, or a bad
 * mode, is an error before a search, and a file that moves or goes during
 * the search changes nothing. */
hy_status hy_ruletune_open_reader(hy_ruletune_opts *o, const char *path, hy_diag *d);
void hy_ruletune_close_reader(hy_ruletune_opts *o);

hy_status hy_ruletune_run(const hy_ruletune_opts *o, hy_policy *opponent,
			  const hy_rule_params *start, hy_rule_params *best, double *rank,
			  hy_diag *d);

#endif
