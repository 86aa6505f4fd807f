/* Path v3's fused block (nn/ops.h, nn/fuse.h) on the CPU: a model run through
 * the fused ops' references gives the core ops' losses, outputs and every
 * gradient; the statistics carried as sums give gn_mish_fwd's mean and rstd;
 * gn_conv3_bwd + gn_bwd_apply give gn_mish_bwd's input gradient. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/fuse.h"
#include "nn/math.h"
#include "nn/model.h"
#include "nn/synth.h"

#include "fixture_cmp.h"

static hy_nn_ctx ctx;

static float *randv(hy_rng *r, size_t n, double sd, double mu)
{
	float *v = malloc(n * sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(mu + sd * hy_rng_normal(r));
	return v;
}

struct run {
	hy_nn_model m;
	hy_nn_work w;
	hy_nn_losses l;
};

static void run_model(struct run *t, const hy_nn_backend *be, hy_nn_arch a, int B,
	const hy_sample *s)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, 9100);
	assert_int_equal(hy_nn_model_init(&t->m, a, be, &ctx, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&t->m, &r, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(&t->w, &t->m, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_load(&t->w, &t->m, s, B, &d), HY_OK);
	hy_nn_forward(&t->m, &t->w);
	hy_nn_loss(&t->m, &t->w, &t->l);
	hy_nn_backward(&t->m, &t->w);
}

static void test_fused_model(void **state)
{
	(void)state;
	hy_nn_backend fz;
	hy_nn_fused_ref_table(&fz);
	assert_null(hy_nn_backend_cpu()->fused_block); /* the CPU runs the core ops */
	assert_true(fz.fused_block(&ctx, 64) && !fz.fused_block(&ctx, 48));
	const hy_nn_arch a = {3, 64, 0};
	const int B = 5;
	hy_sample *s = calloc(B, sizeof *s);
	assert_non_null(s);
	hy_rng r;
	hy_rng_seed(&r, 9101);
	hy_nn_synth_samples(&r, s, B);
	struct run core, fused;
	run_model(&core, hy_nn_backend_cpu(), a, B, s);
	run_model(&fused, &fz, a, B, s);
	print_message("losses core %.7f fused %.7f\n", core.l.total, fused.l.total);
	assert_true(fabs(core.l.total - fused.l.total) <= 1e-5 * fabs(core.l.total));
	assert_true(rel_l2(core.w.plog, fused.w.plog, (size_t)B * HY_ACTIONS) < 1e-5);
	/* every tensor's gradient, each on its own (a block's GroupNorm, its
	 * convolutions, the stem: each goes through a different fused op) */
	for (int i = 0; i < core.m.table.count; i++) {
		const hy_nn_tensor *x = &core.m.table.t[i];
		double e = rel_l2(core.m.g + x->offset, fused.m.g + x->offset, x->size);
		if (e >= 1e-4)
			print_message("%s: relative error %.3g\n", x->name, e);
		assert_true(e < 1e-4);
	}
	hy_nn_work_free(&core.w, &core.m), hy_nn_model_free(&core.m);
	hy_nn_work_free(&fused.w, &fused.m), hy_nn_model_free(&fused.m);
	free(s);
}

/* The sums' mean and rstd against gn_mish_fwd's two-pass ones, on values
 * whose mean is large against their spread (the case that loses digits in
 * Σ²/n − mean²): within what the next GroupNorm can tell apart. */
static void test_stats(void **state)
{
	(void)state;
	const int B = 3, C = 64, G = HY_NN_GROUPS;
	const size_t n = (size_t)B * HY_NN_TP * C;
	hy_rng r;
	hy_rng_seed(&r, 9102);
	float *x = randv(&r, n, 1.0, 4.0), *ga = randv(&r, C, 0.1, 1.0), *be = randv(&r, C, 0.1, 0);
	hy_nn_zero_pads_cpu(&ctx, B, C, x);
	float *z = malloc(n * 4), *a = malloc(n * 4), st[2 * 3 * 32], mean[3 * 32], rstd[3 * 32];
	assert_true(z && a);
	hy_nn_backend_cpu()->gn_mish_fwd(&ctx, B, C, (hy_nn_act *)x, ga, be, (hy_nn_act *)z,
		(hy_nn_act *)a, mean, rstd);
	hy_nn_gn_stats_ref(B, C, x, st);
	for (int i = 0; i < B * G; i++) {
		float m, rs;
		hy_nn_gn_from_sums(st[2 * i], st[2 * i + 1], (float)(C / G * HY_NN_T), &m, &rs);
		assert_true(fabsf(m - mean[i]) <= 1e-6f * fabsf(mean[i]) + 1e-6f);
		assert_true(fabsf(rs - rstd[i]) <= 2e-3f * rstd[i]);
	}
	free(x), free(ga), free(be), free(z), free(a);
}

