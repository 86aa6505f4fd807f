/* The training loop of hydra-fit (see loop.h): the plan (train/plan.h) made
 * into a run — context, model, data, workspace, feed, output directory — and
 * the loop around the one step (train/step.h) with its metrics, evaluations
 * and checkpoints. */
#include "train/loop.h"

#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpi/grad.h"
#include "nn/checkpoint.h"
#include "nn/evalacc.h"
#include "nn/cuda/cuda.h"
#include "nn/optim.h"
#include "nn/rng.h"
#include "nn/threads.h"
#include "samples/reader.h"
#include "train/ckptdir.h"
#include "data/source.h"
#include "train/distil.h"
#include "train/feed.h"
#include "train/inputs.h"
#include "train/prov.h"
#include "train/plan.h"
#include "train/ranks.h"
#include "train/step.h"

#define MODEL_TAG 0x4d4f44454cull /* "MODEL" */
#define CKPT_FMT HY_CKDIR_FMT

typedef struct run {
	int made_out;       /* this run created the output directory */
	int metrics_new;    /* this run created metrics.jsonl */
	const hy_train_cfg *cfg;
	/* provenance (train/prov.h): the configuration with the inputs a
	 * resumed run took from its checkpoint, and the descriptions saved */
	hy_train_cfg cfg_resumed;
	char **rin, **rval;
	size_t nrin, nrval;
	char *prov_in, *prov_val;
	double last_val[7];  /* the last evaluation's losses (val_loss first)     */
	int have_val, on_eval_failed;
	const hy_train_hooks *hk;
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
	int have_m, have_w, have_cuda;
	hy_nn_optim_cfg opt;
	int64_t step;
	uint64_t seed;
	hy_rng rng;
	int batch;
	size_t shuffle_buffer;
	hy_data *data;
	hy_sample *buf;
	hy_train_feed *feed;  /* loader threads (train/feed.h), or NULL     */
	hy_data_cursor fcur; /* with the feed: the cursor after the last batch */
	hy_train_ppo *ppo; /* --mode ppo */
	hy_train_distil *distil; /* --teacher: the learner of a student */
	hy_train_facts facts; /* what the files said (train/plan.h)      */
	hy_nn_ckpt_reader *ck; /* --resume's or --init's checkpoint, opened once
				* for everything read from it (nn/checkpoint.h);
				* closed when the weights are in (close_ck) */
	int ck_borrowed;      /* ck is the caller's (cfg.resume_ck): not closed */
	hy_train_plan plan;   /* every figure of the run                 */
	hy_train_net net;     /* the learner of the one step (step.h)    */
	/* observation versions (samples/sample.h): the checkpoint the weights
	 * came from (--init, --resume; 0 unmarked) against the inputs' */
	const char *ck_path;
	int ck_obs, obs_checked;
	int val_obs; /* the validation inputs' (-1: none, or not known) */
	const char *out;
	FILE *metrics;
	hy_ckdir_state ts;
	int keep;
	int64_t save_every, eval_every, log_every;
	int64_t last_saved;
	char last_ckpt[4096];
	double best; /* lower is better; INFINITY: none */
	double save_loss_sum;
	int64_t save_loss_n;
	double t0;
	hy_mpi dist; /* ranks of an mpirun launch (lib/mpi); rank 0 writes */
	hy_train_ranks *ranks; /* several ranks: the data-parallel step (ranks.h) */
} run;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void notice(const run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(const run *r, const char *fmt, ...)
{
	if (!r->hk || !r->hk->notice || r->dist.rank > 0)
		return;
	char msg[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->hk->notice(r->hk->u, msg);
}

/* hy_ckdir_remove_stale's report. */
static void stale_removed(void *u, const char *path)
{
	notice(u, "removed '%s', left by an interrupted save", path);
}

/* ---------------------------------------------------------------- checkpoints */

/* The data cursor after the last batch trained on: with the feed its
 * batch's (the source is ahead by the batches in flight). */
static void get_cursor(const run *r, hy_data_cursor *c)
{
	if (r->feed)
		*c = r->fcur;
	else
		hy_data_get_cursor(r->data, c);
}

static hy_status save_ckpt(run *r, hy_diag *d)
{
	char name[64], path[PATH_MAX];
	snprintf(name, sizeof name, CKPT_FMT, (long long)r->step);
	if (hy_ckdir_join(path, sizeof path, r->out, name) < 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "path too long in '%s'", r->out);
	hy_data_cursor c;
	get_cursor(r, &c);
	r->ts.epoch = c.epoch;
	r->ts.pos = c.pos;
	r->ts.batch = r->batch;
	r->ts.shuffle_buffer = r->shuffle_buffer;
	r->ts.threads = r->ctx.threads;
	r->ts.best = r->best;
	r->ts.log_every = r->log_every;
	r->ts.save_every = r->save_every;
	r->ts.eval_every = r->eval_every;
	r->ts.keep = r->keep;
	r->ts.mode = r->ppo ? 1 : r->cfg->reader ? 2 : 0;
	/* the inputs' observation version: known once a sample was read,
	 * which every step has done */
	int32_t obs = hy_data_obs_version(r->data);
	if (obs < 0)
		obs = r->ck_obs ? r->ck_obs : HY_OBS_VERSION;
	const hy_ckdir_state *s = &r->ts;
	const hy_nn_ckpt_attr attrs[] = {
		{"train_epoch", HY_NN_ATTR_U64, &s->epoch},
		{"train_pos", HY_NN_ATTR_U64, &s->pos},
		{"train_samples", HY_NN_ATTR_U64, &s->samples},
		{"train_batch", HY_NN_ATTR_I64, &s->batch},
		{"train_shuffle_buffer", HY_NN_ATTR_U64, &s->shuffle_buffer},
		{"train_threads", HY_NN_ATTR_I32, &s->threads},
		{"train_best", HY_NN_ATTR_F64, &s->best},
		{"train_log_every", HY_NN_ATTR_I64, &s->log_every},
		{"train_save_every", HY_NN_ATTR_I64, &s->save_every},
		{"train_eval_every", HY_NN_ATTR_I64, &s->eval_every},
		{"train_keep", HY_NN_ATTR_I64, &s->keep},
		{"train_mode", HY_NN_ATTR_I32, &s->mode},
		{"obs_version", HY_NN_ATTR_I32, &obs},
	};
	/* a PPO run stores its settings, so --resume needs none of them */
	hy_nn_ckpt_attr all[sizeof attrs / sizeof attrs[0] + 14 + 5];
	int nall = (int)(sizeof attrs / sizeof attrs[0]);
	memcpy(all, attrs, sizeof attrs);
	/* provenance: how the model was made (h5dump -A), and the inputs a
	 * --resume without any reads again */
	const hy_train_cfg *cf = r->cfg;
	char device[32];
	int32_t prec = r->ctx.precision;
	snprintf(device, sizeof device, r->have_cuda ? "cuda:%d" : "cpu", cf->cuda_device);
	all[nall++] = (hy_nn_ckpt_attr){"train_command", HY_NN_ATTR_STR,
		cf->command ? cf->command : ""};
	all[nall++] = (hy_nn_ckpt_attr){"train_inputs", HY_NN_ATTR_STR,
		r->prov_in ? r->prov_in : ""};
	all[nall++] = (hy_nn_ckpt_attr){"train_val", HY_NN_ATTR_STR,
		r->prov_val ? r->prov_val : ""};
	all[nall++] = (hy_nn_ckpt_attr){"train_device", HY_NN_ATTR_STR, device};
	all[nall++] = (hy_nn_ckpt_attr){"train_precision", HY_NN_ATTR_I32, &prec};
	int32_t pe = 0, pm = 0, pna = 1;
	double pd[9];
	if (r->ppo) {
		const hy_train_ppo_cfg *pc = hy_train_ppo_config(r->ppo);
		pe = pc->epochs;
		pm = pc->minibatch;
		pna = pc->loss.norm_adv;
		const double v[9] = {pc->loss.clip, pc->loss.vf_coef, pc->loss.ent_coef, pc->ent_end,
			pc->kl_stop, pc->anchor_coef, pc->anchor_frac, pc->progress0, pc->progress1};
		memcpy(pd, v, sizeof pd);
		static const char *const dn[9] = {"ppo_clip", "ppo_vf_coef", "ppo_ent_coef",
			"ppo_ent_end", "ppo_kl_stop", "ppo_anchor_coef", "ppo_anchor_frac",
			"ppo_progress0", "ppo_progress1"};
		all[nall++] = (hy_nn_ckpt_attr){"ppo_epochs", HY_NN_ATTR_I32, &pe};
		all[nall++] = (hy_nn_ckpt_attr){"ppo_minibatch", HY_NN_ATTR_I32, &pm};
		all[nall++] = (hy_nn_ckpt_attr){"ppo_norm_adv", HY_NN_ATTR_I32, &pna};
		all[nall++] = (hy_nn_ckpt_attr){"ppo_value_warmup", HY_NN_ATTR_I64, &pc->value_warmup};
		all[nall++] = (hy_nn_ckpt_attr){"ppo_anchor", HY_NN_ATTR_STR,
			pc->anchor ? pc->anchor : ""};
		for (int i = 0; i < 9; i++)
			all[nall++] = (hy_nn_ckpt_attr){dn[i], HY_NN_ATTR_F64, &pd[i]};
	}
	hy_nn_ckpt_meta meta = {.step = r->step, .opt = r->opt, .seed = r->seed, .rng = r->rng,
		.extra = all, .nextra = nall};
	/* written atomically (temp name, fsync, rename) by the checkpoint module */
	hy_status st = hy_nn_ckpt_save(path, &r->m, &meta, d);
	if (st)
		return st;
	hy_ckdir_fsync(r->out, NULL);
	st = hy_ckdir_set_link(r->out, "latest", name, d);
	if (st)
		return st;
	r->last_saved = r->step;
	snprintf(r->last_ckpt, sizeof r->last_ckpt, "%.4000s", path);
	return HY_OK;
}

/* Saves when the step is periodic or improves the best metric (val loss
 * at an evaluation, else the mean train loss since the previous save), then
 * updates `best` and prunes. */
static hy_status checkpoint_step(run *r, int periodic, const double *val, hy_diag *d)
{
	int improved = 0;
	if (val && val[0] < r->best) {
		r->best = val[0];
		improved = 1;
	}
	if (!r->cfg->nval && periodic && r->save_loss_n) {
		double mean = r->save_loss_sum / (double)r->save_loss_n;
		if (mean < r->best) {
			r->best = mean;
			improved = 1;
		}
	}
	if (periodic) {
		r->save_loss_sum = 0;
		r->save_loss_n = 0;
	}
	if (!periodic && !improved)
		return HY_OK;
	hy_status st = HY_OK;
	if (r->last_saved != r->step)
		st = save_ckpt(r, d);
	if (!st && improved) {
		char name[64];
		snprintf(name, sizeof name, CKPT_FMT, (long long)r->step);
		st = hy_ckdir_set_link(r->out, "best", name, d);
	}
	if (!st)
		st = hy_ckdir_prune(r->out, r->keep, d);
	return st;
}

/* ---------------------------------------------------------------- metrics */

/* A run that failed before writing anything leaves nothing: its empty
 * metrics.jsonl goes, and the output directory if this run made it. */
static void drop_empty_output(run *r)
{
	char path[PATH_MAX];
	struct stat sb;
	if (hy_ckdir_join(path, sizeof path, r->out, "metrics.jsonl") == 0 && stat(path, &sb) == 0 &&
	    sb.st_size == 0) {
		unlink(path);
		if (r->made_out)
			rmdir(r->out); /* fails, harmlessly, unless empty */
	}
}

/* Keeps the lines of metrics.jsonl with step ≤ k (after a resume). */
static hy_status metrics_open(run *r, int resuming, hy_diag *d)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	if (hy_ckdir_join(path, sizeof path, r->out, "metrics.jsonl") < 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "path too long in '%s'", r->out);
	if (resuming) {
		FILE *in = fopen(path, "r");
		if (in) {
			snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
			FILE *o = fopen(tmp, "w");
			if (!o) {
				fclose(in);
				return hy_diag_set(d, HY_EIO, 0, "cannot create '%s': %s", tmp,
					strerror(errno));
			}
			char line[8192];
			while (fgets(line, sizeof line, in)) {
				long long s;
				if (sscanf(line, "{\"step\":%lld", &s) == 1 && s <= r->step)
					fputs(line, o);
			}
			fclose(in);
			if (fclose(o) != 0 || rename(tmp, path) < 0) {
				unlink(tmp);
				return hy_diag_set(d, HY_EIO, 0, "cannot rewrite '%s': %s", path,
					strerror(errno));
			}
		}
	}
	r->metrics_new = access(path, F_OK) != 0;
	r->metrics = fopen(path, resuming ? "a" : "w");
	if (!r->metrics)
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	return HY_OK;
}

typedef struct eval_acc {
	run *r;
	hy_nn_evalacc acc;
	hy_status st;
	hy_diag *d;
} eval_acc;

static int eval_batch(void *u, const hy_sample *s, size_t n)
{
	eval_acc *a = u;
	run *r = a->r;
	a->st = hy_nn_work_load(&r->w, &r->m, s, (int)n, a->d);
	if (a->st)
		return 1;
	hy_nn_losses l;
	hy_nn_forward(&r->m, &r->w);
	hy_nn_loss(&r->m, &r->w, &l);
	hy_nn_evalacc_add(&a->acc, &r->w, &l, (int)n); /* batch means, weighted */
	return 0;
}

/* A student's teacher reads the inputs too (opened after the first check:
 * checked there, and again here when the inputs' version is known late). */
static hy_status teacher_obs(const run *r, int dv, hy_diag *d)
{
	if (!r->distil || dv < 0 || hy_obs_compatible(r->distil->obs, dv))
		return HY_OK;
	return hy_diag_set(d, HY_EFORMAT, 0, "--teacher '%s' was trained on observation "
		"version %d (0: unmarked, %d or older), the inputs are version %d "
		"(ARCHITECTURE.md section 5)", r->cfg->teacher, r->distil->obs,
		HY_OBS_UNMARKED_MAX, dv);
}

/* The weights' checkpoint and the inputs hold one encoding of the
 * observation, once the inputs' is known (a stream on standard input: after
 * its first read). An unmarked checkpoint (0) cannot be checked. */
static hy_status check_obs(run *r, hy_diag *d)
{
	int dv = hy_data_obs_version(r->data);
	if (r->obs_checked || dv < 0)
		return HY_OK;
	r->obs_checked = 1;
	/* PPO's KL anchor reads the same samples as the learner */
	const char *an = r->ppo ? r->plan.ppo.anchor : NULL;
	int av = r->ppo ? hy_train_ppo_anchor_obs(r->ppo) : 0;
	if (an && !hy_obs_compatible(av, dv))
		return hy_diag_set(d, HY_EFORMAT, 0, "--anchor '%s' was trained on observation "
			"version %d (0: unmarked, %d or older), the inputs are version %d "
			"(ARCHITECTURE.md section 5)", an, av, HY_OBS_UNMARKED_MAX, dv);
	hy_status st = teacher_obs(r, dv, d); /* and a student's teacher */
	if (st)
		return st;
	if (r->val_obs >= 0 && r->val_obs != dv)
		return hy_diag_set(d, HY_EVERSION, 0, "the validation inputs hold observation version "
			"%d, the training inputs %d: samples of two encoders cannot be compared "
			"(remake the older ones)", r->val_obs, dv);
	if (!r->ck_path)
		return HY_OK;
	if (!r->ck_obs && hy_obs_compatible(0, dv)) {
		notice(r, "'%s' does not record its observation version (made before the "
			"marker): it is trained on from here on version %d", r->ck_path, dv);
		return HY_OK;
	}
	if (r->ck_obs == dv)
		return HY_OK;
	if (!r->ck_obs)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s' records no observation version, so it "
			"was trained on version %d or older; the inputs are version %d "
			"(lib/samples/sample.h, ARCHITECTURE.md section 5): start from a checkpoint "
			"of the inputs' version", r->ck_path, HY_OBS_UNMARKED_MAX, dv);
	return hy_diag_set(d, HY_EFORMAT, 0, "'%s' was trained on observation version %d, "
		"the inputs are version %d (lib/samples/sample.h, ARCHITECTURE.md section 5): "
		"start from a checkpoint of the inputs' version, or remake the inputs",
		r->ck_path, r->ck_obs, dv);
}

