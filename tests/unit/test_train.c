/* The trainer (lib/train): a run resumed from step k gives bit-identical
 * losses to the uninterrupted run (shards and streams); the stream shuffle
 * buffer is deterministic; shard epochs visit every sample exactly once and
 * seeking reproduces the order; shards decoded outside HDF5 on several
 * threads give the old way's samples byte for byte, also after a seek, and
 * fail at the same draw on a damaged chunk; a non-finite loss names the step and the
 * head and saves nothing; checkpoints of another architecture and truncated
 * ones are clear errors. Synthetic samples in a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "nn/synth.h"
#include "samples/shard.h"
#include "samples/stream.h"
#include "data/source.h"
#include "train/loop.h"

#include "fixture_train.h"

static const uint64_t SEED = 20261122;

static int setup(void **state)
{
	(void)state;
	if (fx_mkdir("hydra-train", SEED))
		return -1;
	char p[512];
	hy_sample *a = make_samples(300, 0, SEED), *b = make_samples(77, 300, SEED + 1);
	path(p, "a.h5");
	write_shard(p, a, 300, 32);
	path(p, "b.h5");
	write_shard(p, b, 77, 32);
	path(p, "a.bin");
	write_stream(p, a, 300);
	free(a);
	free(b);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fx_rmdir();
}

/* ---------------------------------------------------------------- data */

static void draw(hy_data *td, uint64_t *ids, size_t n, size_t batch)
{
	hy_sample *s = malloc(batch * sizeof *s);
	assert_non_null(s);
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (size_t got = 0; got < n;) {
		size_t want = n - got < batch ? n - got : batch, k = 0;
		hy_status st = hy_data_next(td, s, want, &k, &d);
		if (st)
			fail_msg("hy_data_next: %s: %s", hy_status_str(st), d.msg);
		assert_int_equal(k, want);
		for (size_t i = 0; i < k; i++)
			ids[got + i] = s[i].game;
		got += k;
	}
	free(s);
}

static void assert_permutation(const uint64_t *ids, size_t n)
{
	char *seen = calloc(n, 1);
	assert_non_null(seen);
	for (size_t i = 0; i < n; i++) {
		assert_true(ids[i] < n);
		if (seen[ids[i]])
			fail_msg("sample %llu delivered twice in one epoch", (unsigned long long)ids[i]);
		seen[ids[i]] = 1;
	}
	free(seen);
}

static void test_shard_epochs(void **state)
{
	(void)state;
	char a[512], b[512];
	path(a, "a.h5");
	path(b, "b.h5");
	const char *paths[] = {a, b};
	hy_data_cfg cfg = {.paths = paths, .npaths = 2, .seed = SEED, .shuffle_buffer = 64};
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	assert_int_equal(hy_data_get_mode(td), HY_DATA_SHARDS);
	assert_int_equal(hy_data_epoch_size(td), 377);
	uint64_t ids[3 * 377];
	draw(td, ids, 3 * 377, 50);
	for (int e = 0; e < 3; e++)
		assert_permutation(ids + e * 377, 377);
	/* shuffled, and differently each epoch */
	int moved = 0;
	for (int i = 0; i < 377; i++)
		moved += ids[i] != (uint64_t)i;
	assert_true(moved > 300);
	assert_true(memcmp(ids, ids + 377, 377 * sizeof *ids) != 0);
	hy_data_cursor c;
	hy_data_get_cursor(td, &c);
	assert_true((c.epoch == 3 && c.pos == 0) || (c.epoch == 2 && c.pos == 377));
	hy_data_close(td);

	/* a fresh source seeked to (1, 123) continues the same sequence */
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	hy_data_cursor at = {1, 123};
	assert_int_equal(hy_data_seek(td, &at, &d), HY_OK);
	uint64_t more[400];
	draw(td, more, 400, 33);
	assert_memory_equal(more, ids + 377 + 123, 400 * sizeof *more);
	hy_data_close(td);
}

/* Whole samples (not only their ids) of n draws in batches of batch. */
static void draw_samples(hy_data *td, hy_sample *s, size_t n, size_t batch)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (size_t got = 0; got < n;) {
		size_t want = n - got < batch ? n - got : batch, k = 0;
		hy_status st = hy_data_next(td, s + got, want, &k, &d);
		if (st)
			fail_msg("hy_data_next: %s: %s", hy_status_str(st), d.msg);
		assert_int_equal(k, want);
		got += k;
	}
}

