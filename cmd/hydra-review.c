/* hydra-review: a game reviewed by a policy, as a page a player reads
 * (lib/review/html.h) or as JSON (lib/review/json.h). Option parsing and
 * wiring only: the walk over the decisions is lib/review/review.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/models.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "core/version.h"
#include "docs/source.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "nn/threads.h"
#include "play/policy.h"
#include "play/policies/readercheck.h"
#include "review/html.h"
#include "review/json.h"
#include "review/review.h"


enum { MAX_SEATS = 16 };

typedef struct job {
	hy_cli cli;
	hy_policy pol;
	const char *seat_arg[MAX_SEATS];
	int nseat_arg;
	uint64_t want;     /* 1-based game wanted */
	uint64_t seen;     /* games delivered */
	int done, rc;
	hy_review r;
	hy_reader_check *reader;       /* --reader's, opened once          */
	char shipped[4096], shipped_reader[4096];
} job;

/* The seats to review in g, from the --seat arguments; -1 with a message
 * when a name is not among the game's players. */
static int seats_of(job *j, const hy_game *g)
{
	if (j->nseat_arg == 0) {
		unsigned k = hy_review_known_seats(g);
		if (!k)
			hy_cli_say(&j->cli, "%s: game %llu shows no player's hand at every kyoku",
				g->source ? g->source : "-", (unsigned long long)j->want);
		return k ? (int)k : -1;
	}
	int mask = 0;
	for (int i = 0; i < j->nseat_arg; i++) {
		const char *a = j->seat_arg[i];
		int64_t v;
		int s = hy_parse_i64(a, 0, 3, &v) == 0 ? (int)v : hy_review_seat_of(g, a);
		if (s == -2) {
			hy_cli_say(&j->cli, "%s: game %llu has several players named '%s': give "
				"the seat, 0-3", g->source ? g->source : "-",
				(unsigned long long)j->want, a);
			return -1;
		}
		if (s < 0 && hy_parse_i64(a, INT64_MIN, INT64_MAX, &v) == 0) {
			hy_cli_say(&j->cli, "%s: game %llu: --seat '%s': a seat is 0-3 (and no player "
				"is named '%s')", g->source ? g->source : "-",
				(unsigned long long)j->want, a, a);
			return -1;
		}
		if (s < 0) {
			hy_cli_say(&j->cli, "%s: game %llu has no player named '%s'",
				g->source ? g->source : "-", (unsigned long long)j->want, a);
			return -1;
		}
		mask |= 1 << s;
	}
	return mask;
}

static hy_status on_game(void *ctx, hy_game *g)
{
	job *j = ctx;
	if (++j->seen != j->want)
		return HY_OK;
	j->done = 1;
	int seats = seats_of(j, g);
	if (seats < 0) {
		j->rc = 1;
		return HY_STOP;
	}
	hy_diag d;
	hy_diag_init(&d, g->source);
	d.game = g->index;
	hy_status st = hy_review_game(&j->r, g, (unsigned)seats, &j->pol, &d);
	if (st != HY_OK) {
		hy_cli_diag(&j->cli, &d);
		j->rc = hy_status_exit(st);
		return HY_STOP;
	}
	/* the rest is read too, not reviewed: only the end of a stream (its
	 * trailer and checksum, or its producer's ABORT record) says that the
	 * game reviewed was delivered whole */
	return HY_OK;
}

static int write_out(job *j, const char *path, int json)
{
	hy_output out;
	hy_diag d;
	hy_diag_init(&d, path ? path : "standard output");
	hy_status st = hy_output_open(&out, path, &d);
	if (st == HY_OK) {
		if (json) {
			char *txt;
			size_t n;
			st = hy_review_json(&j->r, &txt, &n, &d);
			if (st == HY_OK) {
				fwrite(txt, 1, n, out.f);
				fputc('\n', out.f);
				free(txt);
				if (ferror(out.f))
					st = hy_diag_set(&d, HY_EIO, 0, "write error: %s",
							 strerror(errno));
			}
		} else {
			st = hy_review_write_html(&j->r, out.f, &d);
		}
		if (st == HY_OK)
			st = hy_output_commit(&out, &d);
		else
			hy_output_abort(&out);
	}
	if (st != HY_OK) {
		hy_cli_diag(&j->cli, &d);
		return hy_status_exit(st);
	}
	return 0;
}


