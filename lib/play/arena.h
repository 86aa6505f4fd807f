/* The duplicate arena of ARCHITECTURE.md §9: one challenger against three copies of
 * an opponent.
 *
 * Seeds k = 0 … nseeds−1 each give one set of walls: game k of the run's
 * master seed (engine/wall.h: the walls of a game are a function of (seed,
 * game index) alone, and within a game of the grand kyoku and honba). Each
 * seed is played 4 times, rotation r = 0 … 3 putting the challenger at
 * seat r (seat 0 is the East-1 dealer) and the opponent at the other three;
 * the four rotations of a seed play on the same walls as long as their
 * games reach the same kyoku and honba. hy_arena_run does this with four
 * passes of the game runner over games [0, nseeds), one per rotation, the
 * seat assignment of the pass given by hy_arena_seat_policy.
 *
 * Statistics (hy_arena_summarise) are computed from the recorded results
 * alone, so they are unit-testable without playing:
 *   - a game that was aborted (a policy failed) is counted and reported,
 *     and its whole seed is left out of every statistic, so that each
 *     counted seed is a complete duplicate set of 4 rotations;
 *   - average rank (1–4) and average placement points (90, 45, 0, −135)
 *     of the challenger, each with a 95% confidence interval computed from
 *     the n per-seed means (the 4 rotations of a seed share walls and are
 *     correlated, so the seed is the independent unit): mean ± t·s/√n, s
 *     the sample standard deviation (divisor n−1) of the per-seed means, t
 *     the 0.975 quantile of Student's t with n−1 degrees of freedom
 *     (computed exactly, hy_arena_t_quantile); no interval for n < 3
 *     (HY_ARENA_MIN_SEEDS: with 2 seeds a zero spread would read as
 *     certainty);
 *   - the challenger's rank distribution;
 *   - per-kyoku rates of the challenger and of the opponent seats: wins,
 *     deal-ins, kyoku with an open call, kyoku with a riichi, each over the
 *     kyoku played (runner per-seat statistics). */
#ifndef HY_PLAY_ARENA_H
#define HY_PLAY_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "play/policy.h"
#include "play/runner.h"

enum {
	HY_ARENA_ROTATIONS = 4,
	HY_ARENA_CHALLENGER = 0, /* policy index in the runner's array */
	HY_ARENA_OPPONENT = 1,
};

/* Seat of the challenger in rotation r (0–3): seat r. */
int hy_arena_challenger_seat(int rotation);
/* HY_ARENA_CHALLENGER or HY_ARENA_OPPONENT for a seat in rotation r. */
int hy_arena_seat_policy(int rotation, int seat);

/* Counts summed over games (per-seat runner statistics). */
typedef struct hy_arena_counts {
	uint64_t kyoku, wins, deal_ins, calls, riichi;
} hy_arena_counts;

typedef enum hy_arena_state {
	HY_ARENA_UNPLAYED = 0,
	HY_ARENA_PLAYED,
	HY_ARENA_ABORTED,
} hy_arena_state;

/* One game's result for the challenger. */
typedef struct hy_arena_result {
	uint8_t state;          /* hy_arena_state                            */
	uint8_t rank;           /* challenger's 0-based final rank           */
	int32_t score;          /* challenger's final score                  */
	hy_arena_counts chal;   /* challenger's seat                         */
	hy_arena_counts opp;    /* the three opponent seats together         */
} hy_arena_result;

/* Results of every (seed, rotation). */
typedef struct hy_arena_acc {
	uint64_t nseeds;
	hy_arena_result *res; /* [nseeds][4] */
	double *scratch;      /* [2][nseeds]: per-seed means          */
} hy_arena_acc;

hy_status hy_arena_acc_init(hy_arena_acc *a, uint64_t nseeds, hy_diag *d);
void hy_arena_acc_free(hy_arena_acc *a);
/* Records a result; HY_EUSAGE for a seed or rotation out of range or a
 * (seed, rotation) recorded twice. */
hy_status hy_arena_record(hy_arena_acc *a, uint64_t seed, int rotation,
			  const hy_arena_result *r, hy_diag *d);
/* The result of a finished game of rotation r (challenger at its seat). */
void hy_arena_result_of(const hy_play_game *g, int rotation, hy_arena_result *r);

/* Fewest counted seeds with an interval. */
enum { HY_ARENA_MIN_SEEDS = 3 };

/* A mean with its 95% interval; sd, lo, hi and half are NaN when n < 3. */
typedef struct hy_arena_interval {
	double mean, sd, half, lo, hi; /* sd: of the per-seed means */
} hy_arena_interval;

typedef struct hy_arena_rates {
	uint64_t kyoku;
	double win, deal_in, call, riichi; /* per kyoku; NaN without kyoku */
} hy_arena_rates;

