/* The PPO loss and its output gradients (see ppo.h for the equations). */
#include "nn/ppo.h"

#include <math.h>
#include <string.h>

#include "samples/sample.h"

void hy_nn_ppo_defaults(hy_nn_ppo_cfg *c)
{
	c->clip = 0.2f;
	c->vf_coef = 0.5f;
	c->ent_coef = 0.01f;
	c->norm_adv = 1;
}

/* log Σ exp(l_i) over the legal set m of one row, from its maximum. */
static double log_sum_exp(const float *l, uint64_t m)
{
	double mx = -INFINITY;
	for (int i = 0; i < HY_ACTIONS; i++)
		if (m >> i & 1 && l[i] > mx)
			mx = l[i];
	double se = 0;
	for (int i = 0; i < HY_ACTIONS; i++)
		if (m >> i & 1)
			se += exp(l[i] - mx);
	return mx + log(se);
}

void hy_nn_ppo_loss(const hy_nn_ppo_cfg *c, int B, const float *logits, const uint64_t *mask,
	const uint8_t *action, const float *logp_old, const float *adv, const float *value,
	const float *ret, float *dlogits, float *dvalue, hy_nn_ppo_stats *st)
{
	memset(st, 0, sizeof *st);
	if (B < 1)
		return;
	st->n = B;
	/* per-batch advantage normalisation (population std) */
	double mean = 0, var = 0;
	for (int b = 0; b < B; b++)
		mean += adv[b];
	mean /= B;
	for (int b = 0; b < B; b++)
		var += (adv[b] - mean) * (adv[b] - mean);
	var /= B;
	/* The spread is floored at a thousandth of the returns' scale (RMS
	 * of R): advantages that agree closer than that are equal up to the
	 * value's float rounding, which differs between the rows of one
	 * batch (about 1e-7 of it); divided by their own spread they would be
	 * rounding blown up to unit size, and the policy would walk on it —
	 * the constant-reward probe (tests/unit/test_ppo_probes.c) moved p
	 * from 0.49 to 0.90 with nothing to learn. */
	double rms = 0;
	for (int b = 0; b < B; b++)
		rms += (double)ret[b] * ret[b];
	rms = sqrt(rms / B);
	const double sd = sqrt(var), floor_sd = 1e-3 * rms;
	double denom = (sd > floor_sd ? sd : floor_sd) + 1e-8;
	const double eps = c->clip, inv = 1.0 / B;
	double s_surr = 0, s_val = 0, s_ent = 0, s_kl = 0;
	int clipped = 0;
	for (int b = 0; b < B; b++) {
		const float *l = logits + (size_t)b * HY_ACTIONS;
		const int a = action[b];
		const uint64_t m = mask[b] | 1ull << a;
		const double lse = log_sum_exp(l, m);
		double H = 0;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1) {
				double lp = l[i] - lse;
				H -= exp(lp) * lp;
			}
		const double logp = l[a] - lse, lr = logp - logp_old[b], r = exp(lr);
		const double A = c->norm_adv ? (adv[b] - mean) / denom : adv[b];
		const double rc = r < 1 - eps ? 1 - eps : r > 1 + eps ? 1 + eps : r;
		const double u = r * A, k = rc * A;
		s_surr += u < k ? u : k;
		const int active = !((A > 0 && r > 1 + eps) || (A < 0 && r < 1 - eps));
		const double g = active ? u : 0.0;
		clipped += fabs(r - 1) > eps;
		s_kl += (r - 1) - lr;
		s_ent += H;
		const double e = (double)value[b] - ret[b];
		s_val += e * e;
		st->sum_ret += ret[b];
		st->sum_ret2 += (double)ret[b] * ret[b];
		st->sum_err -= e;
		st->sum_err2 += e * e;
		if (dlogits) {
			float *dl = dlogits + (size_t)b * HY_ACTIONS;
			for (int i = 0; i < HY_ACTIONS; i++) {
				if (!(m >> i & 1)) {
					dl[i] = 0.0f;
					continue;
				}
				double lp = l[i] - lse, p = exp(lp);
				dl[i] = (float)(inv * (-g * ((i == a) - p) + c->ent_coef * p * (lp + H)));
			}
		}
		if (dvalue)
			dvalue[b] = (float)(2.0 * c->vf_coef * inv * e);
	}
	st->surrogate = s_surr * inv;
	st->value = s_val * inv;
	st->entropy = s_ent * inv;
	st->approx_kl = s_kl * inv;
	st->clip_frac = (double)clipped * inv;
	st->loss = -st->surrogate + c->vf_coef * st->value - c->ent_coef * st->entropy;
}

void hy_nn_ppo_stats_add(hy_nn_ppo_stats *a, const hy_nn_ppo_stats *b)
{
	int n = a->n + b->n;
	if (n == 0)
		return;
	double wa = (double)a->n / n, wb = (double)b->n / n;
	a->loss = wa * a->loss + wb * b->loss;
	a->surrogate = wa * a->surrogate + wb * b->surrogate;
	a->value = wa * a->value + wb * b->value;
	a->entropy = wa * a->entropy + wb * b->entropy;
	a->approx_kl = wa * a->approx_kl + wb * b->approx_kl;
	a->clip_frac = wa * a->clip_frac + wb * b->clip_frac;
	a->sum_ret += b->sum_ret;
	a->sum_ret2 += b->sum_ret2;
	a->sum_err += b->sum_err;
	a->sum_err2 += b->sum_err2;
	a->n = n;
}

double hy_nn_ppo_explained_var(const hy_nn_ppo_stats *s)
{
	if (s->n < 1)
		return NAN;
	double n = s->n, mr = s->sum_ret / n, me = s->sum_err / n;
	double vr = s->sum_ret2 / n - mr * mr, ve = s->sum_err2 / n - me * me;
	if (!(vr > 1e-12))
		return NAN;
	return 1.0 - ve / vr;
}

/* Log-softmax of one row over the legal set m. */
static void log_softmax(const float *l, uint64_t m, double *lp)
{
	const double lse = log_sum_exp(l, m);
	for (int i = 0; i < HY_ACTIONS; i++)
		lp[i] = m >> i & 1 ? l[i] - lse : -INFINITY;
}

double hy_nn_ppo_anchor(int B, const float *logits, const float *anchor, const uint64_t *mask,
	const uint8_t *action, float coef, float *dlogits)
{
	if (B < 1)
		return 0.0;
	const double inv = 1.0 / B;
	double kl = 0;
	for (int b = 0; b < B; b++) {
		const uint64_t m = mask[b] | 1ull << action[b];
		double lp[HY_ACTIONS], la[HY_ACTIONS];
		log_softmax(logits + (size_t)b * HY_ACTIONS, m, lp);
		log_softmax(anchor + (size_t)b * HY_ACTIONS, m, la);
		float *dl = dlogits ? dlogits + (size_t)b * HY_ACTIONS : NULL;
		for (int i = 0; i < HY_ACTIONS; i++) {
			if (!(m >> i & 1))
				continue;
			const double pa = exp(la[i]), p = exp(lp[i]);
			kl += pa * (la[i] - lp[i]);
			if (dl)
				dl[i] += (float)(coef * inv * (p - pa));
		}
	}
	return kl * inv;
}
