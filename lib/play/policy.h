/* Policies: who decides for a seat. One interface shared by self-play
 * (hydra-sp), the arena (hydra-eval) and the mjai bot (hydra-bot).
 *
 * A policy answers a batch of decision requests at once. Each request is one
 * seat of one running table that must decide now (hy_engine_deciders), with
 * the engine state it acts on, the public facts the observation encoder needs
 * and the table's mjai log so far. Batching lets a model policy run every
 * pending decision of every table in one forward pass; rule policies simply
 * loop.
 *
 * Determinism: a policy's answer depends only on the request (its state and
 * its `key`), never on the batch it came in, the thread that asked or the
 * order of the requests. `key` is a 64-bit value the caller derives from
 * (run seed, game index, decision index within the game, seat); a
 * sampling policy draws its randomness from it alone. So the same seed gives
 * the same games whatever the thread count and table count.
 *
 * Policy specs (hy_policy_open; each a row of the registry,
 * lib/play/policies/registry.c, each policy a file of lib/play/policies/):
 *   random          uniform over the legal actions (from `key`)
 *   baseline        the deterministic rule bot (lib/play/policies/baseline.c)
 *   rulebot         the stronger rule teacher and yardstick (rulebot.c)
 *   rulebot:PARAMS  rulebot with other numbers (policies/ruleparams.h)
 *   search:GRP.h5[,K][,DEAL]  rulebot with a rollout lookahead; DEAL a
 *                   belief checkpoint or an oracle (policies/search.h)
 *   rulebot-waits:ALPHA[,riichi|tenpai][,PARAMS]  rulebot whose belief
 *                   about the waits is blended with the truth at ALPHA, a
 *                   diagnostic oracle (policies/waitoracle.h)
 *   qlabel:GRP.h5[,K]  rollout advantages from the true state, a labeller
 *                   for hydra-sp --label-by only (policies/qlabel.h)
 *   PATH.h5         a checkpoint: the network on the observation encoder,
 *                   sampling at opts->temperature (greedy at 0); any other
 *                   existing file (hydra-fit's `latest` link) is taken as
 *                   a checkpoint too
 *   mjai:COMMAND    an external program speaking the mjai bot protocol
 *                   (policies/mjaiproc.c), one process per (table, seat)
 *
 * Calls on one hy_policy come from one thread at a time unless the policy
 * sets `concurrent`; a policy may use threads of its own inside decide (the
 * model's forward pass does). */
#ifndef HY_PLAY_POLICY_H
#define HY_PLAY_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "events/event.h"

/* One pending decision. */
typedef struct hy_decision {
	const hy_engine *e;         /* the table's state the decision acts on    */
	const hy_obs_track *track;  /* public facts for hy_obs_encode            */
	const hy_game *log;         /* the table's mjai events so far (may be
				     * NULL for policies that do not need it)   */
	const struct hy_table *tbl; /* the table, wall included, where the caller
				     * deals the hidden tiles (the runner); NULL
				     * elsewhere: what a network with the oracle
				     * planes reads its hidden state from        */
	uint64_t table;             /* running-table slot (external bots keep one
				     * process per table and seat)              */
	uint64_t game;              /* game index                                */
	uint64_t key;               /* per-decision randomness, see above        */
	uint64_t legal;             /* hy_engine_legal_mask(e, seat), never 0    */
	int seat;                   /* absolute seat 0–3                         */
	int taken;                  /* for an advantage labeller (qlabel:, with
				     * hydra-sp --label-adv): 1 + the index the
				     * seat took, whose value it is asked for;
				     * 0 otherwise                               */
	float *probs;               /* optional, NULL when not wanted: where a
				     * policy with a distribution (has_probs)
				     * writes its probability of each of the 46
				     * actions, 0 outside legal; see
				     * hy_policy_decide_one                      */
} hy_decision;

/* A policy's answer. */
typedef struct hy_choice {
	int index;      /* legal action index 0–45 (bit set in legal)              */
	float logp;     /* log-probability of index under the policy (0 for a
			 * deterministic policy: it chose with probability 1)      */
	float value;    /* the policy's value estimate of the state for the seat,
			 * in placement points / 100 (0 when it has none)          */
	hy_action act;  /* the exact action, when the policy chose one (an
			 * external bot: which red five a chi uses, which ankan);
			 * act.type HY_ACT_NONE (the caller's preset): the action
			 * hy_engine_action_of gives for index                     */
	char why[512]; /* when the policy failed on this request (index −1):
			 * its own reason, so that each of several failures of
			 * one call is reported as it was (the caller's preset "") */
} hy_choice;

