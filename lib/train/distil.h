/* A student of a teacher (issue 52 step 2; ARCHITECTURE.md §8, "A student of
 * the oracle"): hydra-fit --teacher. The learner of a supervised run whose
 * loss adds to the heads' the design's distillation term, λ·KL(π_S,τ ‖
 * π_T,τ) (nn/distil.h), the teacher frozen and run on the same samples; a
 * student with the oracle planes (hy_nn_arch.oracle) has them faded by the
 * design's dropout table, by quarters of the run:
 *
 *   run fraction   opponents' planes   wall's planes   λ      learning rate
 *   [0, 1/4)       1.0                 1.0             1.0    the schedule's
 *   [1/4, 1/2)     0.7                 0.5             0.8    the schedule's
 *   [1/2, 3/4)     0.3                 0.2             0.5    the schedule's
 *   [3/4, 1]       0                   0               0.3    × 0.1
 *
 * (the design's steps 0/50K/100K/150K, kept in proportion at this scale),
 * so that at the end the student reads only the 85 public planes and can be
 * written as an 85-plane model (hydra-export --weights --strip-oracle). */
#ifndef HY_TRAIN_DISTIL_H
#define HY_TRAIN_DISTIL_H

#include <stdio.h>

#include "train/step.h"

typedef struct hy_train_distil_phase {
	float opp, wall; /* the oracle planes' scales        */
	float lambda;    /* the KL term's weight             */
	float lr;        /* factor on the optimiser's rates  */
} hy_train_distil_phase;

/* The table at fraction f of the run (clamped to [0, 1]). */
void hy_train_distil_phase_at(double f, hy_train_distil_phase *p);

typedef struct hy_train_distil {
	hy_train_net net;      /* first: its L is the learner        */
	hy_nn_model *sm;       /* the student (its oracle scales set) */
	hy_nn_model tm;        /* the teacher, frozen                 */
	hy_nn_work tw;
	float tau;
	int obs;               /* the teacher's observation version    */
	int64_t total;         /* the run's steps: the table's quarters */
	int64_t step;          /* the step of the next loss            */
	hy_train_distil_phase ph; /* of the last step                  */
	int cap;
	float *logits, *tlogits, *dlogits;
	uint64_t *mask;
	uint8_t *action;
	double kl_sum, kl_n;   /* since the last metrics line          */
} hy_train_distil;

/* Opens the teacher `path` (a policy checkpoint, with or without the
 * oracle planes) on the student's backend, for batches of up to cap
 * samples; step0 is the run's first step, total its steps. The samples of
 * a step are the net's part (net.part, set by the caller as for the net). */
hy_status hy_train_distil_open(hy_train_distil *x, const char *path, float tau,
	hy_nn_model *m, hy_nn_work *w, int cap, int64_t step0, int64_t total, hy_diag *d);
void hy_train_distil_close(hy_train_distil *x);
/* The metrics line's fields (",\"distil_kl\":…"), since the last call. */
void hy_train_distil_metrics(hy_train_distil *x, FILE *f);

#endif