/* Fails before any training when the validation inputs hold no sample (a
 * split that routed no game there), instead of at the first evaluation, or
 * when their observation version is not the training inputs' (*v; -1:
 * unknown yet). */
static hy_status check_val(const hy_train_cfg *c, int *v, hy_diag *d)
{
	int any = 0;
	for (size_t i = 0; i < c->nval; i++) {
		hy_sample_reader *rd;
		hy_status st = hy_sample_reader_open(&rd, c->val[i], d);
		if (st)
			return st;
		uint64_t n = 0;
		if (hy_sample_reader_count(rd, &n) != HY_OK) {
			hy_sample *one = malloc(sizeof *one); /* a stream: a first sample? */
			if (!one) {
				hy_sample_reader_close(rd);
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			}
			n = hy_sample_read(rd, one, d) == HY_OK;
			free(one);
		}
		st = hy_sample_obs_agree(rd, v, "the training inputs", d);
		hy_sample_reader_close(rd);
		if (st)
			return st;
		any |= n > 0;
	}
	if (any)
		return HY_OK;
	return hy_diag_set(d, HY_EUSAGE, 0, "the validation input%s hold%s no samples",
		c->nval > 1 ? "s" : "", c->nval > 1 ? "" : "s");
}

static hy_status evaluate(run *r, double out[7], hy_diag *d)
{
	eval_acc a = {.r = r, .d = d};
	hy_status st = hy_data_scan(r->cfg->val, r->cfg->nval, r->buf, (size_t)r->plan.part,
		eval_batch, &a, NULL, NULL, d); /* versions: checked at the start */
	if (st == HY_STOP)
		st = a.st;
	if (st)
		return st;
	if (a.acc.n == 0)
		return hy_diag_set(d, HY_EDATA, 0, "no samples in the validation input");
	hy_nn_losses m;
	hy_nn_evalacc_mean(&a.acc, &r->m.lw, &m);
	double v[7] = {m.total, m.policy, m.value, m.grp, m.tenpai, m.danger,
		       (double)m.correct / a.acc.n};
	for (int i = 0; i < 7; i++)
		out[i] = isnan(v[i]) ? 0 : v[i]; /* no label counted: 0, as in training */
	return HY_OK;
}

