/* Sample streams and HDF5 shards (formats/samples.md, formats/shard.md):
 * golden files written by an independent implementation
 * (tests/golden/samples/make-golden.py), broken files, round trips stream →
 * shard → stream, random access, the reader's format detection, the
 * hidden-state extension of streams. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "samples/reader.h"
#include "samples/sample.h"
#include "samples/shard.h"
#include "samples/stream.h"

/* ------------------------------------------------------------ helpers */

typedef struct buf {
	uint8_t *p;
	size_t n;
} buf;

static char *golden_path(const char *name)
{
	static char path[4096];
	const char *top = getenv("HY_TOP");
	snprintf(path, sizeof path, "%s%stests/golden/samples/%s", top ? top : "", top ? "/" : "",
		 name);
	return path;
}

static buf read_path(const char *path)
{
	buf b = {0, 0};
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (run from the repository root or set HY_TOP)", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b.p = malloc((size_t)n + 1);
	assert_non_null(b.p);
	b.n = fread(b.p, 1, (size_t)n, f);
	assert_int_equal(b.n, (size_t)n);
	fclose(f);
	return b;
}

static buf read_golden(const char *name)
{
	return read_path(golden_path(name));
}

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char p[512];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	return p;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "%s/hydra-samples.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* xorshift64*, seeded per test (printed). */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static uint64_t test_seed(void)
{
	const char *e = getenv("HY_SEED");
	uint64_t seed = e ? strtoull(e, NULL, 0) : UINT64_C(0x5eed5a3717);
	print_message("seed %llu (set HY_SEED to reproduce)\n", (unsigned long long)seed);
	return seed ? seed : 1;
}

/* A random valid sample; obs cells are mostly 0/1 with some arbitrary bit
 * patterns (NaNs and subnormals included: the formats must keep bits). */
static void random_sample(uint64_t *rs, hy_sample *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < HY_OBS_SIZE; i++) {
		uint64_t r = rng_next(rs);
		switch (r % 8) {
		case 0: s->obs[i] = 0x3C00; break;
		case 1: s->obs[i] = (uint16_t)(r >> 20); break;
		default: s->obs[i] = 0;
		}
	}
	s->action = (uint8_t)(rng_next(rs) % HY_ACTIONS);
	s->mask = (rng_next(rs) & ((UINT64_C(1) << HY_ACTIONS) - 1)) | UINT64_C(1) << s->action;
	s->game = rng_next(rs);
	for (int o = 0; o < 3; o++)
		s->opp_waits[o] = rng_next(rs) & ((UINT64_C(1) << 34) - 1);
	s->score = (int32_t)(rng_next(rs) % 200000) - 100000;
	s->kyoku_delta = (int32_t)(rng_next(rs) % 100000) - 50000;
	s->logp = -(float)(rng_next(rs) % 1000) / 37.0f;
	s->value = (float)(rng_next(rs) % 1000) / 11.0f - 40.0f;
	s->reward = (float)(rng_next(rs) % 3) - 1.0f;
	s->adv = (float)(rng_next(rs) % 999) / 7.0f;
	s->ret = -(float)(rng_next(rs) % 999) / 3.0f;
	s->step = (uint16_t)rng_next(rs);
	s->seat = (uint8_t)(rng_next(rs) % 4);
	s->grand_kyoku = (uint8_t)(rng_next(rs) % 12);
	s->honba = (uint8_t)(rng_next(rs) % 9);
	s->rank = (uint8_t)(rng_next(rs) % 4);
	s->grp = (uint8_t)(rng_next(rs) % 24);
	s->opp_tenpai = (uint8_t)(rng_next(rs) % 8);
	s->flags = (uint8_t)(rng_next(rs) % 2);
}

static void assert_sample_equal(const hy_sample *a, const hy_sample *b, size_t i)
{
	if (memcmp(a, b, sizeof *a) != 0)
		fail_msg("sample %zu differs", i);
}

/* Mirrors sample() of tests/golden/samples/make-golden.py. */
static void golden_sample(int k, hy_sample *s)
{
	static const uint16_t halves[5] = {0x0000, 0x3C00, 0x3800, 0x0000, 0x2E66};
	memset(s, 0, sizeof *s);
	s->action = (uint8_t)((k * 11) % 46);
	s->mask = ((UINT64_C(1) << s->action) | (uint64_t)k * UINT64_C(0x123456789)) &
		  ((UINT64_C(1) << 46) - 1);
	s->game = UINT64_C(0x0123456789ABCDEF) * (uint64_t)(k + 1);
	for (int o = 0; o < 3; o++)
		s->opp_waits[o] = ((uint64_t)(k + 1) * 0x1F3A5 << o) & ((UINT64_C(1) << 34) - 1);
	s->score = 25000 - 7000 * k;
	s->kyoku_delta = -8000 + 3900 * k;
	s->logp = -0.5f * (float)k;
	s->value = 0.25f * (float)k;
	s->reward = 1.5f - (float)k;
	s->adv = 0.125f * (float)k;
	s->ret = -2.0f + (float)k;
	s->step = (uint16_t)(300 * k + 1);
	s->seat = (uint8_t)(k % 4);
	s->grand_kyoku = (uint8_t)(k + 3);
	s->honba = (uint8_t)k;
	s->rank = (uint8_t)((k + 1) % 4);
	s->grp = (uint8_t)((k * 5) % 24);
	s->opp_tenpai = (uint8_t)(k % 8);
	s->flags = (uint8_t)(k & 1);
	for (int j = 0; j < HY_OBS_SIZE; j++)
		s->obs[j] = halves[(j * 7 + k * 13) % 5];
}

