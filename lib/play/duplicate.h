/* Duplicate self-play (hydra-sp --duplicate G, ARCHITECTURE.md §9a):
 * G consecutive games play the same walls with the same seating
 * (hy_play_opts.wall_group), so that a kyoku's deal, draws and dora are
 * common to the group and only the decisions differ.
 *
 * The advantage of a recorded step is its seat's reward for the kyoku
 * less a baseline: the mean reward of the same seat for the same kyoku
 * (the same grand kyoku and honba, so the same wall) in the group's other
 * games. A seat's reward for a kyoku is the sum of the rewards of its
 * steps in it: with per-kyoku GRP rewards (play/reward.h), the change of
 * its expected placement points over the kyoku. The other games do not
 * depend on this game's actions, so the baseline leaves the policy
 * gradient unbiased while it takes the deal's luck out of the advantage.
 * A kyoku that no other game of the group played (the games went apart:
 * another honba, another dealer) has no baseline, and its steps are
 * dropped. Everything else of a step (its return for the critic, logp,
 * value, reward) stays as the runner wrote it.
 *
 *   hy_dup u; hy_dup_init(&u);
 *   per game of a group: hy_dup_push(&u, step) for each step, then
 *   hy_dup_end_game(&u); after the group's last game:
 *   n = hy_dup_finish(&u); write u.s[0 .. n); hy_dup_clear(&u);
 */
#ifndef HY_PLAY_DUPLICATE_H
#define HY_PLAY_DUPLICATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "samples/sample.h"

/* What the advantages took out, over every group finished so far. */
typedef struct hy_dup_stats {
	uint64_t kyoku;    /* (game, seat, kyoku) rewards with a baseline   */
	uint64_t lone;     /* … without one: their steps dropped            */
	uint64_t steps;    /* steps kept                                    */
	uint64_t dropped;  /* steps dropped                                 */
	double sum_r, sum_r2; /* the kept kyoku's rewards                   */
	double sum_a2;     /* their advantages (reward − baseline), squared */
} hy_dup_stats;

typedef struct hy_dup_kyoku hy_dup_kyoku;

typedef struct hy_dup {
	hy_sample *s;      /* the group's steps, game by game; after
			    * hy_dup_finish the kept ones, in order       */
	size_t n, cap;
	int game;          /* games of the group ended so far              */
	uint8_t *slot;     /* per step: its game within the group          */
	hy_dup_kyoku *k;   /* per (game, seat, kyoku): reward and baseline */
	size_t nk, capk;
	hy_dup_stats st;
} hy_dup;

void hy_dup_init(hy_dup *u);
void hy_dup_free(hy_dup *u);
/* Appends a step of the current game. HY_ENOMEM. */
hy_status hy_dup_push(hy_dup *u, const hy_sample *x, hy_diag *d);
/* Ends the current game (an aborted game of the group: end it with no
 * steps, or not at all). At most 255 games a group. */
void hy_dup_end_game(hy_dup *u);
/* Sets the advantages of the group's steps, drops those without a
 * baseline, and returns how many stay at u->s[0 ..). HY_ENOMEM sets
 * *out to 0 and returns the status. */
hy_status hy_dup_finish(hy_dup *u, size_t *out, hy_diag *d);
/* Forgets the group (keeps the statistics and the memory). */
void hy_dup_clear(hy_dup *u);

/* Standard deviation of the kept kyoku rewards, and the root mean square
 * of their advantages (0 without kyoku). */
double hy_dup_reward_sd(const hy_dup_stats *st);
double hy_dup_adv_rms(const hy_dup_stats *st);

#endif
