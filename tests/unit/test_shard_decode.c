/* The two-step shard read (samples/shard.h hy_shard_fetch, hy_shard_decode)
 * against HDF5 itself: hy_shard_fletcher32 is the checksum HDF5 stored
 * after every chunk it wrote (chunks of odd and even lengths, compressed
 * and not); fetch + decode gives hy_shard_read's samples bit for bit for
 * every chunk, parts of chunks, ranges over two chunks (read through
 * H5Dread) and whole shards, with deflate levels 1 and 9, no compression,
 * and one sample a chunk; a flipped bit in a stored chunk is HY_EDATA
 * "checksum mismatch: the file is damaged" both ways, naming the shard;
 * a damaged deflate stream under a checksum that matches it is HY_EDATA
 * both ways (HDF5 then says no checksum failed: our checksum is HDF5's).
 * Synthetic samples in a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/synth.h"
#include "samples/shard.h"
#include "samples/stream.h"

#include "fixture_train.h"

static const uint64_t SEED = 20261126;
enum { NDS = 20 }; /* the datasets of formats/shard.md */

static const char *const names[NDS] = {"obs", "mask", "opp_waits", "game", "score",
	"kyoku_delta", "logp", "value", "reward", "adv", "ret", "step", "action", "seat",
	"grand_kyoku", "honba", "rank", "grp", "opp_tenpai", "flags"};

typedef struct shard_case {
	const char *name;
	int n;
	uint32_t chunk;
	int deflate;
} shard_case;

static const shard_case cases[] = {
	{"d1.h5", 300, 32, 1},  /* the default filters; a short last chunk */
	{"d9.h5", 100, 128, 9}, /* one chunk, longer than the samples */
	{"raw.h5", 70, 16, -1}, /* fletcher32 alone */
	{"one.h5", 20, 1, 1},   /* one sample a chunk: shuffle leaves scalars alone */
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static void write_case(const shard_case *c, uint64_t seed)
{
	char p[512];
	path(p, c->name);
	hy_sample *s = make_samples(c->n, 0, seed);
	hy_shard_writer *w;
	hy_diag d;
	hy_diag_init(&d, p);
	hy_shard_meta m = {.chunk = c->chunk, .deflate = c->deflate};
	assert_int_equal(hy_shard_writer_open(&w, p, &m, &d), HY_OK);
	for (int i = 0; i < c->n; i++)
		assert_int_equal(hy_shard_write(w, &s[i], &d), HY_OK);
	assert_int_equal(hy_shard_writer_close(w, &d), HY_OK);
	free(s);
}

static int setup(void **state)
{
	(void)state;
	(void)write_shard; /* the fixture's; this test sets the filters itself */
	(void)write_stream;
	if (fx_mkdir("hydra-decode", SEED))
		return -1;
	for (int i = 0; i < NCASES; i++)
		write_case(&cases[i], SEED + (uint64_t)i);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fx_rmdir();
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Every stored chunk of every dataset of every case, as HDF5 wrote it:
 * its last 4 bytes are hy_shard_fletcher32 of the rest. */
static void test_fletcher32(void **state)
{
	(void)state;
	int chunks = 0, odd = 0;
	for (int i = 0; i < NCASES; i++) {
		char p[512];
		path(p, cases[i].name);
		hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
		assert_true(f >= 0);
		for (int k = 0; k < NDS; k++) {
			hid_t ds = H5Dopen2(f, names[k], H5P_DEFAULT);
			assert_true(ds >= 0);
			for (int row = 0; row < cases[i].n; row += (int)cases[i].chunk) {
				hsize_t off[3] = {(hsize_t)row, 0, 0}, size = 0;
				assert_true(H5Dget_chunk_storage_size(ds, off, &size) >= 0);
				assert_true(size > 4);
				uint8_t *buf = malloc(size);
				assert_non_null(buf);
				uint32_t mask = 1;
				assert_true(H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, buf) >= 0);
				assert_int_equal(mask, 0);
				uint32_t sum = hy_shard_fletcher32(buf, size - 4);
				if (sum != le32(buf + size - 4))
					fail_msg("%s %s row %d: fletcher32 %08x, HDF5 stored %08x (%llu "
						"bytes)", cases[i].name, names[k], row, sum,
						le32(buf + size - 4), (unsigned long long)size);
				buf[(size - 4) / 2] ^= 0x10; /* any flipped bit changes it */
				assert_true(hy_shard_fletcher32(buf, size - 4) != sum);
				chunks++;
				odd += (size - 4) % 2;
				free(buf);
			}
			H5Dclose(ds);
		}
		H5Fclose(f);
	}
	assert_true(chunks > 500);
	assert_true(odd > 10); /* the odd last byte is exercised */
}

/* hy_shard_read and fetch + decode of [start, start + n) agree byte for
 * byte; raw: how many datasets the decoder must have undone itself. */
static void same_range(hy_shard *sh, hy_shard_chunks *c, hy_shard_decoder *dec, uint64_t start,
	size_t n, int raw)
{
	hy_sample *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	assert_true(a && b);
	memset(b, 0xa5, n * sizeof *b); /* padding too: decode clears it as read does */
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_shard_read(sh, start, n, a, &d))
		fail_msg("hy_shard_read %llu+%zu: %s", (unsigned long long)start, n, d.msg);
	if (hy_shard_fetch(sh, start, n, c, &d) || hy_shard_decode(dec, c, b, &d))
		fail_msg("fetch/decode %llu+%zu: %s", (unsigned long long)start, n, d.msg);
	if (raw >= 0)
		assert_int_equal(hy_shard_chunks_raw(c), raw);
	if (memcmp(a, b, n * sizeof *a) != 0)
		fail_msg("samples %llu+%zu differ from hy_shard_read's", (unsigned long long)start, n);
	free(a);
	free(b);
}