/* Mirrors hidden() of tests/golden/samples/make-golden.py. */
static void golden_hidden(int k, hy_hidden *h)
{
	memset(h, 255, sizeof *h);
	for (int o = 0; o < 3; o++) {
		int n = 13 - o % 2, v[14];
		for (int i = 0; i < n; i++)
			v[i] = (k * 5 + 7 * o + 3 * i) % 37;
		for (int i = 1; i < n; i++) /* sorted, as Python's sorted() */
			for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
				int t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		for (int i = 0; i < n; i++)
			h->hand[o][i] = (uint8_t)v[i];
	}
	h->shanten[0] = (uint8_t)(k % 9);
	h->shanten[1] = (uint8_t)((k + 1) % 9);
	h->shanten[2] = 0;
	for (int i = 0; i < 69 - 4 * k; i++)
		h->live[i] = (uint8_t)((k + 11 * i) % 37);
	for (int i = 0; i < 3; i++)
		h->rinshan[i] = (uint8_t)((k + i) % 37);
	for (int i = 0; i < 5; i++) {
		h->dora[i] = (uint8_t)((k * 3 + i) % 37);
		h->ura[i] = (uint8_t)((k * 2 + i) % 34);
	}
}

/* Reads all samples of a reader; returns the status that ended it. */
static hy_status read_all(hy_sample_reader *r, hy_sample *out, size_t max, size_t *n,
			  hy_diag *d)
{
	*n = 0;
	hy_status st;
	hy_sample s;
	while ((st = hy_sample_read(r, &s, d)) == HY_OK) {
		if (*n < max)
			out[*n] = s;
		++*n;
	}
	return st;
}

/* Writes samples as one stream frame into memory (with the hidden-state
 * extension when `hidden`). */
static buf stream_of_ext(const hy_sample *s, size_t n, int hidden)
{
	buf b = {0, 0};
	FILE *f = open_memstream((char **)&b.p, &b.n);
	assert_non_null(f);
	hy_sms_writer *w;
	assert_int_equal(hy_sms_writer_open(&w, f), HY_OK);
	if (hidden)
		assert_int_equal(hy_sms_writer_set_hidden(w, 1), HY_OK);
	hy_diag d;
	hy_diag_init(&d, "mem");
	for (size_t i = 0; i < n; i++)
		assert_int_equal(hy_sms_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_sms_writer_count(w), n);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	assert_int_equal(fclose(f), 0);
	return b;
}

static buf stream_of(const hy_sample *s, size_t n)
{
	return stream_of_ext(s, n, 0);
}

static void write_shard(const char *path, const hy_sample *s, size_t n, uint32_t chunk)
{
	const char *srcs[] = {"a.json", "b/ü.mjlog"};
	hy_shard_meta m = {"test-encoder 7", "hydra-encode -o x.h5 a.json", srcs, 2, chunk, 0, 0};
	hy_shard_writer *w;
	hy_diag d;
	hy_diag_init(&d, path);
	if (hy_shard_writer_open(&w, path, &m, &d) != HY_OK)
		fail_msg("open %s: %s", path, d.msg);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(hy_shard_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_shard_writer_count(w), n);
	if (hy_shard_writer_close(w, &d) != HY_OK)
		fail_msg("close %s: %s", path, d.msg);
}

/* ------------------------------------------------------------ golden streams */

static void test_golden_good(void **state)
{
	(void)state;
	buf b = read_golden("good.bin");
	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_mem(&r, "good.bin", b.p, b.n, &d), HY_OK);
	assert_int_equal(hy_sample_reader_format(r), HY_SAMPLES_STREAM);
	hy_sample got[8], want;
	size_t n;
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
	assert_int_equal(n, 5);
	for (int k = 0; k < 5; k++) {
		golden_sample(k, &want);
		assert_sample_equal(&got[k], &want, (size_t)k);
	}
	assert_int_equal(got[4].score, -3000);
	uint64_t cnt;
	assert_int_equal(hy_sample_reader_count(r, &cnt), HY_EUNSUP);
	hy_sample_reader_close(r);

	/* the C writer reproduces the Python file byte for byte (two frames) */
	buf f1 = stream_of(got, 3), f2 = stream_of(got + 3, 2);
	assert_int_equal(f1.n + f2.n, b.n);
	assert_memory_equal(f1.p, b.p, f1.n);
	assert_memory_equal(f2.p, b.p + f1.n, f2.n);
	free(f1.p);
	free(f2.p);

	/* empty frame */
	buf e = read_golden("empty.bin");
	buf e2 = stream_of(NULL, 0);
	assert_int_equal(e.n, HY_SMS_HEADER_SIZE + HY_SMS_RECORD_SIZE);
	assert_int_equal(e2.n, e.n);
	assert_memory_equal(e.p, e2.p, e.n);
	assert_int_equal(hy_sample_reader_open_mem(&r, "empty.bin", e.p, e.n, &d), HY_OK);
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
	assert_int_equal(n, 0);
	hy_sample_reader_close(r);
	free(e.p);
	free(e2.p);
	free(b.p);
}

/* The hidden-state extension: the golden file's samples carry their hidden
 * state, the C writer reproduces it byte for byte, a plain stream drops
 * it, and an extended stream refuses a sample without it. */
