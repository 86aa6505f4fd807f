/* Checkpoints: save/load round trip bit-exact (parameters, AdamW moments,
 * step, hyper-parameters, RNG state); a resumed run gives bit-identical
 * losses; another architecture and a truncated file give clear errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "nn/synth.h"

static hy_nn_ctx ctx;
static char dir[256];

static void path(char *buf, const char *name)
{
	snprintf(buf, 512, "%s/%s", dir, name);
}

static void model(hy_nn_model *m, hy_nn_arch a, uint64_t seed)
{
	hy_rng r;
	hy_rng_seed(&r, seed);
	assert_int_equal(hy_nn_model_init(m, a, hy_nn_backend_cpu(), &ctx, NULL), HY_OK);
	assert_int_equal(hy_nn_model_init_params(m, &r, NULL), HY_OK);
}

/* k steps of training on fixed data; returns the losses */
static void run(hy_nn_model *m, hy_nn_work *w, const hy_nn_optim_cfg *c, int64_t *step, int k,
	double *out)
{
	for (int i = 0; i < k; i++) {
		hy_nn_losses l;
		hy_nn_forward(m, w);
		hy_nn_loss(m, w, &l);
		hy_nn_backward(m, w);
		hy_nn_optim_step(m, c, step, NULL);
		out[i] = l.total;
	}
}

static void test_roundtrip_resume(void **state)
{
	(void)state;
	const hy_nn_arch a = {2, 32};
	hy_nn_model m;
	hy_nn_work w;
	model(&m, a, 11);
	hy_sample s[8];
	hy_rng r;
	hy_rng_seed(&r, 12);
	hy_nn_synth_samples(&r, s, 8);
	assert_int_equal(hy_nn_work_init(&w, &m, 8, NULL), HY_OK);
	assert_int_equal(hy_nn_work_load(&w, &m, s, 8, NULL), HY_OK);
	hy_nn_optim_cfg c;
	hy_nn_optim_defaults(&c, 10);
	int64_t step = 0;
	double full[6], resumed[6];
	run(&m, &w, &c, &step, 3, full);
	hy_nn_ckpt_meta meta = {.step = step, .opt = c, .seed = 12, .rng = r};
	char p[512];
	path(p, "a.h5");
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	run(&m, &w, &c, &step, 3, full + 3);

	hy_nn_model m2;
	model(&m2, a, 999); /* different init, overwritten by the load */
	hy_nn_ckpt_meta got;
	assert_int_equal(hy_nn_ckpt_load(p, &m2, &got, 0, &d), HY_OK);
	assert_true(got.step == 3 && got.seed == 12);
	assert_memory_equal(got.rng.s, r.s, sizeof r.s);
	assert_memory_equal(&got.opt, &c, sizeof c);
	hy_nn_arch ga;
	assert_int_equal(hy_nn_ckpt_arch(p, &ga, &d), HY_OK);
	assert_true(ga.blocks == 2 && ga.channels == 32);
	/* resume: steps 4–6 identical to the uninterrupted run */
	hy_nn_work w2;
	assert_int_equal(hy_nn_work_init(&w2, &m2, 8, NULL), HY_OK);
	assert_int_equal(hy_nn_work_load(&w2, &m2, s, 8, NULL), HY_OK);
	int64_t step2 = got.step;
	memcpy(resumed, full, 3 * sizeof *full);
	run(&m2, &w2, &got.opt, &step2, 3, resumed + 3);
	assert_memory_equal(full, resumed, sizeof full);
	assert_memory_equal(m.w, m2.w, m.table.total * sizeof(float));
	assert_memory_equal(m.m, m2.m, m.table.total * sizeof(float));
	assert_memory_equal(m.v, m2.v, m.table.total * sizeof(float));
	/* no temp file left behind */
	char t[600];
	snprintf(t, sizeof t, "%s.tmp.%ld", p, (long)getpid());
	assert_int_equal(access(t, F_OK), -1);
	hy_nn_work_free(&w2, &m2);
	hy_nn_model_free(&m2);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

static void test_errors(void **state)
{
	(void)state;
	hy_nn_model m, other;
	model(&m, (hy_nn_arch){2, 32}, 1);
	model(&other, (hy_nn_arch){1, 64}, 1);
	char p[512], q[512];
	path(p, "b.h5");
	path(q, "trunc.h5");
	hy_nn_ckpt_meta meta = {0};
	hy_nn_optim_defaults(&meta.opt, 10);
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	/* another architecture */
	assert_int_equal(hy_nn_ckpt_load(p, &other, NULL, 0, &d), HY_EFORMAT);
	print_message("%s\n", d.msg);
	assert_non_null(strstr(d.msg, "architecture is 2 blocks × 32 channels"));
	assert_non_null(strstr(d.msg, "1 × 64"));
	/* truncated: the first half of the file */
	FILE *in = fopen(p, "rb"), *out = fopen(q, "wb");
	assert_non_null(in);
	assert_non_null(out);
	fseek(in, 0, SEEK_END);
	long n = ftell(in);
	rewind(in);
	char *buf = malloc((size_t)n);
	assert_int_equal(fread(buf, 1, (size_t)n, in), (size_t)n);
	assert_int_equal(fwrite(buf, 1, (size_t)n / 2, out), (size_t)n / 2);
	fclose(in);
	fclose(out);
	free(buf);
	hy_status st = hy_nn_ckpt_load(q, &m, NULL, 0, &d);
	print_message("%s\n", d.msg);
	assert_int_equal(st, HY_ETRUNC);
	assert_non_null(strstr(d.msg, "trunc.h5"));
	assert_non_null(strstr(d.msg, "truncated"));
	/* missing file */
	path(q, "nope.h5");
	assert_int_equal(hy_nn_ckpt_load(q, &m, NULL, 0, &d), HY_EIO);
	assert_non_null(strstr(d.msg, "No such file"));
	/* not a checkpoint: an empty text file */
	path(q, "text.h5");
	out = fopen(q, "w");
	fputs("hello\n", out);
	fclose(out);
	assert_int_not_equal(hy_nn_ckpt_load(q, &m, NULL, 0, &d), HY_OK);
	hy_nn_model_free(&m);
	hy_nn_model_free(&other);
}

static int setup(void **state)
{
	(void)state;
	hy_nn_ctx_init(&ctx, 2);
	snprintf(dir, sizeof dir, "%s/hy-nn-ckpt.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	const char *names[] = {"a.h5", "b.h5", "trunc.h5", "text.h5"};
	char p[512];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		path(p, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_resume),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