/* ---------------------------------------------------------------- setup */

/* A resumed run given no inputs (or no --val) takes those its checkpoint
 * recorded (train/prov.h), saying so and naming the files that changed
 * since; a run whose checkpoint read standard input reads it again. */
static hy_status restore_inputs(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	if (!c->resume || (c->ninputs > 0 && c->nval > 0))
		return HY_OK;
	const char *path = hy_nn_ckpt_path(r->ck);
	hy_status st = HY_OK;
	char *desc = malloc(HY_PROV_MAX);
	if (!desc)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	r->cfg_resumed = *c;
	for (int k = 0; k < 2 && !st; k++) {
		const char *attr = k ? "train_val" : "train_inputs";
		int found = 0;
		if ((k ? c->nval : c->ninputs) > 0)
			continue;
		if ((st = hy_ckdir_read_str(r->ck, attr, desc, HY_PROV_MAX, &found, d)) || !found ||
			!desc[0])
			continue;
		char **p, changed[1024];
		size_t n;
		if ((st = hy_prov_parse(desc, &p, &n, changed, sizeof changed, d))) {
			snprintf(d->source, sizeof d->source, "%.500s", path);
			break;
		}
		if (n == 1 && !strcmp(p[0], "-")) { /* standard input, as before */
			hy_prov_free(p, n);
			continue;
		}
		notice(r, "%s from the checkpoint: %zu file%s%s%s%s", k ? "validation inputs" :
			"inputs", n, n > 1 ? "s" : "", changed[0] ? "; changed since: " : "",
			changed, changed[0] ? " (its samples may differ from those an uninterrupted run read)" :
			"");
		if (k) {
			r->rval = p, r->nrval = n;
			r->cfg_resumed.val = (const char *const *)p, r->cfg_resumed.nval = n;
		} else {
			r->rin = p, r->nrin = n;
			r->cfg_resumed.inputs = (const char *const *)p, r->cfg_resumed.ninputs = n;
		}
	}
	free(desc);
	if (!st)
		r->cfg = &r->cfg_resumed;
	return st;
}

