/* The PPO update loop of hydra-fit (see ppo.h). */
#include "train/ppo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/checkpoint.h"
#include "nn/rng.h"
#include "samples/reader.h"
#include "data/source.h"
#include "train/inputs.h"
#include "train/step.h"

#define PPO_TAG 0x50504full /* "PPO" */
/* A behaviour log-probability above this is not one (float rounding of a
 * certain action's log p = 0 stays far below). */
#define LOGP_MAX 1e-4f

struct hy_train_ppo {
	hy_train_ppo_cfg c;
	int batch, mb;
	const char *input;
	hy_sample *mbuf;          /* one minibatch, gathered              */
	int *perm;                /* [batch]                              */
	float *logits, *dlogits;  /* [mb][46], host                       */
	float *val, *dval;        /* [mb]                                 */
	uint64_t *mask;
	uint8_t *action;
	float *logp, *adv, *ret;
	/* the anchor policy (cfg anchor) and its logits [mb][46], host */
	int have_anchor;
	int anchor_obs; /* the anchor's obs_version (hy_train_ppo_anchor_obs) */
	hy_nn_model am;
	hy_nn_work aw;
	float *alogits;
	/* the schedule: the run's first step and planned total; the step the
	 * next gradient is taken at */
	int64_t step0, total, cur;
	/* last update */
	hy_nn_ppo_stats first, last;
	double ev;
	int64_t steps;
	int passes, kl_stopped;
	double anchor_kl, anchor_n; /* sums over the last pass */
	hy_train_ppo_sched sched;   /* at the batch's start */
	int warm;                   /* the minibatch's step is critic-only  */
};

void hy_train_ppo_defaults(hy_train_ppo_cfg *c)
{
	memset(c, 0, sizeof *c);
	hy_nn_ppo_defaults(&c->loss);
	c->loss.clip = 0.1f;
	c->epochs = 3;
	c->ent_end = 0.005f;
	c->kl_stop = 0.03f;
	c->anchor_coef = 0.05f;
	c->anchor_frac = 0.3f;
	c->progress0 = 0.0f;
	c->progress1 = 1.0f;
}

void hy_train_ppo_merge(hy_train_ppo_cfg *a, const hy_train_ppo_cfg *stored,
	const hy_train_ppo_cfg *cli, unsigned given)
{
	hy_train_ppo_cfg r = *stored;
#define TAKE(bit, field) \
	if (given & (bit)) \
		r.field = cli->field
	TAKE(HY_PPO_GIVEN_EPOCHS, epochs);
	TAKE(HY_PPO_GIVEN_MINIBATCH, minibatch);
	TAKE(HY_PPO_GIVEN_CLIP, loss.clip);
	TAKE(HY_PPO_GIVEN_NORM_ADV, loss.norm_adv);
	TAKE(HY_PPO_GIVEN_VF, loss.vf_coef);
	TAKE(HY_PPO_GIVEN_ENT, loss.ent_coef);
	TAKE(HY_PPO_GIVEN_ENT_END, ent_end);
	TAKE(HY_PPO_GIVEN_KL_STOP, kl_stop);
	TAKE(HY_PPO_GIVEN_VALUE_WARMUP, value_warmup);
	TAKE(HY_PPO_GIVEN_ANCHOR, anchor);
	TAKE(HY_PPO_GIVEN_ANCHOR_COEF, anchor_coef);
	TAKE(HY_PPO_GIVEN_ANCHOR_FRAC, anchor_frac);
	TAKE(HY_PPO_GIVEN_PROGRESS, progress0);
	TAKE(HY_PPO_GIVEN_PROGRESS, progress1);
#undef TAKE
	*a = r;
}

const hy_train_ppo_cfg *hy_train_ppo_config(const hy_train_ppo *p)
{
	return &p->c;
}

void hy_train_ppo_schedule(const hy_train_ppo_cfg *c, int64_t step, int64_t step0,
	int64_t total, hy_train_ppo_sched *s)
{
	double f = c->progress0;
	if (total > step0 && step >= step0) {
		double t = (double)(step - step0) / (double)(total - step0);
		f = c->progress0 + (c->progress1 - c->progress0) * (t > 1 ? 1 : t);
	}
	s->progress = f;
	double fe = f < 0 ? 0 : f > 1 ? 1 : f;
	s->ent_coef = c->ent_end < 0 ? c->loss.ent_coef
				     : (float)(c->loss.ent_coef + (c->ent_end - c->loss.ent_coef) * fe);
	if (!c->anchor)
		s->anchor_coef = 0.0f;
	else if (c->anchor_frac <= 0)
		s->anchor_coef = c->anchor_coef;
	else
		s->anchor_coef = (float)fe >= c->anchor_frac ? 0.0f
			: (float)(c->anchor_coef * (1.0 - fe / c->anchor_frac));
	s->warm = step - step0 < c->value_warmup;
}

