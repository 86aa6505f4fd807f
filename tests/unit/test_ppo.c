/* PPO (nn/ppo.h, train/ppo.h): the loss and its statistics against a direct
 * computation on a tiny batch, its logit and value gradients against
 * central differences, the whole network's gradient under the PPO loss
 * against finite differences, the update loop (steps, determinism, the
 * surrogate objective improves), and the refusal of samples without
 * behaviour log-probabilities. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/ppo.h"
#include "nn/synth.h"
#include "samples/stream.h"
#include "train/ppo.h"

static const uint64_t SEED = 7101;
static hy_nn_ctx ctx;

enum { NB = 6 };

/* A tiny batch whose ratios r = exp(logp − logp_old) fall below, inside
 * and above [1 − ε, 1 + ε] (away from the kinks at 0.8 and 1.2), with
 * advantages of both signs. */
typedef struct batch {
	float logits[NB][HY_ACTIONS];
	uint64_t mask[NB];
	uint8_t action[NB];
	float logp_old[NB], adv[NB], value[NB], ret[NB];
} batch;

static void make_batch(batch *t, uint64_t seed)
{
	hy_rng r;
	hy_rng_seed(&r, seed);
	static const double ratio[NB] = {0.5, 0.9, 1.0, 1.1, 1.5, 2.0};
	static const float adv[NB] = {1.0f, -2.0f, 0.5f, -0.3f, 1.5f, -1.0f};
	for (int b = 0; b < NB; b++) {
		for (int i = 0; i < HY_ACTIONS; i++)
			t->logits[b][i] = (float)(2.0 * hy_rng_normal(&r));
		uint64_t m = 0;
		while (__builtin_popcountll(m) < 3)
			m |= 1ull << hy_rng_below(&r, HY_ACTIONS);
		t->mask[b] = m;
		int k = (int)hy_rng_below(&r, 3);
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1 && k-- == 0)
				t->action[b] = (uint8_t)i;
		t->adv[b] = adv[b];
		t->value[b] = (float)hy_rng_normal(&r);
		t->ret[b] = (float)hy_rng_normal(&r);
	}
	/* logp_old from the ratio wanted at these logits */
	for (int b = 0; b < NB; b++) {
		double mx = -INFINITY, se = 0;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (t->mask[b] >> i & 1)
				mx = fmax(mx, t->logits[b][i]);
		for (int i = 0; i < HY_ACTIONS; i++)
			if (t->mask[b] >> i & 1)
				se += exp(t->logits[b][i] - mx);
		double logp = t->logits[b][t->action[b]] - mx - log(se);
		t->logp_old[b] = (float)(logp - log(ratio[b]));
	}
}

/* The loss written out plainly, in long double, from the definitions. */
static void direct(const hy_nn_ppo_cfg *c, const batch *t, hy_nn_ppo_stats *o)
{
	long double mean = 0, var = 0;
	for (int b = 0; b < NB; b++)
		mean += t->adv[b];
	mean /= NB;
	for (int b = 0; b < NB; b++)
		var += (t->adv[b] - mean) * (t->adv[b] - mean);
	long double sd = sqrtl(var / NB);
	long double surr = 0, val = 0, ent = 0, kl = 0, clip = 0;
	for (int b = 0; b < NB; b++) {
		long double z = 0, p[HY_ACTIONS] = {0};
		for (int i = 0; i < HY_ACTIONS; i++)
			if (t->mask[b] >> i & 1)
				z += expl(t->logits[b][i]);
		long double H = 0;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (t->mask[b] >> i & 1) {
				p[i] = expl(t->logits[b][i]) / z;
				H -= p[i] * logl(p[i]);
			}
		long double r = p[t->action[b]] / expl(t->logp_old[b]);
		long double A = c->norm_adv ? (t->adv[b] - mean) / (sd + 1e-8L) : t->adv[b];
		long double rc = fminl(fmaxl(r, 1 - (long double)c->clip), 1 + (long double)c->clip);
		surr += fminl(r * A, rc * A);
		val += ((long double)t->value[b] - t->ret[b]) * ((long double)t->value[b] - t->ret[b]);
		ent += H;
		kl += r - 1 - logl(r);
		clip += fabsl(r - 1) > c->clip;
	}
	memset(o, 0, sizeof *o);
	o->n = NB;
	o->surrogate = (double)(surr / NB);
	o->value = (double)(val / NB);
	o->entropy = (double)(ent / NB);
	o->approx_kl = (double)(kl / NB);
	o->clip_frac = (double)(clip / NB);
	o->loss = -o->surrogate + c->vf_coef * o->value - c->ent_coef * o->entropy;
}

static double loss_of(const hy_nn_ppo_cfg *c, const batch *t)
{
	hy_nn_ppo_stats s;
	hy_nn_ppo_loss(c, NB, &t->logits[0][0], t->mask, t->action, t->logp_old, t->adv, t->value,
		t->ret, NULL, NULL, &s);
	return s.loss;
}