/* Shards decoded outside HDF5 (data.h, Decoding) on 1, 2 and 3 threads:
 * the samples of the old way (HDF5 decompressing: hdf5_decode) byte for
 * byte, in the same order, over three epochs, with the same cursor; and
 * from a cursor in the middle of a buffer. */
static void test_shard_decoders(void **state)
{
	(void)state;
	char a[512], b[512];
	path(a, "a.h5");
	path(b, "b.h5");
	const char *paths[] = {a, b};
	enum { N = 3 * 377, AT = 377 + 123, MORE = 400 };
	hy_data_cfg cfg = {.paths = paths, .npaths = 2, .seed = SEED, .shuffle_buffer = 64,
		.hdf5_decode = 1};
	hy_sample *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
	assert_true(ref && got);
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	draw_samples(td, ref, N, 50);
	hy_data_cursor c0, c1;
	hy_data_get_cursor(td, &c0);
	hy_data_close(td);
	cfg.hdf5_decode = 0;
	for (int threads = 1; threads <= 3; threads++) {
		cfg.decoders = threads;
		assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
		draw_samples(td, got, N, threads == 2 ? 33 : 50);
		hy_data_get_cursor(td, &c1);
		hy_data_close(td);
		if (memcmp(got, ref, N * sizeof *ref) != 0)
			fail_msg("%d decoding threads: not the old way's samples", threads);
		assert_int_equal(c1.epoch, c0.epoch);
		assert_int_equal(c1.pos, c0.pos);
		assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
		hy_data_cursor at = {1, 123};
		assert_int_equal(hy_data_seek(td, &at, &d), HY_OK);
		draw_samples(td, got, MORE, 17);
		hy_data_close(td);
		if (memcmp(got, ref + AT, MORE * sizeof *ref) != 0)
			fail_msg("%d decoding threads, resumed at (1, 123): not the old way's samples",
				threads);
	}
	free(ref);
	free(got);
}

/* Draws until a failure: how many samples came before it. */
static size_t draw_until_error(hy_data *td, hy_diag *d)
{
	hy_sample s[16];
	size_t total = 0;
	for (int k = 0; k < 100; k++) {
		size_t n = 0;
		hy_status st = hy_data_next(td, s, 16, &n, d);
		if (st) {
			assert_int_equal(st, HY_EDATA);
			return total;
		}
		total += n;
	}
	fail_msg("no error in 1600 draws");
	return 0;
}

/* A flipped bit in one stored chunk: the old way and 1-3 decoding threads
 * fail at the same draw with HY_EDATA, ours saying "checksum mismatch: the
 * file is damaged" and naming the shard. */
static void test_shard_decoders_damage(void **state)
{
	(void)state;
	char a[512], bad[512];
	path(a, "a.h5");
	path(bad, "bad.h5");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", a, bad);
	assert_int_equal(system(cmd), 0);
	hid_t f = H5Fopen(bad, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	hid_t ds = H5Dopen2(f, "obs", H5P_DEFAULT);
	assert_true(ds >= 0);
	hsize_t off[3] = {160, 0, 0}, size = 0;
	haddr_t addr = 0;
	unsigned mask;
	assert_true(H5Dget_chunk_info_by_coord(ds, off, &mask, &addr, &size) >= 0);
	H5Dclose(ds);
	H5Fclose(f);
	FILE *fp = fopen(bad, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, (long)(addr + size / 2), SEEK_SET), 0);
	int c = fgetc(fp);
	assert_int_equal(fseek(fp, (long)(addr + size / 2), SEEK_SET), 0);
	fputc(c ^ 0x20, fp);
	assert_int_equal(fclose(fp), 0);

	const char *paths[] = {bad};
	hy_data_cfg cfg = {.paths = paths, .npaths = 1, .seed = SEED, .shuffle_buffer = 64,
		.hdf5_decode = 1};
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	size_t at = draw_until_error(td, &d);
	hy_data_close(td);
	assert_non_null(strstr(d.msg, "checksum mismatch: the file is damaged"));
	cfg.hdf5_decode = 0;
	for (int threads = 1; threads <= 3; threads++) {
		cfg.decoders = threads;
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
		assert_int_equal(draw_until_error(td, &d), at);
		hy_data_close(td);
		if (strncmp(d.msg, "checksum mismatch: the file is damaged", 38) != 0)
			fail_msg("%d threads: %s", threads, d.msg);
		assert_string_equal(d.source, bad);
	}
	unlink(bad);
}

