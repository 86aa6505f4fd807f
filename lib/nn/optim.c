/* AdamW, the learning-rate schedule and gradient-norm clipping (optim.h). */
#include "nn/optim.h"

#include <math.h>

void hy_nn_optim_defaults(hy_nn_optim_cfg *c, int64_t total_steps)
{
	c->lr = 5e-4f;
	c->lr_min = 1e-5f;
	c->beta1 = 0.9f;
	c->beta2 = 0.999f;
	c->eps = 1e-8f;
	c->wd = 0.01f;
	c->clip = 1.0f;
	c->total = total_steps > 0 ? total_steps : 0; /* 0: open-ended */
	c->warmup = c->total / 20;
}

float hy_nn_lr_at(const hy_nn_optim_cfg *c, int64_t s)
{
	if (s < c->warmup)
		return (float)((double)c->lr * (double)(s + 1) / (double)c->warmup);
	if (c->total <= 0) /* open-ended (a stream of unknown length): constant peak */
		return c->lr;
	double span = (double)(c->total - c->warmup);
	double prog = span > 0 ? (double)(s - c->warmup) / span : 1.0;
	if (prog > 1.0)
		prog = 1.0;
	return (float)(c->lr_min + 0.5 * (c->lr - c->lr_min) * (1.0 + cos(3.141592653589793 * prog)));
}

double hy_nn_grad_norm(const hy_nn_model *m)
{
	/* padding between tensors is zero, so one pass over the block is exact */
	return sqrt(m->be->sumsq(m->ctx, m->table.total, m->g));
}

void hy_nn_optim_step(const hy_nn_model *m, const hy_nn_optim_cfg *c, int64_t *step,
	hy_nn_step_info *info)
{
	const hy_nn_backend *be = m->be;
	double norm = hy_nn_grad_norm(m);
	if (c->clip > 0 && norm > c->clip)
		be->scale(m->ctx, m->table.total, m->g, (float)(c->clip / (norm + 1e-6)));
	float lr = hy_nn_lr_at(c, *step);
	int64_t t = *step + 1;
	float bc1 = (float)(1.0 - pow(c->beta1, (double)t));
	float sbc2 = (float)sqrt(1.0 - pow(c->beta2, (double)t));
	if (be->adamw_tensors) { /* one launch over every tensor (CUDA) */
		be->adamw_tensors(m->ctx, m->table.t, m->table.count, m->w, m->g, m->m, m->v, lr,
			c->beta1, c->beta2, c->eps, c->wd, bc1, sbc2);
	} else { /* the CPU: tensor by tensor */
		for (int i = 0; i < m->table.count; i++) {
			const hy_nn_tensor *x = &m->table.t[i];
			be->adamw(m->ctx, x->size, m->w + x->offset, m->g + x->offset,
				m->m + x->offset, m->v + x->offset, lr, c->beta1, c->beta2, c->eps,
				x->decay ? c->wd : 0.0f, bc1, sbc2);
		}
	}
	*step = t;
	if (info) {
		info->grad_norm = norm;
		info->lr = lr;
	}
}
