/* Shared fixture of the training-data unit tests (test_train.c,
 * test_train_parts.c): a temporary directory, synthetic samples that
 * identify themselves (game = first_id + i), and writers for a sample
 * stream and a shard. Static functions: each test includes it once. */
#ifndef HY_TEST_FIXTURE_TRAIN_H
#define HY_TEST_FIXTURE_TRAIN_H

#include <stdio.h>
#include <stdlib.h>

#include "nn/synth.h"
#include "samples/shard.h"
#include "samples/stream.h"

static char fx_dir[256];

/* Makes fx_dir, a fresh directory named after prefix under $TMPDIR. */
static int fx_mkdir(const char *prefix, uint64_t seed)
{
	snprintf(fx_dir, sizeof fx_dir, "%s/%s.XXXXXX",
		getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", prefix);
	if (!mkdtemp(fx_dir))
		return -1;
	printf("# seed %llu, temp dir %s\n", (unsigned long long)seed, fx_dir);
	return 0;
}

static int fx_rmdir(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* buf (512 bytes) = fx_dir/name */
static void path(char *buf, const char *name)
{
	snprintf(buf, 512, "%s/%s", fx_dir, name);
}

/* n synthetic samples with game = first_id + i (to identify them). */
static hy_sample *make_samples(int n, uint64_t first_id, uint64_t seed)
{
	hy_sample *s = malloc((size_t)n * sizeof *s);
	assert_non_null(s);
	hy_rng r;
	hy_rng_seed(&r, seed);
	hy_nn_synth_samples(&r, s, n);
	for (int i = 0; i < n; i++)
		s[i].game = first_id + (uint64_t)i;
	return s;
}

static void write_stream(const char *p, const hy_sample *s, int n)
{
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	hy_sms_writer *w;
	hy_diag d;
	hy_diag_init(&d, p);
	assert_int_equal(hy_sms_writer_open(&w, f), HY_OK);
	for (int i = 0; i < n; i++)
		assert_int_equal(hy_sms_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	assert_int_equal(fclose(f), 0);
}

static void write_shard(const char *p, const hy_sample *s, int n, uint32_t chunk)
{
	hy_shard_writer *w;
	hy_diag d;
	hy_diag_init(&d, p);
	hy_shard_meta m = {.chunk = chunk};
	assert_int_equal(hy_shard_writer_open(&w, p, &m, &d), HY_OK);
	for (int i = 0; i < n; i++)
		assert_int_equal(hy_shard_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_shard_writer_close(w, &d), HY_OK);
}

#endif