#define CLOSE(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol) * (1 + fabs(b)))

static void test_loss_direct(void **state)
{
	(void)state;
	hy_nn_ppo_cfg c;
	hy_nn_ppo_defaults(&c);
	assert_true(c.clip == 0.2f && c.vf_coef == 0.5f && c.ent_coef == 0.01f && c.norm_adv);
	for (int norm = 1; norm >= 0; norm--) {
		c.norm_adv = norm;
		batch t;
		make_batch(&t, SEED);
		hy_nn_ppo_stats s, want;
		float dl[NB][HY_ACTIONS], dv[NB];
		hy_nn_ppo_loss(&c, NB, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
			t.ret, &dl[0][0], dv, &s);
		direct(&c, &t, &want);
		print_message("norm %d: loss %.6f surrogate %.6f value %.6f entropy %.6f kl %.6f "
			"clip %.3f\n", norm, s.loss, s.surrogate, s.value, s.entropy, s.approx_kl,
			s.clip_frac);
		assert_int_equal(s.n, NB);
		CLOSE(s.loss, want.loss, 1e-6);
		CLOSE(s.surrogate, want.surrogate, 1e-6);
		CLOSE(s.value, want.value, 1e-6);
		CLOSE(s.entropy, want.entropy, 1e-6);
		CLOSE(s.approx_kl, want.approx_kl, 1e-6);
		assert_true(s.clip_frac == want.clip_frac);
		assert_true(s.clip_frac == 3.0 / NB); /* r = 0.5, 1.5, 2.0 */

		/* gradients: central differences, on the float actually perturbed */
		int checked = 0;
		for (int b = 0; b < NB; b++) {
			double rowsum = 0;
			for (int i = 0; i < HY_ACTIONS; i++) {
				if (!(t.mask[b] >> i & 1) && i != t.action[b]) {
					assert_true(dl[b][i] == 0.0f);
					continue;
				}
				rowsum += dl[b][i];
				float x = t.logits[b][i], xp = x + 1e-3f, xm = x - 1e-3f;
				t.logits[b][i] = xp;
				double lp = loss_of(&c, &t);
				t.logits[b][i] = xm;
				double lm = loss_of(&c, &t);
				t.logits[b][i] = x;
				double fd = (lp - lm) / ((double)xp - xm);
				if (fabs(fd - dl[b][i]) > 2e-6 + 1e-3 * fabs(dl[b][i]))
					fail_msg("dlogits[%d][%d]: analytic %.8g, differences %.8g (seed %llu)",
						b, i, (double)dl[b][i], fd, (unsigned long long)SEED);
				checked++;
			}
			assert_true(fabs(rowsum) < 1e-6); /* softmax gradients sum to zero */
			float v = t.value[b], vp = v + 1e-3f, vm = v - 1e-3f;
			t.value[b] = vp;
			double lp = loss_of(&c, &t);
			t.value[b] = vm;
			double lm = loss_of(&c, &t);
			t.value[b] = v;
			double fd = (lp - lm) / ((double)vp - vm);
			assert_true(fabs(fd - dv[b]) <= 1e-6 + 1e-4 * fabs(dv[b]));
			CLOSE(dv[b], 2.0 * c.vf_coef * (t.value[b] - t.ret[b]) / NB, 1e-6);
		}
		assert_true(checked >= 3 * NB);
	}
}

/* Only the entropy term remains where the clip is active. */
static void test_clip_gradient(void **state)
{
	(void)state;
	hy_nn_ppo_cfg c;
	hy_nn_ppo_defaults(&c);
	c.ent_coef = 0;
	c.norm_adv = 0;
	batch t;
	make_batch(&t, SEED + 1);
	float dl[NB][HY_ACTIONS];
	hy_nn_ppo_stats s;
	hy_nn_ppo_loss(&c, NB, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, &dl[0][0], NULL, &s);
	/* sample 4: A = 1.5 > 0, r = 1.5 > 1.2: clipped, no gradient;
	 * sample 5: A = −1 < 0, r = 2 > 1.2: unclipped (pessimistic), gradient;
	 * sample 0: A = 1 > 0, r = 0.5 < 0.8: unclipped, gradient */
	for (int i = 0; i < HY_ACTIONS; i++)
		assert_true(dl[4][i] == 0.0f);
	assert_true(dl[5][t.action[5]] != 0.0f && dl[0][t.action[0]] != 0.0f);
	/* dL/dl_a = −r·A·(1 − p_a)/B < 0 for A > 0 */
	assert_true(dl[0][t.action[0]] < 0.0f && dl[5][t.action[5]] > 0.0f);
}

