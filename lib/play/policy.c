/* Policy options, closing, one decision with its distribution, keys and the
 * shared uniform draw (see policy.h). Opening by spec is the registry's
 * (policies/registry.c). */
#include "play/policy.h"

#include <stdio.h>
#include <string.h>

void hy_policy_opts_default(hy_policy_opts *o)
{
	memset(o, 0, sizeof *o);
	o->temperature = 1.0f;
	o->threads = 1;
	o->bot_timeout = 10.0;
	o->device = "cpu";
}

void hy_policy_close(hy_policy *p)
{
	if (p && p->ops && p->ops->free)
		p->ops->free(p);
	if (p)
		memset(p, 0, sizeof *p);
}

hy_status hy_policy_decide_one(hy_policy *p, const hy_decision *q, hy_choice *c,
			       float probs[HY_ACTIONS], hy_diag *d)
{
	hy_decision r = *q;
	memset(probs, 0, HY_ACTIONS * sizeof probs[0]);
	r.probs = p->has_probs ? probs : NULL;
	c->index = -1;
	c->logp = 0;
	c->value = 0;
	c->act.type = HY_ACT_NONE;
	c->why[0] = '\0';
	hy_status st = p->ops->decide(p, 1, &r, c, d);
	if (st != HY_OK)
		return st;
	if (c->index < 0 || c->index >= HY_ACTIONS || !(q->legal >> c->index & 1))
		return hy_diag_set(d, HY_EUSAGE, 0, "policy chose index %d, not legal", c->index);
	if (!p->has_probs)
		probs[c->index] = 1.0f;
	return HY_OK;
}

/* splitmix64 finaliser: a bijective 64-bit mix. */
static uint64_t mix64(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

uint64_t hy_policy_key(uint64_t seed, uint64_t game, uint64_t decision, int seat)
{
	uint64_t h = mix64(seed ^ UINT64_C(0x6879647261706f6c)); /* "hydrapol" */
	h = mix64(h ^ game);
	h = mix64(h ^ decision);
	return mix64(h ^ (uint64_t)(unsigned)seat);
}

double hy_policy_uniform(uint64_t key, uint64_t counter)
{
	uint64_t x = mix64(key ^ mix64(counter + UINT64_C(0x5851F42D4C957F2D)));
	return (double)(x >> 11) * 0x1.0p-53;
}
