/* hydra-eval: the duplicate arena (a challenger against three copies of an
 * opponent, ARCHITECTURE.md §9) and dataset metrics of a checkpoint. Option parsing,
 * messages, progress and output files only: the arena is lib/play/arena,
 * the dataset evaluation lib/play/dseval, the reports lib/play/report. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/models.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "mpi/mpi.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "nn/threads.h"
#include "play/arena.h"
#include "play/dseval.h"
#include "play/gamelog.h"
#include "play/policy.h"
#include "play/report.h"


typedef struct opts {
	hy_cli *cli;
	const char *challenger, *opponent, *model, *log_dir, *table_out, *device;
	const char **data;
	size_t ndata;
	uint64_t seeds, seed;
	int tables, threads, batch, json, sequential, oracle;
	double temperature, bot_timeout;
	char shipped[4096]; /* the shipped policy, when none is named */
	hy_nn_device dev;    /* --device, resolved once (cli/options.h) */
} opts;

/* ---------------------------------------------------------------- output */

/* Writes the table to --table-out (first, so that a closed standard output
 * does not lose it), then the report (JSON or table) on stdout. */
typedef hy_status (*table_fn)(FILE *f, const void *u, hy_diag *d);

static int emit(const opts *o, table_fn table, table_fn json, const void *u)
{
	hy_diag d;
	hy_status st;
	if (o->table_out) {
		hy_output out;
		hy_diag_init(&d, o->table_out);
		if ((st = hy_output_open(&out, o->table_out, &d)) == HY_OK) {
			if ((st = table(out.f, u, &d)) == HY_OK)
				st = hy_output_commit(&out, &d);
			else
				hy_output_abort(&out);
		}
		if (st) {
			hy_cli_diag(o->cli, &d);
			return 1;
		}
	}
	hy_diag_init(&d, NULL);
	st = (o->json ? json : table)(stdout, u, &d);
	if (st == HY_OK && fflush(stdout) != 0)
		st = hy_diag_set(&d, HY_EIO, 0, "write error: %s", strerror(errno));
	if (st) {
		if (errno != EPIPE)
			hy_cli_diag(o->cli, &d);
		return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- arena */

typedef struct arena_ui {
	const opts *o;
	uint64_t done, total, aborted;
	hy_gamelog_buf logbuf;
} arena_ui;

static hy_status on_game(void *ctx, uint64_t seed, int rotation, const hy_play_game *g,
			 hy_diag *d)
{
	arena_ui *u = ctx;
	u->done++;
	if (g->aborted) {
		u->aborted++;
		char buf[1200];
		hy_cli_say(u->o->cli, "game aborted (seed %llu, rotation %d): %s",
			(unsigned long long)seed, rotation, hy_cli_diag_text(&g->d, buf, sizeof buf));
	}
	if (u->o->log_dir && g->log && !g->aborted) {
		char path[PATH_MAX];
		int n = snprintf(path, sizeof path, "%s/seed-%08llu-r%d.json.gz", u->o->log_dir,
				 (unsigned long long)seed, rotation);
		if (n < 0 || (size_t)n >= sizeof path)
			return hy_diag_set(d, HY_EUSAGE, 0, "log directory name too long");
		hy_status st = hy_gamelog_write(path, g->log, &u->logbuf, d);
		if (st)
			return st;
	}
	hy_cli_progress_count(u->o->cli, "games", u->done, u->total, u->done == u->total);
	return HY_OK;
}

typedef struct arena_report {
	hy_report_arena_info info;
	hy_arena_summary s;
} arena_report;

static hy_status arena_table(FILE *f, const void *u, hy_diag *d)
{
	const arena_report *r = u;
	return hy_report_arena_table(f, &r->info, &r->s, d);
}

static hy_status arena_json(FILE *f, const void *u, hy_diag *d)
{
	const arena_report *r = u;
	return hy_report_arena_json(f, &r->info, &r->s, d);
}

/* (the device was resolved before: hy_cli_device_resolve, in po->dev) */
static int open_policy(const opts *o, hy_policy *p, const char *spec, const hy_policy_opts *po)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_policy_open(p, spec, po, &d);
	if (st == HY_OK)
		return 0;
	if (st == HY_EUSAGE)
		return hy_cli_usage(o->cli, "cannot open policy '%s': %s", spec, d.msg);
	hy_cli_say(o->cli, "cannot open policy '%s': %s", spec, d.msg);
	return hy_status_exit(st);
}

/* A failed rank ends the job (the others would wait for its results). */
static int rank_failed(const opts *o, const hy_mpi *ds, int rc)
{
	if (rc && ds->size > 1) {
		hy_cli_say(o->cli, "rank %d of %d failed; ending all ranks", ds->rank, ds->size);
		hy_mpi_abort(ds, rc);
	}
	return rc;
}

static int run_arena_ranks(const opts *o, const hy_mpi *ds);

/* Under mpirun the seeds are shared out by index (seed k on rank k mod N,
 * lib/mpi), every rank writes the logs of its games, and rank 0 gathers
 * the results and reports on all of them. */
static int run_arena(const opts *o)
{
	hy_mpi ds;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_mpi_init(&ds, &d)) {
		hy_cli_diag(o->cli, &d);
		return 1;
	}
	int rc = o->sequential && ds.size > 1
		? hy_cli_usage(o->cli, "--sequential decides after each look in one process: run it "
			"without mpirun (or give --seeds without --sequential)")
		: rank_failed(o, &ds, run_arena_ranks(o, &ds));
	hy_mpi_free(&ds);
	return rc;
}