static void test_adv_norm_invariance(void **state)
{
	(void)state;
	hy_nn_ppo_cfg c;
	hy_nn_ppo_defaults(&c);
	batch t, u;
	make_batch(&t, SEED + 2);
	u = t;
	for (int b = 0; b < NB; b++)
		u.adv[b] = 3.0f * t.adv[b] + 5.0f;
	float da[NB][HY_ACTIONS], db[NB][HY_ACTIONS];
	hy_nn_ppo_stats sa, sb;
	hy_nn_ppo_loss(&c, NB, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, &da[0][0], NULL, &sa);
	hy_nn_ppo_loss(&c, NB, &u.logits[0][0], u.mask, u.action, u.logp_old, u.adv, u.value,
		u.ret, &db[0][0], NULL, &sb);
	CLOSE(sa.loss, sb.loss, 1e-6);
	for (int b = 0; b < NB; b++)
		for (int i = 0; i < HY_ACTIONS; i++)
			assert_true(fabsf(da[b][i] - db[b][i]) <= 1e-6f);
	/* one sample: its normalised advantage is 0 */
	hy_nn_ppo_loss(&c, 1, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, NULL, NULL, &sa);
	assert_true(sa.surrogate == 0.0);
}

static void test_explained_var(void **state)
{
	(void)state;
	hy_nn_ppo_cfg c;
	hy_nn_ppo_defaults(&c);
	batch t;
	make_batch(&t, SEED + 3);
	hy_nn_ppo_stats s, a, b;
	memcpy(t.value, t.ret, sizeof t.value);
	hy_nn_ppo_loss(&c, NB, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, NULL, NULL, &s);
	CLOSE(hy_nn_ppo_explained_var(&s), 1.0, 1e-9);
	double m = 0;
	for (int i = 0; i < NB; i++)
		m += t.ret[i];
	for (int i = 0; i < NB; i++)
		t.value[i] = (float)(m / NB);
	hy_nn_ppo_loss(&c, NB, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, NULL, NULL, &s);
	assert_true(fabs(hy_nn_ppo_explained_var(&s)) < 1e-6);
	/* two halves added give the statistics of the whole */
	hy_nn_ppo_loss(&c, 2, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, NULL, NULL, &a);
	hy_nn_ppo_loss(&c, NB - 2, &t.logits[2][0], t.mask + 2, t.action + 2, t.logp_old + 2,
		t.adv + 2, t.value + 2, t.ret + 2, NULL, NULL, &b);
	hy_nn_ppo_stats_add(&a, &b);
	assert_int_equal(a.n, NB);
	CLOSE(a.value, s.value, 1e-9);
	CLOSE(hy_nn_ppo_explained_var(&a), hy_nn_ppo_explained_var(&s), 1e-9);
	for (int i = 0; i < NB; i++)
		t.ret[i] = 0.25f;
	hy_nn_ppo_loss(&c, NB, &t.logits[0][0], t.mask, t.action, t.logp_old, t.adv, t.value,
		t.ret, NULL, NULL, &s);
	assert_true(isnan(hy_nn_ppo_explained_var(&s)));
}

/* ---------------------------------------------------------------- network */

struct net {
	hy_nn_model m;
	hy_nn_work w;
	hy_sample *s;
	int n;
};

/* Fills logp and value from the model's own outputs (a consistent
 * behaviour policy), then logp_old shifted by `jitter`·N(0, 1) so that
 * ratios differ from 1; adv ~ N(0, 1), ret = value + adv. */
static void fill_pg(struct net *t, hy_rng *r, double jitter)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(&t->w, &t->m, t->s, t->n, &d), HY_OK);
	hy_nn_forward(&t->m, &t->w);
	for (int b = 0; b < t->n; b++) {
		hy_sample *x = &t->s[b];
		const float *l = t->w.plog + (size_t)b * HY_ACTIONS;
		uint64_t m = x->mask | 1ull << x->action;
		double mx = -INFINITY, se = 0;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1)
				mx = fmax(mx, l[i]);
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1)
				se += exp(l[i] - mx);
		double lp = l[x->action] - mx - log(se) + jitter * hy_rng_normal(r);
		x->logp = (float)fmin(lp, 0.0);
		x->value = t->w.vout[b];
		x->adv = (float)hy_rng_normal(r);
		x->ret = x->value + x->adv;
	}
}

static void net_init(struct net *t, hy_nn_arch a, int n, uint64_t seed, double jitter)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, seed);
	assert_int_equal(hy_nn_model_init(&t->m, a, hy_nn_backend_cpu(), &ctx, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&t->m, &r, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(&t->w, &t->m, n, &d), HY_OK);
	t->s = calloc((size_t)n, sizeof *t->s);
	assert_non_null(t->s);
	hy_nn_synth_samples(&r, t->s, n);
	t->n = n;
	fill_pg(t, &r, jitter);
}

