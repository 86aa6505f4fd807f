/* The plan of a training run (see plan.h). */
#include "train/plan.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/source.h"
#include "nn/threads.h"
#include "samples/stream.h"

/* Warmup steps of an open-ended run (a stream without --steps), where 5% of
 * the total cannot be known. */
#define OPEN_ENDED_WARMUP 500

static void note(hy_train_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(hy_train_plan *p, const char *fmt, ...)
{
	if (p->nnotes >= HY_TRAIN_PLAN_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->nnotes++], sizeof p->notes[0], fmt, ap);
	va_end(ap);
}

/* Any input read from standard input ("-" or none). */
static int any_stdin(const hy_train_cfg *c)
{
	if (c->ninputs == 0)
		return 1;
	for (size_t i = 0; i < c->ninputs; i++)
		if (!c->inputs[i] || strcmp(c->inputs[i], "-") == 0)
			return 1;
	return 0;
}

hy_status hy_train_plan_usage(const hy_train_cfg *c, int ranks, hy_diag *d)
{
	if (c->resume && c->init)
		return hy_diag_set(d, HY_EUSAGE, 0, "--resume and --init exclude each other");
	/* several ranks read one input each (data/source.h): a pipe cannot be shared */
	if (ranks > 1 && (c->ppo || any_stdin(c)))
		return hy_diag_set(d, HY_EUSAGE, 0, "under mpirun with %d ranks: give the inputs as "
			"files (every rank reads its part of them; standard input reaches rank 0 "
			"only); --mode ppo runs as one process", ranks);
	if (c->ppo && !c->resume && !c->init)
		return hy_diag_set(d, HY_EUSAGE, 0, "--mode ppo improves a trained model: give "
			"--init CKPT (the policy that played the games) or --resume");
	return HY_OK;
}

/* The inputs' bound when standard input is among them, so that the plan
 * opens no data handle (standard input cannot be read twice): each input's
 * hy_sms_fd_bound (fd 0 is open already; a file named beside it opened
 * for its size alone), 0 when any is unknown. Without standard input the
 * handle gives it (hy_data_stream_bound). */
static uint64_t stdin_bound(const hy_train_cfg *c)
{
	uint64_t sum = 0;
	size_t n = c->ninputs ? c->ninputs : 1;
	for (size_t i = 0; i < n; i++) {
		const char *p = c->ninputs ? c->inputs[i] : "-";
		int fd = !p || strcmp(p, "-") == 0 ? 0 : open(p, O_RDONLY | O_CLOEXEC);
		uint64_t b = fd < 0 ? 0 : hy_sms_fd_bound(fd);
		if (fd > 0)
			close(fd);
		if (!b)
			return 0;
		sum += b;
	}
	return sum;
}

static int dir_has_ckpts(const char *dir)
{
	long long *s;
	size_t n;
	if (!dir || hy_ckdir_list(dir, &s, &n, NULL))
		return 0;
	free(s);
	return n > 0;
}

