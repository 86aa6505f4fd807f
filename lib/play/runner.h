/* The game runner: plays full hanchan on seeded walls (engine/table.h) with
 * a policy at every seat, many tables at once, and hands every finished game
 * to a sink in game order. Used by self-play (hydra-sp) and the arena
 * (hydra-eval).
 *
 * Games first + k·stride, k = 0 … count−1, are played (stride 0 or 1:
 * the consecutive games [first, first + count); a larger stride gives one
 * rank's share of a multi-process run, lib/mpi); game i uses the walls
 * of (seed, i) (ARCHITECTURE.md §9 walls: engine/wall.h), so a game is a
 * function of the seed, its index and the seat policies alone. Up to `tables` games run at
 * once; each round of the runner collects the pending decisions of every
 * running table, groups them by policy and asks each policy once (one
 * batched forward pass for a model), applies the answers, and refills
 * finished tables with the next game. Rule policies' decisions are spread
 * over `threads` threads. Whatever the table and thread counts, the sink
 * sees the same games, with the same logs and decisions, in the same order.
 *
 * A policy failure (an external bot that crashed, hung or answered an
 * illegal action) aborts that game only: it reaches the sink with
 * `aborted` set and the diagnostic, and the run goes on.
 *
 * Details fixed here:
 *   - a table whose pending requests are all for `concurrent` policies
 *     (random, baseline) asks them at once, inside the parallel loop over
 *     the tables, without waiting for a round: rule-policy games run
 *     through on their thread; rounds batch the other policies' requests;
 *   - a decision with a single legal action (a riichi hand that can only
 *     discard its draw) is applied by the runner without asking the
 *     policy and is not recorded; an external bot sees its events with
 *     its next request;
 *   - the key of a request is hy_policy_key(seed, game, k, seat), k the
 *     number of the game's decision points before it (a decision point: a
 *     state in which one or more seats decide; single-action states are
 *     not counted), so the 4 rotations of an arena seed draw the same
 *     randomness at the same seat and point, whatever sits elsewhere;
 *   - the log's start_game carries `names` (the seats' policy names) and
 *     `seed`: [run seed, game index] (so the seed must be ≤ 2^63−1, a JSON
 *     integer every mjai reader takes);
 *   - recorded steps are every decision with a choice, in the order they
 *     were asked; `step` counts them within the kyoku (all seats), so it
 *     can exceed hydra-encode's numbering of the same log, which leaves
 *     out interrupted call chances; `game` is the first 8 bytes (little-
 *     endian) of the game's wall key (engine/wall.h);
 *   - labels as lib/encode computes them: score, rank, grp from the final
 *     scores; kyoku_delta from the kyoku's start_kyoku and last hora or
 *     ryukyoku scores; opp_tenpai/opp_waits from the full state;
 *   - reward: placement points / 100 on each seat's last step, 0 before
 *     (or what opts.reward sets);
 *     adv/ret: GAE over the seat's own steps with the recorded values,
 *     δ_t = r_t + γ·V_{t+1} − V_t (V after the last step = 0),
 *     A_t = δ_t + γλ·A_{t+1}, ret_t = A_t + V_t. */
#ifndef HY_PLAY_RUNNER_H
#define HY_PLAY_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "events/event.h"
#include "play/policy.h"
#include "samples/sample.h"

/* One decision taken in a game, as self-play records it. */
typedef struct hy_play_step {
	hy_sample s;     /* obs, mask, action, seat, grand_kyoku, honba, step,
			  * logp, value; outcome labels filled at game end;
			  * opp_* from the full state (flag OPP_KNOWN)       */
	uint8_t policy;  /* which of the run's policies took it           */
	uint8_t dropped; /* runner-internal: no advantage label (label_adv);
			  * such steps never reach the sink              */
} hy_play_step;

/* GAE advantages and returns over each seat's steps of one game, st[0..n)
 * in the order they were taken, as the runner labels self-play (above):
 * adv and ret of every step from its value and reward. The rewards: with
 * last_rew, last_rew[seat] on the seat's last step (stored in its reward
 * field) and 0 before; without, the steps' own reward fields. Exported
 * for the PPO probes (tests/unit/test_ppo_probes.c), which must credit
 * their rewards through the code self-play uses. */
void hy_play_gae(hy_play_step *st, size_t n, double gamma, double lambda,
	const double *last_rew);

