/* The bf16 numerics of the CUDA backend, emulated on the CPU, so that the
 * tolerances check-gpu (tests/gpu/check_gpu.c) applies to its bf16
 * contexts are known to hold for correct code before any GPU runs it:
 * a backend that is the CPU's with every activation and activation
 * gradient rounded to bf16 where the CUDA backend stores one (backend.h
 * hy_nn_act), and every GEMM operand — weights, the fp32 head tensors —
 * rounded where the CUDA backend rounds it (ctx.cu operand()); sums stay
 * fp32, as on tensor cores. Against the fp32 CPU backend from the same
 * weights and data:
 *  - one forward/backward of 6×64 at batch 64 (check_model's case): loss
 *    and policy loss, and the gradient vector's relative L2 difference;
 *  - 50 training steps of small at batch 64 (check_training's case): the
 *    worst per-step relative loss difference.
 * Each must sit at most at HALF of check-gpu's tolerance, so that the
 * GPU's different summation order has room. The emulation is not the
 * GPU's arithmetic bit for bit (sums in another order, cuBLAS's own
 * blocking), which is why the margin is a factor of two. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/math.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/synth.h"

/* check-gpu's bf16 tolerances (check_model, check_training) */
static const double TOL_LOSS = 5e-3, TOL_GRAD = 5e-2, TOL_CURVE = 5e-2;

static const hy_nn_backend *cpu;
static hy_nn_backend emul;

static void round_n(float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = hy_nn_bf16_to_float(hy_nn_bf16_round(v[i]));
}

/* A bf16-rounded copy of n floats (freed by the caller). */
static float *rcopy(const float *v, size_t n)
{
	float *r = malloc((n ? n : 1) * sizeof *r);
	assert_non_null(r);
	memcpy(r, v, n * sizeof *r);
	round_n(r, n);
	return r;
}

/* A row-strided matrix (rows × cols, stride ld): rounded in a copy of its
 * span, (rows − 1)·ld + cols floats (it may end before the last stride,
 * as the policy head's view of its padded rows does). */
static float *rcopy_rows(const float *v, int rows, int cols, int ld)
{
	return rcopy(v, rows > 0 ? (size_t)(rows - 1) * ld + (size_t)cols : 0);
}

/* A throwaway weight-gradient target for the fp32 bias-gradient pass. */
static float *scratch_w(size_t n)
{
	float *t = calloc(n ? n : 1, sizeof *t);
	assert_non_null(t);
	return t;
}

#define F(p) ((float *)(p))
#define CF(p) ((const float *)(p))
#define ACTN(B, C) ((size_t)(B) * HY_NN_TP * (C))

static void e_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, hy_nn_act *y)
{
	float *wr = rcopy(w, (size_t)cout * 3 * cin);
	cpu->conv3_fwd(c, B, cin, cout, x, wr, y);
	round_n(F(y), ACTN(B, cout));
	free(wr);
}

static void e_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw)
{
	float *wr = rcopy(w, (size_t)cout * 3 * cin);
	cpu->conv3_bwd(c, B, cin, cout, x, wr, dy, dx, dw);
	if (dx)
		round_n(F(dx), ACTN(B, cin));
	free(wr);
}

static void e_conv1_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *b, float *y)
{
	float *wr = rcopy(w, (size_t)cout * cin);
	cpu->conv1_fwd(c, B, cin, cout, x, wr, b, y);
	free(wr);
}

/* dy is rounded as the GEMM operand; db (fp32 on the GPU, from the fp32
 * dy) is taken from a second, unrounded pass. */
static void e_conv1_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *dy, hy_nn_act *dx, int dx_acc, float *dw, float *db)
{
	const size_t nw = (size_t)cout * cin;
	float *wr = rcopy(w, nw), *dyr = rcopy(dy, ACTN(B, cout));
	cpu->conv1_bwd(c, B, cin, cout, x, wr, dyr, dx, dx_acc, dw, NULL);
	if (dx)
		round_n(F(dx), ACTN(B, cin));
	if (db) {
		float *tw = scratch_w(nw);
		cpu->conv1_bwd(c, B, cin, cout, x, w, dy, NULL, 0, tw, db);
		free(tw);
	}
	free(wr), free(dyr);
}