/* The descriptions saved with every checkpoint (empty when the list does
 * not fit an attribute: said once). */
static hy_status describe_inputs(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	r->prov_in = malloc(HY_PROV_MAX);
	r->prov_val = malloc(HY_PROV_MAX);
	if (!r->prov_in || !r->prov_val)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_diag pd;
	hy_diag_init(&pd, NULL);
	if (hy_prov_describe(c->inputs, c->ninputs, r->prov_in, HY_PROV_MAX, &pd))
		notice(r, "inputs not recorded in the checkpoints (%s): --resume will need them",
			pd.msg);
	r->prov_val[0] = '\0';
	if (c->nval && hy_prov_describe(c->val, c->nval, r->prov_val, HY_PROV_MAX, &pd))
		notice(r, "validation inputs not recorded in the checkpoints (%s)", pd.msg);
	return HY_OK;
}

/* The checkpoint read at the start, closed (the caller's left open). */
static void close_ck(run *r)
{
	if (!r->ck_borrowed)
		hy_nn_ckpt_close(r->ck);
	r->ck = NULL;
}

/* The plan (train/plan.h): the checkpoint opened once, the inputs a
 * resume recorded, the rules, the files' facts, the figures; the context. */
static hy_status setup_plan(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	hy_status st = HY_OK;
	if (c->resume && c->resume_ck) { /* opened by the caller (loop.h) */
		r->ck = c->resume_ck;
		r->ck_borrowed = 1;
	} else if (c->resume) { /* PATH or a run directory's latest */
		char path[PATH_MAX];
		if ((st = hy_train_resolve_ckpt(c->resume, path, sizeof path, d)) ||
			(st = hy_nn_ckpt_open(path, &r->ck, d)))
			return st;
	} else if (c->init && (st = hy_nn_ckpt_open(c->init, &r->ck, d))) {
		return st; /* --init's file, opened once: architecture, weights, version */
	}
	if ((st = restore_inputs(r, d)))
		return st;
	c = r->cfg; /* (restore_inputs may have given it the checkpoint's inputs) */
	const hy_train_facts *f = &r->facts;
	const hy_train_plan *p = &r->plan;
	r->best = INFINITY;
	if ((st = hy_train_plan_usage(c, r->dist.size, d)) ||
		(st = hy_train_facts_read(c, r->ck, r->dist.rank, r->dist.size, &r->facts, d)))
		return st;
	st = hy_train_plan_make(c, f, &r->plan, d);
	for (int i = 0; i < p->nnotes; i++)
		notice(r, "%s", p->notes[i]);
	if (st)
		return st;
	if (f->resuming)
		r->ts = f->ts;
	hy_nn_ctx_init(&r->ctx, p->threads);
	if (!c->cuda) /* the oneDNN CPU path honours bf16 (nn/cpupath.h) */
		r->ctx.precision = c->precision;
	r->batch = p->batch;
	r->shuffle_buffer = p->shuffle_buffer;
	return HY_OK;
}

