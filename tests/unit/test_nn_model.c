/* The whole network: finite-difference gradient check of the full loss
 * (all five heads) with respect to every parameter tensor; a tiny model
 * overfits 64 fixed samples; same seed → bit-identical losses; the oracle
 * input's scaled stem. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/model.h"
#include "nn/optim.h"
#include "nn/synth.h"

static const uint64_t SEED = 7001;
/* 1 thread for the many tiny passes (no barrier waits on a busy machine);
 * the determinism test runs on 2 threads to exercise the parallel paths. */
static hy_nn_ctx ctx, ctx2;

struct net {
	hy_nn_model m;
	hy_nn_work w;
	hy_sample *s;
	int n;
};

static void net_init_ctx(struct net *t, hy_nn_arch a, int n, uint64_t seed, const hy_nn_ctx *cx)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, seed);
	assert_int_equal(hy_nn_model_init(&t->m, a, hy_nn_backend_cpu(), cx, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&t->m, &r, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(&t->w, &t->m, n, &d), HY_OK);
	t->s = calloc((size_t)n, sizeof *t->s);
	assert_non_null(t->s);
	hy_nn_synth_samples(&r, t->s, n);
	t->n = n;
	if (!a.oracle) /* an oracle model's samples get their hidden state first */
		assert_int_equal(hy_nn_work_load(&t->w, &t->m, t->s, n, &d), HY_OK);
}

static void net_init(struct net *t, hy_nn_arch a, int n, uint64_t seed)
{
	net_init_ctx(t, a, n, seed, &ctx);
}

static void net_free(struct net *t)
{
	hy_nn_work_free(&t->w, &t->m);
	hy_nn_model_free(&t->m);
	free(t->s);
}

/* A forward pass and every head's loss on the loaded samples. */
static void net_losses(struct net *t, hy_nn_losses *l)
{
	hy_nn_forward(&t->m, &t->w);
	hy_nn_loss(&t->m, &t->w, l);
}

static double net_loss(struct net *t)
{
	hy_nn_losses l;
	net_losses(t, &l);
	return l.total;
}

static void test_presets(void **state)
{
	(void)state;
	hy_nn_arch a;
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_arch_preset("full", &a, &d), HY_OK);
	assert_true(a.blocks == 40 && a.channels == 256);
	assert_int_equal(hy_nn_arch_preset("huge", &a, &d), HY_EUSAGE);
	assert_int_equal(hy_nn_arch_check((hy_nn_arch){2, 48, 0}, &d), HY_EUSAGE);
	hy_nn_model m;
	assert_int_equal(hy_nn_model_init(&m, (hy_nn_arch){40, 256, 0}, hy_nn_backend_cpu(), &ctx, &d),
		HY_OK);
	size_t n = hy_nn_model_param_count(&m);
	print_message("full 40x256: %zu parameters\n", n);
	assert_true(n > 16000000 && n < 17000000); /* ARCHITECTURE.md §7: ≈16.5M */
	assert_int_equal(hy_nn_params_find(&m.table, "blocks/07/conv1/weight") >= 0, 1);
	hy_nn_model_free(&m);
}

/* The danger target of an opponent flagged furiten is all zero: its waits
 * deal in to nobody. Flagging every tenpai opponent gives the loss of the
 * same samples with their waits cleared, and not the unflagged loss. */
static double danger_loss(struct net *t)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(&t->w, &t->m, t->s, t->n, &d), HY_OK);
	hy_nn_losses l;
	net_losses(t, &l);
	return l.danger;
}