hy_status hy_train_facts_read(const hy_train_cfg *c, hy_nn_ckpt_reader *ck, int rank,
	int ranks, hy_train_facts *f, hy_diag *d)
{
	memset(f, 0, sizeof *f);
	f->rank = rank;
	f->ranks = ranks;
	f->default_threads = hy_nn_threads_default();
	hy_status st;
	if (c->resume) {
		if (!ck)
			return hy_diag_set(d, HY_EUSAGE, 0, "--resume: the checkpoint is not open");
		f->resuming = 1;
		snprintf(f->ckpt, sizeof f->ckpt, "%s", hy_nn_ckpt_path(ck));
		f->arch = hy_nn_ckpt_arch_of(ck);
		/* a checkpoint of another architecture than the one asked for is
		 * refused before the rest of it is read */
		if (c->arch.channels && (c->arch.blocks != f->arch.blocks ||
			c->arch.channels != f->arch.channels))
			return HY_OK;
		if ((st = hy_ckdir_read_state(ck, &f->ts, d)) ||
			(st = hy_nn_ckpt_meta_of(ck, &f->meta, d)))
			return st;
		if (c->ppo && (st = hy_ckdir_read_ppo(ck, &f->ppo, f->ppo_anchor,
			sizeof f->ppo_anchor, &f->ppo_stored, d)))
			return st;
	} else {
		if (c->init) {
			if (!ck)
				return hy_diag_set(d, HY_EUSAGE, 0, "--init: the checkpoint is not open");
			f->init_arch = hy_nn_ckpt_arch_of(ck);
		}
		f->out_has_ckpts = dir_has_ckpts(c->out);
	}
	/* the total from the inputs' length (shards), and what several ranks
	 * read: the inputs opened once, the handle kept for the run (the
	 * trainer restarts it with the plan's seed and buffer); standard
	 * input is not opened here (it cannot be read twice) */
	if ((ranks > 1 || (!c->resume && c->steps <= 0)) && !any_stdin(c)) {
		hy_data_cfg pc = {.paths = c->inputs, .npaths = c->ninputs, .seed = c->seed,
			.shuffle_buffer = 1, .rank = rank, .ranks = ranks};
		if ((st = hy_data_open(&f->data, &pc, d)))
			return st;
		f->epoch_size = hy_data_epoch_size(f->data);
		f->streams = hy_data_get_mode(f->data) == HY_DATA_STREAM;
	}
	if (c->ppo && !c->resume && c->steps <= 0 && !f->epoch_size)
		f->stream_bound = f->data ? hy_data_stream_bound(f->data) : stdin_bound(c);
	return HY_OK;
}

/* The architecture: asked for, the checkpoint's, --init's, or the default
 * for the device. */
static hy_status plan_arch(const hy_train_cfg *c, const hy_train_facts *f, hy_train_plan *p,
	hy_diag *d)
{
	hy_nn_arch arch = c->arch;
	if (f->resuming) {
		const hy_nn_arch ca = f->arch;
		if (arch.channels && (arch.blocks != ca.blocks || arch.channels != ca.channels))
			return hy_diag_set(d, HY_EFORMAT, 0, "checkpoint '%s' is %d blocks x %d "
				"channels; the requested architecture is %d x %d", f->ckpt, ca.blocks,
				ca.channels, arch.blocks, arch.channels);
		arch = ca;
		if (c->oracle && !ca.oracle)
			return hy_diag_set(d, HY_EUSAGE, 0, "checkpoint '%s' has no oracle planes: "
				"--oracle starts a new run (--init '%s')", f->ckpt, f->ckpt);
		/* a resumed run goes on in its mode: switching would silently
		 * change the loss under the same schedule and counters */
		const int mode = c->ppo ? 1 : c->reader ? 2 : 0;
		static const char *const names[3] = {"bc", "ppo", "reader"};
		if (f->ts.mode >= 0 && f->ts.mode != mode) {
			const char *was = names[f->ts.mode], *now = names[mode];
			return hy_diag_set(d, HY_EUSAGE, 0, "checkpoint '%s' is of a --mode %s run: "
				"--resume goes on in that mode (give --mode %s); to train it by --mode "
				"%s, start a new run from its weights with --init '%s'", f->ckpt, was,
				was, now, f->ckpt);
		}
	} else if (c->init && !arch.channels) {
		arch = f->init_arch;
		arch.oracle |= c->oracle;
	} else if (c->init && f->init_arch.oracle) {
		arch.oracle = 1; /* --init of an oracle model: its input stays */
	}
	/* the default: full on a GPU; small on the CPU, where full trains at
	 * about 12 samples/s on two cores and small at about 1,000 */
	if (!arch.channels) {
		arch = c->cuda ? (hy_nn_arch){40, 256, 0} : (hy_nn_arch){6, 64, 0};
		note(p, "architecture %s (%d blocks x %d channels), the default %s%s",
			c->cuda ? "full" : "small", arch.blocks, arch.channels,
			c->cuda ? "on a GPU" : "on the CPU",
			c->cuda ? "" : " (full trains about 80 times slower here; --arch full "
			"for it)");
	}
	if (!f->resuming && c->oracle)
		arch.oracle = 1;
	if (arch.oracle && c->cuda)
		return hy_diag_set(d, HY_EUNSUP, 0, "a model with the oracle planes trains on the CPU "
			"only (--device cpu)");
	p->arch = arch;
	return hy_nn_arch_check(arch, d);
}