static void test_same_as_read(void **state)
{
	(void)state;
	hy_shard_chunks *c = hy_shard_chunks_new();
	hy_shard_decoder *dec = hy_shard_decoder_new();
	assert_true(c && dec);
	for (int i = 0; i < NCASES; i++) {
		const shard_case *k = &cases[i];
		char p[512];
		path(p, k->name);
		hy_shard *sh;
		hy_diag d;
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_shard_open(&sh, p, &d), HY_OK);
		uint64_t n = (uint64_t)k->n, ch = k->chunk;
		for (uint64_t s = 0; s < n; s += ch) {
			size_t len = (size_t)(n - s < ch ? n - s : ch);
			same_range(sh, c, dec, s, len, NDS);           /* a whole chunk */
			if (len > 4)
				same_range(sh, c, dec, s + 2, len - 3, NDS); /* inside one */
			if (s + ch < n && ch > 1)                     /* over two: H5Dread */
				same_range(sh, c, dec, s + ch - 1, 2, 0);
		}
		same_range(sh, c, dec, 0, (size_t)n, n > ch ? 0 : NDS);
		same_range(sh, c, dec, n - 1, 1, NDS);
		/* past the end: refused as hy_shard_read refuses it */
		assert_int_equal(hy_shard_fetch(sh, n - 1, 2, c, &d), HY_EUSAGE);
		hy_shard_close(sh);
	}
	hy_shard_chunks_free(c);
	hy_shard_decoder_free(dec);
}

/* The file offset and stored size of obs's chunk at row. */
static void chunk_at(const char *p, hsize_t row, haddr_t *addr, hsize_t *size)
{
	hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	hid_t ds = H5Dopen2(f, "obs", H5P_DEFAULT);
	assert_true(ds >= 0);
	hsize_t off[3] = {row, 0, 0};
	unsigned mask;
	assert_true(H5Dget_chunk_info_by_coord(ds, off, &mask, addr, size) >= 0);
	H5Dclose(ds);
	H5Fclose(f);
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	assert_true(a && b);
	char buf[65536];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, a)) > 0)
		assert_int_equal(fwrite(buf, 1, k, b), k);
	fclose(a);
	assert_int_equal(fclose(b), 0);
}

