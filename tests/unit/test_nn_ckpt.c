/* Checkpoints: save/load round trip bit-exact (parameters, AdamW moments,
 * step, hyper-parameters, RNG state); a resumed run gives bit-identical
 * losses; another architecture and a truncated file give clear errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Files in the test directory with ".tmp" in their names. */
static int count_tmp(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -c tmp", dir);
	FILE *f = popen(cmd, "r");
	int n = -1;
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

static void test_roundtrip_resume(void **state)
{
	(void)state;
	const hy_nn_arch a = {2, 32, 0};
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
	assert_int_equal(count_tmp(), 0);
	hy_nn_work_free(&w2, &m2);
	hy_nn_model_free(&m2);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

/* hy_nn_ckpt_save_weights: the weights and every attribute of the source
 * (an extra one too), no moments, a third of the size; a weights-only load
 * gives the same weights, a load of the moments refuses it by name. */
static void test_weights_only(void **state)
{
	(void)state;
	hy_nn_model m, m2;
	model(&m, (hy_nn_arch){2, 32, 0}, 21);
	for (size_t i = 0; i < m.table.total; i++)
		m.m[i] = m.v[i] = 0.5f; /* moments that must not travel */
	int32_t obs = 7;
	hy_nn_ckpt_attr attr = {"obs_version", HY_NN_ATTR_I32, &obs};
	hy_nn_ckpt_meta meta = {.step = 5, .seed = 3, .extra = &attr, .nextra = 1};
	hy_nn_optim_defaults(&meta.opt, 10);
	char p[512], q[512];
	path(p, "full.h5");
	path(q, "weights.h5");
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	hy_nn_ckpt_reader *r;
	assert_int_equal(hy_nn_ckpt_open(p, &r, &d), HY_OK);
	assert_false(hy_nn_ckpt_weights_only(r));
	assert_int_equal(hy_nn_ckpt_save_weights(r, q, &d), HY_OK);
	hy_nn_ckpt_close(r);
	assert_int_equal(count_tmp(), 0);
	struct stat sp, sq;
	assert_int_equal(stat(p, &sp), 0);
	assert_int_equal(stat(q, &sq), 0);
	assert_true(sq.st_size * 2 < sp.st_size);

	assert_int_equal(hy_nn_ckpt_open(q, &r, &d), HY_OK);
	assert_true(hy_nn_ckpt_weights_only(r));
	int v = 0;
	assert_int_equal(hy_nn_ckpt_obs_of(r, &v, &d), HY_OK);
	assert_int_equal(v, 7);
	model(&m2, (hy_nn_arch){2, 32, 0}, 999);
	hy_nn_ckpt_meta got;
	assert_int_equal(hy_nn_ckpt_load_from(r, &m2, &got, 1, &d), HY_OK);
	assert_true(got.step == 5 && got.seed == 3);
	assert_memory_equal(m.w, m2.w, m.table.total * sizeof(float));
	assert_true(m2.m[0] == 0.0f && m2.v[0] == 0.0f);
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_load_from(r, &m2, &got, 0, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "weights alone"));
	hy_nn_ckpt_close(r);
	hy_nn_model_free(&m2);
	hy_nn_model_free(&m);
	unlink(p);
	unlink(q);
}

/* Every single-bit flip in a checkpoint is detected (load fails) or
 * harmless (everything loads bit for bit as saved): fletcher32 on every
 * tensor, checksummed metadata, range-checked attributes. */
static void test_bitflips(void **state)
{
	(void)state;
	const hy_nn_arch a = {2, 32, 0};
	hy_nn_model m, m2;
	model(&m, a, 21);
	model(&m2, a, 22);
	hy_nn_optim_cfg c;
	hy_nn_optim_defaults(&c, 10);
	hy_rng r;
	hy_rng_seed(&r, 23);
	hy_nn_ckpt_meta meta = {.step = 5, .opt = c, .seed = 23, .rng = r}, got;
	char p[512], q[512];
	path(p, "flip.h5");
	path(q, "flipped.h5");
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	uint8_t *img = malloc((size_t)len);
	assert_true(fread(img, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	uint64_t x = 0x9e3779b97f4a7c15u;
	int detected = 0, harmless = 0;
	const size_t bytes = m.table.total * sizeof(float);
	for (int k = 0; k < 200; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		long at = (long)(x % (uint64_t)len);
		int bit = (int)(x >> 40) % 8;
		img[at] ^= (uint8_t)(1u << bit);
		f = fopen(q, "wb");
		assert_true(fwrite(img, 1, (size_t)len, f) == (size_t)len);
		fclose(f);
		img[at] ^= (uint8_t)(1u << bit);
		memset(&got, 0, sizeof got);
		if (hy_nn_ckpt_load(q, &m2, &got, 0, &d) != HY_OK) {
			detected++;
			continue;
		}
		if (memcmp(m.w, m2.w, bytes) || memcmp(m.m, m2.m, bytes) ||
		    memcmp(m.v, m2.v, bytes) || got.step != meta.step || got.seed != meta.seed ||
		    memcmp(&got.opt, &meta.opt, sizeof got.opt) ||
		    memcmp(got.rng.s, meta.rng.s, sizeof got.rng.s))
			fail_msg("flip of bit %d at byte %ld of %ld went unnoticed", bit, at, len);
		harmless++;
	}
	print_message("%d flips detected, %d harmless, of 200\n", detected, harmless);
	assert_true(detected > 100);
	free(img);
	hy_nn_model_free(&m);
	hy_nn_model_free(&m2);
}

/* A bit flipped inside a tensor's data fails its fletcher32 checksum: the
 * error says so (status HY_EDATA), not "truncated file?". */
static void test_checksum_message(void **state)
{
	(void)state;
	hy_nn_model m;
	model(&m, (hy_nn_arch){2, 32, 0}, 41);
	hy_nn_optim_cfg c;
	hy_nn_optim_defaults(&c, 10);
	hy_nn_ckpt_meta meta = {.step = 1, .opt = c, .seed = 41};
	char p[512];
	path(p, "sum.h5");
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	uint8_t *img = malloc((size_t)len);
	assert_true(fread(img, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	/* the first parameter tensor's stored bytes (little-endian float32) */
	const uint8_t *at = memmem(img, (size_t)len, m.w, 64);
	assert_non_null(at);
	img[at - img + 32] ^= 0x10;
	f = fopen(p, "wb");
	assert_true(fwrite(img, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	free(img);
	assert_int_equal(hy_nn_ckpt_load(p, &m, NULL, 0, &d), HY_EDATA);
	print_message("%s\n", d.msg);
	assert_non_null(strstr(d.msg, "sum.h5"));
	assert_non_null(strstr(d.msg, "checksum mismatch"));
	assert_null(strstr(d.msg, "truncated"));
	hy_nn_model_free(&m);
}

/* Attributes out of the ranges of their options are refused, naming them. */
static void test_attr_ranges(void **state)
{
	(void)state;
	hy_nn_model m;
	model(&m, (hy_nn_arch){2, 32, 0}, 31);
	hy_nn_optim_cfg c;
	hy_nn_optim_defaults(&c, 10);
	char p[512];
	path(p, "ranges.h5");
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_nn_ckpt_meta meta = {.step = -5, .opt = c}, got;
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	assert_int_equal(hy_nn_ckpt_load(p, &m, &got, 0, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "attribute 'step' is out of range"));
	meta.step = 1;
	meta.opt.warmup = -1;
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	assert_int_equal(hy_nn_ckpt_load(p, &m, &got, 0, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "'warmup'"));
	meta.opt = c;
	meta.opt.lr = 0.0f / 0.0f;
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	assert_int_equal(hy_nn_ckpt_load(p, &m, &got, 0, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "'lr'"));
	hy_nn_model_free(&m);
}

static void test_errors(void **state)
{
	(void)state;
	hy_nn_model m, other;
	model(&m, (hy_nn_arch){2, 32, 0}, 1);
	model(&other, (hy_nn_arch){1, 64, 0}, 1);
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

/* A non-finite parameter or AdamW moment is refused at load, naming the
 * file and the dataset (issue 46: a NaN network was played and written as
 * invalid JSON). */
static void test_nonfinite(void **state)
{
	(void)state;
	hy_nn_model m;
	model(&m, (hy_nn_arch){2, 32, 0}, 1);
	char p[512];
	path(p, "nan.h5");
	hy_nn_ckpt_meta meta = {0};
	hy_nn_optim_defaults(&meta.opt, 10);
	hy_diag d;
	hy_diag_init(&d, "test");
	int b = hy_nn_params_find(&m.table, "policy/fc/bias");
	assert_true(b >= 0);
	const float bad[2] = {NAN, INFINITY};
	for (int k = 0; k < 2; k++) {
		float keep = m.w[m.table.t[b].offset + 3];
		m.w[m.table.t[b].offset + 3] = bad[k];
		assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
		m.w[m.table.t[b].offset + 3] = keep;
		assert_int_equal(hy_nn_ckpt_load(p, &m, NULL, 1, &d), HY_EFORMAT);
		print_message("%s\n", d.msg);
		assert_non_null(strstr(d.msg, "nan.h5"));
		assert_non_null(strstr(d.msg, "/params/policy/fc/bias holds a non-finite value"));
	}
	/* a moment: refused where the moments are read (a resume) */
	m.v[m.table.t[b].offset] = NAN;
	assert_int_equal(hy_nn_ckpt_save(p, &m, &meta, &d), HY_OK);
	assert_int_equal(hy_nn_ckpt_load(p, &m, NULL, 0, &d), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "/adam/v/policy/fc/bias holds a non-finite value"));
	hy_nn_model_free(&m);
	unlink(p);
}

static int setup(void **state)
{
	(void)state;
	hy_nn_ctx_init(&ctx, 2);
	snprintf(dir, sizeof dir, "%s/hy-nn-ckpt.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

/* Removes the scratch directory with whatever the tests wrote into it
 * (a list of names would miss the next test's files). */
static int teardown(void **state)
{
	(void)state;
	DIR *dp = opendir(dir);
	if (dp) {
		struct dirent *e;
		char p[512];
		while ((e = readdir(dp)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				path(p, e->d_name);
				unlink(p);
			}
		closedir(dp);
	}
	return rmdir(dir) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_resume),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_weights_only),
		cmocka_unit_test(test_bitflips),
		cmocka_unit_test(test_checksum_message),
		cmocka_unit_test(test_attr_ranges),
		cmocka_unit_test(test_nonfinite),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
