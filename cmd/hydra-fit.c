/* hydra-fit: trains the SE-ResNet policy/value network on training samples
 * (ARCHITECTURE.md §7-8). Option parsing, device choice, messages and progress only:
 * the loop is lib/train/loop, the data sources lib/data/source, the model
 * and optimiser lib/nn. */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "mpi/mpi.h"
#include "train/ckptdir.h"
#include "train/prov.h"
#include "io/cleanup.h"
#include "io/stopsig.h"
#include "io/output.h"
#include "samples/h5.h"
#include "nn/cpupath.h"
#include "nn/model.h"
#include "nn/threads.h"
#include "nn/cuda/cuda.h"
#include "docs/source.h"
#include "train/feed.h"
#include "train/grp.h"
#include "train/loop.h"
#include "train/plan.h"


/* The first SIGINT/SIGTERM asks the trainer to save and stop; a second one
 * ends the program at once, removing any temporary file first (taken by a
 * thread of their own, never on a computing thread: io/stopsig.h). */
static volatile sig_atomic_t stop_flag;

typedef struct ui {
	hy_cli *cli;
	double val_loss;     /* last validation loss shown (NAN: none yet) */
	int full_cpu;        /* --arch full on the CPU: say its speed */
	int batch;
	double t_first;      /* time of step 1 (speed notice) */
} ui;

static void on_progress(void *u, const hy_train_progress *p)
{
	ui *g = u;
	if (hy_cli_quiet(g->cli))
		return;
	if (p->evaluated)
		g->val_loss = p->val_loss;
	if (g->full_cpu && p->step == 1)
		g->t_first = hy_cli_now();
	if (g->full_cpu && p->step == 4) { /* three steps after the first: roughly warm */
		double rate = 3.0 * g->batch / (hy_cli_now() - g->t_first);
		hy_cli_say(g->cli, "the full 40x256 network runs at about %.0f samples/s on this CPU "
			"(%.1f hours per million samples); '--arch small' (6x64) needs about "
			"1/100 of its arithmetic", rate, 1e6 / rate / 3600);
		g->full_cpu = 0;
	}
	char eta[32], of[32] = "", vl[32] = "";
	hy_cli_hms(p->eta_s, eta, sizeof eta);
	if (!isnan(g->val_loss))
		snprintf(vl, sizeof vl, "  val %.4f", g->val_loss);
	if (p->total > 0) /* 0: open-ended, one pass over a stream */
		snprintf(of, sizeof of, "/%" PRId64, p->total);
	if (g->cli->tty) {
		hy_cli_progress(g->cli, p->step == p->total, "step %" PRId64 "%s  loss %.4f%s  "
			"%.0f samples/s%s%s", p->step, of, p->loss_avg, vl, p->samples_per_s,
			p->total > 0 ? "  ETA " : "", p->total > 0 ? eta : "");
		if (p->step == p->total)
			hy_cli_progress_end(g->cli);
	} else if (p->logged) {
		char val[32] = "";
		if (p->evaluated)
			snprintf(val, sizeof val, " val_loss %.4f", p->val_loss);
		hy_cli_say(g->cli, "step %" PRId64 "%s loss %.4f%s %.0f samples/s%s%s", p->step, of,
			p->loss_avg, val, p->samples_per_s, p->total > 0 ? " ETA " : "",
			p->total > 0 ? eta : "");
	}
}

static void on_notice(void *u, const char *msg)
{
	ui *g = u;
	hy_cli_say(g->cli, "%s", msg);
}


/* --feed-only: the feed alone (train/feed.h) over the configured inputs;
 * figures on stdout. */
static int feed_only(hy_cli *cli, const hy_train_cfg *cfg)
{
	const int batch = cfg->batch > 0 ? cfg->batch : 256;
	const int threads = cfg->loader_threads > 0 ? cfg->loader_threads : 1;
	hy_data_cfg dc = {.paths = cfg->inputs, .npaths = cfg->ninputs, .seed = cfg->seed,
		.shuffle_buffer = cfg->shuffle_buffer ? cfg->shuffle_buffer : 8192,
		.one_pass = cfg->steps <= 0};
	const hy_nn_backend *be = cfg->cuda ? hy_nn_backend_cuda() : NULL;
	hy_train_feed_cfg fc = {.batch = batch, .threads = threads, .be = be,
		.compact = hy_train_feed_compact_ok(be)};
	hy_train_feed_stats s;
	double sec;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_train_feed_measure(&dc, &fc, (uint64_t)(cfg->steps > 0 ? cfg->steps : 0),
		&sec, &s, &d);
	if (st) {
		char buf[1200];
		hy_cli_say(cli, "%s", hy_diag_format(&d, buf, sizeof buf));
		return hy_status_exit(st);
	}
	double sps = sec > 0 ? (double)s.samples / sec : 0;
	printf("feed: %llu samples in %llu batches of %d, %.3f s: %.0f samples/s with %d loader "
		"thread%s (%.0f per thread), %s host memory, %s batches (%zu bytes a sample)\n",
		(unsigned long long)s.samples, (unsigned long long)s.batches, batch, sec, sps,
		threads, threads > 1 ? "s" : "", sps / threads, cfg->cuda ? "page-locked" : "plain",
		fc.compact ? "compact" : "fp32", hy_nn_batch_bytes_as(1, fc.compact));
	for (int i = 0; i < s.threads; i++)
		printf("feed: thread %d: %llu samples packed, %.3f s reading, %.3f s packing\n",
			i + 1, (unsigned long long)s.thread_samples[i], s.read_s[i], s.pack_s[i]);
	printf("feed: consumer waited %.3f s\n", s.wait_s);
	return hy_cli_stdout_done(cli);
}