static void net_free(struct net *t)
{
	hy_nn_work_free(&t->w, &t->m);
	hy_nn_model_free(&t->m);
	free(t->s);
}

/* The PPO total of the loaded batch as the update loop forms it; with
 * grad: writes the output gradients and runs backward. */
static double ppo_total(struct net *t, int grad)
{
	hy_nn_ppo_cfg c;
	hy_nn_ppo_defaults(&c);
	const int B = t->n;
	float *lg = malloc((size_t)B * HY_ACTIONS * 4 * 2), *dl = lg + (size_t)B * HY_ACTIONS;
	float *f = malloc((size_t)B * 4 * 5);
	uint64_t *mask = malloc((size_t)B * 8);
	uint8_t *act = malloc((size_t)B);
	assert_true(lg && f && mask && act);
	float *v = f, *dv = f + B, *lo = f + 2 * B, *ad = f + 3 * B, *re = f + 4 * B;
	for (int b = 0; b < B; b++) {
		mask[b] = t->s[b].mask;
		act[b] = t->s[b].action;
		lo[b] = t->s[b].logp;
		ad[b] = t->s[b].adv;
		re[b] = t->s[b].ret;
	}
	hy_nn_losses aux;
	hy_nn_forward(&t->m, &t->w);
	hy_nn_loss(&t->m, &t->w, &aux);
	memcpy(lg, t->w.plog, (size_t)B * HY_ACTIONS * 4);
	memcpy(v, t->w.vout, (size_t)B * 4);
	hy_nn_ppo_stats s;
	hy_nn_ppo_loss(&c, B, lg, mask, act, lo, ad, v, re, dl, dv, &s);
	if (grad) {
		memcpy(t->w.dplog, dl, (size_t)B * HY_ACTIONS * 4);
		memcpy(t->w.dvout, dv, (size_t)B * 4);
		hy_nn_backward(&t->m, &t->w);
	}
	free(lg);
	free(f);
	free(mask);
	free(act);
	return s.loss + HY_NN_W_GRP * aux.grp + HY_NN_W_TENPAI * aux.tenpai +
		HY_NN_W_DANGER * aux.danger;
}

/* As the model's own check (test_nn_model.c): fp32, kinks (ReLU, max-pool,
 * the clip), ε = 3e-3: per entry |fd − an| ≤ 1e-3 + 5e-2·|an|, at most 2%
 * of the entries may miss. */
static void test_net_gradcheck(void **state)
{
	(void)state;
	struct net t;
	net_init(&t, (hy_nn_arch){1, 32, 0}, 4, SEED + 4, 0.3);
	/* the analytic gradient through the library's path (train/ppo.c) */
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_train_ppo_cfg pc = {.epochs = 1, .minibatch = 4};
	hy_nn_ppo_defaults(&pc.loss);
	hy_train_ppo *tp;
	assert_int_equal(hy_train_ppo_init(&tp, &pc, 4, NULL, &d), HY_OK);
	hy_nn_losses l;
	hy_nn_ppo_stats ps;
	assert_int_equal(hy_train_ppo_grad(tp, &t.m, &t.w, t.s, 4, &l, &ps, &d), HY_OK);
	hy_train_ppo_free(tp);
	print_message("PPO total %.6f: surrogate %.6f value %.6f entropy %.6f clip %.2f, grp %.4f "
		"tenpai %.4f danger %.4f\n", l.total, ps.surrogate, ps.value, ps.entropy, ps.clip_frac,
		l.grp, l.tenpai, l.danger);
	assert_true(ps.clip_frac > 0 && ps.clip_frac < 1); /* both branches present */
	size_t bytes = t.m.table.total * sizeof(float);
	float *g = malloc(bytes);
	assert_non_null(g);
	memcpy(g, t.m.g, bytes);
	double L = ppo_total(&t, 0); /* the same total composed here */
	CLOSE(L, l.total, 1e-6);
	const float eps = 3e-3f;
	int checked = 0, missed = 0;
	for (int i = 0; i < t.m.table.count; i++) {
		const hy_nn_tensor *x = &t.m.table.t[i];
		float *p = t.m.w + x->offset;
		const float *an = g + x->offset;
		size_t big = 0;
		for (size_t j = 0; j < x->size; j++)
			if (fabsf(an[j]) > fabsf(an[big]))
				big = j;
		size_t idx[3] = {big, x->size / 3, x->size * 2 / 3};
		for (int q = 0; q < 3; q++) {
			size_t j = idx[q];
			float p0 = p[j];
			p[j] = p0 + eps;
			double lp = ppo_total(&t, 0);
			p[j] = p0 - eps;
			double lm = ppo_total(&t, 0);
			p[j] = p0;
			double fd = (lp - lm) / (2.0 * eps);
			checked++;
			if (fabs(fd - an[j]) > 1e-3 + 5e-2 * fabs(an[j])) {
				missed++;
				print_message("miss %s[%zu]: analytic %.6g fd %.6g\n", x->name, j, an[j], fd);
			}
		}
	}
	print_message("PPO network gradcheck: %d entries, %d missed (seed %llu)\n", checked, missed,
		(unsigned long long)SEED + 4);
	assert_true(missed * 50 <= checked);
	free(g);
	net_free(&t);
}

