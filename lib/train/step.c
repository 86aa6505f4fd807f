/* One training step for every trainer (see step.h). */
#include "train/step.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "train/ranks.h"

static const char *const head_names[5] = {"policy", "value", "grp", "tenpai", "danger"};

/* The verdict on the whole batch's losses, before anything moves: every
 * rank sees the same losses, so every rank gives the same verdict and none
 * is left waiting in a sum. */
static hy_status check_finite(int64_t step, const hy_nn_losses *l, hy_diag *d)
{
	const double v[5] = {l->policy, l->value, l->grp, l->tenpai, l->danger};
	for (int i = 0; i < 5; i++)
		if (!isfinite(v[i]))
			return hy_diag_set(d, HY_EDATA, 0, "step %lld: loss of head '%s' is %s; "
				"stopping, nothing new saved", (long long)step + 1, head_names[i],
				isnan(v[i]) ? "nan" : "inf");
	if (!isfinite(l->total))
		return hy_diag_set(d, HY_EDATA, 0, "step %lld: total loss is not finite; stopping, "
			"nothing new saved", (long long)step + 1);
	return HY_OK;
}

hy_status hy_train_step(hy_train_learner *L, hy_train_ranks *rk, int k,
	const hy_nn_optim_cfg *opt, int64_t *step, hy_nn_losses *l, hy_nn_step_info *info,
	hy_diag *d)
{
	hy_nn_losses mine;
	memset(&mine, 0, sizeof mine);
	hy_status st;
	if (k > 0 && (st = L->loss(L, k, &mine, d))) {
		if (st == HY_EDATA && d) { /* the step in front of the learner's words */
			char msg[sizeof d->msg];
			snprintf(msg, sizeof msg, "%s", d->msg);
			return hy_diag_set(d, HY_EDATA, 0, "step %lld: %.400s; stopping, nothing new "
				"saved", (long long)*step + 1, msg);
		}
		return st;
	}
	if (rk) {
		if ((st = hy_train_ranks_losses(rk, L->m, L->w, &mine, k, l, d)))
			return st;
	} else {
		*l = mine;
	}
	if ((st = check_finite(*step, l, d)))
		return st;
	if (rk)
		hy_train_ranks_begin(rk, L->m, L->w, k);
	L->backward(L, k);
	if (rk && (st = hy_train_ranks_end(rk, L->m, L->w, d)))
		return st;
	L->update(L, opt, step, info);
	if (!isfinite(info->grad_norm))
		return hy_diag_set(d, HY_EDATA, 0, "step %lld: the gradient norm is %s; stopping, "
			"nothing new saved", (long long)*step, isnan(info->grad_norm) ? "nan" : "inf");
	return HY_OK;
}

/* ---------------------------------------------------------------- the net */

static hy_status net_loss(hy_train_learner *L, int k, hy_nn_losses *l, hy_diag *d)
{
	hy_train_net *n = (hy_train_net *)L;
	hy_status st;
	if (n->part && (st = hy_nn_work_load(L->w, L->m, n->part, k, d)))
		return st;
	hy_nn_forward(L->m, L->w);
	hy_nn_loss(L->m, L->w, l);
	/* the losses are read on the host: the device's queue finishes first */
	return L->m->be->sync ? L->m->be->sync(L->m->ctx, d) : HY_OK;
}

void hy_train_net_backward(hy_train_learner *L, int k)
{
	if (k > 0)
		hy_nn_backward(L->m, L->w);
	else /* nothing to add: zeros go into the sum */
		L->m->be->zero(L->m->g, L->m->table.total * sizeof(float));
}

void hy_train_net_update(hy_train_learner *L, const hy_nn_optim_cfg *opt, int64_t *step,
	hy_nn_step_info *info)
{
	hy_nn_optim_step(L->m, opt, step, info);
}

void hy_train_net_init(hy_train_net *n, const hy_nn_model *m, hy_nn_work *w)
{
	memset(n, 0, sizeof *n);
	n->L = (hy_train_learner){.m = m, .w = w, .loss = net_loss,
		.backward = hy_train_net_backward, .update = hy_train_net_update};
}