/* The model: the mode's inputs refused early, the PPO state, the backend,
 * the weights (the checkpoint's, --init's or fresh) and the anchor. */
static hy_status setup_model(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	const hy_train_facts *f = &r->facts;
	const hy_train_plan *p = &r->plan;
	hy_status st;
	/* refuse inputs the mode learns nothing from, early (train/inputs.h) */
	if (c->reader && (st = hy_train_reader_check_inputs(c->inputs, c->ninputs, d)))
		return st;
	if (c->ppo) { /* refuse logs without behaviour log-probabilities early */
		if ((st = hy_train_ppo_check_inputs(c->inputs, c->ninputs, d)))
			return st;
		const char *in = c->ninputs == 0 ? "-" : c->ninputs == 1 ? c->inputs[0] : NULL;
		if ((st = hy_train_ppo_init(&r->ppo, &p->ppo, r->batch,
			     in && strcmp(in, "-") == 0 ? "standard input" : in, d)))
			return st;
	}

	r->m.arch = p->arch;
	const hy_nn_backend *be = hy_nn_backend_cpu();
	if (c->cuda) { /* the device's context replaces the CPU one made above */
		hy_nn_cuda_cfg cc = {.device = c->cuda_device, .precision = c->precision,
			.fast = c->fast, .arch = p->arch, .max_batch = p->part};
		if ((st = hy_nn_cuda_ctx_init(&r->ctx, &cc, d)))
			return st;
		r->have_cuda = 1;
		be = hy_nn_backend_cuda();
	}
	if ((st = hy_nn_model_init(&r->m, p->arch, be, &r->ctx, d)))
		return st;
	r->have_m = 1;
	if (r->cfg->reader) /* a wait reader: its heads' losses alone */
		r->m.lw = hy_nn_loss_w_reader;
	r->seed = p->seed;
	r->step = p->step;
	r->best = p->best;
	r->opt = p->opt;
	if (f->resuming) {
		hy_nn_ckpt_meta meta;
		if ((st = hy_nn_ckpt_load_from(r->ck, &r->m, &meta, 0, d)) ||
			(st = hy_nn_ckpt_obs_of(r->ck, &r->ck_obs, d)))
			return st;
		r->rng = meta.rng;
	} else {
		hy_rng_seed(&r->rng, hy_data_mix(r->seed, MODEL_TAG, 0));
		if ((st = hy_nn_model_init_params(&r->m, &r->rng, d)))
			return st;
		if (c->init && ((st = hy_nn_ckpt_load_from(r->ck, &r->m, NULL, 1, d)) ||
			(st = hy_nn_ckpt_obs_of(r->ck, &r->ck_obs, d))))
			return st;
	}
	close_ck(r); /* all of it read */
	/* the PPO schedule runs over the run's steps (a resumed run keeps its
	 * place); the anchor policy shares the learner's backend, its file
	 * opened once (its observation version is checked with the inputs') */
	if (r->ppo && (st = hy_train_ppo_start(r->ppo, &r->m, 0, r->opt.total, d)))
		return st;
	return HY_OK;
}

/* The data (this rank's part), the observation versions, the validation
 * inputs, the descriptions a checkpoint records, a resume's place. */
static hy_status setup_data(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	const hy_train_facts *f = &r->facts;
	const hy_train_plan *p = &r->plan;
	hy_status st;
	/* data; without a planned total (no --steps, no checkpoint's), a stream
	 * is read once (shards have a length: the total is one epoch's) */
	hy_data_cfg dc = {.paths = c->inputs, .npaths = c->ninputs, .seed = r->seed,
		.shuffle_buffer = r->shuffle_buffer, .rank = r->dist.rank, .ranks = r->dist.size,
		.one_pass = p->one_pass};
	if (r->facts.data) { /* opened by the plan's facts: the run's one handle */
		r->data = r->facts.data;
		r->facts.data = NULL;
		st = hy_data_restart(r->data, dc.seed, dc.shuffle_buffer, dc.one_pass, d);
	} else {
		st = hy_data_open(&r->data, &dc, d);
	}
	if (st)
		return st;
	r->ck_path = f->resuming ? f->ckpt : c->init;
	if ((st = check_obs(r, d)))
		return st;
	int vv = hy_data_obs_version(r->data);
	if (c->nval && (st = check_val(c, &vv, d)))
		return st;
	r->val_obs = c->nval ? vv : -1;
	/* described once they opened: a missing input is its own error, not
	 * a notice that a resume would need it */
	if ((st = describe_inputs(r, d)))
		return st;
	if (f->resuming) {
		hy_data_cursor cur = {r->ts.epoch, r->ts.pos};
		st = hy_data_seek(r->data, &cur, d);
		if (st == HY_STOP)
			st = HY_EDATA;
		if (st)
			return st;
	}
	return HY_OK;
}

/* The workspace, the ranks' sums, the batch buffer and the feed. */
static hy_status setup_work(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	const hy_train_plan *p = &r->plan;
	hy_status st;
	/* the workspace holds this process's part of a batch (plan.h) */
	if ((st = hy_nn_work_init(&r->w, &r->m, p->part, d)))
		return st;
	r->have_w = 1;
	hy_train_net_init(&r->net, &r->m, &r->w);
	if (c->teacher) {
		if (r->ppo || c->reader)
			return hy_diag_set(d, HY_EUSAGE, 0, "--teacher distils in --mode bc");
		if (!(r->distil = calloc(1, sizeof *r->distil)))
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for the teacher");
		if ((st = hy_train_distil_open(r->distil, c->teacher, c->kl_tau > 0 ? c->kl_tau : 3.0f,
			     &r->m, &r->w, p->part, r->step, r->opt.total, d))) {
			free(r->distil);
			r->distil = NULL;
			return st;
		}
		if ((st = teacher_obs(r, hy_data_obs_version(r->data), d)))
			return st;
	}
	if (r->dist.size > 1 &&
	    (st = hy_train_ranks_open(&r->ranks, &r->dist, &r->m, !c->no_overlap, d)))
		return st;
	r->buf = malloc((size_t)r->batch * sizeof *r->buf);
	if (!r->buf)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (batch of %d samples)", r->batch);
	/* the feed's loader threads (train/feed.h), on this rank's part of
	 * each batch */
	if (p->loader_threads) {
		/* a backend that widens compact batches on its device gets them */
		hy_train_feed_cfg fc = {.batch = r->batch, .threads = p->loader_threads,
			.be = r->m.be, .compact = hy_train_feed_compact_ok(r->m.be) && !r->m.arch.oracle,
			.in = r->m.in};
		hy_data_get_cursor(r->data, &r->fcur);
		if ((st = hy_train_feed_open(&r->feed, r->data, &fc, d)))
			return st;
	}
	return HY_OK;
}