hy_status hy_train_ppo_shape(const hy_train_ppo_cfg *c, int batch, int *mb, int64_t *steps,
	hy_diag *d)
{
	*mb = c->minibatch > 0 ? c->minibatch : (batch + 3) / 4;
	*steps = (int64_t)(c->epochs > 0 ? c->epochs : 3) * ((batch + *mb - 1) / *mb);
	if (*mb > batch)
		return hy_diag_set(d, HY_EUSAGE, 0, "--minibatch %d is larger than the batch (%d)",
			c->minibatch, batch);
	return HY_OK;
}

hy_status hy_train_ppo_init(hy_train_ppo **out, const hy_train_ppo_cfg *c, int batch,
	const char *input, hy_diag *d)
{
	*out = NULL;
	if (batch < 1)
		return hy_diag_set(d, HY_EUSAGE, 0, "bad rollout batch size %d", batch);
	hy_train_ppo *p = calloc(1, sizeof *p);
	if (!p)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	p->c = *c;
	if (p->c.epochs <= 0)
		p->c.epochs = 3;
	if (!(p->c.loss.clip > 0 && p->c.loss.clip < 1) || !(p->c.loss.vf_coef >= 0) ||
		!(p->c.loss.ent_coef >= 0)) {
		free(p);
		return hy_diag_set(d, HY_EUSAGE, 0, "PPO clip %g must be in (0, 1) and the value "
			"and entropy coefficients at least 0", (double)c->loss.clip);
	}
	if (!(p->c.kl_stop >= 0) || !(p->c.anchor_coef >= 0) || !(p->c.anchor_frac >= 0) ||
		p->c.value_warmup < 0 || !isfinite(p->c.ent_end) || !isfinite(p->c.progress0) ||
		!isfinite(p->c.progress1)) {
		free(p);
		return hy_diag_set(d, HY_EUSAGE, 0, "PPO schedule: the KL threshold, anchor weight "
			"and fraction and the value warm-up must be at least 0");
	}
	p->batch = batch;
	int64_t steps;
	hy_status st = hy_train_ppo_shape(&p->c, batch, &p->mb, &steps, d);
	if (st) {
		free(p);
		return st;
	}
	p->input = input;
	size_t mb = (size_t)p->mb;
	p->mbuf = malloc(mb * sizeof *p->mbuf);
	p->perm = malloc((size_t)batch * sizeof *p->perm);
	p->logits = malloc(mb * HY_ACTIONS * sizeof(float));
	p->dlogits = malloc(mb * HY_ACTIONS * sizeof(float));
	p->val = malloc(mb * 5 * sizeof(float));
	p->mask = malloc(mb * sizeof *p->mask);
	p->action = malloc(mb);
	p->alogits = malloc(mb * HY_ACTIONS * sizeof(float));
	if (!p->mbuf || !p->perm || !p->logits || !p->dlogits || !p->val || !p->mask ||
		!p->action || !p->alogits) {
		hy_train_ppo_free(p);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for PPO minibatches of %d", p->mb);
	}
	p->dval = p->val + mb;
	p->logp = p->dval + mb;
	p->adv = p->logp + mb;
	p->ret = p->adv + mb;
	*out = p;
	return HY_OK;
}

void hy_train_ppo_free(hy_train_ppo *p)
{
	if (!p)
		return;
	free(p->mbuf);
	free(p->perm);
	free(p->logits);
	free(p->dlogits);
	free(p->val);
	free(p->mask);
	free(p->action);
	free(p->alogits);
	if (p->have_anchor) {
		hy_nn_work_free(&p->aw, &p->am);
		hy_nn_model_free(&p->am);
	}
	free(p);
}

int hy_train_ppo_anchor_obs(const hy_train_ppo *p)
{
	return p->have_anchor ? p->anchor_obs : 0;
}

hy_status hy_train_ppo_start(hy_train_ppo *p, const hy_nn_model *m, int64_t step0,
	int64_t total, hy_diag *d)
{
	p->step0 = step0;
	p->total = total;
	p->cur = step0;
	if (!p->c.anchor || p->have_anchor)
		return HY_OK;
	hy_status st = hy_nn_ckpt_open_frozen(p->c.anchor, "--anchor", m, p->mb, &p->am, &p->aw,
		&p->anchor_obs, d);
	if (st)
		return st;
	p->have_anchor = 1;
	return HY_OK;
}