static void test_stream_buffer(void **state)
{
	(void)state;
	char a[512];
	path(a, "a.bin");
	const char *paths[] = {a};
	hy_data_cfg cfg = {.paths = paths, .npaths = 1, .seed = SEED, .shuffle_buffer = 40};
	hy_data *td;
	hy_diag d;
	hy_diag_init(&d, NULL);
	uint64_t x[600], y[600], z[300];
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	assert_int_equal(hy_data_get_mode(td), HY_DATA_STREAM);
	assert_int_equal(hy_data_epoch_size(td), 0);
	draw(td, x, 600, 64);
	hy_data_close(td);
	/* every sample once per epoch (a file is read again for epoch 2) */
	assert_permutation(x, 300);
	assert_permutation(x + 300, 300);
	/* a buffer of 40 moves a sample at most ~40 places earlier */
	for (int i = 0; i < 300; i++)
		assert_true(x[i] <= (uint64_t)i + 40);
	/* same seed, same sequence, whatever the batch size */
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	draw(td, y, 600, 7);
	hy_data_close(td);
	assert_memory_equal(x, y, sizeof x);
	/* seeking replays the draws */
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	hy_data_cursor at = {0, 250};
	assert_int_equal(hy_data_seek(td, &at, &d), HY_OK);
	draw(td, z, 300, 64);
	hy_data_close(td);
	assert_memory_equal(z, x + 250, sizeof z);
	/* another seed, another order */
	cfg.seed = SEED + 1;
	assert_int_equal(hy_data_open(&td, &cfg, &d), HY_OK);
	draw(td, y, 300, 64);
	hy_data_close(td);
	assert_true(memcmp(x, y, 300 * sizeof *x) != 0);
}

/* ---------------------------------------------------------------- training */

typedef struct rec {
	double loss[64][6];
	int64_t n, stop_at;
	volatile sig_atomic_t *stop;
} rec;

static void on_step(void *u, int64_t step, const hy_nn_losses *l)
{
	rec *r = u;
	assert_true(r->n < 64);
	double v[6] = {l->total, l->policy, l->value, l->grp, l->tenpai, l->danger};
	memcpy(r->loss[r->n++], v, sizeof v);
	if (step == r->stop_at)
		*r->stop = 1;
}

static void base_cfg(hy_train_cfg *c, const char *const *in, size_t nin, const char *out)
{
	memset(c, 0, sizeof *c);
	c->arch = (hy_nn_arch){2, 32, 0};
	c->threads = 2;
	c->inputs = in;
	c->ninputs = nin;
	c->steps = 12;
	c->batch = 24;
	c->lr = 1e-3f;
	c->seed = 7;
	c->seed_set = 1;
	c->shuffle_buffer = 50;
	c->out = out;
	c->save_every = 5;
	c->log_every = 1;
	c->keep = 2;
}

static void resume_exact(const char *const *in, size_t nin, const char *tag)
{
	char o1[512], o2[512], name[64];
	snprintf(name, sizeof name, "run-%s-full", tag);
	path(o1, name);
	snprintf(name, sizeof name, "run-%s-part", tag);
	path(o2, name);
	volatile sig_atomic_t stop = 0;
	hy_train_cfg c;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_train_result res;

	rec full = {.stop_at = -1, .stop = &stop};
	hy_train_hooks h = {.step = on_step, .u = &full};
	base_cfg(&c, in, nin, o1);
	hy_status st = hy_train_run(&c, &h, &res, &d);
	if (st)
		fail_msg("%s: %s", hy_status_str(st), d.msg);
	assert_int_equal(full.n, 12);
	assert_int_equal(res.step, 12);

	/* interrupted after step 6 (a checkpoint is saved), then resumed */
	rec part = {.stop_at = 6, .stop = &stop};
	h.u = &part;
	base_cfg(&c, in, nin, o2);
	c.stop = &stop;
	assert_int_equal(hy_train_run(&c, &h, &res, &d), HY_STOP);
	assert_int_equal(res.step, 6);
	stop = 0;
	part.stop_at = -1;
	hy_train_cfg rc;
	memset(&rc, 0, sizeof rc);
	rc.inputs = in;
	rc.ninputs = nin;
	rc.out = o2;
	rc.resume = o2;
	st = hy_train_run(&rc, &h, &res, &d);
	if (st)
		fail_msg("resume: %s: %s", hy_status_str(st), d.msg);
	assert_int_equal(part.n, 12);
	for (int i = 0; i < 12; i++)
		for (int k = 0; k < 6; k++)
			if (memcmp(&full.loss[i][k], &part.loss[i][k], sizeof(double)))
				fail_msg("%s: step %d loss %d: %.17g (uninterrupted) vs %.17g (resumed)",
					tag, i + 1, k, full.loss[i][k], part.loss[i][k]);
	/* the loss is not constant (training happens) */
	assert_true(full.loss[0][0] != full.loss[11][0]);
}