static void e_linear_fwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *b, float *y, int ldy, int pad_B)
{
	float *xr = rcopy_rows(x, rows, in, ldx), *wr = rcopy(w, (size_t)out * in);
	cpu->linear_fwd(c, rows, in, out, xr, ldx, wr, b, y, ldy, pad_B);
	free(xr), free(wr);
}

static void e_linear_bwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw,
	float *db)
{
	const size_t nw = (size_t)out * in;
	float *xr = rcopy_rows(x, rows, in, ldx), *wr = rcopy(w, nw);
	float *dyr = rcopy_rows(dy, rows, out, ldy);
	cpu->linear_bwd(c, rows, in, out, xr, ldx, wr, dyr, ldy, dx, dx_acc, dw, NULL);
	if (db) {
		float *tw = scratch_w(nw);
		cpu->linear_bwd(c, rows, in, out, x, ldx, w, dy, ldy, NULL, 0, tw, db);
		free(tw);
	}
	free(xr), free(wr), free(dyr);
}

static void e_gn_mish_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const float *gamma, const float *beta, hy_nn_act *z, hy_nn_act *a, float *mean,
	float *rstd)
{
	cpu->gn_mish_fwd(c, B, C, x, gamma, beta, z, a, mean, rstd);
	round_n(F(z), ACTN(B, C));
	round_n(F(a), ACTN(B, C));
}

static void e_gn_mish_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const hy_nn_act *z, const float *gamma, const float *mean, const float *rstd,
	const hy_nn_act *da, hy_nn_act *dx, int dx_acc, float *dgamma, float *dbeta,
	float *scratch)
{
	cpu->gn_mish_bwd(c, B, C, x, z, gamma, mean, rstd, da, dx, dx_acc, dgamma, dbeta, scratch);
	round_n(F(dx), ACTN(B, C));
}

static void e_pool_bwd(const hy_nn_ctx *c, int B, int C, const float *davg, const float *dmax,
	const uint8_t *arg, int ldp, hy_nn_act *dx)
{
	cpu->pool_bwd(c, B, C, davg, dmax, arg, ldp, dx);
	round_n(F(dx), ACTN(B, C));
}

static void e_se_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const hy_nn_act *y,
	const float *e2, float *s, hy_nn_act *out)
{
	cpu->se_fwd(c, B, C, x, y, e2, s, out);
	round_n(F(out), ACTN(B, C));
}

static void e_se_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *y, const float *s,
	const hy_nn_act *dout, hy_nn_act *dy, float *de2)
{
	cpu->se_bwd(c, B, C, y, s, dout, dy, de2);
	round_n(F(dy), ACTN(B, C));
}

static void e_act_put(const hy_nn_ctx *c, size_t n, const float *host, hy_nn_act *dst)
{
	(void)c;
	memcpy(dst, host, n * sizeof *host);
	round_n(F(dst), n);
}

static int setup(void **state)
{
	(void)state;
	cpu = hy_nn_backend_cpu();
	emul = *cpu;
	emul.name = "cpu-bf16-emulation";
	emul.conv3_fwd = e_conv3_fwd, emul.conv3_bwd = e_conv3_bwd;
	emul.conv1_fwd = e_conv1_fwd, emul.conv1_bwd = e_conv1_bwd;
	emul.linear_fwd = e_linear_fwd, emul.linear_bwd = e_linear_bwd;
	emul.gn_mish_fwd = e_gn_mish_fwd, emul.gn_mish_bwd = e_gn_mish_bwd;
	emul.pool_bwd = e_pool_bwd, emul.se_fwd = e_se_fwd, emul.se_bwd = e_se_bwd;
	emul.act_put = e_act_put;
	return 0;
}

typedef struct pair {
	hy_nn_ctx ctx;
	hy_nn_model c, e;
	hy_nn_work wc, we;
} pair;

static void pair_init(pair *p, hy_nn_arch a, int B, uint64_t seed)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, seed);
	hy_nn_ctx_init(&p->ctx, 1);
	assert_int_equal(hy_nn_model_init(&p->c, a, cpu, &p->ctx, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&p->c, &r, &d), HY_OK);
	assert_int_equal(hy_nn_model_init(&p->e, a, &emul, &p->ctx, &d), HY_OK);
	memcpy(p->e.w, p->c.w, p->c.table.total * sizeof(float));
	assert_int_equal(hy_nn_work_init(&p->wc, &p->c, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(&p->we, &p->e, B, &d), HY_OK);
}

