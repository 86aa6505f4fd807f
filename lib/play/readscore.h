/* The score of a reading of the waits (issue 42): predictions p that a cell
 * — (opponent, kind) at a decision — is a winning one, against the truth y:
 * the log-loss (p clamped to [1e-4, 1 − 1e-4]), the share of winning cells
 * (whose constant prediction is the base rate), and the area under the ROC
 * curve from histograms of p (ties within a bin count half). One tally for
 * every place that scores a reading: a checkpoint's heads on samples
 * (dseval.h), rulebot's belief and a reader in play (policies/waitoracle.h),
 * the two on game logs (bench/learn/waits_logs.c). */
#ifndef HY_PLAY_READSCORE_H
#define HY_PLAY_READSCORE_H

#include <stdint.h>

enum { HY_READ_BINS = 1024 };

typedef struct hy_read_tally {
	double ll_sum;
	uint64_t cells, wins;
	uint64_t pos[HY_READ_BINS], neg[HY_READ_BINS];
} hy_read_tally;

/* One cell. */
void hy_read_tally_add(hy_read_tally *t, double p, int y);
/* from's cells into to. */
void hy_read_tally_merge(hy_read_tally *to, const hy_read_tally *from);
/* The mean log-loss per cell, the base rate's (NaN without both kinds of
 * cell), the AUC (NaN likewise). */
double hy_read_tally_logloss(const hy_read_tally *t);
double hy_read_tally_base(const hy_read_tally *t);
double hy_read_tally_auc(const hy_read_tally *t);

#endif