/* ---------------------------------------------------------------- update */

static double surrogate_now(struct net *t)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(&t->w, &t->m, t->s, t->n, &d), HY_OK);
	hy_nn_forward(&t->m, &t->w);
	hy_nn_ppo_cfg c;
	hy_nn_ppo_defaults(&c);
	uint64_t mask[64];
	uint8_t act[64];
	float lo[64], ad[64], re[64];
	assert_true(t->n <= 64);
	for (int b = 0; b < t->n; b++) {
		mask[b] = t->s[b].mask;
		act[b] = t->s[b].action;
		lo[b] = t->s[b].logp;
		ad[b] = t->s[b].adv;
		re[b] = t->s[b].ret;
	}
	hy_nn_ppo_stats s;
	hy_nn_ppo_loss(&c, t->n, t->w.plog, mask, act, lo, ad, t->w.vout, re, NULL, NULL, &s);
	return s.surrogate;
}

static void run_update(struct net *t, int64_t max_steps, int64_t *step, double *surr_after)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_train_ppo_cfg pc = {.epochs = 4, .minibatch = 8};
	hy_nn_ppo_defaults(&pc.loss);
	hy_train_ppo *p;
	assert_int_equal(hy_train_ppo_init(&p, &pc, t->n, "test input", &d), HY_OK);
	assert_int_equal(hy_train_ppo_minibatch(p), 8);
	assert_int_equal(hy_train_ppo_steps(p, t->n), 4 * ((t->n + 7) / 8));
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 100);
	oc.warmup = 0;
	oc.lr = 3e-3f;
	hy_nn_losses l;
	hy_nn_step_info info;
	*step = 0;
	assert_int_equal(hy_train_ppo_update(p, &t->m, &t->w, &oc, step, max_steps, 9, t->s, t->n,
				 &l, &info, &d),
		HY_OK);
	assert_true(isfinite(l.total) && isfinite(info.grad_norm));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	hy_train_ppo_metrics(p, f);
	fclose(f);
	print_message("update metrics%s\n", buf);
	assert_non_null(strstr(buf, ",\"approx_kl\":"));
	assert_non_null(strstr(buf, ",\"clip_frac\":"));
	assert_non_null(strstr(buf, ",\"explained_var\":"));
	free(buf);
	hy_train_ppo_free(p);
	*surr_after = surrogate_now(t);
}

static void test_update(void **state)
{
	(void)state;
	struct net a, b;
	net_init(&a, (hy_nn_arch){1, 32, 0}, 30, SEED + 5, 0.0);
	net_init(&b, (hy_nn_arch){1, 32, 0}, 30, SEED + 5, 0.0);
	double before = surrogate_now(&a); /* r = 1: mean of normalised A = 0 */
	assert_true(fabs(before) < 1e-5);
	int64_t step;
	double after;
	run_update(&a, 0, &step, &after);
	assert_int_equal(step, 16); /* 4 epochs × 4 minibatches (8, 8, 8, 6) */
	print_message("surrogate on the rollout batch: %.6f before, %.6f after 16 steps\n", before,
		after);
	assert_true(after > before + 1e-3); /* the objective PPO maximises went up */
	double after_b;
	run_update(&b, 0, &step, &after_b);
	assert_memory_equal(a.m.w, b.m.w, a.m.table.total * sizeof(float)); /* same seed */
	net_free(&b);
	net_init(&b, (hy_nn_arch){1, 32, 0}, 30, SEED + 5, 0.0);
	run_update(&b, 5, &step, &after_b);
	assert_int_equal(step, 5); /* capped */
	net_free(&a);
	net_free(&b);
}

/* ---------------------------------------------------------------- refusal */