/* The shipped policy when no --model is given (a usage error when there
 * is none), the shipped reader when no --reader is given (none when there
 * is none: said), no reader for "none". */
static int shipped_models(job *j, const char **model, const char **reader)
{
	hy_cli *cli = &j->cli;
	int rc;
	if ((rc = hy_cli_model_default(cli, model, HY_MODEL_POLICY, "reviewer",
		"give --model CKPT.h5 (or rulebot, baseline, random)", j->shipped,
		sizeof j->shipped)))
		return rc;
	if (*reader && !strcmp(*reader, "none")) {
		*reader = NULL;
	} else if (!*reader) {
		int found = hy_cli_model_find(HY_MODEL_READER, j->shipped_reader,
			sizeof j->shipped_reader);
		if (found)
			*reader = j->shipped_reader;
		if (!hy_cli_quiet(cli) && found)
			hy_cli_say(cli, "no wait reader named: the shipped one, %s (models/README.md)",
				*reader);
		else if (!hy_cli_quiet(cli))
			hy_cli_say(cli, "no wait reader named and none shipped (looked in %s): the "
				"page shows no deal-in danger", j->shipped_reader);
	}
	return 0;
}

/* The reviewer and the wait reader (NULL: none), each opened once. */
static int open_models(job *j, const char *model, const hy_policy_opts *po, const char *reader,
	double threat)
{
	hy_diag d;
	hy_diag_init(&d, model);
	hy_status st = hy_policy_open(&j->pol, model, po, &d);
	if (st == HY_OK && reader) {
		hy_diag_init(&d, reader);
		if ((st = hy_reader_check_open_as(&j->reader, reader, "--reader", &d)) != HY_OK)
			hy_policy_close(&j->pol);
		else
			hy_review_set_reader(&j->r, j->reader, reader, threat);
	}
	if (st != HY_OK) {
		hy_cli_diag(&j->cli, &d);
		return st == HY_EUSAGE ? 2 : hy_status_exit(st);
	}
	return 0;
}

/* --seat's row (cli/opts.h): a seat or a name, repeatable. */
static int opt_seat(hy_cli *cli, const char *arg, void *dest)
{
	job *j = dest;
	if (j->nseat_arg == MAX_SEATS)
		return hy_cli_usage(cli, "too many --seat options (at most %d)", MAX_SEATS);
	if (!*arg)
		return hy_cli_usage(cli, "--seat needs a seat 0-3 or a player's name");
	j->seat_arg[j->nseat_arg++] = arg;
	return 0;
}