typedef struct hy_policy_opts {
	float temperature;    /* model sampling; 0 = greedy (argmax)            */
	int threads;          /* model forward pass threads (0 = default)       */
	double bot_timeout;   /* seconds an external bot may take per answer    */
	const char *device;   /* "cpu", "cuda" or "auto" for a model            */
	const struct hy_nn_device *dev; /* that name resolved once by the program
			       * (cli/options.h hy_cli_device_resolve); NULL:
			       * a model resolves `device` itself              */
	int hidden;           /* 1 where the caller deals the hidden tiles (the
			       * runner: self-play, the arena); elsewhere (a
			       * bot, a review) a policy that reads them
			       * (oracle) is refused at open with HY_EUSAGE    */
} hy_policy_opts;

void hy_policy_opts_default(hy_policy_opts *o);

typedef struct hy_policy hy_policy;

typedef struct hy_policy_ops {
	/* Answers n requests; out[i] answers req[i]. A failure (an external
	 * bot that crashed, timed out or answered an illegal action) returns
	 * a status with d naming the game, the event and the line; the caller
	 * records that game as aborted. A policy answers every request it
	 * can even when one fails: the caller sets every out[i].index to −1
	 * before the call, and after a failed call the requests still at −1
	 * are the failed ones (their games are aborted; d describes the
	 * first failure, d->game its game), the others are applied. */
	hy_status (*decide)(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			    hy_diag *d);
	/* Optional: the game on slot `table` is over (log complete): external
	 * bots receive the final events and end_game. */
	hy_status (*game_over)(hy_policy *p, uint64_t table, uint64_t game, const hy_game *log,
			       hy_diag *d);
	void (*free)(hy_policy *p);
	/* Optional: a line of what the policy measured while it played (the
	 * wait oracle's log-loss), into buf; 0 when it has nothing to say.
	 * hydra-eval prints it after the arena. */
	int (*report)(hy_policy *p, char *buf, size_t cap);
} hy_policy_ops;

struct hy_policy {
	const hy_policy_ops *ops;
	void *impl;
	char name[256];      /* the spec it was opened from, for reports     */
	int stochastic;      /* 1 if its choices depend on `key`             */
	int concurrent;      /* 1 if decide may run on disjoint requests from
			      * several threads at once (random, baseline):
			      * the runner then spreads them over its threads */
	int has_value;       /* 1 if hy_choice.value is meaningful           */
	int has_probs;       /* 1 if it fills hy_decision.probs: a checkpoint
			      * (softmax of its logits over the legal
			      * actions, whatever the sampling temperature),
			      * random (uniform); the rule bots and external
			      * bots choose without a distribution          */
	int oracle;          /* 1 if it reads hidden state (the other hands,
			      * the wall): qlabel, a labeller only, and the
			      * search oracles, diagnostics; the runner
			      * refuses it at a seat unless allowed          */
	int advantage;       /* 1 if it answers hy_decision.taken with that
			      * action's advantage (qlabel): the labeller
			      * of --label-adv                               */
	float temperature;   /* a checkpoint: the temperature it samples at
			      * (0: greedy); −1 for a policy without one     */
};

/* Opens a policy from a spec (above). HY_EUSAGE for an unknown spec, or
 * for a policy that reads the hidden tiles (qlabel:, search:...,oracle*)
 * unless o->hidden: the one gate of every program that takes a policy;
 * the checkpoint's or the bot's status otherwise. */
hy_status hy_policy_open(hy_policy *p, const char *spec, const hy_policy_opts *o, hy_diag *d);
void hy_policy_close(hy_policy *p);

/* One request answered with the policy's distribution: c->index the
 * choice, probs[0..46) the probability of every action (0 outside
 * q->legal) — the policy's own when it has one (has_probs), else 1 at its
 * choice. q->probs is ignored. What the review (lib/review) and hydra-bot
 * --meta show. */
hy_status hy_policy_decide_one(hy_policy *p, const hy_decision *q, hy_choice *c,
			       float probs[HY_ACTIONS], hy_diag *d);

/* Per-decision key: a mix of (seed, game, decision index, seat). */
uint64_t hy_policy_key(uint64_t seed, uint64_t game, uint64_t decision, int seat);

/* Uniform double in [0, 1) and a bounded integer from a key and a counter
 * (several draws per decision). */
double hy_policy_uniform(uint64_t key, uint64_t counter);

#endif
