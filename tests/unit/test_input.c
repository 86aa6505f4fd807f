/* Unit tests for lib/io/input: decompression, directory walking, archives,
 * damaged containers, stdin. Fixtures are made at run time in a mkdtemp
 * directory, compressed through zlib/zstd here or the gzip/zstd/tar/zip
 * tools. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "io/input.h"

/* ------------------------------------------------------------ helpers */

typedef struct fx {
	char dir[256];
	char *paths[256]; /* strings made by pathf, freed at teardown */
	size_t npaths;
} fx;

static int fx_setup(void **state)
{
	fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	const char *t = getenv("TMPDIR");
	snprintf(f->dir, sizeof f->dir, "%s/hy-input-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	fx *f = *state;
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	int rc = system(cmd);
	for (size_t i = 0; i < f->npaths; i++)
		free(f->paths[i]);
	free(f);
	return rc == 0 ? 0 : -1;
}

static char *pathf(fx *f, const char *rel)
{
	assert_true(f->npaths < sizeof f->paths / sizeof f->paths[0]);
	char *b = malloc(512);
	assert_non_null(b);
	snprintf(b, 512, "%s/%s", f->dir, rel);
	f->paths[f->npaths++] = b;
	return b;
}

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		sh("mkdir -p '%s'", dir);
	}
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

static void write_text(const char *path, const char *s)
{
	write_bytes(path, s, strlen(s));
}

static char *read_bytes(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long sz = ftell(fp);
	assert_true(sz >= 0);
	rewind(fp);
	char *b = malloc((size_t)sz + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)sz, fp), (size_t)sz);
	fclose(fp);
	*n = (size_t)sz;
	return b;
}

static void truncate_to(const char *path, size_t n)
{
	assert_int_equal(truncate(path, (off_t)n), 0);
}

static size_t file_size(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/* gzip via zlib (one member) */
static unsigned char *gz_encode(const void *p, size_t n, size_t *outn)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	assert_int_equal(deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&zs, (uLong)n) + 64;
	unsigned char *out = malloc(cap);
	assert_non_null(out);
	zs.next_in = (unsigned char *)p;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*outn = cap - zs.avail_out;
	assert_int_equal(deflateEnd(&zs), Z_OK);
	return out;
}

static unsigned char *zst_encode(const void *p, size_t n, size_t *outn)
{
	size_t cap = ZSTD_compressBound(n);
	unsigned char *out = malloc(cap);
	assert_non_null(out);
	size_t r = ZSTD_compress(out, cap, p, n, 3);
	assert_false(ZSTD_isError(r));
	*outn = r;
	return out;
}

/* Whole sequence, recorded. */
typedef struct rec {
	hy_status s;
	char name[600];
	char *data;
	size_t len;
	int comp;
	char source[512];
	char msg[512];
} rec;

typedef struct recs {
	rec r[64];
	size_t n;
} recs;

static recs *run_all(const char *const *paths, size_t npaths)
{
	recs *R = calloc(1, sizeof *R);
	assert_non_null(R);
	hy_input *in;
	assert_int_equal(hy_input_open(&in, paths, npaths), HY_OK);
	for (;;) {
		hy_doc doc;
		hy_diag d;
		hy_diag_init(&d, NULL);
		hy_status s = hy_input_next(in, &doc, &d);
		if (s == HY_STOP)
			break;
		assert_true(R->n < 64);
		rec *r = &R->r[R->n++];
		r->s = s;
		if (s == HY_OK) {
			assert_non_null(doc.name);
			assert_non_null(doc.data);
			assert_int_equal(doc.data[doc.len], '\0');
			snprintf(r->name, sizeof r->name, "%s", doc.name);
			r->data = malloc(doc.len + 1);
			assert_non_null(r->data);
			memcpy(r->data, doc.data, doc.len + 1);
			r->len = doc.len;
			r->comp = doc.compressed;
		} else {
			assert_int_equal(d.status, s);
			snprintf(r->source, sizeof r->source, "%s", d.source);
			snprintf(r->msg, sizeof r->msg, "%s", d.msg);
		}
	}
	/* HY_STOP is sticky */
	hy_doc doc;
	assert_int_equal(hy_input_next(in, &doc, NULL), HY_STOP);
	hy_input_close(in);
	return R;
}

