/* Data-parallel loss normalisation and gradient sum (see grad.h). */
#include "dist/grad.h"

#include <stdlib.h>
#include <string.h>

#include "nn/backend.h"

void hy_dist_loss_local(const hy_nn_work *w, const hy_nn_losses *l, int nslice,
	double v[HY_DIST_LOSS_N])
{
	memset(v, 0, HY_DIST_LOSS_N * sizeof *v);
	if (nslice <= 0)
		return;
	double b = nslice, nt = (double)w->n_known * HY_NN_OPP,
	       nd = (double)w->n_danger * HY_NN_T;
	v[0] = b;
	v[1] = nt;
	v[2] = nd;
	v[3] = l->policy * b;
	v[4] = l->value * b;
	v[5] = l->grp * b;
	v[6] = l->tenpai * nt;
	v[7] = l->danger * nd;
	v[8] = l->correct;
	v[9] = l->n;
}

void hy_dist_loss_global(const double g[HY_DIST_LOSS_N], hy_nn_losses *l)
{
	memset(l, 0, sizeof *l);
	double b = g[0];
	l->policy = b > 0 ? g[3] / b : 0;
	l->value = b > 0 ? g[4] / b : 0;
	l->grp = b > 0 ? g[5] / b : 0;
	l->tenpai = g[1] > 0 ? g[6] / g[1] : 0;
	l->danger = g[2] > 0 ? g[7] / g[2] : 0;
	l->correct = (int)g[8];
	l->n = (int)g[9];
	l->total = HY_NN_W_POLICY * l->policy + HY_NN_W_VALUE * l->value +
		HY_NN_W_GRP * l->grp + HY_NN_W_TENPAI * l->tenpai + HY_NN_W_DANGER * l->danger;
}

void hy_dist_loss_rescale(const hy_nn_model *m, hy_nn_work *w,
	const double local[HY_DIST_LOSS_N], const double global[HY_DIST_LOSS_N])
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const size_t B = (size_t)w->B;
	if (local[0] <= 0)
		return;
	/* hy_nn_loss divided by this slice's counts; the whole batch's are global */
	float sb = (float)(local[0] / global[0]);
	be->scale(c, B * HY_ACTIONS, w->dplog, sb);
	be->scale(c, B, w->dvout, sb);
	be->scale(c, B * HY_GRP_CLASSES, w->dgout, sb);
	if (local[1] > 0)
		be->scale(c, B * HY_NN_OPP, w->dtout, (float)(local[1] / global[1]));
	if (local[2] > 0)
		be->scale(c, B * HY_NN_TP * HY_NN_OPP, w->ddan, (float)(local[2] / global[2]));
}

hy_status hy_dist_grad_sum(const hy_dist *ds, const hy_nn_model *m, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	const size_t n = m->table.total;
	if (m->be == hy_nn_backend_cpu()) /* host memory: in place */
		return hy_dist_sum_f32(ds, m->g, n, d);
	/* device memory: the backend's queued work must be done first */
	hy_status st = m->be->sync ? m->be->sync(m->ctx, d) : HY_OK;
	if (st)
		return st;
	/* a CUDA-aware MPI reads and writes device buffers itself */
	if (hy_dist_cuda_aware())
		return hy_dist_sum_f32(ds, m->g, n, d);
	/* otherwise bucket by bucket through one page-locked host buffer (the
	 * backend's host_alloc; plain memory when it has none) */
	size_t nb = n < HY_DIST_BUCKET ? n : HY_DIST_BUCKET;
	int pinned = m->be->host_alloc && m->be->host_free;
	float *h = pinned ? m->be->host_alloc(nb * sizeof *h) : malloc(nb * sizeof *h);
	if (!h)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (gradient staging buffer)");
	for (size_t o = 0; o < n && !st; o += nb) {
		size_t k = n - o < nb ? n - o : nb;
		m->be->to_host(h, m->g + o, k * sizeof *h);
		st = hy_dist_sum_f32(ds, h, k, d);
		if (!st)
			m->be->to_dev(m->g + o, h, k * sizeof *h);
	}
	if (pinned)
		m->be->host_free(h);
	else
		free(h);
	return st;
}