static void test_resume_exact_shards(void **state)
{
	(void)state;
	char a[512], b[512];
	path(a, "a.h5");
	path(b, "b.h5");
	const char *in[] = {a, b};
	resume_exact(in, 2, "shards");
}

static void test_resume_exact_stream(void **state)
{
	(void)state;
	char a[512];
	path(a, "a.bin");
	const char *in[] = {a};
	resume_exact(in, 1, "stream");
}

static int count_ckpts(const char *p)
{
	DIR *dp = opendir(p);
	if (!dp)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dp)))
		n += strncmp(e->d_name, "ckpt-", 5) == 0;
	closedir(dp);
	return n;
}

static void test_nan_detection(void **state)
{
	(void)state;
	char in[512], out[512];
	path(in, "nan.bin");
	path(out, "run-nan");
	hy_sample *s = make_samples(32, 1000, SEED + 2);
	for (int i = 0; i < 10 * 34; i++)
		s[17].obs[i] = 0x7c00; /* +inf halves */
	write_stream(in, s, 32);
	free(s);
	const char *ins[] = {in};
	hy_train_cfg c;
	base_cfg(&c, ins, 1, out);
	c.batch = 32;
	c.shuffle_buffer = 32;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_train_run(&c, NULL, NULL, &d);
	assert_int_equal(st, HY_EDATA);
	printf("# %s\n", d.msg);
	assert_non_null(strstr(d.msg, "step 1:"));
	assert_non_null(strstr(d.msg, "head 'policy'"));
	assert_int_equal(count_ckpts(out), 0);
}

static void test_bad_checkpoints(void **state)
{
	(void)state;
	char a[512], o[512], ck[512], bad[512];
	path(a, "a.bin");
	path(o, "run-stream-full");
	const char *in[] = {a};
	hy_train_cfg c;
	hy_diag d;
	hy_diag_init(&d, NULL);
	/* another architecture */
	memset(&c, 0, sizeof c);
	c.inputs = in;
	c.ninputs = 1;
	c.resume = o;
	c.out = o;
	c.steps = 20;
	c.arch = (hy_nn_arch){6, 64, 0};
	assert_int_equal(hy_train_run(&c, NULL, NULL, &d), HY_EFORMAT);
	printf("# %s\n", d.msg);
	assert_non_null(strstr(d.msg, "6 x 64"));
	/* truncated */
	assert_int_equal(hy_train_resolve_ckpt(o, ck, sizeof ck, &d), HY_OK);
	path(bad, "trunc.h5");
	FILE *f = fopen(ck, "rb"), *g = fopen(bad, "wb");
	assert_non_null(f);
	assert_non_null(g);
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	assert_true(n > 0);
	assert_int_equal(fwrite(buf, 1, n, g), n);
	fclose(f);
	fclose(g);
	c.arch = (hy_nn_arch){0, 0, 0};
	c.resume = bad;
	path(o, "run-trunc");
	c.out = o;
	hy_status st = hy_train_run(&c, NULL, NULL, &d);
	printf("# %s\n", d.msg);
	assert_true(st == HY_ETRUNC || st == HY_EFORMAT);
	assert_non_null(strstr(d.msg, "trunc.h5"));
	/* an output directory with checkpoints is not overwritten */
	path(o, "run-stream-full");
	base_cfg(&c, in, 1, o);
	assert_int_equal(hy_train_run(&c, NULL, NULL, &d), HY_EUSAGE);
}

/* One observation version (samples/sample.h) in a run: inputs of two are
 * refused before training, by files and by the validation set; the
 * checkpoint records the inputs' version, and --init from a checkpoint of
 * another version than the inputs is refused. */