static void test_golden_hidden(void **state)
{
	(void)state;
	buf b = read_golden("good-hidden.bin");
	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_mem(&r, "good-hidden.bin", b.p, b.n, &d), HY_OK);
	hy_sample got[8], want;
	size_t n;
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
	assert_int_equal(n, 5);
	for (int k = 0; k < 5; k++) {
		golden_sample(k, &want);
		want.flags |= HY_SAMPLE_F_HIDDEN;
		golden_hidden(k, &want.hidden);
		assert_sample_equal(&got[k], &want, (size_t)k);
	}
	hy_sample_reader_close(r);
	buf f1 = stream_of_ext(got, 3, 1), f2 = stream_of_ext(got + 3, 2, 1);
	assert_int_equal(f1.n + f2.n, b.n);
	assert_memory_equal(f1.p, b.p, f1.n);
	assert_memory_equal(f2.p, b.p + f1.n, f2.n);
	free(f1.p);
	free(f2.p);

	/* a plain stream keeps everything but the hidden state and its flag */
	buf plain = stream_of(got, 5), g = read_golden("good.bin");
	assert_int_equal(plain.n, g.n - HY_SMS_HEADER_SIZE - HY_SMS_RECORD_SIZE); /* one frame */
	hy_sms_reader *sr;
	assert_int_equal(hy_sms_reader_open_mem(&sr, "plain", plain.p, plain.n), HY_OK);
	for (int k = 0; k < 5; k++) {
		hy_sample s;
		assert_int_equal(hy_sms_read(sr, &s, &d), HY_OK);
		assert_int_equal(hy_sms_reader_hidden(sr), 0);
		golden_sample(k, &want);
		assert_sample_equal(&s, &want, (size_t)k);
	}
	hy_sms_reader_close(sr);
	free(plain.p);
	free(g.p);

	/* an extended stream: every sample has the hidden state */
	FILE *f = fopen("/dev/null", "wb");
	assert_non_null(f);
	hy_sms_writer *w;
	assert_int_equal(hy_sms_writer_open(&w, f), HY_OK);
	assert_int_equal(hy_sms_writer_set_hidden(w, 1), HY_OK);
	assert_int_equal(hy_sms_writer_hidden(w), 1);
	golden_sample(0, &want);
	assert_int_equal(hy_sms_write(w, &want, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "no hidden state"));
	want.flags |= HY_SAMPLE_F_HIDDEN;
	golden_hidden(0, &want.hidden);
	assert_int_equal(hy_sms_write(w, &want, &d), HY_OK);
	assert_int_equal(hy_sms_writer_set_hidden(w, 0), HY_EUSAGE); /* after a sample */
	want.hidden.live[3] = 37; /* not a tile code of a hand or a wall */
	assert_int_equal(hy_sms_write(w, &want, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "tile code over 36"));
	want.hidden.live[3] = 5;
	want.hidden.shanten[1] = 9;
	assert_int_equal(hy_sms_write(w, &want, &d), HY_EUSAGE);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	fclose(f);
	free(b.p);
}

static void test_golden_broken(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		hy_status status;
		uint32_t line;
		size_t samples; /* delivered before the error */
		const char *msg;
	} cases[] = {
		{"bad-magic.bin", HY_EFORMAT, 0, 0, "bad magic"},
		{"newer-version.bin", HY_EVERSION, 0, 0, "version 2 is newer"},
		{"wrong-record-size.bin", HY_EFORMAT, 0, 0, "record size 5952 is not 5888 or 6016"},
		{"newer-hidden.bin", HY_EVERSION, 0, 0, "hidden-state version 2 is newer"},
		{"hidden-size.bin", HY_EFORMAT, 0, 0,
		 "record size 6016 does not hold hidden-state version 0"},
		{"mixed-hidden.bin", HY_EFORMAT, 4, 3,
		 "record size 6016 differs from the first frame's 5888 in frame 2"},
		{"wrong-dims.bin", HY_EFORMAT, 0, 0, "obs 84x34"},
		{"truncated.bin", HY_ETRUNC, 3, 2, "record 3 is cut short"},
		{"no-trailer.bin", HY_ETRUNC, 3, 3, "no trailer after record 3"},
		{"bad-crc.bin", HY_EDATA, 2, 1, "checksum mismatch"},
		{"bad-count.bin", HY_EDATA, 3, 2, "count mismatch"},
		{"bad-action.bin", HY_EDATA, 2, 1, "not legal"},
		{"aborted.bin", HY_EDATA, 3, 2,
		 "input stream was aborted by its producer: hydra-encode failed: events.bin: "
		 "record 9: bad tile"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *path = golden_path(cases[i].file);
		/* both readers: from memory, and a FILE through the path API */
		for (int mode = 0; mode < 2; mode++) {
			buf b = read_golden(cases[i].file);
			hy_sample_reader *r = NULL;
			hy_diag d;
			hy_diag_init(&d, NULL);
			hy_status st = mode ? hy_sample_reader_open(&r, path, &d)
					    : hy_sample_reader_open_mem(&r, cases[i].file, b.p, b.n, &d);
			assert_int_equal(st, HY_OK);
			hy_sample s[8];
			size_t n;
			st = read_all(r, s, 8, &n, &d);
			if (st != cases[i].status || d.line != cases[i].line || n != cases[i].samples ||
			    !strstr(d.msg, cases[i].msg))
				fail_msg("%s (mode %d): status %d line %u after %zu samples: %s",
					 cases[i].file, mode, st, d.line, n, d.msg);
			assert_non_null(strstr(d.source, cases[i].file));
			/* sticky */
			assert_int_equal(hy_sample_read(r, s, &d), cases[i].status);
			hy_sample_reader_close(r);
			free(b.p);
		}
	}
	/* empty input */
	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_mem(&r, "nothing", "", 0, &d), HY_OK);
	hy_sample s;
	assert_int_equal(hy_sample_read(r, &s, &d), HY_ETRUNC);
	assert_non_null(strstr(d.msg, "empty"));
	hy_sample_reader_close(r);
	/* a missing file */
	assert_int_equal(hy_sample_reader_open(&r, tmp_path("no-such-file"), &d), HY_EIO);
	assert_non_null(strstr(d.msg, "No such file"));
}

/* ------------------------------------------------------------ streams */

