/* Training the GRP (nn/grp.h) on games: `hydra-fit --mode grp`
 * (ARCHITECTURE.md §9a).
 *
 * Data: one sample per kyoku-boundary state of every complete game — the
 * state at each start_kyoku — with the game's final order (nn/grp.h
 * hy_grp_order_index of the final scores) as the target. The final scores
 * are end_game's when it gives them; otherwise the scores after the last
 * kyoku (the last hora/ryukyoku scores, or start_kyoku scores plus deltas,
 * less the riichi deposits) with the sticks left on the table given to the
 * first-placed seat, as the rules (ARCHITECTURE.md §3) do. A game without
 * end_game, or without a start_kyoku, has no known order: it is counted as
 * incomplete and gives no sample.
 *
 * Validation split by game: a game is a validation game when its content
 * hash (encode.h hy_encode_game_id, the samples' game id) mod 1000 is below
 * the validation permille, so a game and its copies land on the same side
 * however they were read.
 *
 * Training: epochs over the training samples in an order shuffled by the
 * seed, minibatches, AdamW (peak lr 1e-3 after a 5% warmup, then a cosine
 * to a tenth of it; betas 0.9, 0.999, eps 1e-8, weight decay 1e-4 on
 * weights, global-norm clip 1.0).
 * After each epoch the validation loss is computed; the parameters of the
 * epoch with the lowest validation loss (the last epoch without
 * validation games) are the result.
 *
 * Calibration on the validation samples: mean log-loss of the model against
 * two baselines — uniform over the 24 orders (ln 24 = 3.178) and the
 * order frequencies of the training samples, Laplace-smoothed (+1 per
 * order) — and the top-1 accuracy of each. */
#ifndef HY_TRAIN_GRP_H
#define HY_TRAIN_GRP_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "events/event.h"
#include "nn/grp.h"

/* A game's kyoku-boundary states and final scores. */
typedef struct hy_grp_bounds {
	hy_grp_state *st;   /* the start_kyoku states in order */
	size_t n, cap;
	int32_t final[4];
} hy_grp_bounds;

void hy_grp_bounds_free(hy_grp_bounds *b);

/* Reads the boundaries of g into b (reusing its memory). HY_EDATA (d says
 * why) for a game without end_game or without start_kyoku; HY_ENOMEM. */
hy_status hy_grp_bounds_read(const hy_game *g, hy_grp_bounds *b, hy_diag *d);

typedef struct hy_grp_sample {
	float x[HY_GRP_NIN];
	uint8_t y;   /* order index 0–23 */
	uint8_t val; /* a validation game's */
} hy_grp_sample;

typedef struct hy_grp_data {
	hy_grp_sample *v;
	size_t n, cap;
	uint64_t games, val_games, incomplete;
	int val_permille;     /* set before adding games (default 100 = 10%) */
	hy_grp_bounds b;      /* scratch */
} hy_grp_data;

void hy_grp_data_init(hy_grp_data *D, int val_permille);
void hy_grp_data_free(hy_grp_data *D);
/* Adds a game's samples; an incomplete game is counted (HY_OK). */
hy_status hy_grp_data_add(hy_grp_data *D, const hy_game *g, hy_diag *d);

typedef struct hy_grp_train_cfg {
	int hidden;        /* 128 */
	int epochs;        /* 30 */
	int batch;         /* 256 */
	float lr, wd;      /* 1e-3, 1e-4 */
	uint64_t seed;     /* 0 */
} hy_grp_train_cfg;

void hy_grp_train_defaults(hy_grp_train_cfg *c);

typedef struct hy_grp_epoch {
	int epoch;          /* 1-based */
	int64_t step;
	double train_loss, train_top1;
	double val_loss, val_top1;  /* NAN without validation samples */
} hy_grp_epoch;

typedef struct hy_grp_calib {
	size_t samples;               /* validation samples (boundary states) */
	uint64_t games;               /* validation games */
	double loss, top1;            /* the model */
	double uniform;               /* ln 24 */
	double empirical, emp_top1;   /* training-set order frequencies */
	int best_epoch;
} hy_grp_calib;

/* Trains m (initialised here from c; free with hy_grp_free) on D; `epoch`
 * (if not NULL) is called after every epoch. Calibration into *cal. */
hy_status hy_grp_train(const hy_grp_train_cfg *c, const hy_grp_data *D, hy_grp *m,
	void (*epoch)(void *u, const hy_grp_epoch *e), void *u, hy_grp_calib *cal, hy_diag *d);

#endif
