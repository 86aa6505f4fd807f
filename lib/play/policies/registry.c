/* The registry of policies: hy_policy_open (play/policy.h) finds a spec's
 * row, calls its opener (policies.h) and applies the one gate every
 * program shares (a policy that reads the hidden tiles opens only where
 * the caller deals them). Adding a policy is one row here. */
#include "play/policy.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "play/mjaibot.h"
#include "play/policies/policies.h"
#include "play/policies/qlabel.h"
#include "play/policies/search.h"

/* A spec is a row's name alone ("rulebot") or its name, a colon and the
 * opener's argument ("rulebot:PARAMS"); `args`: 0 the name alone only,
 * 1 the argument only, 2 either. */
typedef struct row {
	const char *name;
	int args;
	hy_policy_opener open;
	const char *usage; /* for the message of an unknown spec */
} row;

static const row table[] = {
	{"random", 0, hy_policy_open_random, "random"},
	{"baseline", 0, hy_policy_open_baseline, "baseline"},
	{"rulebot", 2, hy_policy_open_rulebot, "rulebot[:PARAMS]"},
	{"rulebot-waits", 1, hy_policy_open_rulebot_waits,
	 "rulebot-waits:ALPHA[,riichi|tenpai][,logit][,PARAMS]"},
	{"search", 1, hy_policy_open_search, "search:GRP.h5[,K][,DEAL]"},
	{"qlabel", 1, hy_policy_open_qlabel, "qlabel:GRP.h5[,K]"},
	{"mjai", 1, hy_policy_open_mjai, "mjai:COMMAND"},
};

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* The opener of spec (*open) and its argument; a checkpoint (a path ending
 * in .h5 or .hdf5, or any file that exists: hydra-fit's `latest` link) when
 * no row names it; HY_EUSAGE when nothing fits. */
static hy_status find(const char *spec, hy_policy_opener *open, const char **arg, hy_diag *d)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const row *r = &table[i];
		size_t n = strlen(r->name);
		if (strncmp(spec, r->name, n))
			continue;
		if (!spec[n] && r->args != 1) {
			*open = r->open;
			*arg = NULL;
			return HY_OK;
		}
		if (spec[n] == ':' && r->args != 0) {
			if (!spec[n + 1])
				return hy_diag_set(d, HY_EUSAGE, 0, "policy '%s' names nothing after "
					"the colon (want %s)", spec, r->usage);
			*open = r->open;
			*arg = spec + n + 1;
			return HY_OK;
		}
	}
	if (ends_with(spec, ".h5") || ends_with(spec, ".hdf5") || access(spec, F_OK) == 0) {
		*open = hy_policy_open_model;
		*arg = spec;
		return HY_OK;
	}
	char want[512];
	size_t at = 0;
	for (size_t i = 0; i < sizeof table / sizeof table[0] && at < sizeof want; i++)
		at += (size_t)snprintf(want + at, sizeof want - at, "%s, ", table[i].usage);
	return hy_diag_set(d, HY_EUSAGE, 0, "unknown policy '%s' (want %sa checkpoint PATH.h5)",
		spec, want);
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
	const char *arg = NULL;
	hy_policy_opener open = NULL; /* (find sets both, or fails) */
	hy_status st = find(spec, &open, &arg, d);
	if (st == HY_OK)
		st = open(p, arg, o, d);
	if (open != hy_policy_open_model) /* a checkpoint's opener sets its own */
		p->temperature = -1.0f;
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