/* Critic-only step: every gradient but the value head's zeroed. */
static void keep_value_grads(const hy_nn_model *m)
{
	for (int i = 0; i < m->table.count; i++)
		if (i != m->v1w && i != m->v1b && i != m->v2w && i != m->v2b)
			m->be->zero(hy_nn_model_grad(m, i), m->table.t[i].size * sizeof(float));
}

int hy_train_ppo_minibatch(const hy_train_ppo *p)
{
	return p->mb;
}

int64_t hy_train_ppo_steps(const hy_train_ppo *p, int n)
{
	return (int64_t)p->c.epochs * ((n + p->mb - 1) / p->mb); /* as hy_train_ppo_shape */
}

static int has_pg(const hy_sample *s)
{
	return s->logp != 0.0f || s->adv != 0.0f;
}

static hy_status no_pg(hy_diag *d)
{
	return hy_diag_set(d, HY_EDATA, 0, "no sample has a behaviour log-probability "
		"(logp and adv are all 0): these look like logs encoded by hydra-encode; --mode ppo "
		"trains on hydra-sp output (use --mode bc for logs)");
}

hy_status hy_train_ppo_check_inputs(const char *const *paths, size_t n, hy_diag *d)
{
	return hy_train_inputs_have(paths, n, has_pg, no_pg, d);
}

/* Refusal of a batch without policy-gradient fields, and of bad fields. */
static hy_status check_batch(const hy_train_ppo *p, const hy_sample *s, int n, hy_diag *d)
{
	int any = 0;
	for (int b = 0; b < n; b++) {
		const hy_sample *x = &s[b];
		any |= has_pg(x);
		if (!isfinite(x->logp) || x->logp > LOGP_MAX)
			return hy_diag_set(d, HY_EDATA, 0, "sample %d of a rollout batch: behaviour "
				"log-probability %g is not a log-probability", b + 1, (double)x->logp);
		if (!isfinite(x->adv) || !isfinite(x->ret))
			return hy_diag_set(d, HY_EDATA, 0, "sample %d of a rollout batch: advantage "
				"%g or return %g is not finite", b + 1, (double)x->adv, (double)x->ret);
	}
	if (any)
		return HY_OK;
	hy_status st = no_pg(d);
	if (d && p->input)
		snprintf(d->source, sizeof d->source, "%s", p->input);
	return st;
}

/* Forward, the PPO loss on the policy and value outputs, the anchor, and
 * the output gradients in w (hy_train_ppo_grad without the backward pass). */
static hy_status ppo_loss(hy_train_ppo *p, const hy_nn_model *m, hy_nn_work *w,
	const hy_sample *s, int k, hy_nn_losses *l, hy_nn_ppo_stats *ps, hy_diag *d)
{
	const hy_nn_backend *be = m->be;
	if (k < 1 || k > p->mb)
		return hy_diag_set(d, HY_EUSAGE, 0, "minibatch of %d samples: 1 to %d", k, p->mb);
	hy_status st = hy_nn_work_load(w, m, s, k, d);
	if (st)
		return st;
	for (int b = 0; b < k; b++) {
		p->mask[b] = s[b].mask;
		p->action[b] = s[b].action;
		p->logp[b] = s[b].logp;
		p->adv[b] = s[b].adv;
		p->ret[b] = s[b].ret;
	}
	hy_train_ppo_sched sc;
	hy_train_ppo_schedule(&p->c, p->cur, p->step0, p->total, &sc);
	hy_nn_forward(m, w);
	hy_nn_loss(m, w, l); /* auxiliary heads; policy and value replaced below */
	be->to_host(p->logits, w->plog, (size_t)k * HY_ACTIONS * sizeof(float));
	be->to_host(p->val, w->vout, (size_t)k * sizeof(float));
	hy_nn_ppo_cfg lc = p->c.loss;
	lc.ent_coef = sc.warm ? 0.0f : sc.ent_coef;
	hy_nn_ppo_loss(&lc, k, p->logits, p->mask, p->action, p->logp, p->adv, p->val,
		p->ret, p->dlogits, p->dval, ps);
	if (sc.warm) /* the policy does not move: its output gradient is 0 */
		memset(p->dlogits, 0, (size_t)k * HY_ACTIONS * sizeof(float));
	if (p->have_anchor) {
		if ((st = hy_nn_work_load(&p->aw, &p->am, s, k, d)))
			return st;
		hy_nn_forward(&p->am, &p->aw);
		be->to_host(p->alogits, p->aw.plog, (size_t)k * HY_ACTIONS * sizeof(float));
		float coef = sc.warm ? 0.0f : sc.anchor_coef;
		double kl = hy_nn_ppo_anchor(k, p->logits, p->alogits, p->mask, p->action, coef,
			coef > 0 ? p->dlogits : NULL);
		p->anchor_kl += kl * k;
		p->anchor_n += k;
		ps->loss += coef * kl;
	}
	l->total = ps->loss + HY_NN_W_GRP * l->grp + HY_NN_W_TENPAI * l->tenpai +
		HY_NN_W_DANGER * l->danger;
	l->policy = -ps->surrogate;
	l->value = ps->value;
	if (!isfinite(l->total))
		return hy_diag_set(d, HY_EDATA, 0, "the PPO loss is not finite (surrogate %g, value "
			"%g, entropy %g, grp %g, tenpai %g, danger %g)", ps->surrogate, ps->value,
			ps->entropy, l->grp, l->tenpai, l->danger);
	be->to_dev(w->dplog, p->dlogits, (size_t)k * HY_ACTIONS * sizeof(float));
	be->to_dev(w->dvout, p->dval, (size_t)k * sizeof(float));
	p->warm = sc.warm;
	return HY_OK;
}