/* The total steps and the optimiser's schedule. */
static hy_status plan_schedule(const hy_train_cfg *c, const hy_train_facts *f,
	hy_train_plan *p, hy_diag *d)
{
	const int rs = f->resuming;
	const hy_nn_ckpt_meta *meta = &f->meta;
	p->one_pass = c->steps <= 0 && (!rs || meta->opt.total <= 0);
	int64_t total;
	if (c->steps > 0) {
		total = c->steps;
	} else if (rs) {
		total = meta->opt.total;
	} else if (f->epoch_size) {
		double ep = c->epochs > 0 ? c->epochs : 1.0;
		double t = ceil(ep * (double)f->epoch_size / (double)p->batch);
		total = t < 1 ? 1 : (int64_t)t;
		if (c->ppo) /* optimiser steps: a rollout batch takes several */
			total *= p->ppo_steps;
	} else if (c->ppo && f->stream_bound) {
		/* PPO on stream files: the schedule (LR, entropy, anchor,
		 * --progress) runs over the steps the input can give at most;
		 * the input's end still ends the run */
		total = (int64_t)((f->stream_bound + (uint64_t)p->batch - 1) / (uint64_t)p->batch) *
			p->ppo_steps;
	} else {
		/* a stream of unknown length, no --steps: one pass, open-ended
		 * schedule (warmup, then the peak LR) */
		total = 0;
	}
	if (rs) {
		p->opt = meta->opt;
		if (c->steps > 0 && c->steps != meta->opt.total)
			note(p, "--steps %lld changes the planned total (%lld in the checkpoint) and "
				"with it the LR schedule", (long long)c->steps,
				(long long)meta->opt.total);
		p->opt.total = total;
		if (c->lr > 0)
			p->opt.lr = c->lr;
		if (c->warmup_set)
			p->opt.warmup = c->warmup;
	} else {
		hy_nn_optim_defaults(&p->opt, total);
		if (total == 0) /* PPO: over the first rollout batch */
			p->opt.warmup = c->ppo ? p->ppo_steps : OPEN_ENDED_WARMUP;
		if (c->lr > 0)
			p->opt.lr = c->lr;
		if (c->warmup_set)
			p->opt.warmup = c->warmup;
		if (p->opt.lr_min > p->opt.lr)
			p->opt.lr_min = p->opt.lr;
	}
	if (total > 0 && p->step >= total)
		return hy_diag_set(d, HY_EUSAGE, 0, "checkpoint '%s' is at step %lld: nothing to do "
			"for --steps %lld", f->ckpt, (long long)p->step, (long long)total);
	return HY_OK;
}

