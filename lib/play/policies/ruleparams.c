/* rulebot's named parameters (see ruleparams.h). */
#include "play/policies/ruleparams.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Defaults: rulebot as written (rulebot.c's header). Ranges: what a tuner
 * may try, wide enough to hold any sensible value, narrow enough that a
 * step of a tenth of the range is a change one arena can see. */
static const hy_rule_param_info info[HY_RP_COUNT] = {
	[HY_RP_THREAT_OPEN3] = {"threat_open3", 0.8, 0, 2, 0},
	[HY_RP_THREAT_OPEN2V] = {"threat_open2v", 0.5, 0, 2, 0},
	[HY_RP_THREAT_OPEN2] = {"threat_open2", 0.25, 0, 2, 0},
	[HY_RP_THREAT_DEALER] = {"threat_dealer", 1.5, 1, 3, 0},
	[HY_RP_D_HONOUR1] = {"danger_honour1", 0.5, 0, 10, 0},
	[HY_RP_D_HONOUR2] = {"danger_honour2", 2.0, 0, 10, 0},
	[HY_RP_D_HONOUR3] = {"danger_honour3", 5.0, 0, 15, 0},
	[HY_RP_D_HONOUR4] = {"danger_honour4", 7.0, 0, 15, 0},
	[HY_RP_D_RYANMEN] = {"danger_ryanmen", 3.5, 0, 10, 0},
	[HY_RP_D_KANCHAN] = {"danger_kanchan", 1.2, 0, 5, 0},
	[HY_RP_D_PENCHAN] = {"danger_penchan", 1.0, 0, 5, 0},
	[HY_RP_D_SHANPON3] = {"danger_shanpon3", 1.5, 0, 5, 0},
	[HY_RP_D_SHANPON2] = {"danger_shanpon2", 1.0, 0, 5, 0},
	[HY_RP_D_TANKI] = {"danger_tanki", 0.3, 0, 3, 0},
	[HY_RP_D_DORA] = {"danger_dora", 1.3, 1, 3, 0},
	[HY_RP_PUSH_VALUE] = {"push_value", 5200, 1000, 20000, 1},
	[HY_RP_PUSH_ACCEPT] = {"push_accept", 6, 0, 30, 1},
	[HY_RP_PUSH_WALL] = {"push_wall", 24, 0, 60, 1},
	[HY_RP_PUSH_FAR_VALUE] = {"push_far_value", 48000, 2000, 48000, 1},
	[HY_RP_FOLD_OPEN_SHANTEN] = {"fold_open_shanten", 2, 1, 6, 1},
	[HY_RP_FOLD_OPEN_WEIGHT] = {"fold_open_weight", 0.5, 0, 3, 0},
	[HY_RP_SCORE_DANGER] = {"score_danger", 0.3, 0, 3, 0},
	[HY_RP_SCORE_VALUE] = {"score_value", 500, 100, 5000, 1},
	[HY_RP_SCORE_DORA] = {"score_dora", 3.0, 0, 10, 0},
	[HY_RP_DAMA_VALUE] = {"dama_value", 12000, 3900, 48000, 1},
	[HY_RP_RIICHI_LIVE] = {"riichi_live", 1, 1, 8, 1},
	[HY_RP_RIICHI_WALL] = {"riichi_wall", 0, 0, 40, 1},
	[HY_RP_CALL_TERMINALS] = {"call_terminals", 2, 0, 6, 1},
	[HY_RP_CALL_DORA] = {"call_dora", 1, 0, 3, 1},
	[HY_RP_CALL_TANYAO_SHANTEN] = {"call_tanyao_shanten", 0, 0, 2, 1},
};

const hy_rule_param_info *hy_rule_param_info_of(int i)
{
	return i >= 0 && i < HY_RP_COUNT ? &info[i] : NULL;
}

int hy_rule_param_index(const char *name)
{
	for (int i = 0; i < HY_RP_COUNT; i++)
		if (strcmp(info[i].name, name) == 0)
			return i;
	return -1;
}

void hy_rule_params_default(hy_rule_params *p)
{
	for (int i = 0; i < HY_RP_COUNT; i++)
		p->v[i] = info[i].def;
}

/* One entry "NAME=VALUE" (blanks around either trimmed; n bytes); seen[i]:
 * the line where parameter i was set already, 0 when not yet. */