/* The output directory, its metrics and the intervals. */
static hy_status setup_out(run *r, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	const hy_train_facts *f = &r->facts;
	const hy_train_plan *p = &r->plan;
	hy_status st;
	/* output directory */
	r->out = c->out;
	if (!r->out)
		return hy_diag_set(d, HY_EUSAGE, 0, "no output directory");
	struct stat osb;
	r->made_out = stat(r->out, &osb) != 0;
	if (r->dist.rank == 0 && (st = hy_ckdir_mkdir_p(r->out, d)))
		return st;
	if (r->dist.rank == 0) /* the other ranks write nothing */
		hy_ckdir_remove_stale(r->out, stale_removed, r);
	if (r->dist.rank == 0 && (st = metrics_open(r, f->resuming, d)))
		return st;
	r->last_saved = f->resuming ? r->step : -1;
	if (f->resuming) {
		snprintf(r->last_ckpt, sizeof r->last_ckpt, "%.4000s", f->ckpt);
		notice(r, "resuming from '%s' at step %lld (epoch %llu, sample %llu)", f->ckpt,
			(long long)r->step, (unsigned long long)r->ts.epoch,
			(unsigned long long)r->ts.pos);
	}
	r->keep = p->keep;
	r->save_every = p->save_every;
	r->eval_every = p->eval_every;
	r->log_every = p->log_every;
	return HY_OK;
}

/* The run: the plan (train/plan.h) made real — context, model, data,
 * workspace, the feed, the output directory. */
static hy_status setup(run *r, hy_diag *d)
{
	hy_status st;
	if ((st = setup_plan(r, d)) || (st = setup_model(r, d)) || (st = setup_data(r, d)) ||
		(st = setup_work(r, d)))
		return st;
	return setup_out(r, d);
}

/* --on-eval: the command, through sh, with RUN=the output directory, once
 * metrics.jsonl holds the evaluation's line; its failure is said once and
 * does not stop training. */
