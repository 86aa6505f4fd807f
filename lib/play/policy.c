/* Policy specs, keys and the shared uniform draw (see policy.h). */
#include "play/policy.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "play/builtin.h"
#include "play/mjaibot.h"
#include "play/qlabel.h"
#include "play/search.h"

void hy_policy_opts_default(hy_policy_opts *o)
{
	memset(o, 0, sizeof *o);
	o->temperature = 1.0f;
	o->threads = 1;
	o->bot_timeout = 10.0;
	o->device = "cpu";
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

hy_status hy_policy_open(hy_policy *p, const char *spec, const hy_policy_opts *o, hy_diag *d)
{
	hy_policy_opts def;
	if (!o) {
		hy_policy_opts_default(&def);
		o = &def;
	}
	memset(p, 0, sizeof *p);
	if (!spec || !*spec)
		return hy_diag_set(d, HY_EUSAGE, 0, "empty policy spec");
	hy_status st;
	if (strcmp(spec, "random") == 0)
		st = hy_policy_open_random(p, d);
	else if (strcmp(spec, "baseline") == 0)
		st = hy_policy_open_baseline(p, d);
	else if (strcmp(spec, "rulebot") == 0)
		st = hy_policy_open_rulebot(p, NULL, d);
	else if (strncmp(spec, "rulebot:", 8) == 0)
		st = hy_policy_open_rulebot(p, spec + 8, d);
	else if (strncmp(spec, "rulebot-waits:", 14) == 0)
		st = hy_policy_open_rulebot_waits(p, spec + 14, d);
	else if (strncmp(spec, "search:", 7) == 0)
		st = hy_policy_open_search(p, spec + 7, d);
	else if (strncmp(spec, "qlabel:", 7) == 0)
		st = hy_policy_open_qlabel(p, spec + 7, d);
	else if (strncmp(spec, "mjai:", 5) == 0)
		st = spec[5] ? hy_mjaibot_policy_open(p, spec + 5, o, d)
			     : hy_diag_set(d, HY_EUSAGE, 0, "policy 'mjai:' names no command");
	else if (ends_with(spec, ".h5") || ends_with(spec, ".hdf5") || access(spec, F_OK) == 0)
		st = hy_policy_open_model(p, spec, o, d);
	else
		st = hy_diag_set(d, HY_EUSAGE, 0,
				 "unknown policy '%s' (want random, baseline, rulebot[:PARAMS], "
				 "search:GRP.h5[,K][,DEAL], qlabel:GRP.h5, a checkpoint PATH.h5 "
				 "or mjai:COMMAND)",
				 spec);
	if (st != HY_OK) {
		memset(p, 0, sizeof *p);
		return st;
	}
	if (p->oracle && !o->hidden) {
		hy_policy_close(p);
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "policy '%s' reads the hidden tiles (the other hands, the wall), "
				   "which this program does not have: only self-play and the arena "
				   "deal them (hydra-sp --label-by, hydra-eval --oracle)", spec);
	}
	snprintf(p->name, sizeof p->name, "%s", spec);
	return HY_OK;
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