/* Whether the checkpoint a --resume names recorded input files (not
 * standard input) for the run to read again (train/prov.h). The checkpoint
 * stays open in *ck for the run (hy_train_cfg.resume_ck: one open of it);
 * NULL when it cannot be opened (the run then says why). */
static int resume_has_files(const char *resume, hy_nn_ckpt_reader **ck)
{
	char path[PATH_MAX], *desc = malloc(HY_PROV_MAX);
	hy_diag d;
	hy_diag_init(&d, NULL);
	int found = 0, files = 0;
	*ck = NULL;
	if (desc && !hy_train_resolve_ckpt(resume, path, sizeof path, &d) &&
		!hy_nn_ckpt_open(path, ck, &d) &&
		!hy_ckdir_read_str(*ck, "train_inputs", desc, HY_PROV_MAX, &found, &d) && found)
		files = desc[0] && strncmp(desc, "-\t", 2) != 0;
	free(desc);
	return files;
}


/* --mode's row of the GRP table: grp, the mode this table serves */
static int opt_grp_mode(hy_cli *cli, const char *arg, void *dest)
{
	(void)dest;
	if (strcmp(arg, "grp"))
		return hy_cli_usage(cli, "--mode '%s' takes the options of bc/ppo, not of grp", arg);
	return 0;
}

/* The options of --mode grp, where grp_table writes them. */
static struct {
	hy_grp_train_cfg cfg;
	const char *out;
	double valf;
	int keep_going;
} G;

static int grp_help(hy_cli *cli, const char *arg, void *dest);

static const hy_opt grp_table[] = {
	{.name = "mode", .type = HY_OPT_CALL, .call = opt_grp_mode},
	{.name = "out", .key = 'o', .type = HY_OPT_PATH, .dest = &G.out},
	{.name = "epochs", .key = 'e', .type = HY_OPT_INT, .dest = &G.cfg.epochs, .min = 1,
	 .max = 100000, .range = "1 to 100000 (an integer with --mode grp)"},
	{.name = "batch", .key = 'b', .type = HY_OPT_INT, .dest = &G.cfg.batch, .min = 1,
	 .max = 1 << 20, .range = "1 to 1048576"},
	{.name = "lr", .type = HY_OPT_FLOAT, .dest = &G.cfg.lr, .lo = 0, .hi = 10, .open_lo = 1,
	 .range = "above 0, at most 10"},
	{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &G.cfg.seed,
	 .call = hy_cli_row_seed},
	{.name = "hidden", .type = HY_OPT_INT, .dest = &G.cfg.hidden, .min = 1,
	 .max = HY_GRP_HIDDEN_MAX, .range = "1 to 1024",
	 .arg = "N", .help = "hidden width of the GRP MLP (default 128)"},
	{.name = "val-fraction", .type = HY_OPT_DOUBLE, .dest = &G.valf, .lo = 0, .hi = 0.9,
	 .range = "0 to 0.9",
	 .arg = "X", .help = "share of games held out for validation and the\n"
			     "calibration report (default 0.1)"},
	{.name = "keep-going", .key = 'k', .type = HY_OPT_FLAG, .dest = &G.keep_going,
	 .help = "skip bad games (counted) instead of failing"},
	/* --help: hydra-fit's whole help, with these rows in it */
	{.name = "help", .key = 'h', .type = HY_OPT_CALL0, .call = grp_help},
	{.type = HY_OPT_END},
};



/* The options of --mode bc and ppo, where fit_table writes them. */
typedef struct fit_args {
	hy_train_cfg cfg;
	hy_train_ppo_cfg ppo;
	const char *device, *arch_name;
	int precision, fast; /* --precision (-1: not given), --fast */
	int64_t blocks, channels; /* -1: not given */
	int ppo_mode, feed_only;
	const char **val; /* --val PATH..., argc + 1 slots */
	int pseen[HY_PPO_NBITS]; /* the PPO options given, by HY_PPO_BIT_* (train/ppo.h) */
} fit_args;

static fit_args F;

/* The rows of hydra-fit's table (cli/opts.h) that check more than a range. */
static int opt_val(hy_cli *cli, const char *arg, void *dest)
{
	(void)cli;
	fit_args *v = dest;
	v->val[v->cfg.nval++] = arg;
	return 0;
}

static int opt_channels(hy_cli *cli, const char *arg, void *dest)
{
	int64_t v;
	if (hy_parse_i64(arg, 32, 4096, &v) || v % 32)
		return hy_cli_usage(cli, "bad --channels '%s': a multiple of 32 from 32 to 4096", arg);
	*(int64_t *)dest = v;
	return 0;
}

static int opt_mode(hy_cli *cli, const char *arg, void *dest)
{
	fit_args *a = dest;
	if (strcmp(arg, "bc") && strcmp(arg, "ppo") && strcmp(arg, "reader"))
		return hy_cli_usage(cli, "bad --mode '%s': bc, ppo, reader or grp", arg);
	a->ppo_mode = strcmp(arg, "ppo") == 0;
	a->cfg.reader = strcmp(arg, "reader") == 0;
	return 0;
}

static int opt_ent_end(hy_cli *cli, const char *arg, void *dest)
{
	double x;
	if (hy_parse_double(arg, &x) || !((x >= 0 && x <= 100) || x == -1))
		return hy_cli_usage(cli, "bad --ent-end '%s': 0 to 100, or -1", arg);
	*(float *)dest = (float)x;
	return 0;
}