/* gn_conv3_bwd's dz and gs, then gn_bwd_apply, against conv3_bwd then
 * gn_mish_bwd (dx accumulated onto a random start). */
static void test_gn_backward(void **state)
{
	(void)state;
	const int B = 4, C = 32, G = HY_NN_GROUPS;
	const size_t n = (size_t)B * HY_NN_TP * C, nw = (size_t)C * 3 * C;
	hy_nn_backend fz;
	hy_nn_fused_ref_table(&fz);
	const hy_nn_backend *cpu = hy_nn_backend_cpu();
	hy_rng r;
	hy_rng_seed(&r, 9103);
	float *x = randv(&r, n, 1.0, 0.5), *dy = randv(&r, n, 1.0, 0), *w = randv(&r, nw, 0.1, 0);
	float *ga = randv(&r, C, 0.2, 1.0), *be = randv(&r, C, 0.2, 0), *dx0 = randv(&r, n, 1, 0);
	hy_nn_zero_pads_cpu(&ctx, B, C, x), hy_nn_zero_pads_cpu(&ctx, B, C, dy);
	hy_nn_zero_pads_cpu(&ctx, B, C, dx0);
	float *z = calloc(n, 4), *a = calloc(n, 4), *da = calloc(n, 4), *dz = calloc(n, 4);
	float *tmp = calloc(n, 4), *dxr = malloc(n * 4), *dxf = malloc(n * 4), *scr = calloc(2 * B * C, 4);
	float *dwr = calloc(nw, 4), *dwf = calloc(nw, 4);
	float mean[4 * 32], rstd[4 * 32], gs[2 * 4 * 32], dgr[32] = {0}, dbr[32] = {0};
	float dgf[32] = {0}, dbf[32] = {0};
	memcpy(dxr, dx0, n * 4), memcpy(dxf, dx0, n * 4);
	cpu->gn_mish_fwd(&ctx, B, C, (hy_nn_act *)x, ga, be, (hy_nn_act *)z, (hy_nn_act *)a, mean,
		rstd);
	cpu->conv3_bwd(&ctx, B, C, C, (hy_nn_act *)a, w, (hy_nn_act *)dy, (hy_nn_act *)da, dwr);
	cpu->gn_mish_bwd(&ctx, B, C, (hy_nn_act *)x, (hy_nn_act *)z, ga, mean, rstd,
		(hy_nn_act *)da, (hy_nn_act *)dxr, 1, dgr, dbr, scr);
	fz.gn_conv3_bwd(&ctx, B, C, (hy_nn_act *)x, ga, be, mean, rstd, w, (hy_nn_act *)dy,
		(hy_nn_act *)dz, dwf, dgf, dbf, gs, (hy_nn_act *)tmp);
	fz.gn_bwd_apply(&ctx, B, C, (hy_nn_act *)x, ga, mean, rstd, (hy_nn_act *)dz, gs,
		(hy_nn_act *)dxf, 1);
	assert_true(rel_l2(dwr, dwf, nw) < 1e-6);
	assert_true(rel_l2(dxr, dxf, n) < 1e-5);
	assert_true(rel_l2(dgr, dgf, C) < 1e-5 && rel_l2(dbr, dbf, C) < 1e-5);
	for (size_t i = 0; i < n; i++) /* pad rows: dx keeps its start there */
		if (i / C % HY_NN_TP == 0 || i / C % HY_NN_TP == HY_NN_TP - 1)
			assert_true(dxf[i] == dx0[i] && dz[i] == 0.0f);
	(void)G;
	free(x), free(dy), free(w), free(ga), free(be), free(dx0), free(z), free(a), free(da);
	free(dz), free(tmp), free(dxr), free(dxf), free(scr), free(dwr), free(dwf);
}

int main(void)
{
	hy_nn_ctx_init(&ctx, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fused_model),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_gn_backward),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
