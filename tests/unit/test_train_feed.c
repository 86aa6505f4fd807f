/* The data feed (train/feed.h) against the source it prefetches from:
 * with 1, 2 and 3 loader threads and a batch that does not divide the
 * epoch, batch k is the k-th hy_data_next of a second source over
 * the same stream, packed (hy_nn_batch_pack) byte for byte, with that
 * source's cursor after it; hy_train_feed_load puts it into a workspace
 * as hy_nn_work_load would; a truncated input stops the feed at the batch
 * that meets the cut, and every later call says the same;
 * bad configurations are refused; over shards, decoded outside HDF5 on the
 * loaders' count of threads, the batches are the old way's byte for byte,
 * also from a cursor. Synthetic samples from a fixed seed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/cuda/compact.h"
#include "nn/synth.h"
#include "samples/shard.h"
#include "samples/stream.h"
#include "train/feed.h"

static const uint64_t SEED = 15016;
enum { NS = 50, BATCH = 7 };

/* A sample stream of NS synthetic samples in a temporary file; cut > 0:
 * that many bytes cut off its end (a truncated stream). */
static void write_stream(char *path, int cut)
{
	strcpy(path, "/tmp/test-feed-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_non_null(f);
	hy_sample s[NS];
	hy_rng r;
	hy_rng_seed(&r, SEED);
	hy_nn_synth_samples(&r, s, NS);
	hy_sms_writer *w;
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_sms_writer_open(&w, f), HY_OK);
	for (int i = 0; i < NS; i++)
		assert_int_equal(hy_sms_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	assert_int_equal(fclose(f), 0);
	if (cut > 0) {
		FILE *g = fopen(path, "rb");
		assert_non_null(g);
		assert_int_equal(fseek(g, 0, SEEK_END), 0);
		long size = ftell(g);
		fclose(g);
		assert_int_equal(truncate(path, size - cut), 0);
	}
}

static void open_source(hy_data **td, const char *const *path)
{
	hy_data_cfg c = {.paths = path, .npaths = 1, .seed = SEED, .shuffle_buffer = 16};
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_data_open(td, &c, &d), HY_OK);
}

static void test_order(void **state)
{
	char path[64];
	write_stream(path, 0);
	const char *const paths[1] = {path};
	hy_diag d;
	hy_diag_init(&d, "test");
	void *ref = malloc(hy_nn_batch_bytes(BATCH));
	hy_sample s[BATCH];
	assert_non_null(ref);
	for (int threads = 1; threads <= 3; threads++) {
		hy_data *a, *b;
		open_source(&a, paths);
		open_source(&b, paths);
		hy_train_feed *f;
		hy_train_feed_cfg fc = {.batch = BATCH, .threads = threads, .be = NULL};
		assert_int_equal(hy_train_feed_open(&f, a, &fc, &d), HY_OK);
		/* three epochs and a bit: the stream is read again each epoch */
		for (int k = 0; k < 3 * NS / BATCH + 2; k++) {
			const hy_train_batch *fb;
			size_t n;
			assert_int_equal(hy_train_feed_next(f, &fb, &d), HY_OK);
			assert_int_equal(hy_data_next(b, s, BATCH, &n, &d), HY_OK);
			hy_nn_batch_info bi;
			assert_int_equal(hy_nn_batch_pack(ref, s, (int)n, &bi, &d), HY_OK);
			assert_int_equal(fb->seq, k);
			assert_int_equal(fb->info.n, (int)n);
			assert_int_equal(fb->info.known, bi.known);
			assert_int_equal(fb->info.danger, bi.danger);
			assert_memory_equal(fb->host, ref, hy_nn_batch_bytes((int)n));
			hy_data_cursor c;
			hy_data_get_cursor(b, &c);
			assert_int_equal(fb->cursor.epoch, c.epoch);
			assert_int_equal(fb->cursor.pos, c.pos);
		}
		hy_train_feed_stats st;
		hy_train_feed_get_stats(f, &st);
		assert_int_equal(st.threads, threads);
		assert_int_equal(st.batches, 3 * NS / BATCH + 2);
		uint64_t packed = 0;
		for (int i = 0; i < threads; i++)
			packed += st.thread_samples[i];
		assert_true(packed >= st.samples); /* the loaders are ahead, never behind */
		hy_train_feed_close(f);
		hy_data_close(a);
		hy_data_close(b);
	}
	free(ref);
	unlink(path);
}