static int opt_progress(hy_cli *cli, const char *arg, void *dest)
{
	hy_train_ppo_cfg *ppo = dest;
	const char *colon = strchr(arg, ':');
	double a, b;
	char first[64];
	if (!colon || (size_t)(colon - arg) >= sizeof first)
		return hy_cli_usage(cli, "bad --progress '%s': A:B, 0 <= A <= B <= 1", arg);
	memcpy(first, arg, (size_t)(colon - arg));
	first[colon - arg] = '\0';
	if (hy_parse_double(first, &a) || hy_parse_double(colon + 1, &b) ||
		!(a >= 0 && a <= b && b <= 1))
		return hy_cli_usage(cli, "bad --progress '%s': A:B, 0 <= A <= B <= 1", arg);
	ppo->progress0 = (float)a;
	ppo->progress1 = (float)b;
	return 0;
}

static const hy_opt fit_table[] = {
	{.type = HY_OPT_TEXT, .help = "usage: hydra-fit [options] [PATH...]\n"
		 "Trains the SE-ResNet policy/value network (supervised on logs, or by PPO on\n"
		 "self-play samples) on sample streams or HDF5 shards. PATH is a stream or a\n"
		 "shard (told apart by content), or - for stdin (the default). Shards are read\n"
		 "for epochs in shuffled order; streams are read once through a shuffle buffer\n"
		 "(files again per epoch).\n"
		 "\n"
		 "Model and device:"},
	{.name = "arch", .key = 'a', .type = HY_OPT_STR, .dest = &F.arch_name,
	 .arg = "NAME", .help = "tiny (2x32), small (6x64), base (12x128) or full\n"
		 "(40x256); default full on a GPU, small on the CPU"},
	{.name = "oracle", .type = HY_OPT_FLAG, .dest = &F.cfg.oracle,
	 .help = "the model also sees the 205 oracle planes of\n"
		 "its samples' hidden state (hydra-sp --hidden):\n"
		 "a teacher, or a student they fade from\n"
		 "(--oracle-fade); an --init without them starts\n"
		 "their stem columns at 0; CPU only"},
	{.name = "teacher", .type = HY_OPT_PATH, .dest = &F.cfg.teacher,
	 .arg = "CKPT", .help = "a student of this policy (--mode bc): the\n"
		 "loss adds lambda * KL(student || teacher) at\n"
		 "temperature --kl-tau, the teacher frozen on the\n"
		 "same samples; with --oracle the oracle planes\n"
		 "fade by the design's table (quarters of the\n"
		 "run: 1/1, 0.7/0.5, 0.3/0.2, 0/0; lambda 1, 0.8,\n"
		 "0.5, 0.3; the last quarter at a tenth of the LR)"},
	{.name = "kl-tau", .type = HY_OPT_FLOAT, .dest = &F.cfg.kl_tau, .lo = 0.1, .hi = 100,
	 .range = "0.1 to 100",
	 .arg = "T", .help = "the distillation temperature (default 3)"},
	{.name = "blocks", .type = HY_OPT_I64, .dest = &F.blocks, .min = 0, .max = 1000,
	 .range = "0 to 1000",
	 .arg = "N", .help = "residual blocks (overrides --arch)"},
	{.name = "channels", .type = HY_OPT_CALL, .dest = &F.channels, .call = opt_channels,
	 .arg = "N", .help = "channels, a multiple of 32 (overrides --arch)"},
	{.name = "cpu-path", .type = HY_OPT_CALL, .call = hy_cli_row_cpu_path,
	 .arg = "P", .help = HY_CLI_CPU_PATH_HELP},
	{.name = "device", .type = HY_OPT_CALL, .dest = &F.device, .call = hy_cli_row_device,
	 .arg = "DEV", .help = "auto (the default: the GPU when one is usable, else\n"
		 "the CPU), cpu, cuda or cuda:N"},
	{.name = "precision", .type = HY_OPT_CALL, .dest = &F.precision,
	 .call = hy_cli_row_precision,
	 .arg = "P", .help = "arithmetic: on a GPU bf16 (the default) or fp32;\n"
		 "on the CPU fp32 (the default) or bf16 (oneDNN\n"
		 "paths: bf16 GEMMs, fp32 master weights)"},
	{.name = "fast", .type = HY_OPT_FLAG, .dest = &F.fast,
	 .help = "GPU: fastest kernels, runs not bit-identical"},
	{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &F.cfg.threads,
	 .call = hy_cli_row_threads,
	 .arg = "N", .help = "CPU threads (default: the CPUs this process may use)"},
	{.name = "loader-threads", .type = HY_OPT_INT, .dest = &F.cfg.loader_threads, .min = 1,
	 .max = HY_TRAIN_FEED_MAX, .range = "1 to 64",
	 .arg = "N", .help = "threads reading and packing batches ahead of the\n"
		 "steps (default 2 on a GPU; none on the CPU)"},
	{.name = "feed-only", .type = HY_OPT_FLAG, .dest = &F.feed_only,
	 .help = "run only the data feed over the inputs (one epoch,\n"
		 "or --steps batches) and print its samples/s"},
	{.name = "mode", .type = HY_OPT_CALL, .dest = &F, .call = opt_mode,
	 .arg = "MODE", .help = "bc (supervised, the default), ppo (self-play samples\n"
		 "of hydra-sp; needs --init or --resume), reader (a\n"
		 "wait reader: the tenpai and danger heads alone) or\n"
		 "grp (the global reward predictor on game logs: see\n"
		 "below)"},
	{.name = "no-overlap", .type = HY_OPT_FLAG, .dest = &F.cfg.no_overlap,
	 .help = "under mpirun: sum the gradients after the backward\n"
		 "pass, not during it"},
	{.type = HY_OPT_TEXT, .help = "Training:"},
	{.name = "steps", .type = HY_OPT_I64, .dest = &F.cfg.steps, .min = 1,
	 .max = INT64_MAX / 2, .range = "a positive integer",
	 .arg = "N", .help = "optimiser steps (default: one pass over a stream,\n"
		 "with warmup then a constant LR, or for PPO a\n"
		 "stream file's steps at most; or --epochs)"},
	{.name = "epochs", .key = 'e', .type = HY_OPT_DOUBLE, .dest = &F.cfg.epochs, .lo = 0,
	 .hi = DBL_MAX, .open_lo = 1, .range = "a positive number",
	 .arg = "X", .help = "epochs over shard inputs (default 1 without --steps)"},
	{.name = "batch", .key = 'b', .type = HY_OPT_INT, .dest = &F.cfg.batch, .min = 1,
	 .max = 1 << 20, .range = "1 to 1048576",
	 .arg = "N", .help = "samples per step (default 256)"},
	{.name = "lr", .type = HY_OPT_FLOAT, .dest = &F.cfg.lr, .lo = 0, .hi = 10, .open_lo = 1,
	 .range = "a positive number",
	 .arg = "X", .help = "peak learning rate (default 5e-4; cosine to 1e-5)"},
	{.name = "warmup", .type = HY_OPT_I64, .dest = &F.cfg.warmup, .min = 0,
	 .max = INT64_MAX / 2, .range = "steps, 0 or more", .seen = &F.cfg.warmup_set,
	 .arg = "N", .help = "linear warmup steps (default 5% of the steps)"},
	{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &F.cfg.seed,
	 .call = hy_cli_row_seed, .seen = &F.cfg.seed_set,
	 .arg = "S", .help = "seed of initialisation and data order (default 0)"},
	{.name = "shuffle-buffer", .type = HY_OPT_U64, .dest = &F.cfg.shuffle_buffer, .min = 1,
	 .max = 1 << 26, .range = "1 to 67108864",
	 .arg = "N", .help = "samples in the shuffle buffer (default 8192)"},
	{.name = "val", .type = HY_OPT_CALL, .dest = &F, .call = opt_val,
	 .arg = "PATH", .help = "validation samples (repeatable), evaluated every"},
	{.name = "eval-every", .type = HY_OPT_I64, .dest = &F.cfg.eval_every, .min = 1,
	 .max = INT64_MAX / 2, .range = "a positive integer",
	 .arg = "N", .help = "N steps (default: a 20th of the run, or 500 for a\n"
		 "stream of unknown length) and at the end"},
	{.name = "on-eval", .type = HY_OPT_STR, .dest = &F.cfg.on_eval,
	 .arg = "CMD", .help = "run CMD (sh -c, RUN=the run directory) after each\n"
		 "evaluation, e.g. to refresh plots"},
	{.type = HY_OPT_TEXT, .help = "PPO (--mode ppo; --batch is the rollout batch):"},
	{.name = "ppo-epochs", .type = HY_OPT_INT, .dest = &F.ppo.epochs, .min = 1, .max = 1000,
	 .range = "1 to 1000", .seen = &F.pseen[HY_PPO_BIT_EPOCHS],
	 .arg = "N", .help = "passes over each rollout batch (default 3)"},
	{.name = "minibatch", .type = HY_OPT_INT, .dest = &F.ppo.minibatch, .min = 1,
	 .max = 1 << 20, .range = "1 to 1048576", .seen = &F.pseen[HY_PPO_BIT_MINIBATCH],
	 .arg = "N", .help = "samples per optimiser step (default batch/4)"},
	{.name = "clip", .type = HY_OPT_FLOAT, .dest = &F.ppo.loss.clip, .lo = 0, .hi = 1,
	 .open_lo = 1, .open_hi = 1, .range = "a number between 0 and 1", .seen = &F.pseen[HY_PPO_BIT_CLIP],
	 .arg = "X", .help = "surrogate clip range epsilon (default 0.1)"},
	{.name = "vf-coef", .type = HY_OPT_FLOAT, .dest = &F.ppo.loss.vf_coef, .lo = 0,
	 .hi = 100, .range = "0 to 100", .seen = &F.pseen[HY_PPO_BIT_VF],
	 .arg = "X", .help = "value loss weight (default 0.5)"},
	{.name = "ent-coef", .type = HY_OPT_FLOAT, .dest = &F.ppo.loss.ent_coef, .lo = 0,
	 .hi = 100, .range = "0 to 100", .seen = &F.pseen[HY_PPO_BIT_ENT],
	 .arg = "X", .help = "entropy bonus weight at the start (default 0.01)"},
	{.name = "ent-end", .type = HY_OPT_CALL, .dest = &F.ppo.ent_end, .call = opt_ent_end,
	 .seen = &F.pseen[HY_PPO_BIT_ENT_END],
	 .arg = "X", .help = "... annealed linearly to X at the end (default\n"
		 "0.005; -1: constant)"},
	{.name = "kl-stop", .type = HY_OPT_FLOAT, .dest = &F.ppo.kl_stop, .lo = 0, .hi = 100,
	 .range = "0 to 100", .seen = &F.pseen[HY_PPO_BIT_KL_STOP],
	 .arg = "X", .help = "end a rollout batch's passes when one's mean\n"
		 "approx-KL passes X (default 0.03; 0: never)"},
	{.name = "value-warmup", .type = HY_OPT_I64, .dest = &F.ppo.value_warmup, .min = 0,
	 .max = INT64_MAX / 2, .range = "steps, 0 or more", .seen = &F.pseen[HY_PPO_BIT_VALUE_WARMUP],
	 .arg = "N", .help = "the first N steps train the value head alone"},
	{.name = "anchor", .type = HY_OPT_PATH, .dest = &F.ppo.anchor, .seen = &F.pseen[HY_PPO_BIT_ANCHOR],
	 .arg = "CKPT", .help = "KL anchor: penalise KL(CKPT's policy || policy)"},
	{.name = "anchor-coef", .type = HY_OPT_FLOAT, .dest = &F.ppo.anchor_coef, .lo = 0,
	 .hi = 100, .range = "0 to 100", .seen = &F.pseen[HY_PPO_BIT_ANCHOR_COEF],
	 .arg = "X", .help = "its weight at the start (default 0.05)"},
	{.name = "anchor-frac", .type = HY_OPT_FLOAT, .dest = &F.ppo.anchor_frac, .lo = 0,
	 .hi = 1, .range = "0 to 1", .seen = &F.pseen[HY_PPO_BIT_ANCHOR_FRAC],
	 .arg = "X", .help = "annealed to 0 over this share of the run (0.3)"},
	{.name = "no-adv-norm", .type = HY_OPT_SET, .dest = &F.ppo.loss.norm_adv, .min = 0,
	 .seen = &F.pseen[HY_PPO_BIT_NORM_ADV],
	 .help = "take the advantages as they are, not normalised\n"
		 "per batch (hydra-sp --label-adv's samples)"},
	{.name = "progress", .type = HY_OPT_CALL, .dest = &F.ppo, .call = opt_progress,
	 .seen = &F.pseen[HY_PPO_BIT_PROGRESS],
	 .arg = "A:B", .help = "the schedule's progress over this run (default\n"
		 "0:1; a league iteration i of n: (i-1)/n:i/n)"},
	{.type = HY_OPT_TEXT, .help = "Output:"},
	{.name = "out", .key = 'o', .type = HY_OPT_PATH, .dest = &F.cfg.out,
	 .arg = "DIR", .help = "output directory (default runs/YYYYmmdd-HHMMSS)"},
	{.name = "save-every", .type = HY_OPT_I64, .dest = &F.cfg.save_every, .min = 1,
	 .max = INT64_MAX / 2, .range = "a positive integer",
	 .arg = "N", .help = "checkpoint every N steps (default 1000) and at the end"},
	{.name = "keep", .type = HY_OPT_INT, .dest = &F.cfg.keep, .min = 1, .max = 1000000,
	 .range = "a positive integer",
	 .arg = "N", .help = "keep the N most recent checkpoints (default 3) and best"},
	{.name = "log-every", .type = HY_OPT_I64, .dest = &F.cfg.log_every, .min = 1,
	 .max = INT64_MAX / 2, .range = "a positive integer",
	 .arg = "N", .help = "a metrics.jsonl line every N steps (default 10)"},
	{.name = "resume", .type = HY_OPT_PATH, .dest = &F.cfg.resume,
	 .arg = "DIR|CKPT", .help = "continue a run exactly (DIR: its latest checkpoint)"},
	{.name = "init", .type = HY_OPT_PATH, .dest = &F.cfg.init,
	 .arg = "CKPT", .help = "start from the weights of a checkpoint"},
	HY_OPT_DOC_COMMON("no progress lines",
			  "say the device and the threads"),
	{.type = HY_OPT_TEXT, .help = "\n"
		 "GRP (hydra-fit --mode grp -o DIR [options] [LOG...]: logs of any format or\n"
		 "event streams; writes DIR/grp.h5 and DIR/metrics.jsonl):"},
	{.type = HY_OPT_INCLUDE, .include = grp_table},
	{.type = HY_OPT_TEXT, .help = "  (-e default 30, -b 256, --lr 1e-3, -S, -o, -q, -v as above)\n"
		 "\n"
		 "Exit status: 0 ok, 1 bad data, non-finite loss or I/O error, 2 usage,\n"
		 "3 format or version mismatch (e.g. a checkpoint of another architecture),\n"
		 "4 requested device unavailable, 130 interrupted (a checkpoint is saved)."},
	{.type = HY_OPT_END},
};