static int run_arena_ranks(const opts *o, const hy_mpi *ds)
{
	hy_policy_opts po;
	hy_policy_opts_default(&po);
	po.temperature = (float)o->temperature;
	po.threads = o->threads;
	po.bot_timeout = o->bot_timeout;
	po.device = o->device;
	po.dev = &o->dev;
	po.hidden = 1; /* the arena deals the hidden tiles (--oracle gates who reads them) */
	hy_policy chal, opp;
	int rc = open_policy(o, &chal, o->challenger, &po);
	if (rc)
		return rc;
	if ((rc = open_policy(o, &opp, o->opponent, &po))) {
		hy_policy_close(&chal);
		return rc;
	}
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_arena_acc acc;
	hy_status st = hy_arena_acc_init(&acc, o->seeds, &d);
	if (st) {
		hy_policy_close(&chal);
		hy_policy_close(&opp);
		hy_cli_diag(o->cli, &d);
		return hy_status_exit(st);
	}
	if (ds->rank > 0) /* rank 0 draws the progress line */
		o->cli->tty = 0;
	hy_cli_progress_start(o->cli);
	/* this rank's seeds: rank, rank + N, rank + 2N, ... */
	uint64_t mine = hy_mpi_stride_count(ds->rank, ds->size, o->seeds);
	arena_ui u = {.o = o, .total = mine * HY_ARENA_ROTATIONS};
	hy_arena_opts ao = {.seed = o->seed, .nseeds = o->seeds, .tables = o->tables,
			    .threads = o->threads, .on_game = on_game, .ctx = &u,
			    .first = (uint64_t)ds->rank, .count = mine,
			    .stride = (uint64_t)ds->size, .allow_oracle = o->oracle};
	hy_arena_seq q;
	int looks = 0, decided = 0;
	hy_arena_summary ls;
	if (o->sequential) { /* one process (checked): look after look */
		hy_arena_seq_plan(HY_ARENA_SEQ_FIRST, o->seeds, &q);
		for (uint64_t prev = 0; !st && !decided && looks < q.n; looks++) {
			ao.first = prev;
			ao.count = q.look[looks] - prev;
			st = hy_arena_run(&ao, &chal, &opp, &acc, &d);
			prev = q.look[looks];
			hy_arena_acc view = acc; /* the seeds played so far */
			view.nseeds = prev;
			hy_arena_summarise_at(&view, q.conf, &ls);
			decided = hy_arena_decided(&ls);
		}
	} else if (mine) {
		st = hy_arena_run(&ao, &chal, &opp, &acc, &d);
	}
	if (!st)
		st = hy_arena_gather(ds, &acc, &d);
	double elapsed = hy_cli_now() - o->cli->t0;
	hy_gamelog_free(&u.logbuf);
	hy_cli_progress_end(o->cli);
	int read_hidden = chal.oracle || opp.oracle;
	for (int i = 0; !st && ds->rank == 0 && i < 2; i++) { /* what a policy measured */
		hy_policy *pp = i ? &opp : &chal;
		char line[512];
		if (pp->ops->report && pp->ops->report(pp, line, sizeof line))
			hy_cli_say(o->cli, "%s %s: %s", i ? "opponent" : "challenger", pp->name, line);
	}
	const double chal_temp = chal.temperature, opp_temp = opp.temperature;
	hy_policy_close(&chal);
	hy_policy_close(&opp);
	if (st) {
		hy_cli_diag(o->cli, &d);
		hy_arena_acc_free(&acc);
		return hy_status_exit(st);
	}
	if (ds->rank > 0) { /* rank 0 reports */
		hy_arena_acc_free(&acc);
		return 0;
	}
	arena_report r = {.info = {.challenger = o->challenger, .opponent = o->opponent,
				   .chal_temp = chal_temp, .opp_temp = opp_temp,
				   .seed = (unsigned long long)o->seed, .elapsed_s = elapsed,
				   .seq = o->sequential ? &q : NULL, .looks = looks,
				   .decided = decided}};
	hy_arena_acc view = acc; /* a sequential run: the seeds of the looks made */
	if (o->sequential)
		view.nseeds = q.look[looks - 1];
	hy_arena_summarise_at(&view, o->sequential ? q.conf : 0.95, &r.s);
	hy_arena_acc_free(&acc);
	rc = emit(o, arena_table, arena_json, &r);
	if (rc == 0 && read_hidden)
		hy_cli_say(o->cli, "--oracle: a policy read the hidden tiles; the figures say what "
				   "reading them is worth, not a player's strength");
	if (rc == 0 && r.s.aborted) {
		hy_cli_say(o->cli, "%llu game%s aborted, left out of the statistics with %s seed%s",
			(unsigned long long)r.s.aborted, r.s.aborted == 1 ? "" : "s",
			r.s.seeds_excluded == 1 ? "its" : "their",
			r.s.seeds_excluded == 1 ? "" : "s");
		rc = 1;
	}
	return rc;
}

