/* Finite-difference gradient checks of every CPU op (lib/nn/backend.h).
 * Each check builds L = Σ out·R for a random R, runs the op's backward with
 * dout = R and compares each analytic gradient with the central difference
 * (L(x+ε) − L(x−ε)) / 2ε computed in fp32 forward passes, accumulated in
 * double. Tolerances are next to each check with their reason. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/backend.h"
#include "nn/math.h"
#include "nn/rng.h"

/* The CPU stores activations in fp32 (backend.h hy_nn_act). */
#define ACT(p) ((hy_nn_act *)(p))

static const uint64_t SEED = 20261122;
static hy_nn_ctx ctx;
static const hy_nn_backend *be;
static hy_rng rng;

static float *randv(size_t n, float sd)
{
	float *v = calloc(n ? n : 1, sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(sd * hy_rng_normal(&rng));
	return v;
}

/* Random [B][36][C] activations with zero pads. */
static float *randact(int B, int C)
{
	float *v = randv((size_t)B * HY_NN_TP * C, 1.0f);
	hy_nn_zero_pads_cpu(&ctx, B, C, v);
	return v;
}

static int is_pad(size_t i, int C)
{
	size_t row = i / (size_t)C % HY_NN_TP;
	return row == 0 || row == HY_NN_TP - 1;
}

typedef double (*loss_fn)(void *arg);

static double dot(const float *a, const float *b, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)a[i] * b[i];
	return s;
}

/* Compares an[i] with the central difference on up to `checks` entries
 * (skipping pad rows when C > 0): |fd − an| ≤ atol + rtol·|an|. */
