/* The degraded wait oracle (see waitoracle.h). */
#include "play/policies/waitoracle.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void drop_reader(hy_wait_oracle *o)
{
	free(o->reader);
	o->reader = NULL;
}

hy_status hy_wait_oracle_parse(hy_wait_oracle *o, const char *spec, const char **rest,
	hy_diag *d)
{
	memset(o, 0, sizeof *o);
	char *end;
	errno = 0;
	double a = strtod(spec, &end);
	if (end == spec || errno || !(a >= 0 && a <= 1) || (*end && *end != ','))
		return hy_diag_set(d, HY_EUSAGE, 0, "wait oracle: ALPHA '%.*s' is not a number "
			"from 0 to 1", (int)strcspn(spec, ","), spec);
	o->alpha = a;
	const char *s = *end ? end + 1 : end;
	for (;;) { /* the flags, in any order */
		size_t n = strcspn(s, ",");
		if (n == 6 && !strncmp(s, "riichi", 6))
			o->every = 0;
		else if (n == 6 && !strncmp(s, "tenpai", 6))
			o->every = 1;
		else if (n == 5 && !strncmp(s, "logit", 5))
			o->logit = 1;
		else if (n >= 7 && !strncmp(s, "reader=", 7)) {
			const char *why = o->reader ? "reader= given twice" : n == 7 ? "empty reader="
				: NULL;
			if (why) {
				drop_reader(o);
				return hy_diag_set(d, HY_EUSAGE, 0, "wait oracle: %s", why);
			}
			if (!(o->reader = strndup(s + 7, n - 7)))
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		} else
			break;
		s += n + (s[n] == ',');
	}
	/* what belongs to the flags, or to rulebot:...,reader=, found among
	 * the parameters that follow */
	for (const char *p = s; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t n = strcspn(p, ",");
		const char *why = n >= 7 && !strncmp(p, "reader=", 7)
			? "reader= comes before the rulebot parameters"
			: n >= 5 && !strncmp(p, "read=", 5)
			? "read= is rulebot's (rulebot:...,reader=R.h5,read=MODE): the oracle "
			  "scores its reader beside the belief, whole"
			: (n == 6 && (!strncmp(p, "riichi", 6) || !strncmp(p, "tenpai", 6))) ||
			  (n == 5 && !strncmp(p, "logit", 5))
			? "riichi, tenpai and logit come before the rulebot parameters" : NULL;
		if (why) {
			drop_reader(o);
			return hy_diag_set(d, HY_EUSAGE, 0, "wait oracle: %s "
				"(rulebot-waits:ALPHA[,riichi|tenpai][,logit][,reader=R.h5][,PARAMS])",
				why);
		}
	}
	if (rest)
		*rest = s;
	pthread_mutex_init(&o->mu, NULL);
	return HY_OK;
}

void hy_wait_oracle_free(hy_wait_oracle *o)
{
	pthread_mutex_destroy(&o->mu);
	free(o->reader);
	o->reader = NULL;
}

int hy_wait_oracle_scope(const hy_wait_oracle *o, const hy_engine *e, int opp)
{
	return o->every || e->p[opp].riichi;
}

uint64_t hy_wait_oracle_truth(const hy_engine *e, int opp)
{
	const hy_player *p = &e->p[opp];
	return hy_player_furiten(p) ? 0 : p->waits;
}

/* The blend of a belief x in [0, 1] with the truth t (0 or 1). */
static double blend(const hy_wait_oracle *o, double x, int t)
{
	if (!o->logit)
		return o->alpha * t + (1 - o->alpha) * x;
	enum { S = 12 }; /* α = 1: the odds ×e^12 ≈ 160,000, past the clamp of 1e-4 */
	x = x < 1e-4 ? 1e-4 : x > 1 - 1e-4 ? 1 - 1e-4 : x;
	double z = log(x / (1 - x)) + (t ? 1 : -1) * o->alpha * S;
	return 1 / (1 + exp(-z));
}

double hy_wait_oracle_tenpai(const hy_wait_oracle *o, const hy_engine *e, int opp, double tau)
{
	if (o->alpha == 0) /* rulebot's own, to the bit */
		return tau;
	return blend(o, tau < 1 ? tau : 1, e->p[opp].waits != 0);
}

double hy_wait_oracle_danger(const hy_wait_oracle *o, const hy_engine *e, int opp, int k,
	double pct)
{
	if (o->alpha == 0)
		return pct;
	return 100 * blend(o, pct / 100, hy_wait_oracle_truth(e, opp) >> k & 1);
}

/* One decision's cells (every opponent in scope, every kind) into *to,
 * under the lock, counting the decision in *decisions when not NULL: the
 * truth of a cell is that o is tenpai and k deals in (the waits themselves
 * say tenpai). */
static void tally(hy_wait_oracle *o, const hy_engine *e, int seat, const double p[4][34],
	hy_read_tally *to, uint64_t *decisions)
{
	hy_read_tally t;
	memset(&t, 0, sizeof t);
	for (int opp = 0; opp < 4; opp++) {
		if (opp == seat || !hy_wait_oracle_scope(o, e, opp))
			continue;
		uint64_t truth = hy_wait_oracle_truth(e, opp);
		for (int k = 0; k < 34; k++)
			hy_read_tally_add(&t, p[opp][k], truth >> k & 1);
	}
	if (!t.cells)
		return;
	pthread_mutex_lock(&o->mu);
	hy_read_tally_merge(to, &t);
	if (decisions)
		(*decisions)++;
	pthread_mutex_unlock(&o->mu);
}

void hy_wait_oracle_tally(hy_wait_oracle *o, const hy_engine *e, int seat,
	const double p[4][34])
{
	tally(o, e, seat, p, &o->belief, &o->decisions);
}

void hy_wait_oracle_tally_reader(hy_wait_oracle *o, const hy_engine *e, int seat,
	const double p[4][34])
{
	tally(o, e, seat, p, &o->read, NULL);
}

void hy_wait_oracle_result(hy_wait_oracle *o, double *ll, double *base, uint64_t *cells,
	uint64_t *decisions)
{
	pthread_mutex_lock(&o->mu);
	const hy_read_tally *t = &o->belief;
	*cells = t->cells;
	*decisions = o->decisions;
	*ll = hy_read_tally_logloss(t);
	*base = t->cells ? hy_read_tally_base(t) : NAN;
	if (t->cells && isnan(*base))
		*base = 0; /* every cell alike: a constant prediction is perfect */
	pthread_mutex_unlock(&o->mu);
}
