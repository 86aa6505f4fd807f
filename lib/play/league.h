/* The league's seating (ARCHITECTURE.md §9a): in each self-play game the
 * learner holds one seat, rotating with the game index (game mod 4), and
 * each of the three other seats is drawn, from the run's seed, the game
 * and the seat alone, from the mix: the learner itself (w_self, 0.5), a
 * checkpoint of the pool chosen uniformly (w_pool, 0.3) or the frozen
 * start (w_start, 0.2). Without a pool or a start their weight goes to
 * the learner. Policy indices: 0 the learner, 1 … npool the pool, then the
 * start. The same seed gives the same seating whatever the ranks, tables
 * or threads. */
#ifndef HY_PLAY_LEAGUE_H
#define HY_PLAY_LEAGUE_H

#include <stdint.h>

#include "core/status.h"

typedef struct hy_league {
	uint64_t seed;
	double w_self, w_pool, w_start; /* normalised by hy_league_init      */
	int npool;                      /* checkpoints in the pool (0: none) */
	int has_start;
} hy_league;

/* Checks and normalises the mix (three weights ≥ 0, a positive sum; the
 * weight of an absent pool or start moves to the learner). HY_EUSAGE
 * with a message otherwise. */
hy_status hy_league_init(hy_league *l, uint64_t seed, const double mix[3], int npool,
	int has_start, hy_diag *d);
/* Parses "SELF,POOL,START" weights (e.g. "0.5,0.3,0.2"). */
hy_status hy_league_parse_mix(const char *s, double mix[3], hy_diag *d);
/* The policy index of a seat of a game. */
int hy_league_seat(const hy_league *l, uint64_t game, int seat);
/* Index of the start policy (1 + npool). */
static inline int hy_league_start_index(const hy_league *l) { return 1 + l->npool; }

#endif
