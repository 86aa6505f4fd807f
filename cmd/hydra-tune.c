/* hydra-tune: rulebot's parameters tuned by self-play arenas against a
 * fixed yardstick (issue 20's stronger teacher). Option parsing and wiring
 * only: the search is lib/play/ruletune, the parameters lib/play/ruleparams. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "play/policy.h"
#include "play/policies/ruleparams.h"
#include "play/ruletune.h"


typedef struct run {
	hy_cli *cli;
	int evals;
	double t0;
} run;

static hy_status on_eval(void *ctx, int sweep, int param, double value, double rank, int kept)
{
	run *r = ctx;
	r->evals++;
	if (hy_cli_quiet(r->cli) || (!kept && !hy_cli_verbose(r->cli)))
		return HY_OK;
	char t[32];
	hy_cli_hms(hy_cli_now() - r->t0, t, sizeof t);
	if (param < 0)
		hy_cli_say(r->cli, "start: mean rank %.4f (%s)", rank, t);
	else
		hy_cli_say(r->cli, "sweep %d: %s=%g %s mean rank %.4f (evaluation %d, %s)",
			    sweep + 1, hy_rule_param_info_of(param)->name, value,
			    kept ? "kept," : "not kept,", rank, r->evals, t);
	return HY_OK;
}

/* The --freeze list as a bit set; 2 after a usage message. */
static int parse_freeze(hy_cli *cli, const char *list, uint64_t *mask)
{
	char buf[1024];
	if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
		return hy_cli_usage(cli, "--freeze list too long");
	for (char *save, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		int i = hy_rule_param_index(s);
		if (i < 0)
			return hy_cli_usage(cli, "--freeze: unknown rulebot parameter '%s'", s);
		*mask |= 1ull << i;
	}
	return 0;
}

/* --freeze's row (cli/opts.h HY_OPT_CALL) */
static int opt_freeze(hy_cli *cli, const char *arg, void *dest)
{
	return parse_freeze(cli, arg, dest);
}

/* The yardstick: a deterministic policy (equal parameters must score
 * alike); 0, or the exit status with the message said. */
static int open_yardstick(hy_cli *cli, const char *opponent, hy_policy *opp)
{
	hy_diag d;
	hy_diag_init(&d, opponent);
	if (hy_policy_open(opp, opponent, NULL, &d) != HY_OK) {
		hy_cli_say(cli, "--opponent '%s': %s", opponent, d.msg);
		return hy_status_exit(d.status);
	}
	if (opp->stochastic) {
		hy_policy_close(opp);
		return hy_cli_usage(cli, "--opponent '%s' samples its moves: the yardstick must be "
				    "deterministic, or equal parameters would score differently",
				    opponent);
	}
	return 0;
}

/* The parameters found, with the search's summary as a comment, atomically
 * to outpath (- for standard output); 0 or the exit status. */
static int write_params(hy_cli *cli, const char *outpath, const hy_ruletune_opts *o,
	const run *r, const char *opponent, const char *reader, double rank,
	const hy_rule_params *best)
{
	hy_output out;
	hy_diag d;
	hy_status st;
	hy_diag_init(&d, strcmp(outpath, "-") ? outpath : NULL);
	if ((st = hy_output_open(&out, outpath, &d)) != HY_OK) {
		hy_cli_diag(cli, &d);
		return hy_status_exit(st);
	}
	fprintf(out.f, "# hydra-tune: %d evaluations of %llu seeds (master seed %llu) against "
		"3 x %s; mean rank %.4f on those walls (biased low)\n",
		r->evals, (unsigned long long)o->nseeds, (unsigned long long)o->seed, opponent, rank);
	if (reader)
		fprintf(out.f, "# for rulebot reading with reader=%s,read=%s: play it as "
			"rulebot:PARAMS,reader=R.h5,read=%s\n", reader, o->read ? o->read : "all",
			o->read ? o->read : "all");
	if (hy_rule_params_write(best, out.f)) {
		hy_output_abort(&out);
		hy_diag_set(&d, HY_EIO, 0, "write error");
		hy_cli_diag(cli, &d);
		return 1;
	}
	if ((st = hy_output_commit(&out, &d)) != HY_OK) {
		hy_cli_diag(cli, &d);
		return hy_status_exit(st);
	}
	return 0;
}