/* The PPO options given: each row's .seen is its bit's slot of F.pseen
 * (HY_PPO_BIT_*), so the mask of HY_PPO_GIVEN_* comes from the rows, and
 * *name is one of them ("--NAME", an error without --mode ppo) or NULL. */
static unsigned ppo_given(const char **name)
{
	static char buf[64];
	unsigned given = 0;
	*name = NULL;
	for (const hy_opt *o = fit_table; o->type != HY_OPT_END; o++) {
		if (!o->seen || o->seen < F.pseen || o->seen >= F.pseen + HY_PPO_NBITS || !*o->seen)
			continue;
		given |= 1u << (o->seen - F.pseen);
		snprintf(buf, sizeof buf, "--%s", o->name);
		*name = buf;
	}
	return given;
}


/* The output directory when --out is not given: a resumed run's own (the
 * directory, or the checkpoint's), else runs/YYYYmmdd-HHMMSS. */
static void default_out(hy_cli *cli, hy_train_cfg *cfg, char *buf, size_t size)
{
	if (!cfg->out && cfg->resume) {
		struct stat sb;
		if (stat(cfg->resume, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			cfg->out = cfg->resume;
		} else {
			snprintf(buf, size, "%s", cfg->resume);
			char *sl = strrchr(buf, '/');
			if (sl)
				*sl = '\0';
			else
				snprintf(buf, size, ".");
			cfg->out = buf;
		}
	}
	if (!cfg->out) {
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(buf, size, "runs/%Y%m%d-%H%M%S", &tm);
		cfg->out = buf;
		hy_cli_say(cli, "writing to '%s'", cfg->out);
	}
}

static int train_with(hy_cli *cli, hy_train_cfg *c, const char *arch_name);

static int fit_main(hy_cli *cli, int argc, char **argv, const char **val)
{
	memset(&F, 0, sizeof F);
	hy_train_ppo_defaults(&F.ppo);
	F.device = "auto";
	F.precision = -1;
	F.blocks = F.channels = -1;
	F.val = val;
	int operands, prc = hy_cli_parse_opts(cli, fit_table, 25, argc, argv, &operands);
	if (prc >= 0)
		return prc;
	optind = operands;
	hy_train_cfg cfg = F.cfg;
	hy_train_ppo_cfg ppo = F.ppo;
	const char *device = F.device, *arch_name = F.arch_name;
	const int ppo_mode = F.ppo_mode;
	const int64_t blocks = F.blocks, channels = F.channels;
	const char *ppo_opt = NULL; /* a PPO option given (an error without --mode ppo) */
	cfg.ppo_given |= ppo_given(&ppo_opt);
	const int quiet = hy_cli_quiet(cli);
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (arch_name && hy_nn_arch_preset(arch_name, &cfg.arch, &d) != HY_OK)
		return hy_cli_usage(cli, "bad --arch '%s': tiny, small, base or full", arch_name);
	if (blocks >= 0 || channels >= 0) {
		if (!cfg.arch.channels)
			cfg.arch = (hy_nn_arch){40, 256, 0};
		if (blocks >= 0)
			cfg.arch.blocks = (int)blocks;
		if (channels >= 0)
			cfg.arch.channels = (int)channels;
	}
	if (cfg.steps && cfg.epochs > 0)
		return hy_cli_usage(cli, "--steps and --epochs exclude each other");
	if (F.cfg.teacher && (F.cfg.ppo || F.cfg.reader))
		return hy_cli_usage(cli, "--teacher distils in --mode bc");
	if (ppo_opt && !ppo_mode)
		return hy_cli_usage(cli, "%s is an option of --mode ppo", ppo_opt);
	cfg.ppo = ppo_mode ? &ppo : NULL;
	/* the rules between options, in one place (train/plan.h; the ranks'
	 * rule again when the run knows them) */
	if (hy_train_plan_usage(&cfg, 1, &d) != HY_OK)
		return hy_cli_usage(cli, "%s", d.msg);
	if (ppo_mode && ppo.minibatch > (cfg.batch > 0 ? cfg.batch : 256) && !cfg.resume)
		return hy_cli_usage(cli, "--minibatch is larger than the rollout --batch");

	/* device: a usable GPU (nn/cuda/cuda.h says why not), else the CPU; under
	 * mpirun each rank of a node takes its own GPU (modulo the visible ones)
	 * unless --device cuda:N names one */
	char why[512] = "";
	int ordinal = 0, rc = hy_cli_device_pick(cli, device, &cfg.cuda, &ordinal, why, sizeof why);
	if (rc)
		return rc;
	if (cfg.cuda) {
		cfg.cuda_device = ordinal;
		if (strncmp(device, "cuda:", 5) && hy_mpi_launched() && hy_mpi_env_rank() == 0 &&
			!quiet)
			hy_cli_say(cli, "cuda: each rank takes GPU (node-local rank mod %d visible); "
				"--device cuda:N names one", hy_nn_cuda_count());
		cfg.precision = F.precision >= 0 ? F.precision : HY_NN_PREC_BF16;
		cfg.fast = F.fast;
	} else if (why[0] && !quiet && hy_mpi_env_rank() == 0) {
		hy_cli_say(cli, "no usable GPU (%s): training on the CPU", why);
	}
	if (hy_mpi_env_rank() == 0)
		hy_cli_setup_info(cli, cfg.cuda, ordinal, why, cfg.threads > 0 || cfg.resume ?
			cfg.threads : hy_cli_threads_default());
	if (!cfg.cuda && F.precision == HY_NN_PREC_BF16) { /* bf16 GEMMs, fp32 master weights */
		if (!hy_nn_cpu_path_onednn())
			return hy_cli_usage(cli, "--precision bf16 on the CPU needs the oneDNN path "
				"(--cpu-path onednn; this run's is %s)", hy_nn_cpu_path_describe());
		cfg.precision = HY_NN_PREC_BF16;
	}

	cfg.ninputs = (size_t)(argc - optind);
	static char command[8192]; /* recorded in the checkpoints (train/prov.h) */
	hy_prov_command(argc, argv, command, sizeof command);
	cfg.command = command;
	cfg.inputs = (const char *const *)argv + optind;
	cfg.val = val;
	if (hy_cli_paths(cli, cfg.inputs, cfg.ninputs, "input path") ||
		hy_cli_paths(cli, val, cfg.nval, "--val path"))
		return 2;
	int reads_stdin = cfg.ninputs == 0;
	for (size_t i = 0; i < cfg.ninputs; i++)
		if (strcmp(cfg.inputs[i], "-") == 0)
			reads_stdin = 1;
	hy_nn_ckpt_reader *rck = NULL; /* --resume's, when read here first */
	if (reads_stdin && cfg.ninputs == 0 && cfg.resume && resume_has_files(cfg.resume, &rck))
		reads_stdin = 0; /* the run reads the inputs its checkpoint recorded */
	cfg.resume_ck = rck;
	rc = 0;
	if (reads_stdin && hy_cli_stdin(cli, NULL, 0, 1, "sample streams or shards"))
		rc = 2;
	else if (F.feed_only)
		rc = feed_only(cli, &cfg);
	else
		rc = train_with(cli, &cfg, arch_name);
	hy_nn_ckpt_close(rck);
	return rc;
}

/* The run itself: the output directory, the signals, the progress lines
 * and the summary of hy_train_run. */
static int train_with(hy_cli *cli, hy_train_cfg *c, const char *arch_name)
{
	hy_train_cfg cfg = *c;
	const int quiet = hy_cli_quiet(cli);
	hy_diag d;
	hy_diag_init(&d, NULL);

	char outbuf[PATH_MAX];
	default_out(cli, &cfg, outbuf, sizeof outbuf);

	/* SIGHUP, SIGPIPE...; SIGINT and SIGTERM are ours */
	if (hy_stopsig_start(&stop_flag) && !quiet)
		hy_cli_say(cli, "cannot start the signal thread: an interrupt may abort the run "
			"instead of saving it");
	cfg.stop = &stop_flag;

	/* the full network asked for on the CPU (the CPU's default is small:
	 * lib/train/plan.c): say once how fast it is (the first steps measured)
	 * and name a smaller one */
	ui g = {.cli = cli, .val_loss = NAN,
		.batch = cfg.batch > 0 ? cfg.batch : 256,
		.full_cpu = !cfg.cuda && arch_name && !strcmp(arch_name, "full") && !cfg.resume &&
			!cfg.init};
	hy_train_hooks hooks = {.progress = on_progress, .notice = on_notice, .u = &g};
	hy_train_result res;
	hy_status st = hy_train_run(&cfg, &hooks, &res, &d);
	if (st && st != HY_STOP) {
		hy_cli_diag(cli, &d);
		if (st == HY_EUSAGE)
			hy_cli_try_help(cli);
		return hy_status_exit(st);
	}
	hy_cli_progress_end(cli);
	if (!quiet && hy_mpi_env_rank() == 0) { /* one summary for an MPI job */
		char secs[32], best[64] = "";
		hy_cli_hms(res.seconds, secs, sizeof secs);
		if (!isnan(res.best_val))
			snprintf(best, sizeof best, ", best validation loss %.4f", res.best_val);
		hy_cli_say(cli, "%s at step %" PRId64 ": %" PRId64 " samples in %s%s",
			st == HY_STOP ? "interrupted, saved" : "done", res.step, res.samples, secs,
			best);
		hy_cli_say(cli, "checkpoints in '%s': latest %s%s", cfg.out,
			res.last_ckpt[0] ? res.last_ckpt : "(none)",
			isnan(res.best_val) ? "" : ", best -> 'best'");
	}
	return st == HY_STOP ? 130 : 0;
}

/* ------------------------------------------------------------ --mode grp */

typedef struct grp_run {
	hy_cli *cli;
	hy_grp_data data;
	int keep_going;
	uint64_t skipped;
	int reported;
	FILE *metrics;       /* metrics.jsonl text, written at the end */
	char *mbuf;
	size_t mlen;
} grp_run;

static hy_status grp_on_game(void *ctx, hy_game *g)
{
	grp_run *r = ctx;
	hy_diag d;
	hy_diag_init(&d, g->source);
	hy_status st = hy_grp_data_add(&r->data, g, &d);
	if (st != HY_OK) {
		hy_cli_diag(r->cli, &d);
		r->reported = 1;
	}
	return st;
}

static hy_status grp_on_bad(void *ctx, const hy_diag *d)
{
	grp_run *r = ctx;
	return hy_cli_bad_game(r->cli, d, r->keep_going, &r->reported, &r->skipped);
}

static void grp_on_epoch(void *u, const hy_grp_epoch *e)
{
	grp_run *r = u;
	fprintf(r->metrics, "{\"epoch\":%d,\"step\":%" PRId64 ",\"train_loss\":%.6f,"
		"\"train_top1\":%.6f", e->epoch, e->step, e->train_loss, e->train_top1);
	if (!isnan(e->val_loss))
		fprintf(r->metrics, ",\"val_loss\":%.6f,\"val_top1\":%.6f", e->val_loss, e->val_top1);
	fputs("}\n", r->metrics);
	if (!hy_cli_quiet(r->cli)) {
		char val[80] = "";
		if (!isnan(e->val_loss))
			snprintf(val, sizeof val, ", validation loss %.4f top-1 %.3f", e->val_loss,
				e->val_top1);
		hy_cli_say(r->cli, "grp epoch %d: train loss %.4f top-1 %.3f%s", e->epoch,
			e->train_loss, e->train_top1, val);
	}
}


/* hydra-fit --mode grp: its own options (lib/train/grp.h does the work). */
static int grp_main(hy_cli *cli, int argc, char **argv)
{
	hy_grp_train_defaults(&G.cfg);
	G.valf = 0.1;
	grp_run r;
	memset(&r, 0, sizeof r);
	r.cli = cli;
	int operands, prc = hy_cli_parse_opts(cli, grp_table, 25, argc, argv, &operands);
	if (prc >= 0)
		return prc;
	optind = operands;
	r.keep_going = G.keep_going;
	hy_grp_train_cfg cfg = G.cfg;
	const char *out = G.out;
	const double valf = G.valf;
	if (!out)
		return hy_cli_usage(cli, "--mode grp needs --out DIR");
	char ckpt[4096], mpath[4096];
	if (snprintf(ckpt, sizeof ckpt, "%s/grp.h5", out) >= (int)sizeof ckpt ||
		snprintf(mpath, sizeof mpath, "%s/metrics.jsonl", out) >= (int)sizeof mpath)
		return hy_cli_usage(cli, "--out '%s': name too long", out);
	signal(SIGPIPE, SIG_DFL);
	hy_cleanup_install();
	/* a failed run leaves no output: not a directory it made, nor grp.h5
	 * without its metrics */
	static const char *const stdin_only[] = {"-"};
	const char *const *paths = optind < argc ? (const char *const *)argv + optind : stdin_only;
	size_t npaths = optind < argc ? (size_t)(argc - optind) : 1;
	if (hy_cli_paths(cli, paths, npaths, "input path"))
		return 2;
	struct stat out_st;
	int out_existed = stat(out, &out_st) == 0, saved = 0;
	hy_grp_data_init(&r.data, (int)lround(valf * 1000));
	r.metrics = open_memstream(&r.mbuf, &r.mlen);
	hy_cli_stdin(cli, paths, npaths, 0, "game logs");
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_game_sink sink = {grp_on_game, grp_on_bad, &r};
	uint64_t docs = 0;
	hy_grp grp;
	memset(&grp, 0, sizeof grp);
	hy_grp_calib cal;
	memset(&cal, 0, sizeof cal);
	hy_status st = r.metrics ? HY_OK : hy_diag_set(&d, HY_ENOMEM, 0, "out of memory");
	if (st == HY_OK)
		st = hy_source_parse_paths(paths, npaths, &sink, &docs, &d);
	if (st == HY_OK && !hy_cli_quiet(cli))
		hy_cli_say(cli, "grp: %" PRIu64 " documents, %" PRIu64 " complete games (%"
			PRIu64 " for validation), %zu boundary states; %" PRIu64 " incomplete games "
			"(no end_game) and %" PRIu64 " bad games skipped", docs, r.data.games,
			r.data.val_games, r.data.n, r.data.incomplete, r.skipped);
	if (st == HY_OK) {
		hy_diag_init(&d, NULL);
		st = hy_grp_train(&cfg, &r.data, &grp, grp_on_epoch, &r, &cal, &d);
	}
	if (st == HY_OK) {
		if (!cal.samples) /* no validation games: no numbers (JSON has no NaN) */
			fputs("{\"calibration\":null}\n", r.metrics);
		else
		fprintf(r.metrics, "{\"calibration\":{\"games\":%" PRIu64 ",\"states\":%zu,"
			"\"loss\":%.6f,\"top1\":%.6f,\"uniform\":%.6f,\"empirical\":%.6f,"
			"\"empirical_top1\":%.6f,\"best_epoch\":%d}}\n", cal.games, cal.samples,
			cal.loss, cal.top1, cal.uniform, cal.empirical, cal.emp_top1, cal.best_epoch);
		fflush(r.metrics);
		const hy_grp_attr extra[] = {
			{"train_games", (double)(r.data.games - r.data.val_games)},
			{"val_games", (double)r.data.val_games},
			{"val_loss", cal.loss},
			{"lr", cfg.lr},
			{"epochs", cfg.epochs},
			{"best_epoch", cal.best_epoch},
		};
		hy_diag_init(&d, ckpt);
		st = hy_grp_save(ckpt, &grp, extra, (int)(sizeof extra / sizeof extra[0]), &d);
		saved = st == HY_OK;
	}
	if (st == HY_OK) {
		hy_output o;
		hy_diag_init(&d, mpath);
		st = hy_output_open(&o, mpath, &d);
		if (st == HY_OK) {
			if (fwrite(r.mbuf, 1, r.mlen, o.f) != r.mlen) {
				hy_output_abort(&o);
				st = hy_diag_set(&d, HY_EIO, 0, "cannot write '%s'", mpath);
			} else {
				st = hy_output_commit(&o, &d);
			}
		}
	}
	if (st == HY_OK) {
		if (cal.samples)
			hy_cli_say(cli, "grp calibration on %" PRIu64 " validation games (%zu "
				"states): log-loss %.4f (top-1 %.3f) vs uniform ln 24 = %.4f and vs the "
				"training order frequencies %.4f (top-1 %.3f)", cal.games,
				cal.samples, cal.loss, cal.top1, cal.uniform, cal.empirical, cal.emp_top1);
		else
			hy_cli_say(cli, "grp: no validation games: no calibration");
		if (!hy_cli_quiet(cli))
			hy_cli_say(cli, "grp: wrote '%s' (best epoch %d) and '%s'", ckpt,
				cal.best_epoch, mpath);
	} else if (!r.reported) {
		hy_cli_diag(cli, &d);
	}
	if (st != HY_OK && saved)
		unlink(ckpt);
	if (st != HY_OK && !out_existed)
		rmdir(out); /* only when empty: what another run put there stays */
	if (r.metrics)
		fclose(r.metrics);
	free(r.mbuf);
	hy_grp_free(&grp);
	hy_grp_data_free(&r.data);
	return hy_status_exit(st);
}

/* --help of --mode grp: the whole help of hydra-fit. */
static int grp_help(hy_cli *cli, const char *arg, void *dest)
{
	(void)arg;
	(void)dest;
	char *help = hy_cli_opts_help(fit_table, 25);
	if (!help) {
		hy_cli_say(cli, "out of memory");
		return 1;
	}
	int rc = hy_cli_help(cli, help);
	free(help);
	return rc ? rc : HY_OPT_DONE;
}

/* 1 when the command line asks for --mode grp. */
static int grp_mode(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--mode=grp") == 0 ||
			(strcmp(argv[i], "--mode") == 0 && i + 1 < argc && strcmp(argv[i + 1], "grp") == 0))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* first: may start the program again (nn/threads.h) */
	hy_h5_init(); /* before any HDF5 call: no exit-time clean-up (samples/h5.h) */
	hy_cli cli;
	hy_cli_init(&cli, "hydra-fit");
	if (grp_mode(argc, argv))
		return grp_main(&cli, argc, argv);
	/* room for every --val PATH */
	const char **val = calloc((size_t)argc + 1, sizeof *val);
	if (!val) {
		hy_cli_say(&cli, "out of memory");
		return 1;
	}
	int rc = fit_main(&cli, argc, argv, val);
	free(val);
	return rc;
}