static void test_stream_roundtrip(void **state)
{
	(void)state;
	uint64_t rs = test_seed();
	enum { N = 300 };
	hy_sample *s = malloc(N * sizeof *s), *got = malloc(N * sizeof *got);
	assert_non_null(s);
	assert_non_null(got);
	for (int i = 0; i < N; i++)
		random_sample(&rs, &s[i]);
	/* concatenated frames of 100 + 0 + 200 samples, read from a FILE */
	buf a = stream_of(s, 100), e = stream_of(NULL, 0), c = stream_of(s + 100, 200);
	FILE *f = tmpfile();
	assert_non_null(f);
	fwrite(a.p, 1, a.n, f);
	fwrite(e.p, 1, e.n, f);
	fwrite(c.p, 1, c.n, f);
	rewind(f);
	/* the bound a PPO schedule takes from the file (hy_sms_fd_bound): at
	 * least the samples, read without moving the offset; none for a
	 * pipe or a file that is not a plain stream */
	uint64_t bound = hy_sms_fd_bound(fileno(f));
	assert_true(bound >= N && bound <= N + 6);
	assert_int_equal(ftell(f), 0);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(hy_sms_fd_bound(pfd[0]), 0);
	close(pfd[0]);
	close(pfd[1]);
	FILE *z = tmpfile();
	fputs("\x1f\x8b not a plain stream", z);
	fflush(z);
	assert_int_equal(hy_sms_fd_bound(fileno(z)), 0);
	fclose(z);
	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_file(&r, "tmp", f, &d), HY_OK);
	size_t n = 0, k;
	hy_status st;
	while ((st = hy_sample_read_batch(r, got + n, 64, &k, &d)) == HY_OK)
		n += k;
	assert_int_equal(st, HY_STOP);
	assert_int_equal(n, N);
	for (int i = 0; i < N; i++)
		assert_sample_equal(&got[i], &s[i], (size_t)i);
	hy_sample_reader_close(r);
	fclose(f);

	/* the writer refuses a sample that could not be read back */
	hy_sample bad = s[0];
	bad.mask &= ~(UINT64_C(1) << bad.action);
	FILE *g = tmpfile();
	hy_sms_writer *w;
	assert_int_equal(hy_sms_writer_open(&w, g), HY_OK);
	assert_int_equal(hy_sms_write(w, &bad, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "not legal"));
	bad = s[0];
	bad.opp_waits[2] |= UINT64_C(1) << 40;
	assert_int_equal(hy_sms_write(w, &bad, &d), HY_EUSAGE);
	assert_int_equal(hy_sms_write(w, &s[0], &d), HY_OK);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	assert_int_equal(ftell(g), HY_SMS_HEADER_SIZE + 2 * HY_SMS_RECORD_SIZE);
	fclose(g);
	free(a.p);
	free(e.p);
	free(c.p);
	free(s);
	free(got);
}

/* ------------------------------------------------------------ shards */

static void test_shard_roundtrip(void **state)
{
	(void)state;
	uint64_t rs = test_seed();
	enum { N = 2500 }; /* two full chunks of 1024 and a partial one */
	hy_sample *s = malloc(N * sizeof *s), *got = malloc(N * sizeof *got);
	assert_non_null(s);
	assert_non_null(got);
	for (int i = 0; i < N; i++)
		random_sample(&rs, &s[i]);
	const char *path = tmp_path("rt.h5");
	write_shard(path, s, N, 0);
	assert_int_equal(access(path, F_OK), 0);

	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open(&r, path, &d), HY_OK);
	assert_int_equal(hy_sample_reader_format(r), HY_SAMPLES_SHARD);
	uint64_t cnt = 0;
	assert_int_equal(hy_sample_reader_count(r, &cnt), HY_OK);
	assert_int_equal(cnt, N);
	const hy_shard_info *in = hy_sample_reader_info(r);
	assert_non_null(in);
	assert_int_equal(in->format_version, HY_SHARD_VERSION);
	assert_int_equal(in->chunk, HY_SHARD_CHUNK);
	assert_null(in->encoder_version); /* the strings are read only on request */
	in = hy_sample_reader_describe(r, &d);
	assert_non_null(in);
	assert_string_equal(in->encoder_version, "test-encoder 7");
	assert_string_equal(in->command_line, "hydra-encode -o x.h5 a.json");
	assert_int_equal(in->nsources, 2);
	assert_string_equal(in->sources[1], "b/ü.mjlog");
	size_t n;
	assert_int_equal(read_all(r, got, N, &n, &d), HY_STOP);
	assert_int_equal(n, N);
	for (int i = 0; i < N; i++)
		assert_sample_equal(&got[i], &s[i], (size_t)i);
	/* random access, independent of the sequential position */
	for (int t = 0; t < 50; t++) {
		uint64_t i = rng_next(&rs) % N;
		size_t k = 1 + rng_next(&rs) % 40;
		if (i + k > N)
			k = N - i;
		assert_int_equal(hy_sample_read_at(r, i, k, got, &d), HY_OK);
		for (size_t j = 0; j < k; j++)
			assert_sample_equal(&got[j], &s[i + j], i + j);
	}
	assert_int_equal(hy_sample_read_at(r, N - 1, 2, got, &d), HY_EUSAGE);
	hy_sample_reader_close(r);

	/* the same shard from a FILE (a pipe is read into memory) */
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(hy_sample_reader_open_file(&r, "(pipe)", f, &d), HY_OK);
	assert_int_equal(hy_sample_reader_format(r), HY_SAMPLES_SHARD);
	assert_int_equal(read_all(r, got, N, &n, &d), HY_STOP);
	assert_int_equal(n, N);
	assert_sample_equal(&got[N - 1], &s[N - 1], N - 1);
	hy_sample_reader_close(r);
	fclose(f);
	free(s);
	free(got);
}

