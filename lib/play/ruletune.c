/* rulebot's parameters tuned by duplicate arenas (see ruletune.h). */
#include "play/ruletune.h"

#include <math.h>

#include "play/arena.h"
#include "play/policies/policies.h"
#include "play/policies/readercheck.h"

void hy_ruletune_opts_default(hy_ruletune_opts *o)
{
	*o = (hy_ruletune_opts){.seed = 1000, .nseeds = 800, .sweeps = 4, .frac = 0.2,
				.margin = 0.002, .threads = 1, .tables = 16};
}

/* The challenger's mean rank with parameters x over the tuning walls. */
static hy_status evaluate(const hy_ruletune_opts *o, hy_policy *opponent,
			  const hy_rule_params *x, double *rank, hy_diag *d)
{
	hy_policy chal;
	hy_status st = hy_policy_open_rulebot_with(&chal, x, d);
	if (st != HY_OK)
		return st;
	if (o->reader && (st = hy_rulebot_read_using(&chal, o->reader, o->read, d)) != HY_OK) {
		hy_policy_close(&chal);
		return st;
	}
	hy_arena_acc acc;
	if ((st = hy_arena_acc_init(&acc, o->nseeds, d)) != HY_OK) {
		hy_policy_close(&chal);
		return st;
	}
	hy_arena_opts ao = {.seed = o->seed, .nseeds = o->nseeds, .tables = o->tables,
			    .threads = o->threads};
	st = hy_arena_run(&ao, &chal, opponent, &acc, d);
	if (st == HY_OK) {
		hy_arena_summary s;
		hy_arena_summarise(&acc, &s);
		if (s.aborted)
			st = hy_diag_set(d, HY_EDATA, 0, "tuning arena: %llu games aborted",
					 (unsigned long long)s.aborted);
		*rank = s.rank.mean;
	}
	hy_arena_acc_free(&acc);
	hy_policy_close(&chal);
	return st;
}

hy_status hy_ruletune_open_reader(hy_ruletune_opts *o, const char *path, hy_diag *d)
{
	hy_rule_params x;
	hy_rule_params_default(&x);
	hy_policy p;
	hy_status st = hy_policy_open_rulebot_with(&p, &x, d);
	if (st != HY_OK)
		return st;
	hy_reader_check *rc = NULL;
	if ((st = hy_reader_check_open(&rc, path, d)) == HY_OK &&
		(st = hy_rulebot_read_using(&p, rc, o->read, d)) == HY_OK)
		o->reader = hy_reader_check_ref(rc);
	hy_reader_check_close(rc);
	hy_policy_close(&p);
	return st;
}

void hy_ruletune_close_reader(hy_ruletune_opts *o)
{
	hy_reader_check_close(o->reader);
	o->reader = NULL;
}

/* v moved by step, clamped to the parameter's range and rounded for a
 * whole-number parameter. */
static double moved(const hy_rule_param_info *in, double v, double step)
{
	double y = v + step;
	y = y < in->lo ? in->lo : y > in->hi ? in->hi : y;
	return in->integer ? round(y) : y;
}

hy_status hy_ruletune_run(const hy_ruletune_opts *o, hy_policy *opponent,
			  const hy_rule_params *start, hy_rule_params *best, double *rank,
			  hy_diag *d)
{
	if (o->nseeds < 3 || o->sweeps < 0 || !(o->frac > 0 && o->frac <= 1) ||
	    !(o->margin >= 0) || o->threads < 1 || o->tables < 1)
		return hy_diag_set(d, HY_EUSAGE, 0, "tuner: bad options");
	hy_rule_params x = *start;
	double fx;
	hy_status st = evaluate(o, opponent, &x, &fx, d);
	if (st == HY_OK && o->on_eval)
		st = o->on_eval(o->ctx, 0, -1, 0, fx, 1);
	double frac = o->frac;
	for (int sweep = 0; st == HY_OK && sweep < o->sweeps; sweep++, frac /= 2) {
		for (int i = 0; st == HY_OK && i < HY_RP_COUNT; i++) {
			if (o->frozen >> i & 1)
				continue;
			const hy_rule_param_info *in = hy_rule_param_info_of(i);
			double step = frac * (in->hi - in->lo);
			if (in->integer && step < 1)
				step = 1;
			for (int sign = 1; st == HY_OK && sign >= -1; sign -= 2) {
				int kept = 0;
				for (;;) {
					hy_rule_params y = x;
					y.v[i] = moved(in, x.v[i], sign * step);
					if (y.v[i] == x.v[i])
						break;
					double fy;
					if ((st = evaluate(o, opponent, &y, &fy, d)) != HY_OK)
						break;
					int keep = fy < fx - o->margin;
					if (o->on_eval &&
					    (st = o->on_eval(o->ctx, sweep, i, y.v[i], fy, keep)) != HY_OK)
						break;
					if (!keep)
						break;
					x = y;
					fx = fy;
					kept = 1;
				}
				if (kept)
					break; /* the other direction undoes this one */
			}
		}
	}
	if (st != HY_OK)
		return st;
	*best = x;
	*rank = fx;
	return HY_OK;
}