static void test_refusal(void **state)
{
	(void)state;
	struct net t;
	net_init(&t, (hy_nn_arch){1, 32, 0}, 8, SEED + 6, 0.0);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_train_ppo_cfg pc = {0};
	hy_nn_ppo_defaults(&pc.loss);
	hy_train_ppo *p;
	assert_int_equal(hy_train_ppo_init(&p, &pc, 8, "standard input", &d), HY_OK);
	assert_int_equal(hy_train_ppo_minibatch(p), 2); /* a quarter of the batch */
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 10);
	hy_nn_losses l;
	hy_nn_step_info info;
	int64_t step = 0;
	hy_sample *logs = calloc(8, sizeof *logs);
	assert_non_null(logs);
	memcpy(logs, t.s, 8 * sizeof *logs);
	for (int i = 0; i < 8; i++)
		logs[i].logp = logs[i].value = logs[i].adv = logs[i].ret = 0.0f;
	assert_int_equal(hy_train_ppo_update(p, &t.m, &t.w, &oc, &step, 0, 0, logs, 8, &l, &info,
				 &d),
		HY_EDATA);
	assert_string_equal(d.source, "standard input");
	assert_non_null(strstr(d.msg, "behaviour log-probability"));
	assert_int_equal(step, 0); /* refused before any step */
	logs[3].logp = 0.5f; /* not a log-probability */
	assert_int_equal(hy_train_ppo_update(p, &t.m, &t.w, &oc, &step, 0, 0, logs, 8, &l, &info,
				 &d),
		HY_EDATA);
	assert_non_null(strstr(d.msg, "sample 4"));
	logs[3].logp = -1.0f;
	logs[5].adv = NAN;
	assert_int_equal(hy_train_ppo_update(p, &t.m, &t.w, &oc, &step, 0, 0, logs, 8, &l, &info,
				 &d),
		HY_EDATA);
	assert_int_equal(step, 0);
	hy_train_ppo_free(p);

	/* bad configurations */
	pc.minibatch = 9;
	assert_int_equal(hy_train_ppo_init(&p, &pc, 8, NULL, &d), HY_EUSAGE);
	pc.minibatch = 0;
	pc.loss.clip = 0;
	assert_int_equal(hy_train_ppo_init(&p, &pc, 8, NULL, &d), HY_EUSAGE);

	/* inputs: a stream of log samples is refused, naming it; one whose
	 * third sample has policy-gradient fields passes; "-" is skipped */
	char path[] = "/tmp/hydra-test-ppo.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	hy_sms_writer *wr;
	assert_int_equal(hy_sms_writer_open(&wr, f), HY_OK);
	for (int i = 0; i < 8; i++)
		logs[i].logp = logs[i].adv = 0.0f;
	for (int i = 0; i < 8; i++)
		assert_int_equal(hy_sms_write(wr, &logs[i], &d), HY_OK);
	assert_int_equal(hy_sms_writer_close(wr, &d), HY_OK);
	fclose(f);
	const char *in[2] = {"-", path};
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_train_ppo_check_inputs(in, 2, &d), HY_EDATA);
	assert_string_equal(d.source, path);
	assert_non_null(strstr(d.msg, "hydra-sp"));
	f = fopen(path, "wb");
	assert_int_equal(hy_sms_writer_open(&wr, f), HY_OK);
	logs[2].logp = -0.7f;
	for (int i = 0; i < 8; i++)
		assert_int_equal(hy_sms_write(wr, &logs[i], &d), HY_OK);
	assert_int_equal(hy_sms_writer_close(wr, &d), HY_OK);
	fclose(f);
	assert_int_equal(hy_train_ppo_check_inputs(in, 2, &d), HY_OK);
	unlink(path);
	free(logs);
	net_free(&t);
}

static int setup(void **state)
{
	(void)state;
	hy_nn_ctx_init(&ctx, 1);
	return 0;
}


/* ---------------------------------------------------------------- league */

/* The §9a schedule: entropy 0.01 → 0.005 over the run, the anchor 0.05 →
 * 0 over its first 30%, the progress window of a league iteration, the
 * critic-only warm-up, and constants when the total is unknown. */
static void test_schedule(void **state)
{
	(void)state;
	hy_train_ppo_cfg c;
	hy_train_ppo_defaults(&c);
	assert_true(fabs(c.loss.clip - 0.1) < 1e-7 && c.epochs == 3 && fabs(c.kl_stop - 0.03) < 1e-7);
	c.anchor = "bc.h5";
	c.value_warmup = 10;
	hy_train_ppo_sched s;
	hy_train_ppo_schedule(&c, 0, 0, 1000, &s);
	CLOSE(s.ent_coef, 0.01, 1e-6);
	CLOSE(s.anchor_coef, 0.05, 1e-6);
	assert_true(s.warm);
	hy_train_ppo_schedule(&c, 10, 0, 1000, &s);
	assert_false(s.warm);
	hy_train_ppo_schedule(&c, 150, 0, 1000, &s);
	CLOSE(s.anchor_coef, 0.025, 1e-6);
	CLOSE(s.ent_coef, 0.01 - 0.005 * 0.15, 1e-6);
	hy_train_ppo_schedule(&c, 300, 0, 1000, &s);
	assert_true(s.anchor_coef == 0.0f);
	hy_train_ppo_schedule(&c, 1000, 0, 1000, &s);
	CLOSE(s.ent_coef, 0.005, 1e-6);
	CLOSE(s.progress, 1.0, 1e-9);
	/* iteration 2 of 4 of a league: progress 0.25 → 0.5 over its steps */
	c.progress0 = 0.25f;
	c.progress1 = 0.5f;
	hy_train_ppo_schedule(&c, 50, 0, 100, &s);
	CLOSE(s.progress, 0.375, 1e-6);
	CLOSE(s.anchor_coef, 0.05 * (1 - 0.375 / 0.3 < 0 ? 0 : 1 - 0.375 / 0.3), 1e-6);
	/* a stream of unknown length: the window's start throughout */
	hy_train_ppo_schedule(&c, 5000, 0, 0, &s);
	CLOSE(s.progress, 0.25, 1e-6);
	CLOSE(s.anchor_coef, 0.05 * (1 - 0.25 / 0.3), 1e-5);
	/* no anchor given: weight 0; ent_end < 0: constant */
	c.anchor = NULL;
	c.ent_end = -1;
	hy_train_ppo_schedule(&c, 10, 0, 100, &s);
	assert_true(s.anchor_coef == 0.0f);
	CLOSE(s.ent_coef, 0.01, 1e-6);
}