typedef struct hy_arena_summary {
	uint64_t seeds;          /* seeds of the run                          */
	uint64_t seeds_counted;  /* complete seeds in the statistics          */
	uint64_t games;          /* games counted (4 per counted seed)        */
	uint64_t aborted;        /* games aborted                             */
	uint64_t seeds_excluded; /* seeds left out because of an aborted game */
	uint64_t unplayed;       /* (seed, rotation) never recorded           */
	double conf;             /* level of the intervals (0.95 by default)  */
	double t;                /* t quantile used (NaN when n < 3)          */
	hy_arena_interval rank;  /* 1-based                                   */
	hy_arena_interval points;
	double score;            /* challenger's average final score          */
	uint64_t rank_count[4];  /* challenger finished 1st … 4th             */
	hy_arena_rates chal, opp;
} hy_arena_summary;

/* Uses a->scratch; a is otherwise unchanged. */
void hy_arena_summarise(hy_arena_acc *a, hy_arena_summary *s);
/* The same with the intervals at level conf (in (0, 1)). */
void hy_arena_summarise_at(hy_arena_acc *a, double conf, hy_arena_summary *s);

/* x with P(|T| ≤ x) = conf for Student's t with df ≥ 1 degrees of freedom
 * (conf in (0, 1)); exact to ~1e-12 (the closed form of the distribution
 * for integer df, inverted by bisection). */
double hy_arena_t_quantile(double conf, uint64_t df);

/* Mean and 95% interval of n values (the per-seed means). */
void hy_arena_interval_of(const double *x, size_t n, hy_arena_interval *iv);
/* The same at level conf. */
void hy_arena_interval_at(const double *x, size_t n, double conf, hy_arena_interval *iv);

/* The sequential rule (hydra-eval --sequential): the seeds are played in
 * looks of first, 2·first, 4·first, … seeds up to max (the last look);
 * after each look the mean rank's interval is computed at level
 * conf = 1 − 0.05 / looks, and the run stops at the first look whose
 * interval lies wholly below or above 2.5 (parity). By Bonferroni's
 * inequality the chance that any look excludes parity when the players
 * are even stays at most 5%: the stopped run's interval is a 95% one for
 * the whole procedure, and an even match runs to max. */
enum { HY_ARENA_SEQ_FIRST = 100, HY_ARENA_SEQ_MAX_LOOKS = 24 };
typedef struct hy_arena_seq {
	uint64_t look[HY_ARENA_SEQ_MAX_LOOKS]; /* seeds after each look, rising to max */
	int n;                                 /* looks                                */
	double conf;                           /* each look's interval level          */
} hy_arena_seq;
void hy_arena_seq_plan(uint64_t first, uint64_t max, hy_arena_seq *q);
/* 1 when the mean rank's interval lies wholly below or above 2.5. */
int hy_arena_decided(const hy_arena_summary *s);

/* A finished game as it reaches the caller of hy_arena_run: seed index
 * (the runner's game index) and rotation, with the runner's game. */
typedef hy_status (*hy_arena_game_fn)(void *ctx, uint64_t seed, int rotation,
				      const hy_play_game *g, hy_diag *d);

typedef struct hy_arena_opts {
	uint64_t seed;     /* master seed of the walls                     */
	uint64_t nseeds;   /* seeds (games per rotation)                   */
	int tables;        /* concurrent tables (≥ 1)                      */
	int threads;       /* runner threads (≥ 1)                         */
	hy_arena_game_fn on_game; /* optional: every game, in order        */
	void *ctx;
	/* Seeds first + k·stride, k < count, only (count 0: all; stride 0 or
	 * 1: consecutive): one rank's share of a multi-process run (lib/mpi:
	 * first = rank, stride = ranks); the others stay unplayed. */
	uint64_t first, count, stride;
	int allow_oracle; /* hy_play_opts.allow_oracle (hydra-eval --oracle) */
} hy_arena_opts;

/* Plays the 4·nseeds games (rotation 0 for every seed, then rotation 1,
 * ...) and records them into a (initialised for o->nseeds). Aborted games
 * are recorded as such and the run goes on; a status from on_game or the
 * runner stops it. */
hy_status hy_arena_run(const hy_arena_opts *o, hy_policy *challenger, hy_policy *opponent,
		       hy_arena_acc *a, hy_diag *d);

/* After every rank of ds played its share of the seeds (seed k on rank
 * k mod size: hy_arena_opts first = rank, stride = size, count =
 * hy_mpi_stride_count): rank 0 receives the other ranks' results into a,
 * so that hy_arena_summarise (the confidence intervals included) covers
 * every rank's seeds; the other ranks send theirs (one message of their
 * results, packed in seed order). */
struct hy_mpi;
hy_status hy_arena_gather(const struct hy_mpi *ds, hy_arena_acc *a, hy_diag *d);

#endif