static int review_main(int argc, char **argv, job *j)
{
	const char *model = NULL, *output = NULL, *reader = NULL;
	double threat = HY_REVIEW_THREAT;
	hy_policy_opts po;
	hy_policy_opts_default(&po);
	po.temperature = 0.0f;
	po.device = "auto";
	po.threads = hy_cli_threads_default();
	hy_cli *cli = &j->cli;
	int json = 0;
	j->want = 1;
	const hy_opt table[] = { /* cli/opts.h */
		{.type = HY_OPT_TEXT, .help = "usage: hydra-review [--model POLICY] [options] LOG...\n"
			 "Reviews one game with a policy: for every decision of the reviewed seats,\n"
			 "the situation, the action played, the policy's most probable actions with\n"
			 "their probabilities, its value, and a mark where the played action had a\n"
			 "probability below 10%; a summary (agreement, mean probability of the played\n"
			 "actions, the costliest departures). Writes one self-contained HTML page, or\n"
			 "the same data as JSON. LOG: any log mjai-parse reads (mjai JSON lines,\n"
			 "Tenhou mjlog, tenhou.net/6 JSON, event streams; compressed, archives,\n"
			 "directories; - for standard input).\n"},
		{.name = "model", .type = HY_OPT_STR, .dest = &model,
		 .arg = "POLICY", .help = "the reviewer: a checkpoint PATH.h5, rulebot,\n"
			 "baseline or random (" HY_CLI_MODEL_HELP ")"},
		{.name = "reader", .type = HY_OPT_STR, .dest = &reader,
		 .arg = "R.h5", .help = "the wait reader whose deal-in danger the page shows\n"
			 "per tile against riichi and read tenpai (hydra-fit\n"
			 "--mode reader; default: the shipped one,\n"
			 "models/reader.h5, when there is one; none: no\n"
			 "danger)"},
		{.name = "threat", .type = HY_OPT_DOUBLE, .dest = &threat, .lo = 0, .hi = 1,
		 .range = "0 to 1",
		 .arg = "P", .help = "an opponent not in riichi threatens from this\n"
			 "tenpai probability by the reader (default 0.5)"},
		{.name = "seat", .type = HY_OPT_CALL, .dest = j, .call = opt_seat,
		 .arg = "SEAT", .help = "review seat 0-3, or the seat of the player of that\n"
			 "name (start_game names); repeatable (default:\n"
			 "every seat whose hand the log shows)"},
		{.name = "game", .type = HY_OPT_U64, .dest = &j->want, .min = 1, .max = INT64_MAX,
		 .range = "1 or more",
		 .arg = "N", .help = "review the Nth game of the input (default 1)"},
		{.name = "json", .type = HY_OPT_FLAG, .dest = &json,
		 .help = "write the review's data as JSON instead of the page"},
		{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &output,
		 .arg = "FILE", .help = "write to FILE (atomically) instead of standard output"},
		{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &po.threads, .call = hy_cli_row_threads,
		 .arg = "N", .help = "CPU threads of a checkpoint (default: the CPUs this\n"
			 "process may use)"},
		{.name = "cpu-path", .type = HY_OPT_CALL, .call = hy_cli_row_cpu_path,
			 .arg = "P", .help = HY_CLI_CPU_PATH_HELP},
		{.name = "device", .type = HY_OPT_CALL, .dest = &po.device, .call = hy_cli_row_device,
		 .arg = "DEV", .help = "a checkpoint's device: auto (the default: the GPU\n"
			 "when one is usable, else the CPU), cpu, cuda or\n"
			 "cuda:N"},
		HY_OPT_DOC_COMMON("no notices (errors still go to stderr)",
				  "say the device and the threads"),
		{.type = HY_OPT_TEXT, .help = "\n"
			 "Exit status: 0 ok, 1 bad data (an event the seat's view rejects), a game\n"
			 "that is not there or I/O error, 2 usage, 3 format or version mismatch, 4\n"
			 "requested device unavailable."},
		{.type = HY_OPT_END},
	};
	int first, prc = hy_cli_parse_opts(cli, table, 25, argc, argv, &first), rc;
	if (prc >= 0)
		return prc;
	optind = first;
	if (model && strncmp(model, "mjai:", 5) == 0)
		return hy_cli_usage(cli, "--model '%s': an external bot gives no probabilities", model);
	if (optind == argc)
		return hy_cli_usage(cli, "no LOG to review");
	hy_nn_device dev; /* resolved once, handed down */
	if ((rc = hy_cli_device_resolve(cli, po.device, po.threads, &dev)))
		return rc;
	po.dev = &dev;
	if ((rc = shipped_models(j, &model, &reader)))
		return rc;
	if (hy_cli_paths(cli, (const char *const *)argv + optind, (size_t)(argc - optind),
		"LOG path"))
		return 2;
	hy_cli_stdin(cli, (const char *const *)argv + optind, (size_t)(argc - optind), 0,
		"a game log");
	hy_cleanup_install();
	if ((rc = open_models(j, model, &po, reader, threat)))
		return rc;
	hy_game_sink sink = {.game = on_game, .bad = NULL, .ctx = j};
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_source_parse_paths((const char *const *)argv + optind,
		(size_t)(argc - optind), &sink, NULL, &d);
	rc = j->rc;
	if (st != HY_OK && st != HY_STOP && rc == 0) {
		hy_cli_diag(cli, &d);
		rc = hy_status_exit(st);
	} else if (rc == 0 && !j->done) {
		hy_cli_say(cli, "the input holds %llu game%s: no game %llu", (unsigned long long)j->seen, j->seen == 1 ? "" : "s",
			(unsigned long long)j->want);
		rc = 1;
	}
	if (rc == 0)
		rc = write_out(j, output, json);
	hy_policy_close(&j->pol);
	hy_reader_check_close(j->reader);
	return rc;
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* first: may start the program again (nn/threads.h) */
	job *j = calloc(1, sizeof *j);
	if (!j) {
		fputs("hydra-review: out of memory\n", stderr);
		return 1;
	}
	hy_cli_init(&j->cli, "hydra-review");
	hy_review_init(&j->r);
	int rc = review_main(argc, argv, j);
	hy_review_free(&j->r);
	hy_cli cli = j->cli;
	free(j);
	return hy_cli_finish(&cli, rc);
}