hy_status hy_train_plan_make(const hy_train_cfg *c, const hy_train_facts *f, hy_train_plan *p,
	hy_diag *d)
{
	memset(p, 0, sizeof *p);
	p->best = INFINITY;
	hy_status st = hy_train_plan_usage(c, f->ranks, d);
	if (st || (st = plan_arch(c, f, p, d)))
		return st;
	const int rs = f->resuming;
	const hy_ckdir_state *ts = &f->ts;

	/* threads, batch, seed, shuffle buffer: the checkpoint's unless given */
	p->threads = c->threads > 0 ? c->threads : rs ? ts->threads : f->default_threads;
	if (p->threads < 1)
		p->threads = 1;
	if (rs && c->threads > 0 && c->threads != ts->threads)
		note(p, "--threads %d differs from the checkpoint's %d: losses will not be "
			"bit-identical to an uninterrupted run", c->threads, ts->threads);
	p->batch = c->batch > 0 ? c->batch : rs ? (int)ts->batch : 256;
	p->shuffle_buffer = c->shuffle_buffer ? c->shuffle_buffer
			    : rs ? (size_t)ts->shuffle_buffer : 8192;
	if (rs && ((c->batch > 0 && c->batch != ts->batch) ||
			(c->shuffle_buffer && c->shuffle_buffer != ts->shuffle_buffer)))
		note(p, "--batch/--shuffle-buffer differ from the checkpoint's (%lld, %llu): the "
			"data order changes", (long long)ts->batch,
			(unsigned long long)ts->shuffle_buffer);
	if (p->batch < 1 || p->batch > 1 << 20)
		return hy_diag_set(d, HY_EUSAGE, 0, "bad batch size %d", p->batch);
	if (!rs && f->out_has_ckpts)
		return hy_diag_set(d, HY_EUSAGE, 0, "'%s' already holds checkpoints: use --resume "
			"'%s' to continue, or another --out", c->out, c->out);
	/* --epochs needs inputs of known length (shards) */
	if (!rs && c->steps <= 0 && c->epochs > 0 && !f->epoch_size)
		return hy_diag_set(d, HY_EUSAGE, 0, "--epochs needs shard inputs: the length "
			"of a sample stream is unknown; give --steps, or neither (one pass)");
	p->seed = rs && !c->seed_set ? f->meta.seed : c->seed;
	if (rs && c->seed_set && c->seed != f->meta.seed)
		note(p, "--seed differs from the checkpoint's: the data order changes");
	p->step = rs ? f->meta.step : 0;
	p->best = rs ? ts->best : INFINITY;

	/* PPO: a resumed run keeps its stored settings but for those given */
	p->part = p->batch;
	if (c->ppo) {
		p->ppo = *c->ppo;
		if (rs && f->ppo_stored) {
			hy_train_ppo_cfg sc = f->ppo;
			snprintf(p->ppo_anchor, sizeof p->ppo_anchor, "%s", f->ppo_anchor);
			sc.anchor = p->ppo_anchor[0] ? p->ppo_anchor : NULL;
			hy_train_ppo_merge(&p->ppo, &sc, c->ppo, c->ppo_given);
		}
		if ((st = hy_train_ppo_shape(&p->ppo, p->batch, &p->ppo_minibatch, &p->ppo_steps,
			     d)))
			return st;
		p->part = p->ppo_minibatch;
	} else if (f->ranks > 1 && f->streams) {
		/* streams: a rank's block of each batch (mpi/mpi.h hy_mpi_range_of) */
		p->part = (p->batch + f->ranks - 1) / f->ranks;
	}
	if ((st = plan_schedule(c, f, p, d)))
		return st;

	/* the checkpoint's intervals unless given */
	p->keep = c->keep > 0 ? c->keep : rs && ts->keep > 0 ? (int)ts->keep : 3;
	p->save_every = c->save_every > 0 ? c->save_every
			: rs && ts->save_every > 0 ? ts->save_every : 1000;
	/* validation about 20 times a run where its length is known (a curve
	 * with points, whatever the length), else every 500 steps */
	const int64_t ev = p->opt.total > 0 ? (p->opt.total + 19) / 20 : 500;
	p->eval_every = c->eval_every > 0 ? c->eval_every
			: rs && ts->eval_every > 0 ? ts->eval_every : ev;
	p->log_every = c->log_every > 0 ? c->log_every
		       : rs && ts->log_every > 0 ? ts->log_every : 10;
	/* the feed's loader threads: behaviour cloning; by default on a GPU
	 * only (the CPU's cores are the ops') */
	p->loader_threads = c->ppo || c->teacher ? 0 : c->loader_threads > 0 ? c->loader_threads
			    : c->cuda ? 2 : 0;
	return HY_OK;
}