static void recs_free(recs *R)
{
	for (size_t i = 0; i < R->n; i++)
		free(R->r[i].data);
	free(R);
}

static void expect_doc(const rec *r, const char *name, const char *data, int comp)
{
	if (r->s != HY_OK)
		fail_msg("expected doc '%s', got status %d: %s: %s", name, r->s, r->source, r->msg);
	assert_string_equal(r->name, name);
	assert_int_equal(r->len, strlen(data));
	assert_memory_equal(r->data, data, r->len);
	assert_int_equal(r->comp, comp);
}

static void expect_err(const rec *r, const char *source, const char *msg_part)
{
	if (r->s == HY_OK)
		fail_msg("expected an error from '%s', got doc '%s'", source, r->name);
	assert_string_equal(r->source, source);
	if (msg_part && !strstr(r->msg, msg_part))
		fail_msg("message '%s' lacks '%s'", r->msg, msg_part);
}

static const char TXT_A[] = "{\"type\":\"start_game\"}\n{\"type\":\"end_game\"}\n";
static const char TXT_B[] = "<mjloggm ver=\"2.3\"><GO type=\"169\"/></mjloggm>\n";
static const char TXT_C[] = "{\"type\":\"dahai\",\"pai\":\"5mr\"}\n";

/* src/a.json, src/sub/b.xml, src/c.json.gz (gzip of TXT_C) */
static void make_tree(fx *f)
{
	write_text(pathf(f, "src/a.json"), TXT_A);
	write_text(pathf(f, "src/sub/b.xml"), TXT_B);
	size_t n;
	unsigned char *z = gz_encode(TXT_C, strlen(TXT_C), &n);
	write_bytes(pathf(f, "src/c.json.gz"), z, n);
	free(z);
}

/* ------------------------------------------------------------ decompress */

