/* The random policy: uniform over the legal actions, drawn from the
 * request's key alone. */
#include <math.h>

#include "play/policies/policies.h"

static hy_status random_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			       hy_diag *d)
{
	(void)p;
	(void)d;
	for (size_t i = 0; i < n; i++) {
		uint64_t m = req[i].legal;
		int k = __builtin_popcountll(m);
		int r = (int)(hy_policy_uniform(req[i].key, 0) * k);
		if (r >= k)
			r = k - 1;
		while (r--)
			m &= m - 1;
		out[i].index = __builtin_ctzll(m);
		out[i].logp = -logf((float)k);
		out[i].value = 0.0f;
		if (req[i].probs)
			for (uint64_t b = req[i].legal; b; b &= b - 1)
				req[i].probs[__builtin_ctzll(b)] = 1.0f / (float)k;
	}
	return HY_OK;
}

static void random_free(hy_policy *p)
{
	(void)p;
}

static const hy_policy_ops random_ops = {random_decide, NULL, random_free, NULL};

hy_status hy_policy_open_random(hy_policy *p, const char *arg, const hy_policy_opts *o,
	hy_diag *d)
{
	(void)arg;
	(void)o;
	(void)d;
	p->ops = &random_ops;
	p->impl = NULL;
	p->stochastic = 1;
	p->has_value = 0;
	p->has_probs = 1;
	p->concurrent = 1;
	return HY_OK;
}