static void test_obs_versions(void **state)
{
	(void)state;
	char a[512], ah[512], old[512], oldh[512], o[512], ck[512];
	path(a, "a.bin");
	path(ah, "a.h5");
	path(old, "old.bin");
	path(oldh, "old.h5");
	hy_sample *s = make_samples(40, 5000, SEED + 3);
	hy_diag d;
	hy_diag_init(&d, NULL);
	FILE *f = fopen(old, "wb");
	assert_non_null(f);
	hy_sms_writer *w;
	assert_int_equal(hy_sms_writer_open(&w, f), HY_OK);
	assert_int_equal(hy_sms_writer_set_obs_version(w, 1), HY_OK);
	for (int i = 0; i < 40; i++)
		assert_int_equal(hy_sms_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	assert_int_equal(fclose(f), 0);
	hy_shard_writer *sw;
	hy_shard_meta m = {.chunk = 16, .obs_version = 1};
	assert_int_equal(hy_shard_writer_open(&sw, oldh, &m, &d), HY_OK);
	for (int i = 0; i < 40; i++)
		assert_int_equal(hy_shard_write(sw, &s[i], &d), HY_OK);
	assert_int_equal(hy_shard_writer_close(sw, &d), HY_OK);
	free(s);

	/* the data source: one version, or a refusal naming the odd input */
	static const char *const pairs[3][2] = {{"a.bin", "old.bin"}, {"a.h5", "old.h5"},
		{"a.h5", "old.bin"}};
	for (int i = 0; i < 3; i++) {
		char p0[512], p1[512];
		path(p0, pairs[i][0]);
		path(p1, pairs[i][1]);
		const char *in[] = {p0, p1};
		hy_data_cfg dc = {.paths = in, .npaths = 2, .seed = 1, .shuffle_buffer = 16};
		hy_data *td;
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_data_open(&td, &dc, &d), HY_EVERSION);
		printf("# %s: %s\n", d.source, d.msg);
		assert_non_null(strstr(d.source, pairs[i][1]));
		assert_non_null(strstr(d.msg, "observation version 1, the inputs before them 4"));
	}
	const char *both[] = {a, ah};
	hy_data_cfg dc = {.paths = both, .npaths = 2, .seed = 1, .shuffle_buffer = 16};
	hy_data *td;
	assert_int_equal(hy_data_open(&td, &dc, &d), HY_OK);
	assert_int_equal(hy_data_obs_version(td), HY_OBS_VERSION);
	hy_data_close(td);

	/* the checkpoint of a run on a.bin records its version */
	path(o, "run-stream-full");
	assert_int_equal(hy_train_resolve_ckpt(o, ck, sizeof ck, &d), HY_OK);
	int v = -1;
	assert_int_equal(hy_nn_ckpt_obs_version(ck, &v, &d), HY_OK);
	assert_int_equal(v, HY_OBS_VERSION);

	/* --init from it on inputs of version 1: refused before a step */
	const char *oldin[] = {old};
	hy_train_cfg c;
	path(o, "run-obs-init");
	base_cfg(&c, oldin, 1, o);
	c.init = ck;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_train_run(&c, NULL, NULL, &d), HY_EFORMAT);
	printf("# %s\n", d.msg);
	assert_non_null(strstr(d.msg, "trained on observation version 4, the inputs are version 1"));
	assert_int_equal(count_ckpts(o), 0);

	/* a validation set of another version than the inputs */
	const char *ain[] = {a};
	const char *val[] = {oldh};
	path(o, "run-obs-val");
	base_cfg(&c, ain, 1, o);
	c.val = val;
	c.nval = 1;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_train_run(&c, NULL, NULL, &d), HY_EVERSION);
	printf("# %s\n", d.msg);
	assert_non_null(strstr(d.source, "old.h5"));
	assert_int_equal(count_ckpts(o), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_epochs),
		cmocka_unit_test(test_shard_decoders),
		cmocka_unit_test(test_shard_decoders_damage),
		cmocka_unit_test(test_stream_buffer),
		cmocka_unit_test(test_resume_exact_shards),
		cmocka_unit_test(test_resume_exact_stream),
		cmocka_unit_test(test_nan_detection),
		cmocka_unit_test(test_bad_checkpoints),
		cmocka_unit_test(test_obs_versions),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
