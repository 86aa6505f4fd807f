/* The one training step (train/step.h) with a learner that records its
 * calls: loss, backward, update in that order; a non-finite head stops the
 * step before anything moves, naming the step and the head; a non-finite
 * gradient norm stops it after the update; a learner's own HY_EDATA gets
 * the step in front; k = 0 (a rank without a part) skips the loss. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "train/step.h"

typedef struct fake {
	hy_train_learner L;
	char calls[16];
	int n;
	double value_loss, norm;
	int fail;
} fake;

static void call(fake *f, char c)
{
	if (f->n < 15)
		f->calls[f->n++] = c;
}

static hy_status f_loss(hy_train_learner *L, int k, hy_nn_losses *l, hy_diag *d)
{
	fake *f = (fake *)L;
	call(f, 'L');
	if (f->fail)
		return hy_diag_set(d, HY_EDATA, 0, "the loss could not be formed");
	l->total = 1.0 + f->value_loss;
	l->value = f->value_loss;
	l->n = k;
	return HY_OK;
}

static void f_backward(hy_train_learner *L, int k)
{
	call((fake *)L, k ? 'B' : 'Z');
}

static void f_update(hy_train_learner *L, const hy_nn_optim_cfg *opt, int64_t *step,
	hy_nn_step_info *info)
{
	fake *f = (fake *)L;
	call(f, 'U');
	(*step)++;
	info->grad_norm = f->norm;
	info->lr = opt->lr;
}

static fake make(void)
{
	fake f;
	memset(&f, 0, sizeof f);
	f.L = (hy_train_learner){.loss = f_loss, .backward = f_backward, .update = f_update};
	f.norm = 0.5;
	return f;
}

static void test_order(void **state)
{
	(void)state;
	fake f = make();
	hy_nn_optim_cfg opt;
	hy_nn_optim_defaults(&opt, 10);
	int64_t step = 5;
	hy_nn_losses l;
	hy_nn_step_info info;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_train_step(&f.L, NULL, 8, &opt, &step, &l, &info, &d), HY_OK);
	assert_string_equal(f.calls, "LBU");
	assert_int_equal(step, 6);
	assert_int_equal(l.n, 8);
	assert_true(info.grad_norm == 0.5);
	/* k = 0: no loss, zero gradients, the update (every rank steps) */
	f = make();
	assert_int_equal(hy_train_step(&f.L, NULL, 0, &opt, &step, &l, &info, &d), HY_OK);
	assert_string_equal(f.calls, "ZU");
	assert_int_equal(step, 7);
}

static void test_refusals(void **state)
{
	(void)state;
	hy_nn_optim_cfg opt;
	hy_nn_optim_defaults(&opt, 10);
	hy_nn_losses l;
	hy_nn_step_info info;
	hy_diag d;
	hy_diag_init(&d, NULL);
	int64_t step = 5;
	fake f = make();
	f.value_loss = NAN; /* nothing moves */
	assert_int_equal(hy_train_step(&f.L, NULL, 8, &opt, &step, &l, &info, &d), HY_EDATA);
	assert_string_equal(f.calls, "L");
	assert_int_equal(step, 5);
	assert_string_equal(d.msg, "step 6: loss of head 'value' is nan; stopping, nothing new "
		"saved");
	f = make();
	f.value_loss = INFINITY;
	assert_int_equal(hy_train_step(&f.L, NULL, 8, &opt, &step, &l, &info, &d), HY_EDATA);
	assert_non_null(strstr(d.msg, "loss of head 'value' is inf"));
	f = make();
	f.norm = INFINITY;
	assert_int_equal(hy_train_step(&f.L, NULL, 8, &opt, &step, &l, &info, &d), HY_EDATA);
	assert_string_equal(f.calls, "LBU");
	assert_string_equal(d.msg, "step 6: the gradient norm is inf; stopping, nothing new saved");
	f = make();
	step = 5;
	f.fail = 1;
	assert_int_equal(hy_train_step(&f.L, NULL, 8, &opt, &step, &l, &info, &d), HY_EDATA);
	assert_string_equal(f.calls, "L");
	assert_string_equal(d.msg, "step 6: the loss could not be formed; stopping, nothing new "
		"saved");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
