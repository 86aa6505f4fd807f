/* AdamW with decoupled weight decay on conv/linear weights only, linear
 * warmup then cosine decay of the learning rate, global gradient-norm
 * clipping (ARCHITECTURE.md §8). */
#ifndef HY_NN_OPTIM_H
#define HY_NN_OPTIM_H

#include <stdint.h>

#include "nn/model.h"

typedef struct hy_nn_optim_cfg {
	float lr;       /* peak, 5e-4                       */
	float lr_min;   /* end of the cosine, 1e-5          */
	float beta1, beta2, eps, wd; /* 0.9, 0.999, 1e-8, 0.01 */
	float clip;     /* global-norm clip, 1.0 (≤ 0: none) */
	int64_t warmup; /* steps of linear warmup            */
	int64_t total;  /* steps of the whole schedule; 0 = open-ended:
			 * warmup, then the peak LR until the data ends */
} hy_nn_optim_cfg;

/* ARCHITECTURE.md §8 defaults; warmup = 5% of total (0 for an open-ended schedule:
 * the caller sets one). */
void hy_nn_optim_defaults(hy_nn_optim_cfg *c, int64_t total_steps);

/* LR of 0-based step s: peak·(s+1)/warmup during warmup, then
 * lr_min + ½(peak − lr_min)(1 + cos(π·min(1, (s − warmup)/(total − warmup))));
 * with total = 0 (open-ended) the peak after the warmup. */
float hy_nn_lr_at(const hy_nn_optim_cfg *c, int64_t s);

typedef struct hy_nn_step_info {
	double grad_norm; /* before clipping */
	float lr;
} hy_nn_step_info;

/* One update from m->g: global norm, clip, AdamW with step count *step + 1;
 * increments *step. */
void hy_nn_optim_step(const hy_nn_model *m, const hy_nn_optim_cfg *c, int64_t *step,
	hy_nn_step_info *info);

/* Global L2 norm of the gradients (double, fixed reduction order). */
double hy_nn_grad_norm(const hy_nn_model *m);

#endif