static void test_furiten_target(void **state)
{
	(void)state;
	struct net t;
	net_init(&t, (hy_nn_arch){2, 32, 0}, 16, SEED);
	hy_sample *keep = malloc((size_t)t.n * sizeof *keep);
	assert_non_null(keep);
	memcpy(keep, t.s, (size_t)t.n * sizeof *keep);
	int tenpai = 0;
	for (int i = 0; i < t.n; i++)
		tenpai += t.s[i].opp_tenpai != 0 && (t.s[i].flags & HY_SAMPLE_F_OPP_KNOWN);
	assert_true(tenpai > 0);
	double plain = danger_loss(&t);
	for (int i = 0; i < t.n; i++)
		for (int o = 0; o < 3; o++)
			if (t.s[i].opp_tenpai >> o & 1)
				t.s[i].flags |= (uint8_t)HY_SAMPLE_F_FURITEN_OF(o);
	double flagged = danger_loss(&t);
	memcpy(t.s, keep, (size_t)t.n * sizeof *keep);
	for (int i = 0; i < t.n; i++)
		memset(t.s[i].opp_waits, 0, sizeof t.s[i].opp_waits);
	double cleared = danger_loss(&t);
	print_message("danger loss: plain %.6f, furiten %.6f, waits cleared %.6f\n", plain,
		      flagged, cleared);
	assert_true(flagged == cleared);
	assert_true(fabs(flagged - plain) > 1e-4);
	free(keep);
	net_free(&t);
}

/* FD over a sample of entries of every tensor. The model is non-linear
 * and contains kinks (ReLU, max-pool argmax), evaluated in fp32: with
 * ε = 3e-3 the rounding noise of L (≈ 1e-7·|L| per op, ~1e-6 overall)
 * gives ≈ 3e-4 absolute error on the difference quotient, and a kink
 * crossed inside [x−ε, x+ε] breaks single entries. Hence per entry
 * |fd − an| ≤ 1e-3 + 5e-2·|an|, and at most 2% of all checked entries
 * may miss (kinks); a wrong backward misses on whole tensors. */
static void test_model_gradcheck(void **state)
{
	(void)state;
	struct net t;
	net_init(&t, (hy_nn_arch){2, 32, 0}, 4, SEED);
	double L = net_loss(&t);
	hy_nn_backward(&t.m, &t.w);
	hy_nn_losses l;
	hy_nn_loss(&t.m, &t.w, &l);
	print_message("losses: policy %.4f value %.4f grp %.4f tenpai %.4f danger %.4f\n",
		l.policy, l.value, l.grp, l.tenpai, l.danger);
	assert_true(l.tenpai > 0 && l.danger > 0); /* every head takes part */
	size_t bytes = t.m.table.total * sizeof(float);
	float *g = malloc(bytes);
	memcpy(g, t.m.g, bytes);
	const float eps = 3e-3f;
	int checked = 0, missed = 0;
	for (int i = 0; i < t.m.table.count; i++) {
		const hy_nn_tensor *x = &t.m.table.t[i];
		float *p = t.m.w + x->offset;
		const float *an = g + x->offset;
		/* the largest-gradient entry and up to 5 spread ones */
		size_t big = 0;
		for (size_t j = 0; j < x->size; j++)
			if (fabsf(an[j]) > fabsf(an[big]))
				big = j;
		size_t idx[6] = {big, 0, 0, 0, 0, 0};
		int k = 1;
		for (; k < 6 && (size_t)k < x->size; k++)
			idx[k] = (size_t)k * 7919 % x->size;
		int tensor_missed = 0;
		for (int q = 0; q < k; q++) {
			size_t j = idx[q];
			float p0 = p[j];
			p[j] = p0 + eps;
			double lp = net_loss(&t);
			p[j] = p0 - eps;
			double lm = net_loss(&t);
			p[j] = p0;
			double fd = (lp - lm) / (2.0 * eps);
			checked++;
			if (fabs(fd - an[j]) > 1e-3 + 5e-2 * fabs(an[j])) {
				missed++;
				tensor_missed++;
				print_message("miss %s[%zu]: analytic %.6g fd %.6g\n", x->name, j, an[j], fd);
			}
		}
		/* the largest entry of a tensor is never allowed to miss widely */
		assert_true(tensor_missed < k || k == 1);
	}
	print_message("model gradcheck: %d entries, %d missed (L %.5f, seed %llu)\n", checked,
		missed, L, (unsigned long long)SEED);
	assert_true(missed * 50 <= checked);
	free(g);
	net_free(&t);
}