/* PPO as a learner of the one step (train/step.h): the net's backward and
 * AdamW, the PPO loss, and while critic-only every gradient but the value
 * head's zeroed. */
typedef struct ppo_learner {
	hy_train_learner L;
	hy_train_ppo *p;
	const hy_sample *s;
	hy_nn_ppo_stats *ps;
} ppo_learner;

static hy_status learner_loss(hy_train_learner *L, int k, hy_nn_losses *l, hy_diag *d)
{
	ppo_learner *q = (ppo_learner *)L;
	return ppo_loss(q->p, L->m, L->w, q->s, k, l, q->ps, d);
}

static void learner_backward(hy_train_learner *L, int k)
{
	hy_train_net_backward(L, k);
	if (((ppo_learner *)L)->p->warm)
		keep_value_grads(L->m);
}

static void learner_init(ppo_learner *q, hy_train_ppo *p, const hy_nn_model *m, hy_nn_work *w,
	const hy_sample *s, hy_nn_ppo_stats *ps)
{
	*q = (ppo_learner){.L = {.m = m, .w = w, .loss = learner_loss, .backward =
		learner_backward, .update = hy_train_net_update}, .p = p, .s = s, .ps = ps};
}

hy_status hy_train_ppo_grad(hy_train_ppo *p, hy_nn_model *m, hy_nn_work *w, const hy_sample *s,
	int k, hy_nn_losses *l, hy_nn_ppo_stats *ps, hy_diag *d)
{
	hy_status st = ppo_loss(p, m, w, s, k, l, ps, d);
	if (!st) {
		ppo_learner q;
		learner_init(&q, p, m, w, s, ps);
		learner_backward(&q.L, k);
	}
	return st;
}

/* One optimiser step on the minibatch in p->mbuf[0..k). */
static hy_status mb_step(hy_train_ppo *p, hy_nn_model *m, hy_nn_work *w,
	const hy_nn_optim_cfg *opt, int64_t *step, int k, hy_nn_losses *l, hy_nn_ppo_stats *ps,
	hy_nn_step_info *info, hy_diag *d)
{
	p->cur = *step;
	ppo_learner q;
	learner_init(&q, p, m, w, p->mbuf, ps);
	return hy_train_step(&q.L, NULL, k, opt, step, l, info, d);
}

