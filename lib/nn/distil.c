/* The student's KL from its teacher at a temperature (nn/distil.h). */
#include "nn/distil.h"

#include <math.h>
#include <stddef.h>

#include "samples/sample.h"

/* log softmax of l/τ over the actions of m. */
static void log_softmax_t(const float *l, uint64_t m, double tau, double *lp)
{
	double mx = -INFINITY;
	for (int i = 0; i < HY_ACTIONS; i++)
		if (m >> i & 1 && l[i] / tau > mx)
			mx = l[i] / tau;
	double s = 0;
	for (int i = 0; i < HY_ACTIONS; i++)
		if (m >> i & 1)
			s += exp(l[i] / tau - mx);
	const double lse = mx + log(s);
	for (int i = 0; i < HY_ACTIONS; i++)
		lp[i] = m >> i & 1 ? l[i] / tau - lse : -INFINITY;
}

double hy_nn_distil_kl(int B, const float *logits, const float *teacher,
	const uint64_t *mask, const uint8_t *action, float tau, float coef, float *dlogits)
{
	if (B < 1)
		return 0.0;
	const double t = tau > 0 ? tau : 1.0, inv = 1.0 / B;
	double sum = 0;
	for (int b = 0; b < B; b++) {
		const uint64_t m = (mask[b] | 1ull << action[b]) & ((1ull << HY_ACTIONS) - 1);
		double lp[HY_ACTIONS], lq[HY_ACTIONS], kl = 0;
		log_softmax_t(logits + (size_t)b * HY_ACTIONS, m, t, lp);
		log_softmax_t(teacher + (size_t)b * HY_ACTIONS, m, t, lq);
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1)
				kl += exp(lp[i]) * (lp[i] - lq[i]);
		sum += kl;
		if (!dlogits)
			continue;
		float *dl = dlogits + (size_t)b * HY_ACTIONS;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1)
				dl[i] += (float)(coef * t * inv * exp(lp[i]) * (lp[i] - lq[i] - kl));
	}
	return sum * inv;
}