/* Random hidden states (samples/oracle.h) for the loaded samples. */
static void synth_hidden(struct net *t, uint64_t seed)
{
	for (int b = 0; b < t->n; b++) {
		hy_sample *x = &t->s[b];
		memset(&x->hidden, 255, sizeof x->hidden);
		for (int o = 0; o < 3; o++) {
			for (int i = 0; i < 13; i++)
				x->hidden.hand[o][i] = (uint8_t)((seed + 7u * (unsigned)b + 3u * (unsigned)o +
								   5u * (unsigned)i) % 37);
			x->hidden.shanten[o] = (uint8_t)((b + o) % 5);
		}
		for (int i = 0; i < 60; i++)
			x->hidden.live[i] = (uint8_t)((seed + 11u * (unsigned)i + (unsigned)b) % 37);
		for (int i = 0; i < 5; i++)
			x->hidden.dora[i] = x->hidden.ura[i] = (uint8_t)((unsigned)(b + i) % 34);
		x->flags |= HY_SAMPLE_F_HIDDEN;
	}
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(&t->w, &t->m, t->s, t->n, &d), HY_OK);
}

/* The oracle input (issue 52 step 2): a 290-plane stem whose oracle columns
 * are scaled by group. Its gradient matches finite differences at scales
 * (0.5, 0.25), the oracle planes change the outputs, and at scales (0, 0)
 * the model is the 85-plane model with the stem's first 85 columns. */
static void test_oracle_model(void **state)
{
	(void)state;
	struct net t, p;
	net_init(&t, (hy_nn_arch){2, 32, 1}, 4, SEED);
	assert_int_equal(t.m.in, 290);
	synth_hidden(&t, 3);
	t.m.oracle_scale[0] = 0.5f;
	t.m.oracle_scale[1] = 0.25f;
	net_loss(&t);
	hy_nn_backward(&t.m, &t.w);
	const hy_nn_tensor *x = &t.m.table.t[t.m.stem];
	assert_int_equal(x->size, (size_t)32 * 3 * 290);
	float *w = t.m.w + x->offset, *g = t.m.g + x->offset;
	const float eps = 3e-3f;
	int checked = 0, missed = 0;
	for (int q = 0; q < 24; q++) {
		/* rows (c, tap) spread, columns in both oracle groups and the public */
		size_t r = (size_t)q * 37 % 96, i = q % 3 == 0 ? (size_t)q % 85
						       : q % 3 == 1 ? 85 + (size_t)q % 39 : 124 + (size_t)q * 7 % 166;
		size_t j = r * 290 + i;
		float an = g[j], p0 = w[j];
		w[j] = p0 + eps;
		double lp = net_loss(&t);
		w[j] = p0 - eps;
		double lm = net_loss(&t);
		w[j] = p0;
		double fd = (lp - lm) / (2.0 * eps);
		checked++;
		if (fabs(fd - an) > 1e-3 + 5e-2 * fabs(an)) {
			missed++;
			print_message("miss stem[%zu][%zu]: analytic %.6g fd %.6g\n", r, i, an, fd);
		}
	}
	assert_true(missed <= 1);
	/* the oracle planes reach the outputs */
	double with = net_loss(&t);
	t.m.oracle_scale[0] = t.m.oracle_scale[1] = 0.0f;
	double without = net_loss(&t);
	assert_true(fabs(with - without) > 1e-6);
	/* scales 0: the 85-plane model with the same weights */
	net_init(&p, (hy_nn_arch){2, 32, 0}, 4, SEED + 1);
	memcpy(p.s, t.s, sizeof *t.s * 4);
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(&p.w, &p.m, p.s, 4, &d), HY_OK);
	assert_int_equal(p.m.table.count, t.m.table.count);
	for (int k = 0; k < t.m.table.count; k++) {
		const hy_nn_tensor *a = &t.m.table.t[k], *b = &p.m.table.t[k];
		assert_string_equal(a->name, b->name);
		if (k != t.m.stem) {
			memcpy(p.m.w + b->offset, t.m.w + a->offset, a->size * sizeof(float));
			continue;
		}
		for (size_t r = 0; r < 96; r++)
			memcpy(p.m.w + b->offset + r * 85, t.m.w + a->offset + r * 290, 85 * sizeof(float));
	}
	hy_nn_losses la, lb;
	net_losses(&t, &la);
	net_losses(&p, &lb);
	print_message("oracle model: loss %.6f with the planes, %.6f faded, %.6f plain\n", with,
		la.total, lb.total);
	assert_true(fabs(la.total - lb.total) <= 1e-5 * fabs(lb.total));
	/* a sample without its hidden state does not go into it while the
	 * planes count, and does once they are faded to 0 */
	t.s[2].flags &= (uint8_t)~HY_SAMPLE_F_HIDDEN;
	assert_int_equal(hy_nn_work_load(&t.w, &t.m, t.s, 4, &d), HY_OK);
	t.m.oracle_scale[1] = 0.5f;
	assert_int_equal(hy_nn_work_load(&t.w, &t.m, t.s, 4, &d), HY_EDATA);
	assert_int_equal(d.line, 3);
	/* an 85-plane batch does not go into a 290-plane model */
	hy_nn_batch_info bi;
	void *buf = malloc(hy_nn_batch_bytes(4));
	assert_int_equal(hy_nn_batch_pack(buf, t.s, 4, &bi, &d), HY_OK);
	assert_int_equal(hy_nn_work_put(&t.w, &t.m, buf, &bi, 0, &d), HY_EUSAGE);
	free(buf);
	net_free(&p);
	net_free(&t);
}