/* stream → shard → stream is bit-exact, also with a small chunk. */
static void test_stream_shard_stream(void **state)
{
	(void)state;
	uint64_t rs = test_seed();
	enum { N = 777 };
	hy_sample *s = malloc(N * sizeof *s), *mid = malloc(N * sizeof *mid);
	assert_non_null(s);
	assert_non_null(mid);
	for (int i = 0; i < N; i++)
		random_sample(&rs, &s[i]);
	buf a = stream_of(s, N);
	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_mem(&r, "a", a.p, a.n, &d), HY_OK);
	size_t n;
	assert_int_equal(read_all(r, mid, N, &n, &d), HY_STOP);
	hy_sample_reader_close(r);
	const char *path = tmp_path("mid.h5");
	write_shard(path, mid, n, 100);
	assert_int_equal(hy_sample_reader_open(&r, path, &d), HY_OK);
	assert_int_equal(hy_sample_reader_info(r)->chunk, 100);
	memset(mid, 0xAA, N * sizeof *mid);
	assert_int_equal(read_all(r, mid, N, &n, &d), HY_STOP);
	assert_int_equal(n, N);
	hy_sample_reader_close(r);
	buf b = stream_of(mid, N);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.p, b.p, a.n);
	free(a.p);
	free(b.p);
	free(s);
	free(mid);
}

static void test_golden_shard(void **state)
{
	(void)state;
	hy_sample_reader *r;
	hy_diag d;
	hy_diag_init(&d, NULL);
	/* version 2 (fixed-length strings, checksums) and version 1 (variable-length
	 * strings, read only on request) */
	static const char *const files[2] = {"good.h5", "good-v1.h5"};
	for (int v = 0; v < 2; v++) {
		if (hy_sample_reader_open(&r, golden_path(files[v]), &d) != HY_OK)
			fail_msg("%s: %s", files[v], d.msg);
		assert_int_equal(hy_sample_reader_info(r)->format_version, 2 - v);
		const hy_shard_info *in = hy_sample_reader_describe(r, &d);
		assert_non_null(in);
		assert_int_equal(in->nsources, 1);
		assert_string_equal(in->sources[0], "tests/golden/samples/good.bin");
		assert_non_null(strstr(in->command_line, "hydra-augment --perms 0"));
		hy_sample got[8], want;
		size_t n;
		assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
		assert_int_equal(n, 5);
		for (int k = 0; k < 5; k++) {
			golden_sample(k, &want);
			assert_sample_equal(&got[k], &want, (size_t)k);
		}
		assert_int_equal(hy_sample_read_at(r, 3, 1, got, &d), HY_OK);
		golden_sample(3, &want);
		assert_sample_equal(&got[0], &want, 3);
		hy_sample_reader_close(r);
	}
}

/* ------------------------------------------------------------ broken shards */

