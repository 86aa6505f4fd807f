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

#include "core/num.h"
#include "core/status.h"
#include "core/version.h"
#include "dist/dist.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "nn/threads.h"
#include "play/arena.h"
#include "play/dseval.h"
#include "play/gamelog.h"
#include "play/policy.h"
#include "play/report.h"

static const char usage[] =
	"usage: hydra-eval --challenger A --opponent B [options]\n"
	"       hydra-eval --model CKPT --data PATH [PATH...] [options]\n"
	"Arena: the challenger plays against three copies of the opponent on seeded\n"
	"walls, each seed 4 times with the challenger rotating through the seats\n"
	"(duplicate). Dataset mode: policy accuracy per action type and per-head\n"
	"losses of a checkpoint on sample streams or HDF5 shards.\n"
	"A policy is random, baseline, rulebot, a checkpoint PATH.h5, or mjai:COMMAND (an\n"
	"external program speaking the mjai bot protocol on stdin/stdout).\n"
	"\n"
	"Arena:\n"
	"      --challenger A     the challenger's policy\n"
	"      --opponent B       the opponents' policy (three seats)\n"
	"      --seeds N          seeds (walls), each played 4 times (default 100)\n"
	"  -S, --seed S           master seed of the walls (default 0)\n"
	"  -t, --tables T         concurrent tables (default 16)\n"
	"      --temperature X    sampling temperature of checkpoints (default 0:\n"
	"                         greedy)\n"
	"      --bot-timeout SEC  seconds an mjai bot may take per answer (default 10)\n"
	"      --log-dir DIR      write every game's mjai log as gzip'd JSON lines,\n"
	"                         DIR/seed-KKKKKKKK-rR.json.gz (seed K, rotation R)\n"
	"Dataset mode:\n"
	"      --model CKPT       the checkpoint to evaluate\n"
	"      --data PATH        samples (a stream, a shard, or - for stdin);\n"
	"                         repeatable, and further PATH arguments add more\n"
	"  -b, --batch N          samples per forward pass (default 256)\n"
	"Both:\n"
	"  -j, --threads N        CPU threads (default 1)\n"
	"      --device DEV       auto (the default), cpu or cuda, for checkpoints\n"
	"      --json             print one JSON object instead of the table\n"
	"      --table-out FILE   also write the table to FILE (atomically)\n"
	"  -q, --quiet            no progress line\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 an aborted game (a policy failed: reported, left out\n"
	"of the statistics), bad data or I/O error, 2 usage, 3 format or version\n"
	"mismatch, 4 requested device unavailable.\n";

static const char *prog = "hydra-eval";

