/* Per-kyoku rewards from a GRP (ARCHITECTURE.md §9a; nn/grp.h): `hydra-sp
 * --reward grp:PATH`.
 *
 * A game's kyoku-boundary states b_0 … b_{n−1} (its start_kyoku states,
 * train/grp.h) and final scores give, for every seat,
 *     E_k = Σ_o P_GRP(o | b_k) · pts[rank of the seat in o],   k < n,
 *     E_n = pts[final rank of the seat]   (deterministic at the end),
 *     r_k = E_{k+1} − E_k,
 * with placement points pts = (90, 45, 0, −135) / 100 (the design's
 * training points (3, 1, −1, −3) would only rescale: the rewards are
 * normalised). So Σ_k r_k = pts[final rank] − E_0 exactly: potential-based
 * shaping of the placement reward.
 *
 * Placement on the recorded decisions: r_k of a seat goes to the seat's
 * last recorded decision of kyoku k (GAE spreads it); a kyoku in which the
 * seat has no recorded decision carries its r_k to the seat's next kyoku
 * with one, and what is left after its last decision is added to that
 * decision, so the rewards of a seat's steps always sum to Σ_k r_k.
 * Steps are matched to kyoku by (grand kyoku, honba), unique in a game.
 *
 * Normalisation (ARCHITECTURE.md §9a): every raw r_k (n·4 per game, kyoku by kyoku,
 * seats 0–3) updates a running Welford estimate (count, mean, M2) before
 * the game's rewards are divided by the running standard deviation
 * σ = √(M2 / count) (the mean is not subtracted; σ = 1 while count < 2 or
 * σ < 1e-6) and clipped to [−5, 5]. The runner calls the hook in game
 * order, so the rewards do not depend on tables or threads. The estimate
 * persists across the self-play iterations of a run in a small text file
 * (formats/grp.md: "hydra-reward-state 1", count, mean, m2). */
#ifndef HY_PLAY_REWARD_H
#define HY_PLAY_REWARD_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "io/staged.h"
#include "nn/grp.h"
#include "play/runner.h"
#include "train/grp.h"

/* (90, 45, 0, −135) / 100 by 0-based rank. */
extern const double hy_reward_pts[4];

/* Raw rewards r[k][seat] (k < b->n) and the prior E_0 per seat. */
void hy_reward_kyoku(const hy_grp *m, const hy_grp_bounds *b, double (*r)[4], double prior[4]);

/* Puts r on the steps as described above, each seat's sum divided by
 * scale and clipped to [−clip, clip]; every other step's reward is 0.
 * HY_EDATA when a step matches no boundary; HY_ENOMEM. */
hy_status hy_reward_place(const hy_grp_bounds *b, const double (*r)[4], double scale,
	double clip, hy_play_step *steps, size_t n, hy_diag *d);

/* Welford running statistics of the raw rewards. */
typedef struct hy_reward_norm {
	uint64_t count;
	double mean, m2;
} hy_reward_norm;

void hy_reward_norm_add(hy_reward_norm *n, double x);
/* √(M2 / count), or NAN while count is 0. */
double hy_reward_norm_std(const hy_reward_norm *n);
/* The divisor: the std, or 1 while count < 2 or std < 1e-6. */
double hy_reward_norm_scale(const hy_reward_norm *n);

/* Reads a state file; a path that does not exist gives a fresh state
 * (*found = 0). A malformed file is HY_EFORMAT, a newer version
 * HY_EVERSION, naming the path and line. */
hy_status hy_reward_norm_load(const char *path, hy_reward_norm *n, int *found, hy_diag *d);
/* Writes it atomically (temporary, fsync, rename). With fs, the rename is
 * left to hy_fileset_commit(fs), so that it appears together with the
 * run's other outputs or not at all (io/staged.h). */
hy_status hy_reward_norm_save(const char *path, const hy_reward_norm *n, hy_fileset *fs,
	hy_diag *d);

/* The runner hook: a loaded GRP and the normaliser. */
typedef struct hy_reward_grp {
	hy_grp m;
	hy_reward_norm norm;
	double clip;             /* 5 */
	hy_grp_bounds b;         /* scratch */
	double (*r)[4];
	size_t rcap;
	uint64_t games;          /* games rewarded */
} hy_reward_grp;

/* Loads the GRP at path (a policy checkpoint is refused, HY_EFORMAT). */
hy_status hy_reward_grp_open(hy_reward_grp *x, const char *path, hy_diag *d);
void hy_reward_grp_close(hy_reward_grp *x);

/* hy_play_opts.reward with ctx a hy_reward_grp. */
hy_status hy_reward_grp_apply(void *ctx, const hy_play_game *g, hy_play_step *steps,
	hy_diag *d);

/* The simplest per-kyoku reward (`hydra-sp --reward kyoku`, issue 52): r_k
 * of a seat is its score change over kyoku k — its score at the next
 * kyoku's start, or the final score after the last kyoku (leftover riichi
 * sticks to the top, as the engine ends a game), minus its score at k's
 * start — over a fixed scale of 10,000 points and clipped to [−5, 5],
 * placed on the steps as the GRP's rewards are (hy_reward_place). No
 * running statistics: the scale is fixed, so nothing persists between
 * iterations. It rewards points, not placement: a baseline for what the
 * GRP's shaping adds. */
#define HY_REWARD_SCORE_SCALE 10000.0
#define HY_REWARD_SCORE_CLIP 5.0
typedef struct hy_reward_score {
	hy_grp_bounds b; /* scratch */
	double (*r)[4];
	size_t rcap;
	uint64_t games;  /* games rewarded */
} hy_reward_score;

void hy_reward_score_close(hy_reward_score *x);
/* hy_play_opts.reward with ctx a zeroed hy_reward_score. */
hy_status hy_reward_score_apply(void *ctx, const hy_play_game *g, hy_play_step *steps,
	hy_diag *d);

#endif
