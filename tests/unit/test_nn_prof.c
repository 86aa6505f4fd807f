/* nn/prof: the per-op breakdown over the CPU backend (wall-clock timing):
 * a training step of a tiny model through the wrapped backend gives the
 * same losses as the plain one, counts each op the model calls (the trunk's
 * convolutions once per block and pass), and the op times sum to at most
 * the wall time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/model.h"
#include "nn/optim.h"
#include "nn/prof.h"
#include "nn/synth.h"

static double step_loss(const hy_nn_backend *be, hy_nn_ctx *ctx, hy_nn_arch a, int B)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, 11);
	hy_nn_model m;
	hy_nn_work w;
	assert_int_equal(hy_nn_model_init(&m, a, be, ctx, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&m, &r, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(&w, &m, B, &d), HY_OK);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	assert_non_null(s);
	hy_nn_synth_samples(&r, s, B);
	assert_int_equal(hy_nn_work_load(&w, &m, s, B, &d), HY_OK);
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 10);
	int64_t step = 0;
	hy_nn_losses l;
	double total = 0;
	for (int i = 0; i < 2; i++) {
		hy_nn_forward(&m, &w);
		hy_nn_loss(&m, &w, &l);
		hy_nn_backward(&m, &w);
		hy_nn_optim_step(&m, &oc, &step, NULL);
		total += l.total;
	}
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
	free(s);
	return total;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void test_breakdown(void **state)
{
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_arch a = {3, 32, 0};
	double plain = step_loss(hy_nn_backend_cpu(), &ctx, a, 8);
	const hy_nn_backend *be = hy_nn_prof_wrap(hy_nn_backend_cpu(), &ctx);
	assert_ptr_not_equal(be, hy_nn_backend_cpu());
	double t0 = now_ms();
	double wrapped = step_loss(be, &ctx, a, 8);
	double wall = now_ms() - t0;
	assert_true(plain == wrapped); /* the same ops, bit for bit */
	hy_nn_prof_row rows[HY_NN_PROF_MAX_OPS];
	int n = hy_nn_prof_rows(rows, HY_NN_PROF_MAX_OPS);
	assert_true(n >= 8);
	double sum = 0;
	long conv3_fwd = 0, conv3_bwd = 0, gn = 0;
	for (int i = 0; i < n; i++) {
		assert_true(rows[i].calls > 0);
		assert_true(rows[i].ms >= 0);
		if (i)
			assert_true(rows[i - 1].ms >= rows[i].ms); /* most time first */
		sum += rows[i].ms;
		if (!strcmp(rows[i].op, "conv3_fwd"))
			conv3_fwd = rows[i].calls;
		if (!strcmp(rows[i].op, "conv3_bwd"))
			conv3_bwd = rows[i].calls;
		if (!strcmp(rows[i].op, "gn_mish_fwd"))
			gn = rows[i].calls;
	}
	/* per step: the stem and two per block forward; backward skips the
	 * stem's input gradient but not its weights: the same count */
	assert_int_equal(conv3_fwd, 2 * (1 + 2 * a.blocks));
	assert_int_equal(conv3_bwd, conv3_fwd);
	assert_true(gn > 0);
	assert_true(sum > 0 && sum <= wall);
	hy_nn_prof_reset();
	assert_int_equal(hy_nn_prof_rows(rows, HY_NN_PROF_MAX_OPS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_breakdown)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