/* Per-seat counts of a finished game (arena statistics). */
typedef struct hy_play_seat_stats {
	uint32_t kyoku;      /* kyoku played                                */
	uint32_t wins;       /* hora as winner                              */
	uint32_t deal_ins;   /* ron paid as discarder                       */
	uint32_t calls;      /* kyoku in which the seat made an open call   */
	uint32_t riichi;     /* kyoku in which the seat declared riichi     */
} hy_play_seat_stats;

typedef struct hy_play_game {
	uint64_t game;                 /* index                               */
	int seat_policy[4];            /* index into the run's policies       */
	const hy_game *log;            /* the whole mjai log                  */
	int32_t final_scores[4];
	uint8_t rank[4];               /* 0-based final rank per seat         */
	hy_play_seat_stats stats[4];
	/* Recorded decisions (when opts.record_steps), with outcome labels,
	 * reward and GAE advantages/returns filled (see hy_play_opts). */
	const hy_play_step *steps;
	size_t nsteps;
	int aborted;                   /* a policy failed: d says why         */
	hy_diag d;
} hy_play_game;

typedef struct hy_play_opts {
	uint64_t seed;
	uint64_t first, count;     /* games first + k·stride, k < count      */
	uint64_t stride;           /* 0 or 1: consecutive games              */
	int tables;                /* concurrent tables (≥ 1)                */
	int threads;               /* threads for rule policies and encoding */
	int record_steps;          /* fill hy_play_game.steps                */
	float gae_lambda, gamma;   /* 0.95, 1                                */
	/* Seat assignment: policy index (into the run's array) of a seat of a
	 * game; NULL means policy 0 everywhere. */
	int (*seat_policy)(void *ctx, uint64_t game, int seat);
	void *seat_ctx;
	/* 1: a policy that reads hidden tiles (hy_policy.oracle) may play a
	 * seat — hydra-eval --oracle, a diagnostic of what reading the hands
	 * is worth; 0 (the default): refused. */
	int allow_oracle;
	/* 1: each recorded step also holds its decision's hidden state
	 * (hy_sample.hidden, encode/hidden.h: the opponents' hands, the wall)
	 * for the oracle planes of a teacher or a fading student (hydra-sp
	 * --hidden, issue 52 step 2). */
	int hidden;
	/* Rewards other than placement points (play/reward.h: per-kyoku GRP
	 * rewards): with record_steps, called for every finished game that was
	 * not aborted, in game order (so a stateful normaliser sees the same
	 * sequence whatever the tables and threads) and before the sink; it
	 * sets the reward of every step, and the runner computes GAE again.
	 * A status other than HY_OK stops the run. NULL: placement. */
	hy_status (*reward)(void *ctx, const hy_play_game *g, hy_play_step *steps, hy_diag *d);
	void *reward_ctx;
	/* DAgger (hydra-sp --label-by): with record_steps, each recorded
	 * step's action label is this policy's choice in the step's state
	 * (same request and key as the seat's own policy got), while the game
	 * goes on with the seat's choice; logp and value stay the behaviour's.
	 * It is asked from the tables' threads, so it must be `concurrent` (a
	 * rule policy or search:; qlabel: only with label_adv). Its failure
	 * stops the run. NULL: the action taken. */
	hy_policy *label;
	/* With an advantage labeller as label (qlabel:, play/policies/qlabel.h): each
	 * recorded step keeps the seat's action and logp, and its advantage
	 * is the labeller's value of that action (asked with
	 * hy_decision.taken, before the round's answers are applied); ret is
	 * 0 and neither GAE nor a reward touches them; a step the labeller
	 * gives no value (NAN: the seat took rulebot's choice, or a win was
	 * offered) is dropped. The samples of hydra-sp --label-adv, for
	 * hydra-fit --mode ppo --no-adv-norm. */
	int label_adv;
} hy_play_opts;

void hy_play_opts_default(hy_play_opts *o);

/* Receives finished games in game order. A status other than HY_OK stops
 * the run and is returned by hy_play_run. */
typedef hy_status (*hy_play_sink)(void *ctx, const hy_play_game *g, hy_diag *d);

hy_status hy_play_run(const hy_play_opts *o, hy_policy *const *policies, int npolicies,
		      hy_play_sink sink, void *ctx, hy_diag *d);

/* Placement points of ARCHITECTURE.md §9 (90, 45, 0, −135) for a 0-based rank. */
int hy_play_placement_points(int rank);

#endif