/* hy_nn_ppo_anchor: KL(anchor ‖ policy) ≥ 0, 0 for equal logits, and its
 * gradient against central differences (double-checked per entry). */
static void test_anchor_gradient(void **state)
{
	(void)state;
	hy_rng r;
	hy_rng_seed(&r, SEED + 7);
	enum { B = 6 };
	float lg[B * HY_ACTIONS], an[B * HY_ACTIONS], dl[B * HY_ACTIONS];
	uint64_t mask[B];
	uint8_t act[B];
	for (int b = 0; b < B; b++) {
		mask[b] = hy_rng_u64(&r) & ((1ull << HY_ACTIONS) - 1);
		act[b] = (uint8_t)hy_rng_below(&r, HY_ACTIONS);
		for (int i = 0; i < HY_ACTIONS; i++) {
			lg[b * HY_ACTIONS + i] = (float)hy_rng_normal(&r);
			an[b * HY_ACTIONS + i] = (float)hy_rng_normal(&r);
		}
	}
	assert_true(fabs(hy_nn_ppo_anchor(B, lg, lg, mask, act, 1.0f, NULL)) < 1e-12);
	memset(dl, 0, sizeof dl);
	const float coef = 0.7f;
	double kl = hy_nn_ppo_anchor(B, lg, an, mask, act, coef, dl);
	assert_true(kl > 0);
	int checked = 0;
	for (int b = 0; b < B; b++)
		for (int i = 0; i < HY_ACTIONS; i++) {
			uint64_t m = mask[b] | 1ull << act[b];
			if (!(m >> i & 1)) {
				assert_true(dl[b * HY_ACTIONS + i] == 0.0f);
				continue;
			}
			float *x = &lg[b * HY_ACTIONS + i], x0 = *x;
			const float e = 1e-2f;
			*x = x0 + e;
			double kp = hy_nn_ppo_anchor(B, lg, an, mask, act, coef, NULL);
			*x = x0 - e;
			double km = hy_nn_ppo_anchor(B, lg, an, mask, act, coef, NULL);
			*x = x0;
			double fd = coef * (kp - km) / (2.0 * e);
			assert_true(fabs(fd - dl[b * HY_ACTIONS + i]) <= 2e-4 + 1e-2 * fabs(fd));
			checked++;
		}
	print_message("anchor KL %.6f, %d gradient entries checked\n", kl, checked);
}

/* One update on a fresh copy of the seed's network with cfg c; returns the
 * steps taken and leaves the metrics line in *metrics (caller frees). */
static int64_t league_update(struct net *t, hy_train_ppo_cfg *c, float lr, float wd,
	char **metrics)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_train_ppo *p;
	assert_int_equal(hy_train_ppo_init(&p, c, t->n, "test input", &d), HY_OK);
	assert_int_equal(hy_train_ppo_start(p, &t->m, 0, 0, &d), HY_OK);
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 100);
	oc.warmup = 0;
	oc.lr = lr;
	oc.wd = wd;
	hy_nn_losses l;
	hy_nn_step_info info;
	int64_t step = 0;
	hy_status st = hy_train_ppo_update(p, &t->m, &t->w, &oc, &step, 0, 9, t->s, t->n, &l,
		&info, &d);
	if (st)
		print_error("%s\n", d.msg);
	assert_int_equal(st, HY_OK);
	size_t len = 0;
	FILE *f = open_memstream(metrics, &len);
	assert_non_null(f);
	hy_train_ppo_metrics(p, f);
	fclose(f);
	hy_train_ppo_free(p);
	return step;
}

static double metric(const char *m, const char *key)
{
	char k[64];
	snprintf(k, sizeof k, "\"%s\":", key);
	const char *p = strstr(m, k);
	assert_non_null(p);
	return strtod(p + strlen(k), NULL);
}