/* ---------------------------------------------------------------- dataset */

static void ds_progress(void *cli, uint64_t done)
{
	hy_cli_progress(cli, 0, "samples %llu", (unsigned long long)done);
}

typedef struct ds_report {
	const char *model;
	hy_dseval_result r;
} ds_report;

static hy_status ds_table(FILE *f, const void *u, hy_diag *d)
{
	const ds_report *r = u;
	return hy_report_dseval_table(f, r->model, &r->r, d);
}

static hy_status ds_json(FILE *f, const void *u, hy_diag *d)
{
	const ds_report *r = u;
	return hy_report_dseval_json(f, r->model, &r->r, d);
}

static int run_dataset(const opts *o)
{
	if (hy_cli_stdin(o->cli, o->data, o->ndata, 1, "sample streams or shards"))
		return 2;
	hy_dseval_cfg c = {.ckpt = o->model, .paths = o->data, .npaths = o->ndata,
			   .batch = o->batch, .threads = o->threads, .device = o->device,
			   .dev = &o->dev, .progress = ds_progress, .u = o->cli};
	ds_report r = {.model = o->model};
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_dseval_run(&c, &r.r, &d);
	hy_cli_progress_clear(o->cli);
	if (st) {
		hy_cli_diag(o->cli, &d);
		return hy_status_exit(st);
	}
	return emit(o, ds_table, ds_json, &r);
}

/* ---------------------------------------------------------------- main */

/* --data's row (cli/opts.h): repeatable */
static int opt_data(hy_cli *cli, const char *arg, void *dest)
{
	(void)cli;
	opts *o = dest;
	o->data[o->ndata++] = arg;
	return 0;
}

/* The arena's operands: the opponent, the challenger (the shipped policy
 * when none is named); 0 or a usage error. */
static int arena_args(opts *o, int argc, char **argv)
{
	hy_cli *cli = o->cli;
	if (!o->opponent)
		return hy_cli_usage(cli, "the arena needs --opponent");
	if (optind < argc)
		return hy_cli_usage(cli, "unexpected argument '%s'", argv[optind]);
	return hy_cli_model_default(cli, &o->challenger, HY_MODEL_POLICY, "challenger",
		"give --challenger A", o->shipped, sizeof o->shipped);
}

/* Dataset mode's operands: the model (the shipped policy when none is
 * named) and the data; 0 or a usage error. */