int main(int argc, char **argv)
{
	hy_cli cli;
	hy_cli_init(&cli, "hydra-tune");
	hy_ruletune_opts o;
	hy_ruletune_opts_default(&o);
	o.threads = hy_cli_threads_default();
	const char *outpath = NULL, *opponent = "rulebot", *start = NULL, *reader = NULL;
	/* every option, its range and where it goes (cli/opts.h) */
	const hy_opt table[] = {
		{.type = HY_OPT_TEXT, .help = "usage: hydra-tune [options] -o PARAMS\n"
			 "Tunes the numbers of rulebot (its threat weights, danger model, push/fold\n"
			 "thresholds, discard score, call and riichi rules) by self-play: a pattern\n"
			 "search whose every step is a duplicate arena of rulebot:PARAMS against three\n"
			 "copies of a fixed yardstick, on the same walls each time. Writes the\n"
			 "parameters found as NAME=VALUE lines, the form `rulebot:PARAMS` reads.\n"
			 "The mean rank it reports is measured on the walls it tuned on, so it is\n"
			 "biased low: measure the result with hydra-eval on other seeds.\n"},
		{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &outpath,
		 .arg = "FILE", .help = "where to write the parameters (- for standard output)"},
		{.name = "opponent", .type = HY_OPT_STR, .dest = &opponent,
		 .arg = "P", .help = "the yardstick (default rulebot; a deterministic policy)"},
		{.name = "start", .type = HY_OPT_STR, .dest = &start,
		 .arg = "PARAMS", .help = "start from these parameters (a file or NAME=VALUE list;\n"
			 "default: rulebot's)"},
		{.name = "seeds", .type = HY_OPT_U64, .dest = &o.nseeds, .min = 3, .max = 1000000,
		 .range = "3 to 1000000",
		 .arg = "N", .help = "seeds per evaluation, 4 games each: 3 to 1000000\n"
			 "(default 800)"},
		{.name = "seed", .type = HY_OPT_CALL, .dest = &o.seed, .call = hy_cli_row_seed,
		 .arg = "S", .help = "master seed of the tuning walls (default 1000)"},
		{.name = "sweeps", .type = HY_OPT_INT, .dest = &o.sweeps, .min = 0, .max = 20,
		 .range = "0 to 20",
		 .arg = "N", .help = "passes over the parameters (default 4)"},
		{.name = "step", .type = HY_OPT_DOUBLE, .dest = &o.frac, .lo = 0, .hi = 1,
		 .open_lo = 1, .range = "in (0, 1]",
		 .arg = "F", .help = "first step, a fraction of each range (default 0.2;\n"
			 "halved after each sweep)"},
		{.name = "margin", .type = HY_OPT_DOUBLE, .dest = &o.margin, .lo = 0, .hi = 1,
		 .open_hi = 1, .range = "in [0, 1)",
		 .arg = "M", .help = "a move must lower the mean rank by more (default 0.002)"},
		{.name = "freeze", .type = HY_OPT_CALL, .dest = &o.frozen, .call = opt_freeze,
		 .arg = "LIST", .help = "parameters not to search (comma-separated names)"},
		{.name = "reader", .type = HY_OPT_PATH, .dest = &reader,
		 .arg = "R.h5", .help = "tune rulebot playing with this wait reader as its\n"
			 "belief (rulebot:PARAMS,reader=R.h5; hydra-fit --mode reader)"},
		{.name = "read", .type = HY_OPT_STR, .dest = &o.read,
		 .arg = "MODE", .help = "what it takes from the reader: danger, threats or all\n"
			 "(default all; rulebot:...,read=MODE)"},
		{.name = "tables", .type = HY_OPT_INT, .dest = &o.tables, .min = 1, .max = 4096,
		 .range = "1 to 4096",
		 .arg = "N", .help = "concurrent tables (default 16)"},
		{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &o.threads, .call = hy_cli_row_threads,
		 .arg = "N", .help = "threads (default: the CPUs this process may use)"},
		HY_OPT_DOC_COMMON("no progress lines",
				  "every evaluation, not only the kept moves"),
		{.type = HY_OPT_TEXT, .help = "\n"
			 "Exit status: 0 ok, 1 a failed arena or I/O error, 2 usage, 3 a --reader\n"
			 "that is not a wait reader or of another observation version."},
		{.type = HY_OPT_END},
	};
	int optind_ = 0, rc = hy_cli_parse_opts(&cli, table, 25, argc, argv, &optind_);
	if (rc >= 0)
		return rc;
	optind = optind_;
	if (optind < argc)
		return hy_cli_usage(&cli, "unexpected argument '%s'", argv[optind]);
	if (!outpath)
		return hy_cli_usage(&cli, "no output: give -o PARAMS (- for standard output)");
	hy_diag d;
	hy_rule_params p0;
	hy_rule_params_default(&p0);
	if (start) {
		hy_diag_init(&d, "--start");
		if (hy_rule_params_from_spec(&p0, start, &d) != HY_OK) {
			hy_cli_diag(&cli, &d); /* a bad list is usage, a missing file not */
			return d.status == HY_EUSAGE ? 2 : hy_status_exit(d.status);
		}
	}
	if (o.read && !reader)
		return hy_cli_usage(&cli, "--read needs --reader");
	if (reader) { /* opened once; a bad reader or mode fails now, not after the
		       * start's arena */
		hy_diag_init(&d, reader);
		hy_status cs = hy_ruletune_open_reader(&o, reader, &d);
		if (cs != HY_OK) {
			hy_cli_diag(&cli, &d);
			return cs == HY_EUSAGE ? 2 : hy_status_exit(cs);
		}
	}
	hy_policy opp;
	if ((rc = open_yardstick(&cli, opponent, &opp))) {
		hy_ruletune_close_reader(&o);
		return rc;
	}
	signal(SIGPIPE, SIG_DFL);
	hy_cleanup_install();
	run r = {.cli = &cli, .t0 = hy_cli_now()};
	o.on_eval = on_eval;
	o.ctx = &r;
	hy_rule_params best;
	double rank;
	hy_diag_init(&d, NULL);
	hy_status st = hy_ruletune_run(&o, &opp, &p0, &best, &rank, &d);
	hy_policy_close(&opp);
	hy_ruletune_close_reader(&o);
	if (st != HY_OK) {
		hy_cli_diag(&cli, &d);
		return hy_status_exit(st);
	}
	if ((rc = write_params(&cli, outpath, &o, &r, opponent, reader, rank, &best)))
		return rc;
	if (!hy_cli_quiet(&cli))
		hy_cli_say(&cli, "%d evaluations; mean rank %.4f on the tuning walls", r.evals, rank);
	return hy_cli_finish(&cli, 0);
}