/* Writes a shard of n golden samples, then lets `spoil` modify the file. */
static const char *spoilt(const char *name, void (*spoil)(hid_t file))
{
	hy_sample s[3];
	for (int k = 0; k < 3; k++)
		golden_sample(k, &s[k]);
	const char *path = tmp_path(name);
	static char keep[512];
	snprintf(keep, sizeof keep, "%s", path);
	write_shard(keep, s, 3, 0);
	hid_t f = H5Fopen(keep, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	spoil(f);
	assert_true(H5Fclose(f) >= 0);
	return keep;
}

static void spoil_version(hid_t f)
{
	uint32_t v = HY_SHARD_VERSION + 1;
	hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
	assert_true(H5Awrite(a, H5T_NATIVE_UINT32, &v) >= 0);
	H5Aclose(a);
}

static void spoil_no_version(hid_t f)
{
	assert_true(H5Adelete(f, "format_version") >= 0);
}

static void spoil_dims(hid_t f)
{
	/* obs [3, 84, 34] */
	assert_true(H5Ldelete(f, "obs", H5P_DEFAULT) >= 0);
	hsize_t dims[3] = {3, 84, 34};
	hid_t sp = H5Screate_simple(3, dims, NULL);
	hid_t ds = H5Dcreate2(f, "obs", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(ds >= 0);
	H5Dclose(ds);
	H5Sclose(sp);
}

static void spoil_missing(hid_t f)
{
	assert_true(H5Ldelete(f, "opp_waits", H5P_DEFAULT) >= 0);
}

static void spoil_length(hid_t f)
{
	hid_t ds = H5Dopen2(f, "grp", H5P_DEFAULT);
	hsize_t n = 2;
	assert_true(H5Dset_extent(ds, &n) >= 0);
	H5Dclose(ds);
}

static void spoil_grp(hid_t f)
{
	uint8_t v[3] = {1, 2, 99};
	hid_t ds = H5Dopen2(f, "grp", H5P_DEFAULT);
	assert_true(H5Dwrite(ds, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Dclose(ds);
}

/* Replaces dataset `name` (3 samples of u8, or the given type) with one made
 * by dcpl (H5P_DEFAULT: contiguous). */
static void replace_set(hid_t f, const char *name, hid_t type, hid_t dcpl)
{
	assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
	hsize_t dims[1] = {3}, maxd[1] = {H5S_UNLIMITED};
	hid_t sp = H5Screate_simple(1, dims, dcpl == H5P_DEFAULT ? NULL : maxd);
	hid_t ds = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	assert_true(ds >= 0);
	uint64_t v[3] = {0, 0, 0};
	assert_true(H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Dclose(ds);
	H5Sclose(sp);
}

static hid_t chunked(hsize_t chunk, int fletcher)
{
	hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
	assert_true(H5Pset_chunk(pl, 1, &chunk) >= 0);
	if (fletcher)
		assert_true(H5Pset_fletcher32(pl) >= 0);
	return pl;
}

static void spoil_precision(hid_t f)
{
	/* a u64 whose top 32 bits are padding: HDF5 would convert silently */
	hid_t t = H5Tcopy(H5T_STD_U64LE), pl = chunked(128, 1);
	assert_true(H5Tset_precision(t, 32) >= 0);
	replace_set(f, "mask", t, pl);
	H5Tclose(t);
	H5Pclose(pl);
}

static void spoil_signed(hid_t f)
{
	hid_t pl = chunked(128, 1);
	replace_set(f, "game", H5T_STD_I64LE, pl);
	H5Pclose(pl);
}

static void spoil_no_fletcher(hid_t f)
{
	hid_t pl = chunked(128, 0);
	replace_set(f, "flags", H5T_STD_U8LE, pl);
	H5Pclose(pl);
}

static void spoil_filter(hid_t f)
{
	hid_t pl = chunked(128, 1);
	assert_true(H5Pset_nbit(pl) >= 0);
	replace_set(f, "flags", H5T_STD_U8LE, pl);
	H5Pclose(pl);
}

static void spoil_chunk(hid_t f)
{
	hid_t pl = chunked(1u << 20, 1);
	replace_set(f, "flags", H5T_STD_U8LE, pl);
	H5Pclose(pl);
}

static void spoil_contiguous(hid_t f)
{
	replace_set(f, "flags", H5T_STD_U8LE, H5P_DEFAULT);
}

static void spoil_obs_f32(hid_t f)
{
	/* a float32 obs is converted on reading (h5py users write those) */
	assert_true(H5Ldelete(f, "obs", H5P_DEFAULT) >= 0);
	hsize_t dims[3] = {3, 85, 34}, chunk[3] = {3, 85, 34};
	hid_t sp = H5Screate_simple(3, dims, NULL);
	hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
	assert_true(H5Pset_chunk(pl, 3, chunk) >= 0 && H5Pset_fletcher32(pl) >= 0);
	hid_t ds = H5Dcreate2(f, "obs", H5T_IEEE_F32LE, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
	H5Pclose(pl);
	float *v = calloc(3 * HY_OBS_SIZE, sizeof *v);
	v[5] = 1.0f;
	v[HY_OBS_SIZE + 7] = 0.5f;
	assert_true(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	free(v);
	H5Dclose(ds);
	H5Sclose(sp);
}

static hy_status open_and_read(const char *path, hy_diag *d, hy_sample *s, size_t *n)
{
	hy_sample_reader *r;
	hy_diag_init(d, NULL);
	hy_status st = hy_sample_reader_open(&r, path, d);
	*n = 0;
	if (st)
		return st;
	st = read_all(r, s, 8, n, d);
	hy_sample_reader_close(r);
	return st;
}

static void test_shard_broken(void **state)
{
	(void)state;
	hy_diag d;
	hy_sample s[8];
	size_t n;
	static const struct {
		const char *name;
		void (*spoil)(hid_t);
		hy_status status;
		const char *msg;
	} cases[] = {
		{"version.h5", spoil_version, HY_EVERSION, "version 3 is newer"},
		{"precision.h5", spoil_precision, HY_EFORMAT, "'mask' is not of the type"},
		{"i64.h5", spoil_signed, HY_EFORMAT, "'game' is not of the type"},
		{"nofletcher.h5", spoil_no_fletcher, HY_EFORMAT, "'flags' has no fletcher32"},
		{"nbit.h5", spoil_filter, HY_EFORMAT, "'flags' uses filter 5"},
		{"bigchunk.h5", spoil_chunk, HY_EFORMAT, "'flags' has chunks of a shape"},
		{"contiguous.h5", spoil_contiguous, HY_EFORMAT, "'flags' is not chunked"},
		{"noversion.h5", spoil_no_version, HY_EFORMAT, "format_version"},
		{"dims.h5", spoil_dims, HY_EFORMAT, "'obs' has dims [3,84,34]; expected [3,85,34]"},
		{"missing.h5", spoil_missing, HY_EFORMAT, "no dataset 'opp_waits'"},
		{"length.h5", spoil_length, HY_EFORMAT, "'grp' has dims [2]; expected [3]"},
		{"grp.h5", spoil_grp, HY_EDATA, "bad sample 3: grp"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *p = spoilt(cases[i].name, cases[i].spoil);
		hy_status st = open_and_read(p, &d, s, &n);
		if (st != cases[i].status || !strstr(d.msg, cases[i].msg) ||
		    !strstr(d.source, cases[i].name))
			fail_msg("%s: status %d: %s: %s", cases[i].name, st, d.source, d.msg);
	}
	assert_int_equal(d.line, 3); /* grp.h5: the sample number */

	const char *p = spoilt("f32.h5", spoil_obs_f32);
	assert_int_equal(open_and_read(p, &d, s, &n), HY_STOP);
	assert_int_equal(n, 3);
	assert_int_equal(s[0].obs[5], 0x3C00);
	assert_int_equal(s[1].obs[7], 0x3800);
	assert_int_equal(s[2].obs[0], 0);

	/* truncated: the first half of a good shard */
	buf b = read_golden("good.h5");
	const char *t = tmp_path("truncated.h5");
	FILE *f = fopen(t, "wb");
	fwrite(b.p, 1, b.n / 2, f);
	fclose(f);
	hy_status st = open_and_read(t, &d, s, &n);
	/* in words, not the call that failed (issue 57) */
	char want[96];
	snprintf(want, sizeof want, "not a readable shard (a truncated or corrupt HDF5 file, %zu "
		"bytes)", b.n / 2);
	if (st != HY_ETRUNC || strcmp(d.msg, want) || strstr(d.msg, "H5Fopen") ||
		!strstr(d.source, "truncated.h5"))
		fail_msg("truncated: status %d: %s: %s", st, d.source, d.msg);
	/* the same image from memory */
	hy_sample_reader *r;
	assert_int_equal(hy_sample_reader_open_mem(&r, "half", b.p, b.n / 2, &d), HY_ETRUNC);
	assert_int_equal(hy_sample_reader_open_mem(&r, "whole", b.p, b.n, &d), HY_OK);
	hy_sample_reader_close(r);
	free(b.p);

	/* neither format */
	const char *x = tmp_path("junk.h5");
	f = fopen(x, "wb");
	fputs("this is not a shard at all", f);
	fclose(f);
	assert_int_equal(open_and_read(x, &d, s, &n), HY_EFORMAT);
	assert_non_null(strstr(d.msg, "bad magic"));
	assert_int_equal(hy_sample_read_at(NULL, 0, 0, s, &d), HY_EUSAGE);
}

/* Every single-bit flip anywhere in a shard is either harmless (a byte no
 * one reads: the samples come back unchanged) or detected (open or read
 * fails): fletcher32 on the data, checksums on the metadata. */
static void test_shard_bitflips(void **state)
{
	(void)state;
	enum { N = 300, FLIPS = 300 };
	uint64_t rs = test_seed();
	hy_sample *s = malloc(N * sizeof *s), *got = malloc(N * sizeof *got);
	assert_non_null(s);
	assert_non_null(got);
	for (int i = 0; i < N; i++)
		random_sample(&rs, &s[i]);
	const char *path = tmp_path("flip.h5");
	char keep[512];
	snprintf(keep, sizeof keep, "%s", path);
	write_shard(keep, s, N, 64);
	FILE *f = fopen(keep, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	uint8_t *img = malloc((size_t)len);
	assert_true(fread(img, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	int detected = 0, harmless = 0;
	for (int k = 0; k < FLIPS; k++) {
		long at = (long)(rng_next(&rs) % (uint64_t)len);
		int bit = (int)(rng_next(&rs) % 8);
		img[at] ^= (uint8_t)(1u << bit);
		hy_sample_reader *r;
		hy_diag d;
		hy_diag_init(&d, NULL);
		size_t n = 0;
		hy_status st = hy_sample_reader_open_mem(&r, "flip.h5", img, (size_t)len, &d);
		if (st == HY_OK) {
			st = read_all(r, got, N, &n, &d);
			hy_sample_reader_close(r);
		}
		if (st != HY_STOP) {
			detected++;
		} else {
			if (n != N || memcmp(got, s, N * sizeof *s) != 0)
				fail_msg("flip of bit %d at byte %ld went unnoticed", bit, at);
			harmless++;
		}
		img[at] ^= (uint8_t)(1u << bit);
	}
	print_message("%d flips detected, %d harmless, of %d\n", detected, harmless, FLIPS);
	assert_true(detected > FLIPS / 2);
	free(img);
	free(s);
	free(got);
}

static void test_shard_writer_atomic(void **state)
{
	(void)state;
	hy_sample s;
	golden_sample(1, &s);
	const char *path = tmp_path("atomic.h5");
	hy_shard_writer *w;
	hy_diag d;
	hy_diag_init(&d, path);
	assert_int_equal(hy_shard_writer_open(&w, path, NULL, &d), HY_OK);
	assert_int_equal(hy_shard_write(w, &s, &d), HY_OK);
	/* nothing under the name until close */
	assert_int_not_equal(access(path, F_OK), 0);
	hy_sample bad = s;
	bad.action = 46;
	assert_int_equal(hy_shard_write(w, &bad, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "sample 2"));
	hy_shard_writer_abort(w);
	assert_int_not_equal(access(path, F_OK), 0);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp-", tmpdir);
	assert_int_not_equal(system(cmd), 0); /* no temporary left */

	/* an empty shard is valid and has the defaults */
	assert_int_equal(hy_shard_writer_open(&w, path, NULL, &d), HY_OK);
	assert_int_equal(hy_shard_writer_close(w, &d), HY_OK);
	hy_sample_reader *r;
	assert_int_equal(hy_sample_reader_open(&r, path, &d), HY_OK);
	uint64_t n = 1;
	assert_int_equal(hy_sample_reader_count(r, &n), HY_OK);
	assert_int_equal(n, 0);
	assert_int_equal(hy_sample_read(r, &s, &d), HY_STOP);
	assert_non_null(hy_sample_reader_describe(r, &d));
	assert_int_equal(hy_sample_reader_info(r)->nsources, 0);
	assert_non_null(strstr(hy_sample_reader_info(r)->encoder_version, "hydra-c"));
	hy_sample_reader_close(r);

	/* a parent that cannot be a directory */
	assert_int_equal(hy_shard_writer_open(&w, "/dev/null/dir.h5", NULL, &d), HY_EIO);
	assert_non_null(strstr(d.msg, "is not a directory"));
	assert_int_equal(hy_shard_writer_open(&w, "-", NULL, &d), HY_EUSAGE);
}

/* ------------------------------------------------------------ observation versions */

/* The observation version (sample.h): written by every writer, read back
 * from streams and shards, 0 for files from before it, one per stream. */
static void test_obs_version(void **state)
{
	(void)state;
	hy_sample_reader *r;
	hy_diag d;
	hy_sample got[8], want;
	size_t n;

	/* the golden stream holds the current version in both frame headers */
	buf b = read_golden("good.bin");
	assert_int_equal(b.p[17], HY_OBS_VERSION);
	assert_int_equal(b.p[32 + 4 * HY_SMS_RECORD_SIZE + 17], HY_OBS_VERSION);
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_mem(&r, "good.bin", b.p, b.n, &d), HY_OK);
	assert_int_equal(hy_sample_reader_obs_version(r), -1); /* no header read yet */
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
	assert_int_equal(hy_sample_reader_obs_version(r), HY_OBS_VERSION);
	hy_sample_reader_close(r);
	free(b.p);

	/* unmarked (byte 17 zero, as every writer before the marker): the same
	 * samples, version 0 */
	b = read_golden("good-unmarked.bin");
	assert_int_equal(hy_sample_reader_open_mem(&r, "good-unmarked.bin", b.p, b.n, &d), HY_OK);
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
	assert_int_equal(n, 5);
	for (int k = 0; k < 5; k++) {
		golden_sample(k, &want);
		assert_sample_equal(&got[k], &want, (size_t)k);
	}
	assert_int_equal(hy_sample_reader_obs_version(r), 0);
	int v = HY_OBS_VERSION;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_obs_agree(r, &v, NULL, &d), HY_EVERSION);
	assert_string_equal(d.source, "good-unmarked.bin");
	assert_non_null(strstr(d.msg, "observation version 0, the inputs before them 4"));
	v = -1;
	assert_int_equal(hy_sample_obs_agree(r, &v, "the model", &d), HY_OK);
	assert_int_equal(v, 0);
	hy_sample_reader_close(r);
	free(b.p);

	/* two frames of two versions: the three samples of the first come, the
	 * second frame's header fails (record 4: three samples and a trailer) */
	b = read_golden("mixed-obs.bin");
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_sample_reader_open_mem(&r, "mixed-obs.bin", b.p, b.n, &d), HY_OK);
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_EVERSION);
	assert_int_equal(n, 3);
	assert_int_equal(d.line, 4);
	assert_non_null(strstr(d.msg, "mixes observation versions: 0 in frame 2"));
	assert_non_null(strstr(d.msg, "4 before it"));
	hy_sample_reader_close(r);
	free(b.p);

	/* a writer sets another version before its first sample only */
	golden_sample(0, &want);
	buf w1 = {0, 0};
	FILE *f = open_memstream((char **)&w1.p, &w1.n);
	assert_non_null(f);
	hy_sms_writer *w;
	assert_int_equal(hy_sms_writer_open(&w, f), HY_OK);
	assert_int_equal(hy_sms_writer_set_obs_version(w, 256), HY_EUSAGE);
	assert_int_equal(hy_sms_writer_set_obs_version(w, 7), HY_OK);
	assert_int_equal(hy_sms_write(w, &want, &d), HY_OK);
	assert_int_equal(hy_sms_writer_set_obs_version(w, 2), HY_EUSAGE);
	assert_int_equal(hy_sms_writer_close(w, &d), HY_OK);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(w1.p[17], 7);
	assert_int_equal(hy_sample_reader_open_mem(&r, "w1", w1.p, w1.n, &d), HY_OK);
	assert_int_equal(read_all(r, got, 8, &n, &d), HY_STOP);
	assert_int_equal(hy_sample_reader_obs_version(r), 7);
	hy_sample_reader_close(r);
	free(w1.p);

	/* shards: the attribute, HY_OBS_VERSION by default, none when asked
	 * (a copy of unmarked samples), settable after open; the golden shards
	 * were written before it */
	const char *path = tmp_path("obs.h5");
	static const int asked[3] = {0, HY_SHARD_OBS_UNMARKED, 5};
	static const int read_as[3] = {HY_OBS_VERSION, 0, 5};
	for (int i = 0; i < 3; i++) {
		hy_shard_meta m = {.obs_version = asked[i]};
		hy_shard_writer *sw;
		assert_int_equal(hy_shard_writer_open(&sw, path, &m, &d), HY_OK);
		assert_int_equal(hy_shard_write(sw, &want, &d), HY_OK);
		assert_int_equal(hy_shard_writer_close(sw, &d), HY_OK);
		assert_int_equal(hy_sample_reader_open(&r, path, &d), HY_OK);
		assert_int_equal(hy_sample_reader_obs_version(r), read_as[i]);
		assert_int_equal(hy_sample_reader_info(r)->obs_version, (uint32_t)read_as[i]);
		hy_sample_reader_close(r);
	}
	hy_shard_writer *sw;
	assert_int_equal(hy_shard_writer_open(&sw, path, NULL, &d), HY_OK);
	assert_int_equal(hy_shard_writer_set_obs_version(sw, 0, &d), HY_OK);
	assert_int_equal(hy_shard_writer_set_obs_version(sw, 300, &d), HY_EUSAGE);
	assert_int_equal(hy_shard_write(sw, &want, &d), HY_OK);
	assert_int_equal(hy_shard_writer_close(sw, &d), HY_OK);
	assert_int_equal(hy_sample_reader_open(&r, path, &d), HY_OK);
	assert_int_equal(hy_sample_reader_obs_version(r), 0);
	hy_sample_reader_close(r);
	assert_int_equal(hy_sample_reader_open(&r, golden_path("good.h5"), &d), HY_OK);
	assert_int_equal(hy_sample_reader_obs_version(r), 0);
	hy_sample_reader_close(r);

	/* a network reads its own version; an unmarked one only the versions
	 * unmarked files may hold (up to HY_OBS_UNMARKED_MAX = 2) */
	assert_int_equal(HY_OBS_UNMARKED_MAX, 2);
	assert_true(hy_obs_compatible(2, 2));
	assert_true(hy_obs_compatible(3, 3));
	assert_true(hy_obs_compatible(0, 2));
	assert_true(hy_obs_compatible(0, 1));
	assert_true(hy_obs_compatible(0, 0));
	assert_false(hy_obs_compatible(0, 3));
	assert_false(hy_obs_compatible(2, 3));
	assert_false(hy_obs_compatible(3, 2));
	assert_false(hy_obs_compatible(2, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_good),
		cmocka_unit_test(test_golden_hidden),
		cmocka_unit_test(test_golden_broken),
		cmocka_unit_test(test_stream_roundtrip),
		cmocka_unit_test(test_shard_roundtrip),
		cmocka_unit_test(test_stream_shard_stream),
		cmocka_unit_test(test_golden_shard),
		cmocka_unit_test(test_shard_broken),
		cmocka_unit_test(test_shard_bitflips),
		cmocka_unit_test(test_shard_writer_atomic),
		cmocka_unit_test(test_obs_version),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