static int dataset_args(opts *o, int argc, char **argv)
{
	hy_cli *cli = o->cli;
	if (o->sequential)
		return hy_cli_usage(cli, "--sequential belongs to the arena");
	if (o->oracle)
		return hy_cli_usage(cli, "--oracle belongs to the arena");
	if (o->log_dir)
		return hy_cli_usage(cli, "--log-dir belongs to the arena");
	while (optind < argc)
		o->data[o->ndata++] = argv[optind++];
	if (!o->ndata)
		return hy_cli_usage(cli, "dataset mode needs --data PATH");
	if (hy_cli_paths(cli, o->data, o->ndata, "--data path"))
		return 2;
	return hy_cli_model_default(cli, &o->model, HY_MODEL_POLICY, "model", "give --model CKPT",
		o->shipped, sizeof o->shipped);
}

static int eval_main(int argc, char **argv, opts *o)
{
	hy_cli *cli = o->cli;
	const hy_opt table[] = { /* cli/opts.h */
		{.type = HY_OPT_TEXT, .help = "usage: hydra-eval [--challenger A] --opponent B [options]\n"
			 "       hydra-eval [--model CKPT] --data PATH [PATH...] [options]\n"
			 "Arena: the challenger plays against three copies of the opponent on seeded\n"
			 "walls, each seed 4 times with the challenger rotating through the seats\n"
			 "(duplicate). Dataset mode: policy accuracy per action type and per-head\n"
			 "losses of a checkpoint on sample streams or HDF5 shards.\n"
			 "A policy is random, baseline, rulebot, rulebot:PARAMS (rulebot with other\n"
			 "numbers: NAME=VALUE[,...] or a file of them; hydra-tune(1) lists them),\n"
			 "search:GRP.h5[,K][,DEAL] (rulebot with a rollout lookahead; DEAL:\n"
			 "MODEL.h5 to guess the hidden hands from a checkpoint's tenpai and danger\n"
			 "heads, or an oracle: oracle-who, oracle-tenpai, oracle),\n"
			 "rulebot-waits:ALPHA[,riichi|tenpai][,reader=R.h5][,PARAMS] (an oracle:\n"
			 "rulebot's belief about the waits blended with the truth at ALPHA, 0 to 1;\n"
			 "a wait reader R scored beside it on the same cells), a checkpoint\n"
			 "PATH.h5, or mjai:COMMAND (an external program speaking the mjai bot\n"
			 "protocol on stdin/stdout).\n"
			 "\n"
			 "Arena:"},
		{.name = "challenger", .type = HY_OPT_STR, .dest = &o->challenger,
		 .arg = "A", .help = "the challenger's policy (" HY_CLI_MODEL_HELP ")"},
		{.name = "opponent", .type = HY_OPT_STR, .dest = &o->opponent,
		 .arg = "B", .help = "the opponents' policy (three seats)"},
		{.name = "seeds", .type = HY_OPT_U64, .dest = &o->seeds, .min = 1, .max = 100000000,
		 .range = "1 to 100000000",
		 .arg = "N", .help = "seeds (walls), each played 4 times (default 100)"},
		{.name = "sequential", .type = HY_OPT_FLAG, .dest = &o->sequential,
		 .help = "play looks of 100, 200, 400 ... seeds up to --seeds\n"
			 "and stop at the first whose interval of the mean\n"
			 "rank excludes 2.5 (each look at 1 - 0.05/looks:\n"
			 "95% over all of them); one process only"},
		{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &o->seed,
		 .call = hy_cli_row_seed,
		 .arg = "S", .help = "master seed of the walls (decimal or 0x hex;\n"
			 "default 0)"},
		{.name = "tables", .key = 't', .type = HY_OPT_INT, .dest = &o->tables, .min = 1,
		 .max = 65536, .range = "1 to 65536",
		 .arg = "T", .help = "concurrent tables (default 16)"},
		{.name = "temperature", .type = HY_OPT_DOUBLE, .dest = &o->temperature, .lo = 0,
		 .hi = 100, .range = "0 to 100",
		 .arg = "X", .help = "sampling temperature of checkpoints (default 0:\n"
			 "greedy)"},
		{.name = "bot-timeout", .type = HY_OPT_DOUBLE, .dest = &o->bot_timeout, .lo = 0,
		 .hi = 86400, .open_lo = 1, .range = "seconds, more than 0",
		 .arg = "SEC", .help = "seconds an mjai bot may take per answer (default 10)"},
		{.name = "log-dir", .type = HY_OPT_PATH, .dest = &o->log_dir,
		 .arg = "DIR", .help = "write every game's mjai log as gzip'd JSON lines,\n"
			 "DIR/seed-KKKKKKKK-rR.json.gz (seed K, rotation R)"},
		{.name = "oracle", .type = HY_OPT_FLAG, .dest = &o->oracle,
		 .help = "let a policy that reads the hidden tiles play (the\n"
			 "search oracles): what reading the hands is worth,\n"
			 "a diagnostic, not a player's strength"},
		{.type = HY_OPT_TEXT, .help = "Dataset mode:"},
		{.name = "model", .type = HY_OPT_PATH, .dest = &o->model,
		 .arg = "CKPT", .help = "the checkpoint to evaluate (default: the shipped\n"
			 "policy, as for --challenger)"},
		{.name = "data", .type = HY_OPT_CALL, .dest = o, .call = opt_data,
		 .arg = "PATH", .help = "samples (a stream, a shard, or - for stdin);\n"
			 "repeatable, and further PATH arguments add more"},
		{.name = "batch", .key = 'b', .type = HY_OPT_INT, .dest = &o->batch, .min = 1,
		 .max = 1 << 16, .range = "1 to 65536",
		 .arg = "N", .help = "samples per forward pass (default 256)"},
		{.type = HY_OPT_TEXT, .help = "Both:"},
		{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &o->threads,
		 .call = hy_cli_row_threads,
		 .arg = "N", .help = "CPU threads (default: the CPUs this process may use)"},
		{.name = "cpu-path", .type = HY_OPT_CALL, .call = hy_cli_row_cpu_path,
			 .arg = "P", .help = HY_CLI_CPU_PATH_HELP},
		{.name = "device", .type = HY_OPT_CALL, .dest = &o->device, .call = hy_cli_row_device,
		 .arg = "DEV", .help = "checkpoints' device: auto (the default: the GPU when\n"
			 "one is usable, else the CPU), cpu, cuda or cuda:N"},
		{.name = "json", .type = HY_OPT_FLAG, .dest = &o->json,
		 .help = "print one JSON object instead of the table"},
		{.name = "table-out", .type = HY_OPT_PATH, .dest = &o->table_out,
		 .arg = "FILE", .help = "also write the table to FILE (atomically)"},
		HY_OPT_DOC_COMMON("no progress line",
				  "say the device and the threads"),
		{.type = HY_OPT_TEXT, .help = "\n"
			 "Exit status: 0 ok, 1 an aborted game (a policy failed: reported, left out\n"
			 "of the statistics), bad data or I/O error, 2 usage, 3 format or version\n"
			 "mismatch, 4 requested device unavailable."},
		{.type = HY_OPT_END},
	};
	int operands, prc = hy_cli_parse_opts(cli, table, 25, argc, argv, &operands);
	if (prc >= 0)
		return prc;
	optind = operands;
	int arena = o->challenger || o->opponent, dataset = o->model || o->ndata;
	if (arena && dataset)
		return hy_cli_usage(cli, "the arena (--challenger/--opponent) and dataset mode "
					 "(--model/--data) exclude each other");
	if (!arena && !dataset)
		return hy_cli_usage(cli, "nothing to do: give --challenger and --opponent, or "
					 "--model and --data");
	if ((prc = arena ? arena_args(o, argc, argv) : dataset_args(o, argc, argv)))
		return prc;
	int rc = hy_cli_device_resolve(cli, o->device, o->threads, &o->dev);
	if (rc)
		return rc;
	hy_cleanup_install();
	return arena ? run_arena(o) : run_dataset(o);
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* first: may start the program again (nn/threads.h) */
	hy_cli cli;
	hy_cli_init(&cli, "hydra-eval");
	opts o = {.cli = &cli, .seeds = 100, .tables = 16, .threads = hy_cli_threads_default(),
		  .batch = 256, .device = "auto", .bot_timeout = 10.0};
	/* room for every --data PATH and PATH argument */
	o.data = calloc((size_t)argc + 1, sizeof *o.data);
	if (!o.data) {
		hy_cli_say(&cli, "out of memory");
		return 1;
	}
	int rc = eval_main(argc, argv, &o);
	free(o.data);
	return hy_cli_finish(&cli, rc);
}