/* A shard of n synthetic samples, chunks of 8 (a short last one), in a
 * temporary file. */
static void write_shard(char *path, int n, uint64_t seed)
{
	strcpy(path, "/tmp/test-feed-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	hy_sample *s = malloc((size_t)n * sizeof *s);
	assert_non_null(s);
	hy_rng r;
	hy_rng_seed(&r, seed);
	hy_nn_synth_samples(&r, s, n);
	hy_shard_writer *w;
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_shard_meta m = {.chunk = 8};
	assert_int_equal(hy_shard_writer_open(&w, path, &m, &d), HY_OK);
	for (int i = 0; i < n; i++)
		assert_int_equal(hy_shard_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_shard_writer_close(w, &d), HY_OK);
	free(s);
}

/* Shards through the feed on 1, 2 and 3 loader threads (the source then
 * decodes each buffer on as many: data.h, Decoding): batch k is the k-th
 * batch of the old way (HDF5 decompressing, one thread) packed byte for
 * byte, with its cursor — from the start, and from a cursor inside a
 * buffer, as a resumed run seeks. */
static void test_shards(void **state)
{
	char p1[64], p2[64];
	write_shard(p1, 61, SEED);
	write_shard(p2, 45, SEED + 1);
	const char *const paths[2] = {p1, p2};
	hy_diag d;
	hy_diag_init(&d, "test");
	void *ref = malloc(hy_nn_batch_bytes(BATCH));
	hy_sample s[BATCH];
	assert_non_null(ref);
	hy_data_cursor from[2] = {{0, 0}, {1, 37}};
	for (int threads = 1; threads <= 3; threads++)
		for (int i = 0; i < 2; i++) {
			hy_data_cfg c = {.paths = paths, .npaths = 2, .seed = SEED,
				.shuffle_buffer = 24};
			hy_data *a, *b;
			assert_int_equal(hy_data_open(&a, &c, &d), HY_OK);
			c.hdf5_decode = 1;
			assert_int_equal(hy_data_open(&b, &c, &d), HY_OK);
			assert_int_equal(hy_data_seek(a, &from[i], &d), HY_OK);
			assert_int_equal(hy_data_seek(b, &from[i], &d), HY_OK);
			hy_train_feed *f;
			hy_train_feed_cfg fc = {.batch = BATCH, .threads = threads, .be = NULL};
			assert_int_equal(hy_train_feed_open(&f, a, &fc, &d), HY_OK);
			for (int k = 0; k < 3 * 106 / BATCH + 2; k++) {
				const hy_train_batch *fb;
				size_t n;
				assert_int_equal(hy_train_feed_next(f, &fb, &d), HY_OK);
				assert_int_equal(hy_data_next(b, s, BATCH, &n, &d), HY_OK);
				hy_nn_batch_info bi;
				assert_int_equal(hy_nn_batch_pack(ref, s, (int)n, &bi, &d), HY_OK);
				assert_int_equal(fb->info.n, (int)n);
				if (memcmp(fb->host, ref, hy_nn_batch_bytes((int)n)) != 0)
					fail_msg("%d loaders, from (%llu, %llu): batch %d differs", threads,
						(unsigned long long)from[i].epoch,
						(unsigned long long)from[i].pos, k);
				hy_data_cursor cb;
				hy_data_get_cursor(b, &cb);
				assert_int_equal(fb->cursor.epoch, cb.epoch);
				assert_int_equal(fb->cursor.pos, cb.pos);
			}
			hy_train_feed_close(f);
			hy_data_close(a);
			hy_data_close(b);
		}
	free(ref);
	unlink(p1);
	unlink(p2);
}

/* A CPU backend shaped like a GPU's for the feed: "device" copies and
 * uploads are memcpy, and compact batches are widened as compact.h's
 * reference does. */
static void dev_copy_cpu(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	(void)c;
	memcpy(dst, src, bytes);
}

static void expand_cpu(const hy_nn_ctx *c, int B, const uint16_t *obs, hy_nn_act *x)
{
	(void)c;
	hy_nn_obs_expand_cpu(B, obs, (float *)x);
}

/* hy_nn_train_feed_load: the workspace gets what work_load gives, with
 * fp32 batches on the CPU (compact 0) and with compact batches uploaded
 * and widened by a backend that takes them (compact 1). */
static void load_case(int compact)
{
	char path[64];
	write_stream(path, 0);
	const char *const paths[1] = {path};
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_backend dev = *hy_nn_backend_cpu();
	dev.to_dev_async = dev_copy_cpu;
	dev.dev_copy = dev_copy_cpu;
	dev.expand_obs = expand_cpu;
	const hy_nn_backend *be = compact ? &dev : hy_nn_backend_cpu();
	hy_nn_model m;
	assert_int_equal(hy_nn_model_init(&m, (hy_nn_arch){0, 32, 0}, be, &ctx, &d), HY_OK);
	hy_nn_work w1, w2;
	assert_int_equal(hy_nn_work_init_infer(&w1, &m, BATCH, &d), HY_OK);
	assert_int_equal(hy_nn_work_init_infer(&w2, &m, BATCH, &d), HY_OK);
	hy_data *a, *b;
	open_source(&a, paths);
	open_source(&b, paths);
	hy_train_feed *f;
	hy_train_feed_cfg fc = {.batch = BATCH, .threads = 2, .be = hy_nn_backend_cpu(),
		.compact = 1};
	/* the plain CPU backend cannot widen compact batches */
	assert_int_equal(hy_train_feed_open(&f, a, &fc, &d), HY_EUSAGE);
	fc.be = be;
	fc.compact = compact;
	assert_int_equal(hy_train_feed_open(&f, a, &fc, &d), HY_OK);
	hy_sample s[BATCH];
	for (int k = 0; k < 9; k++) {
		const hy_train_batch *fb;
		size_t n;
		assert_int_equal(hy_train_feed_load(f, &w1, &m, &fb, &d), HY_OK);
		assert_int_equal(hy_data_next(b, s, BATCH, &n, &d), HY_OK);
		assert_int_equal(hy_nn_work_load(&w2, &m, s, (int)n, &d), HY_OK);
		assert_int_equal(fb->info.compact, compact);
		assert_int_equal(w1.B, w2.B);
		assert_int_equal(w1.n_known, w2.n_known);
		assert_int_equal(w1.n_danger, w2.n_danger);
		size_t R = (size_t)n * HY_NN_TP;
		assert_memory_equal(w1.xin, w2.xin, R * HY_NN_IN * sizeof(float));
		assert_memory_equal(w1.mask, w2.mask, n * 8);
		assert_memory_equal(w1.action, w2.action, n);
		assert_memory_equal(w1.dan_t, w2.dan_t, R * HY_NN_OPP * sizeof(float));
	}
	hy_train_feed_close(f);
	hy_data_close(a);
	hy_data_close(b);
	hy_nn_work_free(&w1, &m);
	hy_nn_work_free(&w2, &m);
	hy_nn_model_free(&m);
	unlink(path);
}

static void test_load(void **state)
{
	(void)state;
	load_case(0);
	load_case(1);
}

/* A truncated input stops the feed at the batch that meets the cut, for
 * good, with the reader's message. */
static void test_error(void **state)
{
	char path[64];
	write_stream(path, 3000); /* the trailer and a few records */
	const char *const paths[1] = {path};
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_data *a;
	open_source(&a, paths);
	hy_train_feed *f;
	hy_train_feed_cfg fc = {.batch = BATCH, .threads = 2, .be = NULL};
	assert_int_equal(hy_train_feed_open(&f, a, &fc, &d), HY_OK);
	hy_status st = HY_OK;
	int k = 0;
	for (; k < 2 * NS / BATCH + 2 && !st; k++) {
		const hy_train_batch *fb;
		st = hy_train_feed_next(f, &fb, &d);
		if (st)
			assert_null(fb);
	}
	assert_true(st != HY_OK && st != HY_STOP);
	assert_true(k <= NS / BATCH + 1); /* within the first epoch */
	assert_true(d.msg[0] != '\0');
	const hy_train_batch *fb;
	hy_diag d2;
	hy_diag_init(&d2, "test");
	assert_int_equal(hy_train_feed_next(f, &fb, &d2), st);
	assert_string_equal(d2.msg, d.msg);
	hy_train_feed_close(f);
	hy_data_close(a);
	unlink(path);
}

static void test_config(void **state)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_train_feed *f = (hy_train_feed *)&d;
	hy_train_feed_cfg bad[] = {{0, 1, NULL, 0}, {4, 0, NULL, 0}, {4, HY_TRAIN_FEED_MAX + 1, NULL, 0},
		{4, 1, NULL, 1}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(hy_train_feed_open(&f, NULL, &bad[i], &d), HY_EUSAGE);
		assert_null(f);
	}
	hy_train_feed_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_shards),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