static void fdcheck(const char *what, loss_fn f, void *arg, float *x, size_t n, const float *an,
	int C, float eps, double atol, double rtol)
{
	size_t step = n / 37 + 1;
	int bad = 0;
	for (size_t i = 0; i < n; i += step) {
		if (C > 0 && is_pad(i, C))
			continue;
		float x0 = x[i];
		x[i] = x0 + eps;
		double lp = f(arg);
		x[i] = x0 - eps;
		double lm = f(arg);
		x[i] = x0;
		double fd = (lp - lm) / (2.0 * eps);
		if (fabs(fd - an[i]) > atol + rtol * fabs(an[i])) {
			if (bad++ < 5)
				print_error("%s[%zu]: analytic %.7g, finite difference %.7g (seed %llu)\n",
					what, i, an[i], fd, (unsigned long long)SEED);
		}
	}
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ conv3 */

struct conv_case {
	int B, cin, cout;
	float *x, *w, *y, *R;
};

static double conv_loss(void *p)
{
	struct conv_case *c = p;
	be->conv3_fwd(&ctx, c->B, c->cin, c->cout, ACT(c->x), c->w, ACT(c->y));
	return dot(c->y, c->R, (size_t)c->B * HY_NN_TP * c->cout);
}

static void test_conv3(void **state)
{
	(void)state;
	struct conv_case c = {3, 5, 7, NULL, NULL, NULL, NULL};
	size_t nx = (size_t)c.B * HY_NN_TP * c.cin, ny = (size_t)c.B * HY_NN_TP * c.cout;
	size_t nw = (size_t)c.cout * 3 * c.cin;
	c.x = randact(c.B, c.cin);
	c.w = randv(nw, 0.5f);
	c.y = calloc(ny, sizeof(float));
	c.R = randact(c.B, c.cout);
	float *dx = calloc(nx, sizeof(float)), *dw = calloc(nw, sizeof(float));
	conv_loss(&c);
	/* pads of the output must be zero */
	for (size_t i = 0; i < ny; i++)
		if (is_pad(i, c.cout))
			assert_true(c.y[i] == 0.0f);
	be->conv3_bwd(&ctx, c.B, c.cin, c.cout, ACT(c.x), c.w, ACT(c.R), ACT(dx), dw);
	for (size_t i = 0; i < nx; i++)
		if (is_pad(i, c.cin))
			assert_true(dx[i] == 0.0f);
	/* linear in x and w: the difference is exact up to fp32 rounding of L
	 * (|L| ~ 10, ulp ~ 1e-6, /2ε = 1e-2 → ~1e-4) */
	fdcheck("conv3 dx", conv_loss, &c, c.x, nx, dx, c.cin, 1e-2f, 1e-3, 1e-3);
	fdcheck("conv3 dw", conv_loss, &c, c.w, nw, dw, 0, 1e-2f, 1e-3, 1e-3);
	/* a direct reference of one output element */
	int b = 1, t = 0, o = 2;
	double ref = 0;
	for (int k = 0; k < 3; k++) {
		int s = t + k - 1;
		if (s < 0 || s >= HY_NN_T)
			continue;
		for (int i = 0; i < c.cin; i++)
			ref += (double)c.w[((size_t)o * 3 + k) * c.cin + i] *
				c.x[((size_t)b * HY_NN_TP + 1 + s) * c.cin + i];
	}
	assert_true(fabs(ref - c.y[((size_t)b * HY_NN_TP + 1 + t) * c.cout + o]) < 1e-5);
	free(c.x), free(c.w), free(c.y), free(c.R), free(dx), free(dw);
}

/* ------------------------------------------------------------ linear */

struct lin_case {
	int rows, in, out;
	float *x, *w, *b, *y, *R;
};

static double lin_loss(void *p)
{
	struct lin_case *c = p;
	be->linear_fwd(&ctx, c->rows, c->in, c->out, c->x, c->in, c->w, c->b, c->y, c->out, 0);
	return dot(c->y, c->R, (size_t)c->rows * c->out);
}

static void test_linear(void **state)
{
	(void)state;
	struct lin_case c = {6, 9, 5, NULL, NULL, NULL, NULL, NULL};
	c.x = randv((size_t)c.rows * c.in, 1), c.w = randv((size_t)c.out * c.in, 0.5f);
	c.b = randv((size_t)c.out, 0.5f), c.y = calloc((size_t)c.rows * c.out, sizeof(float));
	c.R = randv((size_t)c.rows * c.out, 1);
	float *dx = calloc((size_t)c.rows * c.in, 4), *dw = calloc((size_t)c.out * c.in, 4);
	float *db = calloc((size_t)c.out, 4);
	lin_loss(&c);
	be->linear_bwd(&ctx, c.rows, c.in, c.out, c.x, c.in, c.w, c.R, c.out, dx, 0, dw, db);
	/* linear: exact up to fp32 rounding of L, as for conv3 */
	fdcheck("linear dx", lin_loss, &c, c.x, (size_t)c.rows * c.in, dx, 0, 1e-2f, 1e-3, 1e-3);
	fdcheck("linear dw", lin_loss, &c, c.w, (size_t)c.out * c.in, dw, 0, 1e-2f, 1e-3, 1e-3);
	fdcheck("linear db", lin_loss, &c, c.b, (size_t)c.out, db, 0, 1e-2f, 1e-3, 1e-3);
	free(c.x), free(c.w), free(c.b), free(c.y), free(c.R), free(dx), free(dw), free(db);
}

/* ------------------------------------------------------------ GN + Mish */

struct gn_case {
	int B, C;
	float *x, *g, *b, *z, *a, *mean, *rstd, *R;
};

static double gn_loss(void *p)
{
	struct gn_case *c = p;
	be->gn_mish_fwd(&ctx, c->B, c->C, ACT(c->x), c->g, c->b, ACT(c->z), ACT(c->a), c->mean,
		c->rstd);
	return dot(c->a, c->R, (size_t)c->B * HY_NN_TP * c->C);
}

static void gn_case_run(int B, int C)
{
	struct gn_case c = {B, C, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	size_t n = (size_t)B * HY_NN_TP * C;
	c.x = randact(B, C);
	for (size_t i = 0; i < n; i++) /* an offset and scale per element */
		c.x[i] = is_pad(i, C) ? 0.0f : 2.0f * c.x[i] + 0.5f;
	c.g = randv((size_t)C, 1), c.b = randv((size_t)C, 1);
	c.z = calloc(n, 4), c.a = calloc(n, 4), c.R = randact(B, C);
	c.mean = calloc((size_t)B * 32, 4), c.rstd = calloc((size_t)B * 32, 4);
	float *dx = calloc(n, 4), *dg = calloc((size_t)C, 4), *db = calloc((size_t)C, 4);
	float *scr = calloc(2 * (size_t)B * C, 4);
	gn_loss(&c);
	for (size_t i = 0; i < n; i++)
		if (is_pad(i, C))
			assert_true(c.a[i] == 0.0f && c.z[i] == 0.0f);
	be->gn_mish_bwd(&ctx, B, C, ACT(c.x), ACT(c.z), c.g, c.mean, c.rstd, ACT(c.R), ACT(dx), 0,
		dg, db, scr);
	/* smooth but non-linear: truncation error O(ε²·f''') ~ 1e-5 at ε = 1e-2,
	 * fp32 rounding of L (~1e-6 relative over ~1e3 terms) / 2ε ~ 1e-3 */
	fdcheck("gn_mish dx", gn_loss, &c, c.x, n, dx, C, 1e-2f, 3e-3, 1e-2);
	fdcheck("gn_mish dgamma", gn_loss, &c, c.g, (size_t)C, dg, 0, 1e-2f, 3e-3, 1e-2);
	fdcheck("gn_mish dbeta", gn_loss, &c, c.b, (size_t)C, db, 0, 1e-2f, 3e-3, 1e-2);
	free(c.x), free(c.g), free(c.b), free(c.z), free(c.a), free(c.R), free(c.mean);
	free(c.rstd), free(dx), free(dg), free(db), free(scr);
}

static void test_gn_mish(void **state)
{
	(void)state;
	gn_case_run(2, 32); /* one channel per group */
	gn_case_run(2, 64); /* two channels per group */
}

/* ------------------------------------------------------------ Mish, ReLU */

static void test_mish(void **state)
{
	(void)state;
	/* against a double-precision reference of Mish and its derivative */
	for (double x = -30; x <= 30; x += 0.37) {
		double sp = x > 20 ? x : log1p(exp(x)), t = tanh(sp);
		double ref = x * t;
		double s = 1 / (1 + exp(-x)), dref = t + x * s * (1 - t * t);
		assert_true(fabs(hy_nn_mish((float)x) - ref) <= 1e-6 + 1e-6 * fabs(ref));
		assert_true(fabs(hy_nn_mish_grad((float)x) - dref) <= 1e-6 + 1e-5 * fabs(dref));
		float h = 1e-3f;
		double fd = (hy_nn_mish((float)x + h) - hy_nn_mish((float)x - h)) / (2.0 * h);
		/* fp32 difference of values ~|x|: rounding |x|·6e-8 / 2e-3 */
		assert_true(fabs(fd - hy_nn_mish_grad((float)x)) <= 2e-3 + 5e-5 * fabs(x) * 1e3 * 1e-3);
	}
	float z[4] = {-1, 0.5f, 2, -3}, da[4] = {1, 2, 3, 4}, dz[4], a[4];
	be->mish_fwd(&ctx, 4, z, a);
	be->mish_bwd(&ctx, 4, z, da, dz);
	for (int i = 0; i < 4; i++) {
		assert_true(a[i] == hy_nn_mish(z[i]));
		assert_true(dz[i] == da[i] * hy_nn_mish_grad(z[i]));
	}
	float h[4] = {-1, 0, 2, 3}, dh[4] = {1, 1, 1, 1};
	be->relu_fwd(&ctx, 4, h);
	be->relu_bwd(&ctx, 4, h, dh);
	assert_true(h[0] == 0 && h[2] == 2 && dh[0] == 0 && dh[1] == 0 && dh[3] == 1);
}

/* ------------------------------------------------------------ pooling */

struct pool_case {
	int B, C;
	float *x, *avg, *max, *Ra, *Rm;
	uint8_t *arg;
};

static double pool_loss(void *p)
{
	struct pool_case *c = p;
	be->pool_fwd(&ctx, c->B, c->C, ACT(c->x), c->avg, c->max, c->arg, c->C);
	size_t n = (size_t)c->B * c->C;
	return dot(c->avg, c->Ra, n) + dot(c->max, c->Rm, n);
}

static void test_pool(void **state)
{
	(void)state;
	struct pool_case c = {3, 6, NULL, NULL, NULL, NULL, NULL, NULL};
	size_t n = (size_t)c.B * HY_NN_TP * c.C, m = (size_t)c.B * c.C;
	c.x = randact(c.B, c.C);
	c.avg = calloc(m, 4), c.max = calloc(m, 4), c.arg = calloc(m, 1);
	c.Ra = randv(m, 1), c.Rm = randv(m, 1);
	float *dx = calloc(n, 4);
	pool_loss(&c);
	be->pool_bwd(&ctx, c.B, c.C, c.Ra, c.Rm, c.arg, c.C, ACT(dx));
	/* piecewise linear; ε = 1e-4 is below the gap between the largest
	 * two of 34 normal draws except with tiny probability (seed fixed) */
	fdcheck("pool dx", pool_loss, &c, c.x, n, dx, c.C, 1e-4f, 2e-3, 1e-3);
	free(c.x), free(c.avg), free(c.max), free(c.arg), free(c.Ra), free(c.Rm), free(dx);
}

/* ------------------------------------------------------------ SE gate */

struct se_case {
	int B, C;
	float *x, *y, *e2, *s, *out, *R;
};

static double se_loss(void *p)
{
	struct se_case *c = p;
	be->se_fwd(&ctx, c->B, c->C, ACT(c->x), ACT(c->y), c->e2, c->s, ACT(c->out));
	return dot(c->out, c->R, (size_t)c->B * HY_NN_TP * c->C);
}

static void test_se(void **state)
{
	(void)state;
	struct se_case c = {2, 8, NULL, NULL, NULL, NULL, NULL, NULL};
	size_t n = (size_t)c.B * HY_NN_TP * c.C, m = (size_t)c.B * c.C;
	c.x = randact(c.B, c.C), c.y = randact(c.B, c.C), c.e2 = randv(2 * m, 1);
	c.s = calloc(m, 4), c.out = calloc(n, 4), c.R = randact(c.B, c.C);
	float *dy = calloc(n, 4), *de2 = calloc(2 * m, 4);
	se_loss(&c);
	be->se_bwd(&ctx, c.B, c.C, ACT(c.y), c.s, ACT(c.R), ACT(dy), de2);
	/* dx is dout itself (residual); checked through the model test */
	/* smooth: as for GN+Mish */
	fdcheck("se dy", se_loss, &c, c.y, n, dy, c.C, 1e-2f, 3e-3, 1e-2);
	fdcheck("se de2", se_loss, &c, c.e2, 2 * m, de2, 0, 1e-2f, 3e-3, 1e-2);
	free(c.x), free(c.y), free(c.e2), free(c.s), free(c.out), free(c.R), free(dy), free(de2);
}

/* ------------------------------------------------------------ losses */

struct ce_case {
	int B, n;
	float *l, *d;
	uint64_t *mask;
	uint8_t *label;
};

static double ce_loss(void *p)
{
	struct ce_case *c = p;
	float *tmp = calloc((size_t)c->B * c->n, 4);
	double L;
	be->softmax_ce(&ctx, c->B, c->n, c->l, c->mask, c->label, 1.0f, tmp, &L, NULL);
	free(tmp);
	return L;
}

static void test_softmax_ce(void **state)
{
	(void)state;
	struct ce_case c = {4, 46, NULL, NULL, NULL, NULL};
	c.l = randv(4 * 46, 2), c.d = calloc(4 * 46, 4);
	uint64_t mask[4] = {0x3, (1ull << 46) - 1, 0x10001001ull, 1ull << 45};
	uint8_t label[4] = {1, 30, 12, 45};
	c.mask = mask, c.label = label;
	int correct = 0;
	double L;
	be->softmax_ce(&ctx, 4, 46, c.l, mask, label, 1.0f, c.d, &L, &correct);
	/* double reference of sample 0: two legal classes */
	double r0 = log(exp(c.l[0]) + exp(c.l[1])) - c.l[1];
	assert_true(correct >= 1); /* sample 3 has one legal action: always right */
	assert_true(L > r0 - 1e-9);
	/* illegal classes get no gradient */
	assert_true(c.d[2] == 0.0f && c.d[46 * 3] == 0.0f);
	/* smooth, double accumulation inside: tight */
	fdcheck("softmax_ce", ce_loss, &c, c.l, 4 * 46, c.d, 0, 1e-3f, 1e-4, 1e-3);
	/* a lone legal class costs nothing */
	float one[46] = {0}, d1[46];
	uint64_t m1 = 1ull << 7;
	uint8_t l1 = 7;
	double L1 = -1;
	be->softmax_ce(&ctx, 1, 46, one, &m1, &l1, 1.0f, d1, &L1, NULL);
	assert_true(L1 == 0.0);
	free(c.l), free(c.d);
}

struct bce_case {
	size_t n;
	float *l, *t, *w;
};

static double bce_loss(void *p)
{
	struct bce_case *c = p;
	float *tmp = calloc(c->n, 4);
	double L;
	be->bce(&ctx, c->n, c->l, c->t, c->w, 1.0f, tmp, &L);
	free(tmp);
	return L;
}

static void test_bce_mse(void **state)
{
	(void)state;
	struct bce_case c = {40, NULL, NULL, NULL};
	c.l = randv(c.n, 3), c.t = calloc(c.n, 4), c.w = calloc(c.n, 4);
	for (size_t i = 0; i < c.n; i++) {
		c.t[i] = (float)(i % 3 == 0);
		c.w[i] = (float)(i % 4 != 1);
	}
	c.l[0] = 60.0f; /* stable far in the tails */
	c.l[4] = -60.0f;
	float *d = calloc(c.n, 4);
	double L;
	be->bce(&ctx, c.n, c.l, c.t, c.w, 1.0f, d, &L);
	assert_true(isfinite(L));
	assert_true(d[1] == 0.0f); /* weight 0 */
	fdcheck("bce", bce_loss, &c, c.l, c.n, d, 0, 1e-3f, 1e-4, 1e-3);
	/* double reference of one element */
	double x = c.l[3], y = c.t[3];
	double ref = -(y * log(1 / (1 + exp(-x))) + (1 - y) * log(1 - 1 / (1 + exp(-x))));
	assert_true(fabs(hy_nn_bce_logits((float)x, (float)y) - ref) < 1e-5 * (1 + ref));
	float p[3] = {1, 2, 3}, t[3] = {0.5f, 2, -1}, dp[3];
	double M;
	be->mse(&ctx, 3, p, t, 0.5f, dp, &M);
	assert_true(fabs(M - (0.25 + 0 + 16)) < 1e-9);
	assert_true(dp[0] == 0.5f && dp[1] == 0.0f && dp[2] == 4.0f);
	free(c.l), free(c.t), free(c.w), free(d);
}

/* ------------------------------------------------------------ optimiser */

static void test_adamw_sumsq(void **state)
{
	(void)state;
	/* two steps of AdamW on one element against a double reference */
	float p = 0.7f, m = 0, v = 0;
	double P = 0.7, M = 0, V = 0;
	const double lr = 1e-2, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.01;
	const double g[2] = {0.3, -0.2};
	for (int t = 1; t <= 2; t++) {
		double bc1 = 1 - pow(b1, t), bc2 = 1 - pow(b2, t);
		be->adamw(&ctx, 1, &p, &(float){(float)g[t - 1]}, &m, &v, (float)lr, (float)b1,
			(float)b2, (float)eps, (float)wd, (float)bc1, (float)sqrt(bc2));
		M = b1 * M + (1 - b1) * g[t - 1];
		V = b2 * V + (1 - b2) * g[t - 1] * g[t - 1];
		P = P * (1 - lr * wd) - lr * (M / bc1) / (sqrt(V / bc2) + eps);
	}
	assert_true(fabs(p - P) < 1e-6);
	/* sumsq: exact on small integers, identical for any thread count */
	size_t n = 100003;
	float *x = calloc(n, 4);
	double ref = 0;
	for (size_t i = 0; i < n; i++) {
		x[i] = (float)(i % 7) - 3.0f;
		ref += (double)x[i] * x[i];
	}
	assert_true(be->sumsq(&ctx, n, x) == ref);
	hy_nn_ctx one;
	hy_nn_ctx_init(&one, 1);
	float *y = randv(n, 1);
	double s1 = be->sumsq(&one, n, y);
	hy_nn_ctx_init(&ctx, 2);
	assert_true(be->sumsq(&ctx, n, y) == s1);
	free(x), free(y);
}

static int setup(void **state)
{
	(void)state;
	hy_nn_ctx_init(&ctx, 2);
	be = hy_nn_backend_cpu();
	hy_rng_seed(&rng, SEED);
	print_message("seed %llu\n", (unsigned long long)SEED);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv3),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_gn_mish),
		cmocka_unit_test(test_mish),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_se),
		cmocka_unit_test(test_softmax_ce),
		cmocka_unit_test(test_bce_mse),
		cmocka_unit_test(test_adamw_sumsq),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
