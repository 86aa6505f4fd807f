/* The learner of a student of a teacher (train/distil.h). */
#include "train/distil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/checkpoint.h"
#include "nn/distil.h"

void hy_train_distil_phase_at(double f, hy_train_distil_phase *p)
{
	static const hy_train_distil_phase table[4] = {
		{1.0f, 1.0f, 1.0f, 1.0f},
		{0.7f, 0.5f, 0.8f, 1.0f},
		{0.3f, 0.2f, 0.5f, 1.0f},
		{0.0f, 0.0f, 0.3f, 0.1f},
	};
	int q = !(f > 0) ? 0 : f >= 1 ? 3 : (int)(f * 4);
	*p = table[q > 3 ? 3 : q];
}

static hy_status distil_loss(hy_train_learner *L, int k, hy_nn_losses *l, hy_diag *d)
{
	hy_train_distil *x = (hy_train_distil *)L;
	const hy_sample *s = x->net.part;
	const hy_nn_backend *be = x->sm->be;
	if (!s || k < 1 || k > x->cap)
		return hy_diag_set(d, HY_EUSAGE, 0, "a student's step of %d samples (1 to %d, read "
			"by the trainer)", k, x->cap);
	hy_train_distil_phase_at(x->total > 0 ? (double)x->step / (double)x->total : 0, &x->ph);
	x->step++;
	x->sm->oracle_scale[0] = x->ph.opp;
	x->sm->oracle_scale[1] = x->ph.wall;
	hy_status st = hy_nn_work_load(L->w, x->sm, s, k, d);
	if (st || (st = hy_nn_work_load(&x->tw, &x->tm, s, k, d)))
		return st;
	hy_nn_forward(x->sm, L->w);
	hy_nn_loss(x->sm, L->w, l); /* the heads, and their output gradients */
	hy_nn_forward(&x->tm, &x->tw);
	if (be->sync && (st = be->sync(x->sm->ctx, d)))
		return st;
	const size_t lb = (size_t)k * HY_ACTIONS * sizeof(float);
	be->to_host(x->logits, L->w->plog, lb);
	be->to_host(x->tlogits, x->tw.plog, lb);
	be->to_host(x->dlogits, L->w->dplog, lb);
	for (int b = 0; b < k; b++) {
		x->mask[b] = s[b].mask;
		x->action[b] = s[b].action;
	}
	double kl = hy_nn_distil_kl(k, x->logits, x->tlogits, x->mask, x->action, x->tau,
		x->ph.lambda, x->dlogits);
	be->to_dev(L->w->dplog, x->dlogits, lb);
	l->total += x->ph.lambda * kl;
	x->kl_sum += kl * k;
	x->kl_n += k;
	if (!isfinite(kl))
		return hy_diag_set(d, HY_EDATA, 0, "the distillation KL is not finite");
	return HY_OK;
}

static void distil_update(hy_train_learner *L, const hy_nn_optim_cfg *opt, int64_t *step,
	hy_nn_step_info *info)
{
	hy_train_distil *x = (hy_train_distil *)L;
	hy_nn_optim_cfg o = *opt;
	o.lr *= x->ph.lr;
	o.lr_min *= x->ph.lr;
	hy_train_net_update(L, &o, step, info);
}

hy_status hy_train_distil_open(hy_train_distil *x, const char *path, float tau,
	hy_nn_model *m, hy_nn_work *w, int cap, int64_t step0, int64_t total, hy_diag *d)
{
	memset(x, 0, sizeof *x);
	hy_train_net_init(&x->net, m, w);
	x->net.L.loss = distil_loss;
	x->net.L.update = distil_update;
	x->sm = m;
	x->tau = tau;
	x->step = step0;
	x->total = total;
	x->cap = cap;
	hy_status st = hy_nn_ckpt_open_frozen(path, "--teacher", m, cap, &x->tm, &x->tw, &x->obs,
		d);
	if (st) {
		memset(&x->tm, 0, sizeof x->tm);
		return st;
	}
	const size_t lb = (size_t)cap * HY_ACTIONS * sizeof(float);
	x->logits = malloc(lb);
	x->tlogits = malloc(lb);
	x->dlogits = malloc(lb);
	x->mask = malloc((size_t)cap * sizeof *x->mask);
	x->action = malloc((size_t)cap);
	if (!x->logits || !x->tlogits || !x->dlogits || !x->mask || !x->action) {
		hy_train_distil_close(x);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for the teacher's outputs");
	}
	hy_train_distil_phase_at(total > 0 ? (double)step0 / (double)total : 0, &x->ph);
	return HY_OK;
}

void hy_train_distil_close(hy_train_distil *x)
{
	if (x->tm.be) {
		hy_nn_work_free(&x->tw, &x->tm);
		hy_nn_model_free(&x->tm);
	}
	free(x->logits);
	free(x->tlogits);
	free(x->dlogits);
	free(x->mask);
	free(x->action);
	memset(x, 0, sizeof *x);
}

void hy_train_distil_metrics(hy_train_distil *x, FILE *f)
{
	if (x->kl_n > 0)
		fprintf(f, ",\"distil_kl\":%.6g", x->kl_sum / x->kl_n);
	else
		fprintf(f, ",\"distil_kl\":null");
	fprintf(f, ",\"distil_lambda\":%.3g,\"oracle_opp\":%.3g,\"oracle_wall\":%.3g,"
		"\"lr_factor\":%.3g", x->ph.lambda, x->ph.opp, x->ph.wall, x->ph.lr);
	x->kl_sum = x->kl_n = 0;
}