static void pair_free(pair *p)
{
	hy_nn_work_free(&p->wc, &p->c), hy_nn_work_free(&p->we, &p->e);
	hy_nn_model_free(&p->c), hy_nn_model_free(&p->e);
}

static void test_model_step(void **state)
{
	(void)state;
	enum { B = 64 };
	pair p;
	pair_init(&p, (hy_nn_arch){6, 64, 0}, B, 4242);
	hy_sample *s = calloc(B, sizeof *s);
	assert_non_null(s);
	hy_rng r;
	hy_rng_seed(&r, 4243);
	hy_nn_synth_samples(&r, s, B);
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(&p.wc, &p.c, s, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_load(&p.we, &p.e, s, B, &d), HY_OK);
	hy_nn_losses lc, le;
	hy_nn_forward(&p.c, &p.wc), hy_nn_loss(&p.c, &p.wc, &lc), hy_nn_backward(&p.c, &p.wc);
	hy_nn_forward(&p.e, &p.we), hy_nn_loss(&p.e, &p.we, &le), hy_nn_backward(&p.e, &p.we);
	double num = 0, den = 0;
	for (size_t i = 0; i < p.c.table.total; i++) {
		double dd = (double)p.c.g[i] - p.e.g[i];
		num += dd * dd, den += (double)p.c.g[i] * p.c.g[i];
	}
	double rg = sqrt(num / den), rl = fabs(le.total - lc.total) / fabs(lc.total);
	double rp = fabs(le.policy - lc.policy) / fabs(lc.policy);
	print_message("6x64 B=64 bf16 emulation: loss %.3g, policy %.3g, gradient %.3g relative "
		      "(check-gpu allows %.3g, %.3g, %.3g)\n", rl, rp, rg, TOL_LOSS, TOL_LOSS, TOL_GRAD);
	assert_true(rl <= TOL_LOSS / 2 && rp <= TOL_LOSS / 2 && rg <= TOL_GRAD / 2);
	/* and the emulation does round: not the fp32 gradients bit for bit */
	assert_true(rg > 0);
	free(s);
	pair_free(&p);
}

static void train(hy_nn_model *m, hy_nn_work *w, int B, int steps, double *losses)
{
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, steps);
	int64_t step = 0;
	hy_rng r;
	hy_rng_seed(&r, 4250);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	assert_non_null(s);
	hy_diag d;
	hy_diag_init(&d, "test");
	for (int i = 0; i < steps; i++) {
		hy_nn_synth_samples(&r, s, B);
		assert_int_equal(hy_nn_work_load(w, m, s, B, &d), HY_OK);
		hy_nn_losses l;
		hy_nn_forward(m, w), hy_nn_loss(m, w, &l), hy_nn_backward(m, w);
		hy_nn_optim_step(m, &oc, &step, NULL);
		losses[i] = l.total;
	}
	free(s);
}

static void test_training_curve(void **state)
{
	(void)state;
	enum { STEPS = 50, B = 64 };
	pair p;
	pair_init(&p, (hy_nn_arch){6, 64, 0}, B, 4249);
	double lc[STEPS], le[STEPS], worst = 0;
	train(&p.c, &p.wc, B, STEPS, lc);
	train(&p.e, &p.we, B, STEPS, le);
	for (int i = 0; i < STEPS; i++) {
		double r = fabs(le[i] - lc[i]) / fabs(lc[i]);
		worst = r > worst ? r : worst;
	}
	print_message("50 steps of small, bf16 emulation: %.4f -> %.4f (fp32 %.4f -> %.4f), worst "
		      "relative difference %.3g (check-gpu allows %.3g)\n", le[0], le[STEPS - 1], lc[0],
		lc[STEPS - 1], worst, TOL_CURVE);
	assert_true(worst <= TOL_CURVE / 2);
	assert_true(le[STEPS - 1] < le[0]); /* it trains */
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_step),
		cmocka_unit_test(test_training_curve),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