static hy_status parse_entry(hy_rule_params *p, const char *s, size_t n, unsigned line,
			     unsigned *seen, hy_diag *d)
{
	char buf[128];
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n)
		return HY_OK;
	if (n >= sizeof buf)
		return hy_diag_set(d, HY_EUSAGE, line, "rulebot parameter entry too long");
	memcpy(buf, s, n);
	buf[n] = 0;
	char *eq = strchr(buf, '=');
	if (!eq)
		return hy_diag_set(d, HY_EUSAGE, line, "rulebot parameter '%s': want NAME=VALUE",
				   buf);
	*eq = 0;
	char *name = buf, *val = eq + 1;
	for (char *e = eq; e > name && isspace((unsigned char)e[-1]); *--e = 0)
		;
	while (isspace((unsigned char)*val))
		val++;
	int i = hy_rule_param_index(name);
	if (i < 0)
		return hy_diag_set(d, HY_EUSAGE, line,
				   "unknown rulebot parameter '%s' (hydra-tune(1) lists them)",
				   name);
	if (seen[i]) /* which one was meant cannot be known: neither wins */
		return hy_diag_set(d, HY_EUSAGE, line, "rulebot parameter '%s' given twice (first "
				   "on line %u)", name, seen[i]);
	seen[i] = line;
	char *end;
	errno = 0;
	double x = strtod(val, &end);
	if (end == val || *end || errno || !isfinite(x))
		return hy_diag_set(d, HY_EUSAGE, line, "rulebot parameter '%s': '%s' is not a number",
				   name, val);
	if (x < info[i].lo || x > info[i].hi)
		return hy_diag_set(d, HY_EUSAGE, line,
				   "rulebot parameter '%s': %g outside [%g, %g]", name, x,
				   info[i].lo, info[i].hi);
	if (info[i].integer && x != floor(x))
		return hy_diag_set(d, HY_EUSAGE, line,
				   "rulebot parameter '%s': %g is not a whole number", name, x);
	p->v[i] = x;
	return HY_OK;
}

hy_status hy_rule_params_parse(hy_rule_params *p, const char *text, hy_diag *d)
{
	unsigned line = 1, seen[HY_RP_COUNT] = {0};
	const char *s = text;
	while (*s) {
		size_t n = strcspn(s, ",;\n#");
		hy_status st = parse_entry(p, s, n, line, seen, d);
		if (st != HY_OK)
			return st;
		s += n;
		if (*s == '#')
			s += strcspn(s, "\n");
		if (*s == '\n')
			line++;
		if (*s)
			s++;
	}
	return HY_OK;
}

hy_status hy_rule_params_from_spec(hy_rule_params *p, const char *params, hy_diag *d)
{
	hy_rule_params_default(p);
	if (strchr(params, '=')) /* a list: NAME=VALUE,... */
		return hy_rule_params_parse(p, params, d);
	FILE *f = fopen(params, "r");
	if (!f)
		return hy_diag_set(d, HY_EIO, 0, "cannot open rulebot parameters '%s': %s (a list "
				   "of NAME=VALUE holds '=')", params, strerror(errno));
	char text[8192];
	size_t n = fread(text, 1, sizeof text - 1, f);
	int bad = ferror(f) || !feof(f);
	fclose(f);
	if (bad)
		return hy_diag_set(d, HY_EIO, 0, "cannot read rulebot parameters '%s'%s", params,
				   n == sizeof text - 1 ? ": longer than 8 KiB" : "");
	text[n] = 0;
	hy_status st = hy_rule_params_parse(p, text, d);
	if (st != HY_OK && d) { /* the file and line in the message: callers print it alone */
		char msg[sizeof d->msg];
		snprintf(msg, sizeof msg, "%s", d->msg);
		snprintf(d->msg, sizeof d->msg, "%.200s:%u: %.280s", params, (unsigned)d->line, msg);
	}
	return st;
}

int hy_rule_params_write(const hy_rule_params *p, FILE *f)
{
	for (int i = 0; i < HY_RP_COUNT; i++) {
		fprintf(f, "%s=%.6g", info[i].name, p->v[i]);
		if (p->v[i] != info[i].def)
			fprintf(f, "  # default %.6g", info[i].def);
		fputc('\n', f);
	}
	return ferror(f);
}