/* After --help/--version: 0, or 1 when stdout could not take it. */
static int info_done(void)
{
	hy_diag d;
	return hy_stdout_check(&d) ? fprintf(stderr, "%s: standard output: %s\n", prog, d.msg), 1 : 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s: try 'hydra-eval --help'\n", prog);
	return 2;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report_diag(const hy_diag *d)
{
	char buf[1200];
	fprintf(stderr, "%s: %s\n", prog,
		d->source[0] || d->line ? hy_diag_format(d, buf, sizeof buf) : d->msg);
}

typedef struct opts {
	const char *challenger, *opponent, *model, *log_dir, *table_out, *device;
	const char **data;
	size_t ndata;
	uint64_t seeds, seed;
	int tables, threads, batch, json, quiet;
	double temperature, bot_timeout;
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
			report_diag(&d);
			return 1;
		}
	}
	hy_diag_init(&d, NULL);
	st = (o->json ? json : table)(stdout, u, &d);
	if (st == HY_OK && fflush(stdout) != 0)
		st = hy_diag_set(&d, HY_EIO, 0, "write error: %s", strerror(errno));
	if (st) {
		if (errno != EPIPE)
			report_diag(&d);
		return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- arena */

typedef struct arena_ui {
	const opts *o;
	int tty;
	double t0, last;
	uint64_t done, total, aborted;
	hy_gamelog_buf logbuf;
} arena_ui;

static void progress_clear(arena_ui *u)
{
	if (u->tty)
		fputs("\r\033[K", stderr);
}

static hy_status on_game(void *ctx, uint64_t seed, int rotation, const hy_play_game *g,
			 hy_diag *d)
{
	arena_ui *u = ctx;
	u->done++;
	if (g->aborted) {
		u->aborted++;
		progress_clear(u);
		char buf[1200];
		fprintf(stderr, "%s: game aborted (seed %llu, rotation %d): %s\n", prog,
			(unsigned long long)seed, rotation,
			g->d.source[0] || g->d.line ? hy_diag_format(&g->d, buf, sizeof buf)
						    : g->d.msg);
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
	if (u->tty && !u->o->quiet) {
		double t = now_s();
		if (t - u->last >= 0.2 || u->done == u->total) {
			u->last = t;
			double rate = (double)u->done / (t - u->t0 > 0 ? t - u->t0 : 1e-9);
			long eta = (long)((double)(u->total - u->done) / (rate > 0 ? rate : 1) + 0.5);
			fprintf(stderr, "\rgames %llu/%llu  %.1f games/s  ETA %ld:%02ld:%02ld\033[K",
				(unsigned long long)u->done, (unsigned long long)u->total, rate,
				eta / 3600, eta / 60 % 60, eta % 60);
		}
	}
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

static int open_policy(hy_policy *p, const char *spec, const hy_policy_opts *po)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_policy_open(p, spec, po, &d);
	if (st == HY_OK)
		return 0;
	fprintf(stderr, "%s: cannot open policy '%s': %s\n", prog, spec, d.msg);
	if (st == HY_EUNSUP && strcmp(po->device, "cuda") == 0) {
		fprintf(stderr, "%s: requested device unavailable: --device cuda\n", prog);
		return 4;
	}
	if (st == HY_EUSAGE)
		fprintf(stderr, "%s: try 'hydra-eval --help'\n", prog);
	return hy_status_exit(st);
}

/* A failed rank ends the job (the others would wait for its results). */
static int rank_failed(const hy_dist *ds, int rc)
{
	if (rc && ds->size > 1) {
		fprintf(stderr, "%s: rank %d of %d failed; ending all ranks\n", prog, ds->rank,
			ds->size);
		hy_dist_abort(ds, rc);
	}
	return rc;
}

static int run_arena_ranks(const opts *o, const hy_dist *ds);

/* Under mpirun the seeds are shared out by index (seed k on rank k mod N,
 * lib/dist), every rank writes the logs of its games, and rank 0 gathers
 * the results and reports on all of them. */
static int run_arena(const opts *o)
{
	hy_dist ds;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_dist_init(&ds, &d)) {
		report_diag(&d);
		return 1;
	}
	int rc = rank_failed(&ds, run_arena_ranks(o, &ds));
	hy_dist_free(&ds);
	return rc;
}

static int run_arena_ranks(const opts *o, const hy_dist *ds)
{
	hy_policy_opts po;
	hy_policy_opts_default(&po);
	po.temperature = (float)o->temperature;
	po.threads = o->threads;
	po.bot_timeout = o->bot_timeout;
	po.device = o->device;
	hy_policy chal, opp;
	int rc = open_policy(&chal, o->challenger, &po);
	if (rc)
		return rc;
	if ((rc = open_policy(&opp, o->opponent, &po))) {
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
		report_diag(&d);
		return hy_status_exit(st);
	}
	double t0 = now_s();
	/* this rank's seeds: rank, rank + N, rank + 2N, ... */
	uint64_t mine = hy_dist_stride_count(ds->rank, ds->size, o->seeds);
	arena_ui u = {.o = o, .tty = isatty(STDERR_FILENO) && !o->quiet && ds->rank == 0,
		      .t0 = t0, .last = t0, .total = mine * HY_ARENA_ROTATIONS};
	hy_arena_opts ao = {.seed = o->seed, .nseeds = o->seeds, .tables = o->tables,
			    .threads = o->threads, .on_game = on_game, .ctx = &u,
			    .first = (uint64_t)ds->rank, .count = mine,
			    .stride = (uint64_t)ds->size};
	if (mine)
		st = hy_arena_run(&ao, &chal, &opp, &acc, &d);
	if (!st)
		st = hy_arena_gather(ds, &acc, &d);
	double elapsed = now_s() - u.t0;
	hy_gamelog_free(&u.logbuf);
	if (u.tty && u.done)
		fputc('\n', stderr);
	hy_policy_close(&chal);
	hy_policy_close(&opp);
	if (st) {
		report_diag(&d);
		hy_arena_acc_free(&acc);
		return hy_status_exit(st);
	}
	if (ds->rank > 0) { /* rank 0 reports */
		hy_arena_acc_free(&acc);
		return 0;
	}
	arena_report r = {.info = {.challenger = o->challenger, .opponent = o->opponent,
				   .seed = (unsigned long long)o->seed, .elapsed_s = elapsed}};
	hy_arena_summarise(&acc, &r.s);
	hy_arena_acc_free(&acc);
	rc = emit(o, arena_table, arena_json, &r);
	if (rc == 0 && r.s.aborted) {
		fprintf(stderr, "%s: %llu game%s aborted, left out of the statistics with %s seed%s\n",
			prog, (unsigned long long)r.s.aborted, r.s.aborted == 1 ? "" : "s",
			r.s.seeds_excluded == 1 ? "its" : "their",
			r.s.seeds_excluded == 1 ? "" : "s");
		rc = 1;
	}
	return rc;
}

/* ---------------------------------------------------------------- dataset */

typedef struct ds_ui {
	int tty;
	double last;
} ds_ui;

static void ds_progress(void *p, uint64_t done)
{
	ds_ui *u = p;
	if (!u->tty)
		return;
	double t = now_s();
	if (t - u->last < 0.2)
		return;
	u->last = t;
	fprintf(stderr, "\rsamples %llu\033[K", (unsigned long long)done);
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
	int reads_stdin = o->ndata == 0;
	for (size_t i = 0; i < o->ndata; i++)
		reads_stdin |= strcmp(o->data[i], "-") == 0;
	if (reads_stdin && isatty(STDIN_FILENO)) {
		fprintf(stderr, "%s: no input: standard input is a terminal\n"
			"hint: give sample streams or shards with --data\n", prog);
		return 2;
	}
	ds_ui u = {.tty = isatty(STDERR_FILENO) && !o->quiet};
	hy_dseval_cfg c = {.ckpt = o->model, .paths = o->data, .npaths = o->ndata,
			   .batch = o->batch, .threads = o->threads, .device = o->device,
			   .progress = ds_progress, .u = &u};
	ds_report r = {.model = o->model};
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_dseval_run(&c, &r.r, &d);
	if (u.tty && u.last > 0)
		fputs("\r\033[K", stderr);
	if (st) {
		report_diag(&d);
		if (st == HY_EUNSUP && strncmp(o->device, "cuda", 4) == 0)
			return 4; /* --device cuda without a usable GPU */
		return hy_status_exit(st);
	}
	return emit(o, ds_table, ds_json, &r);
}

/* ---------------------------------------------------------------- main */

enum { O_CHAL = 256, O_OPP, O_TEMP, O_TIMEOUT, O_LOGDIR, O_DEVICE, O_JSON, O_TABLE };

static int eval_main(int argc, char **argv, opts *o)
{
	static const struct option lopts[] = {
		{"challenger", required_argument, 0, O_CHAL},
		{"opponent", required_argument, 0, O_OPP},
		{"seeds", required_argument, 0, 'n'},
		{"seed", required_argument, 0, 'S'},
		{"tables", required_argument, 0, 't'},
		{"threads", required_argument, 0, 'j'},
		{"temperature", required_argument, 0, O_TEMP},
		{"bot-timeout", required_argument, 0, O_TIMEOUT},
		{"log-dir", required_argument, 0, O_LOGDIR},
		{"model", required_argument, 0, 'm'},
		{"data", required_argument, 0, 'd'},
		{"batch", required_argument, 0, 'b'},
		{"device", required_argument, 0, O_DEVICE},
		{"json", no_argument, 0, O_JSON},
		{"table-out", required_argument, 0, O_TABLE},
		{"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},
		{0, 0, 0, 0},
	};
	int64_t v;
	int c;
	while ((c = getopt_long(argc, argv, "S:t:j:b:qhV", lopts, NULL)) != -1) {
		switch (c) {
		case O_CHAL: o->challenger = optarg; break;
		case O_OPP: o->opponent = optarg; break;
		case 'n':
			if (hy_parse_i64(optarg, 1, 100000000, &v))
				return usage_error("bad --seeds '%s': 1 to 100000000", optarg);
			o->seeds = (uint64_t)v;
			break;
		case 'S':
			if (hy_parse_u64(optarg, 0, &o->seed))
				return usage_error("bad --seed '%s': an unsigned 64-bit number", optarg);
			break;
		case 't':
			if (hy_parse_i64(optarg, 1, 65536, &v))
				return usage_error("bad --tables '%s': 1 to 65536", optarg);
			o->tables = (int)v;
			break;
		case 'j':
			if (hy_parse_i64(optarg, 1, 1024, &v))
				return usage_error("bad --threads '%s': 1 to 1024", optarg);
			o->threads = (int)v;
			break;
		case O_TEMP:
			if (hy_parse_double(optarg, &o->temperature) || o->temperature < 0 ||
			    o->temperature > 100)
				return usage_error("bad --temperature '%s': 0 to 100", optarg);
			break;
		case O_TIMEOUT:
			if (hy_parse_double(optarg, &o->bot_timeout) || o->bot_timeout <= 0 ||
			    o->bot_timeout > 86400)
				return usage_error("bad --bot-timeout '%s': seconds, more than 0",
						   optarg);
			break;
		case O_LOGDIR: o->log_dir = optarg; break;
		case 'm': o->model = optarg; break;
		case 'd': o->data[o->ndata++] = optarg; break;
		case 'b':
			if (hy_parse_i64(optarg, 1, 1 << 16, &v))
				return usage_error("bad --batch '%s': 1 to 65536", optarg);
			o->batch = (int)v;
			break;
		case O_DEVICE:
			if (strcmp(optarg, "auto") && strcmp(optarg, "cpu") && strcmp(optarg, "cuda"))
				return usage_error("bad --device '%s': auto, cpu or cuda", optarg);
			o->device = optarg;
			break;
		case O_JSON: o->json = 1; break;
		case O_TABLE: o->table_out = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h': fputs(usage, stdout); return info_done();
		case 'V': printf("hydra-eval (hydra-c) %s\n", HY_VERSION); return info_done();
		default:
			fprintf(stderr, "%s: try 'hydra-eval --help'\n", prog);
			return 2;
		}
	}
	int arena = o->challenger || o->opponent, dataset = o->model || o->ndata;
	if (arena && dataset)
		return usage_error("%s", "the arena (--challenger/--opponent) and dataset mode "
					 "(--model/--data) exclude each other");
	if (!arena && !dataset)
		return usage_error("%s", "nothing to do: give --challenger and --opponent, or "
					 "--model and --data");
	if (arena) {
		if (!o->challenger || !o->opponent)
			return usage_error("%s", "the arena needs both --challenger and --opponent");
		if (optind < argc)
			return usage_error("unexpected argument '%s'", argv[optind]);
	} else {
		if (!o->model)
			return usage_error("%s", "dataset mode needs --model CKPT");
		if (o->log_dir)
			return usage_error("%s", "--log-dir belongs to the arena");
		while (optind < argc)
			o->data[o->ndata++] = argv[optind++];
		if (!o->ndata)
			return usage_error("%s", "dataset mode needs --data PATH");
	}
	hy_cleanup_install();
	return arena ? run_arena(o) : run_dataset(o);
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* first: may start the program again (nn/threads.h) */
	opts o = {.seeds = 100, .tables = 16, .threads = 1, .batch = 256, .device = "auto",
		  .bot_timeout = 10.0};
	/* room for every --data PATH and PATH argument */
	o.data = calloc((size_t)argc + 1, sizeof *o.data);
	if (!o.data) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	int rc = eval_main(argc, argv, &o);
	free(o.data);
	if (fclose(stdout) != 0 && rc == 0) {
		if (errno != EPIPE)
			fprintf(stderr, "%s: write error: %s\n", prog, strerror(errno));
		rc = 1;
	}
	return rc;
}
