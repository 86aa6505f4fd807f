/* Losses over many batches (see evalacc.h). */
#include "nn/evalacc.h"

#include <math.h>
#include <string.h>

void hy_nn_evalacc_add(hy_nn_evalacc *a, const hy_nn_work *w, const hy_nn_losses *l, int n)
{
	double nt = (double)w->n_known * HY_NN_OPP, nd = (double)w->n_danger * HY_NN_T;
	a->sum_policy += l->policy * n;
	a->sum_value += l->value * n;
	a->sum_grp += l->grp * n;
	a->sum_tenpai += l->tenpai * nt;
	a->sum_danger += l->danger * nd;
	a->n_tenpai += nt;
	a->n_danger += nd;
	a->n += n;
	a->correct += l->correct;
}

static double ratio(double x, double n)
{
	return n > 0 ? x / n : NAN;
}

void hy_nn_evalacc_mean(const hy_nn_evalacc *a, const hy_nn_loss_w *lw, hy_nn_losses *out)
{
	memset(out, 0, sizeof *out);
	out->policy = ratio(a->sum_policy, a->n);
	out->value = ratio(a->sum_value, a->n);
	out->grp = ratio(a->sum_grp, a->n);
	out->tenpai = ratio(a->sum_tenpai, a->n_tenpai);
	out->danger = ratio(a->sum_danger, a->n_danger);
	hy_nn_losses z = *out; /* a head without samples counts 0 in the total */
	z.tenpai = a->n_tenpai > 0 ? out->tenpai : 0.0;
	z.danger = a->n_danger > 0 ? out->danger : 0.0;
	out->total = hy_nn_loss_total(lw, &z);
	out->correct = (int)a->correct;
	out->n = (int)a->n;
}