static void test_decompress_gzip(void **state)
{
	(void)state;
	const char *msg = "hello, gzip world\n";
	size_t n;
	unsigned char *z = gz_encode(msg, strlen(msg), &n);
	char *out;
	size_t outn;
	int kind;
	hy_diag d;
	hy_diag_init(&d, "x");
	assert_int_equal(hy_decompress((char *)z, n, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(kind, 1);
	assert_int_equal(outn, strlen(msg));
	assert_string_equal(out, msg);
	free(out);

	/* two members concatenated */
	unsigned char *zz = malloc(2 * n);
	memcpy(zz, z, n);
	memcpy(zz + n, z, n);
	assert_int_equal(hy_decompress((char *)zz, 2 * n, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(outn, 2 * strlen(msg));
	assert_memory_equal(out, msg, strlen(msg));
	assert_memory_equal(out + strlen(msg), msg, strlen(msg));
	assert_int_equal(out[outn], '\0');
	free(out);

	/* every proper prefix (with the magic) is truncated */
	for (size_t k = 2; k < n; k++) {
		out = (char *)1;
		hy_status s = hy_decompress((char *)z, k, &out, &outn, &kind, &d);
		if (s != HY_ETRUNC)
			fail_msg("prefix %zu of %zu: status %d (%s)", k, n, s, d.msg);
		assert_null(out);
		assert_string_equal(d.msg, "truncated gzip stream");
	}
	/* the second member cut short */
	assert_int_equal(hy_decompress((char *)zz, 2 * n - 3, &out, &outn, &kind, &d), HY_ETRUNC);

	/* garbage after the stream */
	memcpy(zz + n, "junk", 4);
	assert_int_equal(hy_decompress((char *)zz, n + 4, &out, &outn, &kind, &d), HY_EDATA);
	assert_non_null(strstr(d.msg, "trailing garbage"));
	/* zero padding after the stream is accepted (as gzip(1) does) */
	memset(zz + n, 0, 8);
	assert_int_equal(hy_decompress((char *)zz, n + 8, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(outn, strlen(msg));
	free(out);

	/* a corrupted CRC */
	z[n - 6] ^= 0x55;
	assert_int_equal(hy_decompress((char *)z, n, &out, &outn, &kind, &d), HY_EDATA);
	assert_non_null(strstr(d.msg, "corrupt gzip stream"));
	free(z);
	free(zz);

	/* empty content */
	z = gz_encode("", 0, &n);
	assert_int_equal(hy_decompress((char *)z, n, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(kind, 1);
	assert_int_equal(outn, 0);
	assert_non_null(out);
	assert_int_equal(out[0], '\0');
	free(out);
	free(z);
}

static void test_decompress_zstd(void **state)
{
	(void)state;
	char msg[3000];
	for (size_t i = 0; i < sizeof msg; i++)
		msg[i] = "abcdefgh\n"[i * 7 % 9];
	size_t n;
	unsigned char *z = zst_encode(msg, sizeof msg, &n);
	char *out;
	size_t outn;
	int kind;
	hy_diag d;
	hy_diag_init(&d, "x");
	assert_int_equal(hy_decompress((char *)z, n, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(kind, 2);
	assert_int_equal(outn, sizeof msg);
	assert_memory_equal(out, msg, sizeof msg);
	assert_int_equal(out[outn], '\0');
	free(out);

	/* two frames */
	unsigned char *zz = malloc(2 * n);
	memcpy(zz, z, n);
	memcpy(zz + n, z, n);
	assert_int_equal(hy_decompress((char *)zz, 2 * n, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(outn, 2 * sizeof msg);
	assert_memory_equal(out + sizeof msg, msg, sizeof msg);
	free(out);

	for (size_t k = 4; k < n; k++) {
		out = (char *)1;
		hy_status s = hy_decompress((char *)z, k, &out, &outn, &kind, &d);
		if (s != HY_ETRUNC)
			fail_msg("prefix %zu of %zu: status %d (%s)", k, n, s, d.msg);
		assert_null(out);
		assert_string_equal(d.msg, "truncated zstd stream");
	}
	assert_int_equal(hy_decompress((char *)zz, 2 * n - 1, &out, &outn, &kind, &d), HY_ETRUNC);
	memcpy(zz + n, "junkjunk", 8);
	assert_int_equal(hy_decompress((char *)zz, n + 8, &out, &outn, &kind, &d), HY_EDATA);
	assert_non_null(strstr(d.msg, "corrupt zstd stream"));
	free(z);
	free(zz);

	/* plain data */
	out = (char *)1;
	assert_int_equal(hy_decompress("{\"a\":1}", 7, &out, &outn, &kind, &d), HY_OK);
	assert_int_equal(kind, 0);
	assert_null(out);
}

/* ------------------------------------------------------------ files */

static void test_plain_and_compressed_files(void **state)
{
	fx *f = *state;
	write_text(pathf(f, "plain.json"), TXT_A);
	size_t n;
	/* names say nothing: content decides */
	unsigned char *z = gz_encode(TXT_B, strlen(TXT_B), &n);
	write_bytes(pathf(f, "looks_plain.json"), z, n);
	free(z);
	z = zst_encode(TXT_C, strlen(TXT_C), &n);
	write_bytes(pathf(f, "not_zstd.gz"), z, n);
	free(z);
	write_text(pathf(f, "empty"), "");
	const char *p[] = { pathf(f, "plain.json"), pathf(f, "looks_plain.json"),
			    pathf(f, "not_zstd.gz"), pathf(f, "empty") };
	recs *R = run_all(p, 4);
	assert_int_equal(R->n, 4);
	expect_doc(&R->r[0], p[0], TXT_A, 0);
	expect_doc(&R->r[1], p[1], TXT_B, 1);
	expect_doc(&R->r[2], p[2], TXT_C, 2);
	expect_doc(&R->r[3], p[3], "", 0);
	recs_free(R);
}

static void test_directory_order(void **state)
{
	fx *f = *state;
	write_text(pathf(f, "d/b.json"), "b");
	write_text(pathf(f, "d/a.json"), "a");
	write_text(pathf(f, "d/B.json"), "B");
	write_text(pathf(f, "d/.hidden.json"), "hidden");
	write_text(pathf(f, "d/.git/config"), "hidden dir");
	write_text(pathf(f, "d/a0/x"), "a0/x");
	write_text(pathf(f, "d/a0/deep/er/y"), "deep");
	write_text(pathf(f, "d/a0/.z"), "hidden");
	write_text(pathf(f, "d/a-1"), "a-1");
	sh("mkdir -p '%s'", pathf(f, "d/emptydir"));
	/* gzip inside a tree */
	size_t n;
	unsigned char *z = gz_encode("gz", 2, &n);
	write_bytes(pathf(f, "d/c"), z, n);
	free(z);

	const char *p[] = { pathf(f, "d") };
	recs *R = run_all(p, 1);
	const char *names[] = { "d/B.json", "d/a-1", "d/a.json", "d/a0/deep/er/y", "d/a0/x",
				"d/b.json", "d/c" };
	const char *data[] = { "B", "a-1", "a", "deep", "a0/x", "b", "gz" };
	assert_int_equal(R->n, 7);
	for (int i = 0; i < 7; i++)
		expect_doc(&R->r[i], pathf(f, names[i]), data[i], i == 6);
	recs_free(R);

	/* a trailing slash does not double */
	char withslash[600];
	snprintf(withslash, sizeof withslash, "%s/", pathf(f, "d/a0"));
	const char *q[] = { withslash };
	R = run_all(q, 1);
	assert_int_equal(R->n, 2);
	expect_doc(&R->r[0], pathf(f, "d/a0/deep/er/y"), "deep", 0);
	recs_free(R);

	/* an empty directory yields nothing */
	const char *e[] = { pathf(f, "d/emptydir") };
	R = run_all(e, 1);
	assert_int_equal(R->n, 0);
	recs_free(R);
}

static void test_directory_loop(void **state)
{
	fx *f = *state;
	write_text(pathf(f, "l/a"), "a");
	assert_int_equal(symlink(".", pathf(f, "l/up")), 0);
	const char *p[] = { pathf(f, "l") };
	recs *R = run_all(p, 1);
	assert_int_equal(R->n, 2);
	expect_doc(&R->r[0], pathf(f, "l/a"), "a", 0);
	expect_err(&R->r[1], pathf(f, "l/up"), "directory loop");
	recs_free(R);
}

/* ------------------------------------------------------------ archives */

static void check_archive(const recs *R, size_t at, const char *arc, int outer)
{
	char name[600];
	snprintf(name, sizeof name, "%s:a.json", arc);
	expect_doc(&R->r[at], name, TXT_A, outer);
	snprintf(name, sizeof name, "%s:sub/b.xml", arc);
	expect_doc(&R->r[at + 1], name, TXT_B, outer);
	snprintf(name, sizeof name, "%s:c.json.gz", arc);
	expect_doc(&R->r[at + 2], name, TXT_C, outer ? outer : 1);
}

static void test_archives(void **state)
{
	fx *f = *state;
	make_tree(f);
	sh("cd '%s/src' && tar cf ../t.tar a.json sub c.json.gz", f->dir);
	sh("cd '%s' && gzip -c t.tar > t.tgz && zstd -q -c t.tar > arch && "
	   "tar cf - -C src --format=posix a.json sub c.json.gz | gzip -c > pax.tar.gz", f->dir);
	sh("cd '%s/src' && zip -q -r ../t.zip a.json sub c.json.gz", f->dir);
	/* zip in gzip: unusual, but content decides */
	sh("cd '%s' && gzip -c t.zip > zipgz", f->dir);
	write_text(pathf(f, "after.json"), "after");
	const char *p[] = { pathf(f, "t.tar"), pathf(f, "t.tgz"), pathf(f, "arch"),
			    pathf(f, "pax.tar.gz"), pathf(f, "t.zip"), pathf(f, "zipgz"),
			    pathf(f, "after.json") };
	recs *R = run_all(p, 7);
	assert_int_equal(R->n, 6 * 3 + 1);
	check_archive(R, 0, p[0], 0);
	check_archive(R, 3, p[1], 1);
	check_archive(R, 6, p[2], 2);
	check_archive(R, 9, p[3], 1);
	check_archive(R, 12, p[4], 0);
	check_archive(R, 15, p[5], 1);
	expect_doc(&R->r[18], p[6], "after", 0);
	recs_free(R);
}

/* A decoded tar much larger than one read chunk, compressed both ways. */
static void test_big_archive_and_truncation(void **state)
{
	fx *f = *state;
	uint32_t seed = (uint32_t)time(NULL);
	const char *e = getenv("HY_SEED");
	if (e)
		seed = (uint32_t)strtoul(e, NULL, 10);
	printf("test_big_archive_and_truncation: seed %u (HY_SEED=%u reproduces)\n", seed, seed);
	size_t big = 3u << 20;
	char *txt = malloc(big + 1);
	assert_non_null(txt);
	uint32_t x = seed | 1;
	for (size_t i = 0; i < big; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		txt[i] = (i % 61 == 60) ? '\n' : (char)('a' + x % 16);
	}
	txt[big] = '\0';
	write_bytes(pathf(f, "b/big.txt"), txt, big);
	write_text(pathf(f, "b/small.txt"), "small\n");
	sh("cd '%s/b' && tar cf ../big.tar small.txt big.txt small.txt && "
	   "gzip -c ../big.tar > ../big.tgz && zstd -q -c ../big.tar > ../big.tzst && "
	   "zip -q ../big.zip small.txt big.txt", f->dir);
	write_text(pathf(f, "next.json"), "next");

	const char *p[] = { pathf(f, "big.tar"), pathf(f, "big.tgz"), pathf(f, "big.tzst"),
			    pathf(f, "big.zip") };
	recs *R = run_all(p, 4);
	/* the second small.txt in a tar is a hard link: skipped */
	assert_int_equal(R->n, 2 + 2 + 2 + 2);
	for (size_t i = 0; i < R->n; i++) {
		assert_int_equal(R->r[i].s, HY_OK);
		int is_big = strstr(R->r[i].name, ":big.txt") != NULL;
		if (is_big) {
			assert_int_equal(R->r[i].len, big);
			assert_memory_equal(R->r[i].data, txt, big);
		} else {
			assert_string_equal(R->r[i].data, "small\n");
		}
	}
	recs_free(R);

	/* cut: in the middle, or only the compressed trailer (the tar itself
	 * is complete), or in the zip's central directory */
	struct {
		const char *src, *dst;
		long cut; /* > 0: keep that many bytes; < 0: drop that many */
		const char *msg;
		hy_status s;
	} cases[] = {
		{ "big.tgz", "cut1.tgz", 200000, "truncated gzip stream", HY_ETRUNC },
		{ "big.tgz", "cut2.tgz", -4, "truncated gzip stream", HY_ETRUNC },
		{ "big.tzst", "cut1.tzst", 200000, "truncated zstd stream", HY_ETRUNC },
		{ "big.tzst", "cut2.tzst", -2, "truncated zstd stream", HY_ETRUNC },
		{ "big.tar", "cut.tar", 1 << 20, "tar archive", HY_ETRUNC },
		{ "big.zip", "cut1.zip", 300000, "zip archive", HY_EDATA },
		{ "big.zip", "cut2.zip", -30, "zip archive", HY_EDATA },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		sh("cp '%s' '%s'", pathf(f, cases[c].src), pathf(f, cases[c].dst));
		size_t sz = file_size(pathf(f, cases[c].dst));
		truncate_to(pathf(f, cases[c].dst),
			    cases[c].cut > 0 ? (size_t)cases[c].cut : sz - (size_t)-cases[c].cut);
		const char *q[] = { pathf(f, cases[c].dst), pathf(f, "next.json") };
		R = run_all(q, 2);
		/* documents before the damage are whole; then one error; then on */
		assert_true(R->n >= 2);
		size_t k = 0;
		while (k < R->n && R->r[k].s == HY_OK) {
			int is_big = strstr(R->r[k].name, ":big.txt") != NULL;
			if (is_big)
				assert_memory_equal(R->r[k].data, txt, big);
			else
				assert_string_equal(R->r[k].data, "small\n");
			k++;
		}
		if (k + 2 != R->n)
			fail_msg("%s: %zu records, first error at %zu", cases[c].dst, R->n, k);
		expect_err(&R->r[k], pathf(f, cases[c].dst), cases[c].msg);
		assert_int_equal(R->r[k].s, cases[c].s);
		expect_doc(&R->r[k + 1], pathf(f, "next.json"), "next", 0);
		recs_free(R);
	}
	free(txt);
}

static void test_damaged_members(void **state)
{
	fx *f = *state;
	const char *msg = "0123456789 the quick brown fox jumps over the lazy dog\n";
	size_t n;
	unsigned char *z = gz_encode(msg, strlen(msg), &n);
	write_bytes(pathf(f, "trunc.gz"), z, n - 5);
	/* a tar holding a truncated gzip entry between two good ones */
	write_text(pathf(f, "m/1.json"), "one");
	write_bytes(pathf(f, "m/2.json.gz"), z, n / 2);
	write_text(pathf(f, "m/3.json"), "three");
	sh("cd '%s/m' && tar cf ../m.tar 1.json 2.json.gz 3.json", f->dir);
	free(z);
	z = zst_encode(msg, strlen(msg), &n);
	write_bytes(pathf(f, "trunc.zst"), z, n - 1);
	free(z);
	/* a stored zip entry with a flipped byte: CRC mismatch */
	write_text(pathf(f, "crc/data.json"), "{\"payload\":\"ABCDEFGHIJKLMNOP\"}");
	sh("cd '%s/crc' && zip -q -0 ../crc.zip data.json", f->dir);
	size_t zl;
	char *zb = read_bytes(pathf(f, "crc.zip"), &zl);
	char *hit = memmem(zb, zl, "ABCDEFGH", 8);
	assert_non_null(hit);
	hit[3] = 'x';
	write_bytes(pathf(f, "crc.zip"), zb, zl);
	free(zb);
	write_text(pathf(f, "ok.json"), "ok");
	/* a tar whose second header is damaged (checksum mismatch) */
	sh("cd '%s/m' && tar cf ../dmg.tar 1.json 3.json", f->dir);
	char *tb = read_bytes(pathf(f, "dmg.tar"), &zl);
	assert_true(zl >= 2048);
	assert_memory_equal(tb + 1024, "3.json", 6);
	tb[1024] = '4';
	write_bytes(pathf(f, "dmg.tar"), tb, zl);
	free(tb);
	/* a fifo inside a directory is skipped, not waited on */
	write_text(pathf(f, "fifo/a"), "a");
	assert_int_equal(mkfifo(pathf(f, "fifo/b"), 0600), 0);

	const char *p[] = { pathf(f, "trunc.gz"), pathf(f, "nonexistent.json"), pathf(f, "trunc.zst"),
			    pathf(f, "m.tar"), pathf(f, "crc.zip"), pathf(f, "ok.json"),
			    pathf(f, "dmg.tar"), pathf(f, "fifo") };
	recs *R = run_all(p, 8);
	assert_int_equal(R->n, 11);
	expect_err(&R->r[0], p[0], "truncated gzip stream");
	assert_int_equal(R->r[0].s, HY_ETRUNC);
	expect_err(&R->r[1], p[1], strerror(ENOENT));
	assert_int_equal(R->r[1].s, HY_EIO);
	expect_err(&R->r[2], p[2], "truncated zstd stream");
	assert_int_equal(R->r[2].s, HY_ETRUNC);
	char name[600];
	snprintf(name, sizeof name, "%s:1.json", p[3]);
	expect_doc(&R->r[3], name, "one", 0);
	snprintf(name, sizeof name, "%s:2.json.gz", p[3]);
	expect_err(&R->r[4], name, "truncated gzip stream");
	assert_int_equal(R->r[4].s, HY_ETRUNC);
	snprintf(name, sizeof name, "%s:3.json", p[3]);
	expect_doc(&R->r[5], name, "three", 0);
	expect_err(&R->r[6], p[4], "corrupt zip archive");
	assert_int_equal(R->r[6].s, HY_EDATA);
	expect_doc(&R->r[7], p[5], "ok", 0);
	snprintf(name, sizeof name, "%s:1.json", p[6]);
	expect_doc(&R->r[8], name, "one", 0);
	expect_err(&R->r[9], p[6], "corrupt tar archive: Damaged tar archive");
	assert_int_equal(R->r[9].s, HY_EDATA);
	expect_doc(&R->r[10], pathf(f, "fifo/a"), "a", 0);
	recs_free(R);
}

/* Things that look a little like containers but are plain documents. */
static void test_plain_lookalikes(void **state)
{
	fx *f = *state;
	uint32_t seed = (uint32_t)time(NULL) ^ 0x9e3779b9u;
	const char *e = getenv("HY_SEED");
	if (e)
		seed = (uint32_t)strtoul(e, NULL, 10);
	printf("test_plain_lookalikes: seed %u (HY_SEED=%u reproduces)\n", seed, seed);
	write_text(pathf(f, "pk.txt"), "PK this is just text\n");
	write_text(pathf(f, "pk2.txt"), "PK\x03 nearly a zip header\n");
	/* a JSON text with "ustar" exactly at offset 257 */
	char js[1024];
	memset(js, ' ', sizeof js);
	js[0] = '{';
	memcpy(js + 251, "\"x\": \"ustar  \"", 14);
	memcpy(js + 1020, "}\n", 2);
	js[1022] = '\0';
	assert_memory_equal(js + 257, "ustar", 5);
	write_text(pathf(f, "ustar.json"), js);
	/* random bytes (not starting with a magic) */
	unsigned char rnd[4096];
	uint32_t x = seed | 1;
	for (size_t i = 0; i < sizeof rnd; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		rnd[i] = (unsigned char)x;
	}
	rnd[0] = 0;
	write_bytes(pathf(f, "rnd.bin"), rnd, sizeof rnd);
	const char *p[] = { pathf(f, "pk.txt"), pathf(f, "pk2.txt"), pathf(f, "ustar.json"),
			    pathf(f, "rnd.bin") };
	recs *R = run_all(p, 4);
	assert_int_equal(R->n, 4);
	expect_doc(&R->r[0], p[0], "PK this is just text\n", 0);
	expect_doc(&R->r[1], p[1], "PK\x03 nearly a zip header\n", 0);
	expect_doc(&R->r[2], p[2], js, 0);
	assert_int_equal(R->r[3].s, HY_OK);
	assert_int_equal(R->r[3].len, sizeof rnd);
	assert_memory_equal(R->r[3].data, rnd, sizeof rnd);
	recs_free(R);
}

/* ------------------------------------------------------------ stdin */

static recs *run_with_stdin(const char *file, const char *const *paths, size_t n)
{
	fflush(stdout);
	int saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	int fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	recs *R = run_all(paths, n);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	return R;
}

static void test_stdin(void **state)
{
	fx *f = *state;
	size_t n;
	unsigned char *z = zst_encode(TXT_A, strlen(TXT_A), &n);
	write_bytes(pathf(f, "in.zst"), z, n);
	free(z);
	recs *R = run_with_stdin(pathf(f, "in.zst"), NULL, 0);
	assert_int_equal(R->n, 1);
	expect_doc(&R->r[0], "-", TXT_A, 2);
	recs_free(R);

	write_text(pathf(f, "x.json"), "x");
	const char *p[] = { pathf(f, "x.json"), "-" };
	R = run_with_stdin(pathf(f, "in.zst"), p, 2);
	assert_int_equal(R->n, 2);
	expect_doc(&R->r[0], p[0], "x", 0);
	expect_doc(&R->r[1], "-", TXT_A, 2);
	recs_free(R);

	/* an archive on stdin */
	make_tree(f);
	sh("cd '%s/src' && tar cf - a.json sub c.json.gz | zstd -q -c > ../in.tzst", f->dir);
	R = run_with_stdin(pathf(f, "in.tzst"), NULL, 0);
	assert_int_equal(R->n, 3);
	check_archive(R, 0, "(stdin)", 2);
	recs_free(R);

	/* a truncated stream on stdin names "(stdin)" */
	truncate_to(pathf(f, "in.zst"), n - 3);
	R = run_with_stdin(pathf(f, "in.zst"), NULL, 0);
	assert_int_equal(R->n, 1);
	expect_err(&R->r[0], "(stdin)", "truncated zstd stream");
	recs_free(R);
}

/* ------------------------------------------------------------ size */

static void test_large_gzip_file(void **state)
{
	fx *f = *state;
	size_t big = 24u << 20;
	char *txt = malloc(big);
	assert_non_null(txt);
	for (size_t i = 0; i < big; i++)
		txt[i] = (char)('0' + (i * 2654435761u >> 7) % 10);
	size_t n;
	unsigned char *z = gz_encode(txt, big, &n);
	/* two members, so that the ISIZE hint is wrong and buffers must grow */
	write_bytes(pathf(f, "big1"), z, n);
	sh("cat '%s' '%s' > '%s'", pathf(f, "big1"), pathf(f, "big1"), pathf(f, "big2"));
	free(z);
	const char *p[] = { pathf(f, "big2") };
	recs *R = run_all(p, 1);
	assert_int_equal(R->n, 1);
	assert_int_equal(R->r[0].s, HY_OK);
	assert_int_equal(R->r[0].len, 2 * big);
	assert_memory_equal(R->r[0].data, txt, big);
	assert_memory_equal(R->r[0].data + big, txt, big);
	recs_free(R);
	free(txt);
}

/* ------------------------------------------------------------ shared data */

static void test_shared_mjlog(void **state)
{
	(void)state;
	const char *sh_dir = getenv("HY_SHARED");
	if (!sh_dir || !*sh_dir)
		sh_dir = "../shared";
	char path[1024];
	snprintf(path, sizeof path, "%s/data/logs/gimite_mjai/test/test.mjlog", sh_dir);
	if (access(path, R_OK) != 0) {
		printf("skipped: %s not readable (set HY_SHARED)\n", path);
		skip();
	}
	const char *p[] = { path };
	recs *R = run_all(p, 1);
	assert_int_equal(R->n, 1);
	assert_int_equal(R->r[0].s, HY_OK);
	assert_string_equal(R->r[0].name, path);
	assert_int_equal(R->r[0].comp, 1);
	assert_true(R->r[0].len > 1000);
	assert_memory_equal(R->r[0].data, "<mjloggm", 8);
	assert_int_equal(strlen(R->r[0].data), R->r[0].len);
	recs_free(R);
}

static void test_open_usage(void **state)
{
	(void)state;
	hy_input *in = (hy_input *)1;
	assert_int_equal(hy_input_open(&in, NULL, 2), HY_EUSAGE);
	/* paths are not touched before next */
	const char *p[] = { "/nonexistent/hy-input" };
	assert_int_equal(hy_input_open(&in, p, 1), HY_OK);
	hy_doc doc;
	hy_diag d;
	assert_int_equal(hy_input_next(in, &doc, &d), HY_EIO);
	assert_string_equal(d.source, p[0]);
	assert_null(doc.data);
	assert_int_equal(hy_input_next(in, &doc, &d), HY_STOP);
	hy_input_close(in);
	hy_input_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decompress_gzip),
		cmocka_unit_test(test_decompress_zstd),
		cmocka_unit_test_setup_teardown(test_plain_and_compressed_files, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_directory_order, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_directory_loop, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_archives, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_big_archive_and_truncation, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_damaged_members, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plain_lookalikes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stdin, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_large_gzip_file, fx_setup, fx_teardown),
		cmocka_unit_test(test_shared_mjlog),
		cmocka_unit_test(test_open_usage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