/* KL early stop: a large step size passes 0.03 in the first pass, the
 * other passes are skipped and the step counter moves to the batch's end;
 * with the threshold off every pass runs. */
static void test_kl_stop(void **state)
{
	(void)state;
	struct net t;
	hy_train_ppo_cfg c;
	hy_train_ppo_defaults(&c);
	c.epochs = 4;
	c.minibatch = 8;
	char *m;
	net_init(&t, (hy_nn_arch){1, 32, 0}, 30, SEED + 5, 0.0);
	int64_t steps = league_update(&t, &c, 3e-2f, 0.01f, &m);
	print_message("kl_stop 0.03, lr 3e-2%s\n", m);
	assert_int_equal(steps, 16); /* counted as the batch's 4 × 4 */
	assert_true(metric(m, "kl_stopped") == 1 && metric(m, "ppo_passes") < 4);
	assert_true(metric(m, "ppo_steps") < 16);
	free(m);
	net_free(&t);
	net_init(&t, (hy_nn_arch){1, 32, 0}, 30, SEED + 5, 0.0);
	c.kl_stop = 0;
	steps = league_update(&t, &c, 3e-2f, 0.01f, &m);
	assert_int_equal(steps, 16);
	assert_true(metric(m, "kl_stopped") == 0 && metric(m, "ppo_passes") == 4 &&
		metric(m, "ppo_steps") == 16);
	free(m);
	net_free(&t);
}

/* Value warm-up: every parameter but the value head's stays bit for bit
 * (no weight decay in the test: AdamW's decay alone would move them by
 * lr·wd a step), the value head moves and its loss falls. */
static void test_value_warmup(void **state)
{
	(void)state;
	struct net t;
	net_init(&t, (hy_nn_arch){1, 32, 0}, 30, SEED + 8, 0.2);
	size_t bytes = t.m.table.total * sizeof(float);
	float *w0 = malloc(bytes);
	assert_non_null(w0);
	memcpy(w0, t.m.w, bytes);
	hy_train_ppo_cfg c;
	hy_train_ppo_defaults(&c);
	c.epochs = 2;
	c.minibatch = 8;
	c.kl_stop = 0;
	c.value_warmup = 1000;
	char *m;
	league_update(&t, &c, 3e-3f, 0.0f, &m);
	assert_true(metric(m, "value_warmup") == 1);
	free(m);
	int moved = 0;
	for (int i = 0; i < t.m.table.count; i++) {
		const hy_nn_tensor *x = &t.m.table.t[i];
		int same = memcmp(w0 + x->offset, t.m.w + x->offset, x->size * sizeof(float)) == 0;
		int value = i == t.m.v1w || i == t.m.v1b || i == t.m.v2w || i == t.m.v2b;
		if (value)
			moved += !same;
		else if (!same)
			fail_msg("%s moved during the value warm-up", x->name);
	}
	assert_true(moved >= 2);
	free(w0);
	net_free(&t);
}

/* The KL anchor through a checkpoint: the same update with a strong anchor
 * to the starting policy ends nearer to it than without one. */
static void test_anchor_update(void **state)
{
	(void)state;
	char path[] = "/tmp/hy-ppo-anchor-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct net t;
	net_init(&t, (hy_nn_arch){1, 32, 0}, 30, SEED + 9, 0.3);
	hy_nn_ckpt_meta meta;
	memset(&meta, 0, sizeof meta);
	hy_nn_optim_defaults(&meta.opt, 100);
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_save(path, &t.m, &meta, &d), HY_OK);
	net_free(&t);
	double kl[2];
	for (int a = 0; a < 2; a++) {
		net_init(&t, (hy_nn_arch){1, 32, 0}, 30, SEED + 9, 0.3);
		hy_train_ppo_cfg c;
		hy_train_ppo_defaults(&c);
		c.epochs = 4;
		c.minibatch = 8;
		c.kl_stop = 0;
		c.anchor = path;
		c.anchor_coef = a ? 20.0f : 0.0f;
		c.anchor_frac = 0;
		char *m;
		league_update(&t, &c, 1e-2f, 0.01f, &m);
		kl[a] = metric(m, "anchor_kl");
		print_message("anchor weight %g:%s\n", c.anchor_coef, m);
		free(m);
		net_free(&t);
	}
	unlink(path);
	assert_true(kl[0] > 0 && kl[1] < 0.7 * kl[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss_direct),
		cmocka_unit_test(test_clip_gradient),
		cmocka_unit_test(test_adv_norm_invariance),
		cmocka_unit_test(test_explained_var),
		cmocka_unit_test(test_net_gradcheck),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_anchor_gradient),
		cmocka_unit_test(test_kl_stop),
		cmocka_unit_test(test_value_warmup),
		cmocka_unit_test(test_anchor_update),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