hy_status hy_train_ppo_update(hy_train_ppo *p, hy_nn_model *m, hy_nn_work *w,
	const hy_nn_optim_cfg *opt, int64_t *step, int64_t max_steps, uint64_t seed,
	const hy_sample *s, int n, hy_nn_losses *l, hy_nn_step_info *info, hy_diag *d)
{
	memset(l, 0, sizeof *l);
	memset(&p->first, 0, sizeof p->first);
	memset(&p->last, 0, sizeof p->last);
	p->ev = NAN;
	p->steps = 0;
	p->passes = 0;
	p->kl_stopped = 0;
	hy_train_ppo_schedule(&p->c, *step, p->step0, p->total, &p->sched);
	if (n < 1 || n > p->batch)
		return hy_diag_set(d, HY_EUSAGE, 0, "rollout batch of %d samples: 1 to %d", n,
			p->batch);
	if (w->cap < p->mb)
		return hy_diag_set(d, HY_EUSAGE, 0, "workspace of %d samples for minibatches of %d",
			w->cap, p->mb);
	hy_status st = check_batch(p, s, n, d);
	if (st)
		return st;
	const int64_t start = *step;
	hy_rng rng;
	hy_rng_seed(&rng, hy_data_mix(seed, PPO_TAG, (uint64_t)*step));
	for (int i = 0; i < n; i++)
		p->perm[i] = i;
	double sum[6] = {0};
	int64_t correct = 0, seen = 0;
	for (int e = 0; e < p->c.epochs; e++) {
		for (int i = n - 1; i > 0; i--) { /* Fisher–Yates */
			int j = (int)hy_rng_below(&rng, (uint64_t)i + 1), t = p->perm[i];
			p->perm[i] = p->perm[j];
			p->perm[j] = t;
		}
		hy_nn_ppo_stats pass;
		memset(&pass, 0, sizeof pass);
		/* the anchor's KL is the last pass's that ran a step: a pass cut
		 * before its first step (the run's last steps) keeps the one
		 * before it */
		const double akl = p->anchor_kl, an = p->anchor_n;
		p->anchor_kl = p->anchor_n = 0;
		for (int off = 0; off < n; off += p->mb) {
			if (max_steps > 0 && p->steps >= max_steps)
				break;
			int k = n - off < p->mb ? n - off : p->mb;
			for (int b = 0; b < k; b++)
				p->mbuf[b] = s[p->perm[off + b]];
			hy_nn_losses aux;
			hy_nn_ppo_stats ps;
			if ((st = mb_step(p, m, w, opt, step, k, &aux, &ps, info, d)))
				return st;
			p->steps++;
			hy_nn_ppo_stats_add(&pass, &ps);
			double v[6] = {aux.total, aux.policy, aux.value, aux.grp, aux.tenpai,
				aux.danger};
			for (int i = 0; i < 6; i++)
				sum[i] += v[i];
			correct += aux.correct;
			seen += aux.n;
		}
		if (e == 0 && pass.n)
			p->first = pass;
		if (pass.n) {
			p->last = pass;
			p->passes++;
		} else {
			p->anchor_kl = akl;
			p->anchor_n = an;
		}
		/* the policy moved too far from the one that played: the rest of
		 * the batch's passes are skipped, its steps counted as done */
		if (p->c.kl_stop > 0 && pass.n && pass.approx_kl > p->c.kl_stop &&
			e + 1 < p->c.epochs) {
			p->kl_stopped = 1;
			int64_t end = start + hy_train_ppo_steps(p, n);
			if (max_steps > 0 && end > start + max_steps)
				end = start + max_steps;
			if (*step < end)
				*step = end;
			break;
		}
	}
	p->ev = hy_nn_ppo_explained_var(&p->first);
	double k = p->steps ? (double)p->steps : 1.0;
	l->total = sum[0] / k;
	l->policy = sum[1] / k;
	l->value = sum[2] / k;
	l->grp = sum[3] / k;
	l->tenpai = sum[4] / k;
	l->danger = sum[5] / k;
	l->correct = (int)correct;
	l->n = (int)seen;
	return HY_OK;
}

static void jnum(FILE *f, const char *k, double v)
{
	if (isfinite(v))
		fprintf(f, ",\"%s\":%.9g", k, v);
	else
		fprintf(f, ",\"%s\":null", k);
}

void hy_train_ppo_metrics(const hy_train_ppo *p, FILE *f)
{
	jnum(f, "surrogate", p->last.surrogate);
	jnum(f, "surrogate_first", p->first.surrogate);
	jnum(f, "approx_kl", p->last.approx_kl);
	jnum(f, "clip_frac", p->last.clip_frac);
	jnum(f, "entropy", p->last.entropy);
	jnum(f, "explained_var", p->ev);
	fprintf(f, ",\"ppo_steps\":%lld,\"ppo_passes\":%d,\"kl_stopped\":%d", (long long)p->steps,
		p->passes, p->kl_stopped);
	jnum(f, "anchor_kl", p->have_anchor && p->anchor_n > 0 ? p->anchor_kl / p->anchor_n : NAN);
	jnum(f, "ent_coef", p->sched.ent_coef);
	jnum(f, "anchor_coef", p->sched.anchor_coef);
	jnum(f, "progress", p->sched.progress);
	fprintf(f, ",\"value_warmup\":%d,\"norm_adv\":%d", p->sched.warm, p->c.loss.norm_adv);
}