static void train(struct net *t, int steps, float lr, double *losses, double *acc)
{
	hy_nn_optim_cfg c;
	hy_nn_optim_defaults(&c, steps);
	c.lr = lr;
	c.warmup = 5;
	int64_t step = 0;
	for (int s = 0; s < steps; s++) {
		hy_nn_losses l;
		hy_nn_forward(&t->m, &t->w);
		hy_nn_loss(&t->m, &t->w, &l);
		hy_nn_backward(&t->m, &t->w);
		hy_nn_optim_step(&t->m, &c, &step, NULL);
		if (losses)
			losses[s] = l.total;
	}
	if (acc) {
		hy_nn_losses l;
		hy_nn_forward(&t->m, &t->w);
		hy_nn_loss(&t->m, &t->w, &l);
		*acc = (double)l.correct / l.n;
	}
}

static void test_overfit(void **state)
{
	(void)state;
	struct net t;
	net_init(&t, (hy_nn_arch){2, 32, 0}, 64, SEED + 1);
	double losses[150], acc;
	train(&t, 150, 3e-3f, losses, &acc);
	print_message("overfit 64 samples: loss %.4f → %.4f, policy accuracy %.3f\n", losses[0],
		losses[149], acc);
	assert_true(acc >= 0.95);
	assert_true(losses[149] < losses[0]);
	net_free(&t);
}

static void test_determinism(void **state)
{
	(void)state;
	double a[6], b[6];
	for (int k = 0; k < 2; k++) {
		struct net t;
		net_init_ctx(&t, (hy_nn_arch){2, 32, 0}, 16, SEED + 2, &ctx2);
		train(&t, 6, 1e-3f, k ? b : a, NULL);
		net_free(&t);
	}
	assert_memory_equal(a, b, sizeof a);
}

static int setup(void **state)
{
	(void)state;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_ctx_init(&ctx2, 2);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_furiten_target),
		cmocka_unit_test(test_model_gradcheck),
		cmocka_unit_test(test_oracle_model),
		cmocka_unit_test(test_overfit),
		cmocka_unit_test(test_determinism),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