static void patch(const char *p, off_t at, const void *bytes, size_t n)
{
	int fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, n, at), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

/* Reads rows [64, 96) of p both ways: both fail with st, messages
 * containing want, and the shard named; chunk 0 still reads. */
static void both_fail(const char *p, hy_status st, const char *want_read,
	const char *want_decode)
{
	hy_shard *sh;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_shard_open(&sh, p, &d), HY_OK);
	hy_sample s[32];
	hy_shard_chunks *c = hy_shard_chunks_new();
	hy_shard_decoder *dec = hy_shard_decoder_new();
	assert_true(c && dec);
	assert_int_equal(hy_shard_read(sh, 64, 32, s, &d), st);
	if (!strstr(d.msg, want_read))
		fail_msg("hy_shard_read: '%s' lacks '%s'", d.msg, want_read);
	assert_string_equal(d.source, p);
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_shard_fetch(sh, 64, 32, c, &d), HY_OK);
	assert_int_equal(hy_shard_decode(dec, c, s, &d), st);
	if (!strstr(d.msg, want_decode))
		fail_msg("hy_shard_decode: '%s' lacks '%s'", d.msg, want_decode);
	assert_string_equal(d.source, p);
	same_range(sh, c, dec, 0, 32, NDS);
	hy_shard_chunks_free(c);
	hy_shard_decoder_free(dec);
	hy_shard_close(sh);
}

static void test_damage(void **state)
{
	(void)state;
	char good[512], bad[512];
	path(good, "d1.h5");
	path(bad, "bad.h5");
	haddr_t addr;
	hsize_t size;
	chunk_at(good, 64, &addr, &size);
	assert_true(size > 100);

	/* a flipped bit in the stored bytes, then in the stored checksum */
	const char *damaged = "checksum mismatch: the file is damaged";
	off_t spots[] = {(off_t)(addr + size / 2), (off_t)(addr + size - 2)};
	for (int i = 0; i < 2; i++) {
		copy_file(good, bad);
		uint8_t b;
		int fd = open(bad, O_RDONLY);
		assert_int_equal(pread(fd, &b, 1, spots[i]), 1);
		close(fd);
		b ^= 0x04;
		patch(bad, spots[i], &b, 1);
		both_fail(bad, HY_EDATA, damaged, damaged);
	}

	/* a damaged deflate stream under a checksum that matches it: HDF5's
	 * fletcher32 accepts hy_shard_fletcher32's sum, and inflation fails */
	copy_file(good, bad);
	uint8_t *buf = malloc(size);
	assert_non_null(buf);
	int fd = open(bad, O_RDONLY);
	assert_int_equal(pread(fd, buf, size, (off_t)addr), (ssize_t)size);
	close(fd);
	/* the zlib header: bad wherever zlib looks (inside the stream, the
	 * adler32 that finds damage is skipped under a matching fletcher32) */
	buf[0] ^= 0xff;
	uint32_t sum = hy_shard_fletcher32(buf, size - 4);
	uint8_t le[4] = {(uint8_t)sum, (uint8_t)(sum >> 8), (uint8_t)(sum >> 16),
		(uint8_t)(sum >> 24)};
	memcpy(buf + size - 4, le, 4);
	patch(bad, (off_t)addr, buf, size);
	free(buf);
	both_fail(bad, HY_EDATA, "H5Dread", "the deflate stream is damaged");
	hy_shard *sh;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_shard_open(&sh, bad, &d), HY_OK);
	hy_sample s[32];
	assert_int_equal(hy_shard_read(sh, 64, 32, s, &d), HY_EDATA);
	if (strstr(d.msg, "checksum"))
		fail_msg("HDF5 refused the checksum hy_shard_fletcher32 wrote: %s", d.msg);
	hy_shard_close(sh);
	unlink(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fletcher32),
		cmocka_unit_test(test_same_as_read),
		cmocka_unit_test(test_damage),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