static void run_on_eval(run *r)
{
	const char *cmd = r->cfg->on_eval;
	if (!cmd || !*cmd || r->dist.rank > 0)
		return;
	fflush(NULL); /* metrics.jsonl's line, before the command reads it */
	pid_t pid = fork();
	if (pid == 0) {
		/* the stop signals, blocked in every thread of a trainer that
		 * takes them on a thread of its own (io/stopsig.h), are the
		 * command's again */
		sigset_t stop;
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		sigprocmask(SIG_UNBLOCK, &stop, NULL);
		setenv("RUN", r->out, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	int ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0;
	if (!ok && !r->on_eval_failed) {
		r->on_eval_failed = 1;
		notice(r, "--on-eval command failed (status %d); training goes on",
			pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

/* The end-of-run word on heads whose validation loss stayed where a model
 * that learned nothing is: the GRP head at ln 24 (a uniform guess over the
 * 24 final orders; its best constant, the orders' frequencies, is within
 * 0.3% of it on real games). */
static void uninformed_heads(run *r)
{
	if (!r->have_val || r->m.lw.grp == 0) /* a wait reader does not train it */
		return;
	const double grp = r->last_val[3], uniform = log(24.0);
	if (isfinite(grp) && fabs(grp - uniform) < 0.01 * uniform)
		notice(r, "the grp head's validation loss %.4f is ln 24 = %.4f, a uniform guess: "
			"it has learned nothing of the final orders (too few games, or labels the "
			"data lacks)", grp, uniform);
}

/* ---------------------------------------------------------------- loop */

static void write_metrics(run *r, const hy_nn_losses *l, const hy_nn_step_info *info,
	double sps, const double *val)
{
	uint64_t es = hy_data_epoch_size(r->data);
	hy_data_cursor c;
	get_cursor(r, &c);
	double epoch = es ? (double)c.epoch + (double)c.pos / (double)es : (double)c.epoch;
	fprintf(r->metrics,
		"{\"step\":%lld,\"epoch\":%.6g,\"samples\":%llu,\"loss\":%.9g,\"policy\":%.9g,"
		"\"value\":%.9g,\"grp\":%.9g,\"tenpai\":%.9g,\"danger\":%.9g,\"acc\":%.6g,"
		"\"lr\":%.9g,\"grad_norm\":%.9g,\"samples_per_s\":%.6g,\"elapsed_s\":%.3f",
		(long long)r->step, epoch, (unsigned long long)r->ts.samples, l->total, l->policy,
		l->value, l->grp, l->tenpai, l->danger, l->n ? (double)l->correct / l->n : 0.0,
		(double)info->lr, info->grad_norm, sps, now_s() - r->t0);
	if (val)
		fprintf(r->metrics,
			",\"val_loss\":%.9g,\"val_policy\":%.9g,\"val_value\":%.9g,\"val_grp\":%.9g,"
			"\"val_tenpai\":%.9g,\"val_danger\":%.9g,\"val_acc\":%.6g",
			val[0], val[1], val[2], val[3], val[4], val[5], val[6]);
	if (r->ppo)
		hy_train_ppo_metrics(r->ppo, r->metrics);
	if (r->distil)
		hy_train_distil_metrics(r->distil, r->metrics);
	fputs("}\n", r->metrics);
	fflush(r->metrics);
}

/* A multiple of `every` lies in (prev, step]. */
static int crossed(int64_t prev, int64_t step, int64_t every)
{
	return step / every != prev / every;
}

/* After the first step on a GPU: the device, precision, memory and the
 * convolution chosen for each shape, one notice a line. */
static void cuda_notice(const run *r)
{
	char buf[4096];
	hy_nn_cuda_report(&r->ctx, buf, sizeof buf);
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		notice(r, "cuda: %s", line);
}

/* A step that stopped on a non-finite loss or gradient names the last
 * checkpoint, the one to go back to. */
static hy_status step_failed(const run *r, hy_status st, hy_diag *d)
{
	if (st == HY_EDATA && d && r->last_ckpt[0] && strstr(d->msg, "nothing new saved")) {
		char msg[sizeof d->msg];
		snprintf(msg, sizeof msg, "%s", d->msg);
		hy_diag_set(d, HY_EDATA, 0, "%.600s (last checkpoint: %.400s)", msg, r->last_ckpt);
	}
	return st;
}

/* The window of steps since the last logged line: its start (training
 * time only), summed loss, steps and samples; the last rate logged. */
typedef struct step_window {
	double t, loss, last_sps;
	int64_t steps, samples;
} step_window;

/* The next global batch (n samples, k of them this rank's): from the feed
 * (into the workspace) or read; HY_STOP at the end of the input. */
static hy_status next_batch(run *r, size_t *n, size_t *k, hy_diag *d)
{
	hy_status st;
	*n = *k = 0;
	if (r->feed) { /* the batch goes straight into the workspace */
		const hy_train_batch *fb;
		st = hy_train_feed_load(r->feed, &r->w, &r->m, &fb, d);
		if (!st) {
			*n = (size_t)fb->n_global;
			*k = (size_t)fb->info.n;
			r->fcur = fb->cursor;
		}
	} else {
		st = hy_data_next_part(r->data, r->buf, (size_t)r->batch, n, k, d);
	}
	if (!st && !r->obs_checked)
		st = check_obs(r, d);
	return st;
}

/* After the step from prev to r->step (loss l, figures info, n samples):
 * the evaluation, the metrics line, the progress hook, the checkpoint;
 * *logged: whether the step got a metrics line. */
static hy_status after_step(run *r, step_window *w, int64_t prev, const hy_nn_losses *l,
	const hy_nn_step_info *info, int *logged_out, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	const int64_t total = r->opt.total;
	hy_status st;
	int last = r->step == total;
	double val[7];
	int evaluated = 0;
	if (c->nval && r->dist.rank == 0 && (crossed(prev, r->step, r->eval_every) || last)) {
		double te = now_s();
		if ((st = evaluate(r, val, d)))
			return st;
		evaluated = 1;
		w->t += now_s() - te; /* samples/s counts training time only */
	}
	int logged = evaluated || last || crossed(prev, r->step, r->log_every);
	hy_train_progress p = {.step = r->step, .total = total, .loss = l->total,
		.eta_s = -1, .logged = logged, .evaluated = evaluated,
		.val_loss = evaluated ? val[0] : 0};
	uint64_t es = hy_data_epoch_size(r->data);
	hy_data_cursor cur;
	get_cursor(r, &cur);
	p.epoch = es ? (double)cur.epoch + (double)cur.pos / (double)es : (double)cur.epoch;
	double t = now_s();
	p.samples_per_s = t > w->t ? (double)w->samples / (t - w->t) : 0;
	p.loss_avg = w->loss / (double)w->steps;
	if (t > w->t && total > 0)
		p.eta_s = (double)(total - r->step) * (t - w->t) / (double)w->steps;
	if (logged && r->metrics) {
		w->last_sps = p.samples_per_s;
		write_metrics(r, l, info, w->last_sps, evaluated ? val : NULL);
		if (ferror(r->metrics))
			return hy_diag_set(d, HY_EIO, 0, "cannot write metrics.jsonl in '%s'", r->out);
	}
	if (evaluated) {
		memcpy(r->last_val, val, sizeof r->last_val);
		r->have_val = 1;
		double te = now_s();
		run_on_eval(r);
		w->t += now_s() - te;
	}
	if (r->hk && r->hk->progress && r->dist.rank == 0)
		r->hk->progress(r->hk->u, &p);
	if (logged) {
		w->t = t;
		w->loss = 0;
		w->steps = w->samples = 0;
	}
	*logged_out = logged;
	double ts = now_s();
	if (r->dist.rank == 0 &&
	    (st = checkpoint_step(r, crossed(prev, r->step, r->save_every) || last,
		     evaluated ? val : NULL, d)))
		return st;
	w->t += now_s() - ts;
	return HY_OK;
}

static hy_status train(run *r, hy_train_result *res, hy_diag *d)
{
	const hy_train_cfg *c = r->cfg;
	const int64_t total = r->opt.total;
	step_window w = {.t = now_s()};
	/* the last step's figures, for the closing metrics line of a run whose
	 * input ended between two logged steps */
	hy_nn_losses last_l;
	hy_nn_step_info last_info;
	memset(&last_l, 0, sizeof last_l);
	memset(&last_info, 0, sizeof last_info);
	int64_t logged_step = r->step;
	hy_status st = HY_OK;
	while (total <= 0 || r->step < total) {
		int stop = c->stop && *c->stop; /* all ranks stop at the same step */
		if ((st = hy_mpi_max_int(&r->dist, &stop, 1, d)))
			return st;
		if (stop) {
			res->stopped = 1;
			notice(r, "interrupted at step %lld", (long long)r->step);
			break;
		}
		size_t n, k; /* the global batch, this rank's part of it */
		st = next_batch(r, &n, &k, d);
		if (st == HY_STOP) {
			st = HY_OK;
			res->input_ended = 1;
			if (total > 0)
				notice(r, "the input ended at step %lld of %lld", (long long)r->step,
					(long long)total);
			else
				notice(r, "the input ended after %lld steps (one pass)",
					(long long)r->step);
			break;
		}
		if (st)
			return st;
		hy_nn_losses l;
		hy_nn_step_info info;
		const int64_t prev = r->step; /* PPO: one batch takes several steps */
		if (r->ppo) {
			st = hy_train_ppo_update(r->ppo, &r->m, &r->w, &r->opt, &r->step,
				total > 0 ? total - r->step : 0, r->seed, r->buf, (int)n, &l, &info, d);
		} else if (r->distil) { /* a student: the samples read, never the feed's */
			r->distil->net.part = r->buf;
			st = hy_train_step(&r->distil->net.L, r->ranks, (int)k, &r->opt, &r->step, &l,
				&info, d);
		} else { /* this process's part: from the feed (in w), or read */
			r->net.part = r->feed ? NULL : r->buf;
			st = hy_train_step(&r->net.L, r->ranks, (int)k, &r->opt, &r->step, &l, &info,
				d);
		}
		if (st)
			return step_failed(r, st, d);
		if (r->m.be->sync && (st = r->m.be->sync(&r->ctx, d)))
			return st;
		if (r->have_cuda && res->samples == 0)
			cuda_notice(r);
		r->ts.samples += n;
		res->samples += (int64_t)n;
		if (r->hk && r->hk->step && r->dist.rank == 0)
			r->hk->step(r->hk->u, r->step, &l);
		w.loss += l.total * (double)(r->step - prev);
		w.steps += r->step - prev;
		w.samples += (int64_t)n;
		r->save_loss_sum += l.total;
		r->save_loss_n++;
		last_l = l;
		last_info = info;
		int logged = 0;
		if ((st = after_step(r, &w, prev, &l, &info, &logged, d)))
			return st;
		if (logged)
			logged_step = r->step;
	}
	if (logged_step != r->step && r->metrics) { /* the run's last step is always a line */
		double t = now_s();
		write_metrics(r, &last_l, &last_info,
			t > w.t ? (double)w.samples / (t - w.t) : w.last_sps, NULL);
		if (ferror(r->metrics))
			return hy_diag_set(d, HY_EIO, 0, "cannot write metrics.jsonl in '%s'", r->out);
	}
	if (r->dist.rank == 0 && r->last_saved != r->step && (st = checkpoint_step(r, 1, NULL, d)))
		return st;
	uninformed_heads(r);
	return res->stopped ? HY_STOP : HY_OK;
}

hy_status hy_train_run(const hy_train_cfg *cfg, const hy_train_hooks *hooks,
	hy_train_result *res, hy_diag *d)
{
	hy_train_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof *res);
	run *r = calloc(1, sizeof *r);
	if (!r)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	r->cfg = cfg;
	r->hk = hooks;
	r->val_obs = -1;
	r->t0 = now_s();
	hy_status st = hy_mpi_init(&r->dist, d);
	if (!st)
		st = setup(r, d);
	if (!st)
		st = train(r, res, d);
	if (r->feed) { /* did the steps wait for data? (the loader threads' figure) */
		hy_train_feed_stats fs;
		hy_train_feed_get_stats(r->feed, &fs);
		notice(r, "feed: %d loader thread%s; the steps waited %.1f s for data", fs.threads,
			fs.threads > 1 ? "s" : "", fs.wait_s);
	}
	if ((!st || st == HY_STOP) && r->dist.size > 1) /* every rank reports rank 0's */
		st = hy_mpi_bcast(&r->dist, r->last_ckpt, sizeof r->last_ckpt, d) ? HY_EIO : st;
	if ((!st || st == HY_STOP) && r->ranks) { /* each rank's reads, the sums */
		hy_data_stats ds;
		hy_data_get_stats(r->data, &ds);
		char l1[1200], l2[1200];
		hy_status rs = hy_train_ranks_report(r->ranks, &ds, (uint64_t)res->samples, l1, l2,
			sizeof l1, d);
		if (rs)
			st = rs;
		else if (l1[0]) {
			notice(r, "%s", l1);
			notice(r, "%s", l2);
		}
	}
	res->step = r->step;
	snprintf(res->last_ckpt, sizeof res->last_ckpt, "%s", r->last_ckpt);
	res->seconds = now_s() - r->t0;
	res->best_val = cfg->nval && isfinite(r->best) ? r->best : NAN;
	if (r->metrics && fclose(r->metrics) != 0 && (!st || st == HY_STOP))
		st = hy_diag_set(d, HY_EIO, 0, "cannot write metrics.jsonl in '%s'", r->out);
	if (st && st != HY_STOP && r->out && r->metrics_new)
		drop_empty_output(r);
	if (st && st != HY_STOP) /* ends every rank when there are several */
		hy_train_ranks_fail(&r->dist, st, d, r->hk ? r->hk->notice : NULL,
			r->hk ? r->hk->u : NULL);
	hy_train_ranks_close(r->ranks);
	hy_mpi_free(&r->dist);
	close_ck(r);
	free(r->buf);
	hy_train_ppo_free(r->ppo);
	if (r->distil) {
		hy_train_distil_close(r->distil);
		free(r->distil);
	}
	hy_train_feed_close(r->feed); /* before the source and the device it uses */
	hy_data_close(r->data);
	hy_data_close(r->facts.data); /* a run that failed before setup_data */
	if (r->have_w)
		hy_nn_work_free(&r->w, &r->m);
	if (r->have_m)
		hy_nn_model_free(&r->m);
	if (r->have_cuda)
		hy_nn_cuda_ctx_free(&r->ctx);
	hy_prov_free(r->rin, r->nrin);
	hy_prov_free(r->rval, r->nrval);
	free(r->prov_in);
	free(r->prov_val);
	free(r);
	return st;
}
