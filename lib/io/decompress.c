/* The input layer's decompression (input.h, input_internal.h): content
 * detection by magic (gzip 1f 8b; zstd 28 b5 2f fd or a skippable frame),
 * a streaming decoder for gzip (zlib, multi-member, zero padding after the
 * last member allowed) and zstd (multi-frame) over a buffer in memory that
 * tells a truncated stream (HY_ETRUNC) from a corrupt one (HY_EDATA), the
 * first guess at a decoded size (bounded by the formats' ratios), and
 * hy_decompress built on them. input.c streams compressed files and tars
 * through the decoder. */
#include "io/input.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "core/grow.h"
#include "io/input_internal.h"

/* Reports a failed library call with the call's name and our place. */
#define LIBFAIL(d, st, call, detail) \
	hy_diag_set((d), (st), 0, "%s failed: %s [%s:%d]", (call), (detail), __FILE__, __LINE__)

/* ------------------------------------------------------------ detection */

int hy_unz_kind(const unsigned char *p, size_t len)
{
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return KIND_GZIP;
	if (len >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return KIND_ZSTD;
	/* zstd skippable frame: 0x184D2A50..5F little-endian */
	if (len >= 8 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18)
		return KIND_ZSTD;
	return KIND_PLAIN;
}

hy_status hy_io_grow(char **buf, size_t *cap, size_t need, hy_diag *d)
{
	if (need < *cap)
		return HY_OK;
	size_t n = need < SIZE_MAX ? hy_grow_cap(*cap, need + 1, 4096) : 0;
	if (!n)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu bytes)", need);
	char *p = realloc(*buf, n);
	if (!p)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu bytes)", n);
	*buf = p;
	*cap = n;
	return HY_OK;
}

/* ------------------------------------------------------------ decoder */

void hy_unz_free(hy_unz *u)
{
	if (u->zs_live)
		inflateEnd(&u->zs);
	u->zs_live = 0;
	ZSTD_freeDCtx(u->zd); /* accepts NULL */
	u->zd = NULL;
}

hy_status hy_unz_init(hy_unz *u, int kind, const void *in, size_t len, hy_diag *d)
{
	memset(u, 0, sizeof *u);
	u->kind = kind;
	u->in = in;
	u->len = len;
	if (kind == KIND_GZIP) {
		int r = inflateInit2(&u->zs, 16 + MAX_WBITS);
		if (r != Z_OK)
			return LIBFAIL(d, r == Z_MEM_ERROR ? HY_ENOMEM : HY_EIO, "inflateInit2",
				       u->zs.msg ? u->zs.msg : zError(r));
		u->zs_live = 1;
	} else {
		u->zd = ZSTD_createDCtx();
		if (!u->zd)
			return LIBFAIL(d, HY_ENOMEM, "ZSTD_createDCtx", "out of memory");
		u->zret = 1;
	}
	return HY_OK;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static hy_status gz_read(hy_unz *u, unsigned char *out, size_t cap, size_t *got, hy_diag *d)
{
	size_t produced = 0;
	while (produced < cap && !u->done) {
		if (u->member_end) {
			size_t rest = u->len - u->pos;
			/* like gzip(1): zero padding after the last member is fine */
			if (rest == 0 || all_zero(u->in + u->pos, rest)) {
				u->done = 1;
				break;
			}
			if (rest < 2 || u->in[u->pos] != 0x1f || u->in[u->pos + 1] != 0x8b)
				return hy_diag_set(d, HY_EDATA, 0,
						   "trailing garbage after gzip stream (byte %zu)", u->pos);
			int r = inflateReset(&u->zs);
			if (r != Z_OK)
				return LIBFAIL(d, HY_EIO, "inflateReset", zError(r));
			u->member_end = 0;
		}
		size_t in_n = u->len - u->pos, out_n = cap - produced;
		u->zs.next_in = (unsigned char *)u->in + u->pos;
		u->zs.avail_in = in_n > UINT_MAX ? UINT_MAX : (uInt)in_n;
		u->zs.next_out = out + produced;
		u->zs.avail_out = out_n > UINT_MAX ? UINT_MAX : (uInt)out_n;
		uInt ain = u->zs.avail_in, aout = u->zs.avail_out;
		int r = inflate(&u->zs, Z_NO_FLUSH);
		u->pos += ain - u->zs.avail_in;
		produced += aout - u->zs.avail_out;
		switch (r) {
		case Z_STREAM_END:
			u->member_end = 1;
			break;
		case Z_OK:
			break;
		case Z_BUF_ERROR: /* no progress possible: input exhausted */
			if (u->pos == u->len)
				return hy_diag_set(d, HY_ETRUNC, 0, "truncated gzip stream");
			return LIBFAIL(d, HY_EIO, "inflate", "no progress");
		case Z_MEM_ERROR:
			return LIBFAIL(d, HY_ENOMEM, "inflate", "out of memory");
		case Z_NEED_DICT:
			return hy_diag_set(d, HY_EDATA, 0, "corrupt gzip stream: needs a preset dictionary");
		default: /* Z_DATA_ERROR, Z_STREAM_ERROR */
			return hy_diag_set(d, HY_EDATA, 0, "corrupt gzip stream: %s",
					   u->zs.msg ? u->zs.msg : zError(r));
		}
	}
	*got = produced;
	return HY_OK;
}

static hy_status zst_read(hy_unz *u, unsigned char *out, size_t cap, size_t *got, hy_diag *d)
{
	size_t produced = 0;
	while (produced < cap && !u->done) {
		if (u->pos == u->len && u->zret == 0) {
			u->done = 1;
			break;
		}
		ZSTD_inBuffer ib = { u->in, u->len, u->pos };
		ZSTD_outBuffer ob = { out, cap, produced };
		size_t r = ZSTD_decompressStream(u->zd, &ob, &ib);
		if (ZSTD_isError(r)) {
			if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
				return LIBFAIL(d, HY_ENOMEM, "ZSTD_decompressStream", ZSTD_getErrorName(r));
			return hy_diag_set(d, HY_EDATA, 0, "corrupt zstd stream: %s",
					   ZSTD_getErrorName(r));
		}
		int progress = ib.pos != u->pos || ob.pos != produced;
		u->pos = ib.pos;
		produced = ob.pos;
		u->zret = r;
		if (r == 0 && u->pos == u->len) {
			u->done = 1;
		} else if (!progress) {
			if (u->pos == u->len)
				return hy_diag_set(d, HY_ETRUNC, 0, "truncated zstd stream");
			return LIBFAIL(d, HY_EIO, "ZSTD_decompressStream", "no progress");
		}
	}
	*got = produced;
	return HY_OK;
}

/* Fills out[0..cap) as far as the stream goes; *got == 0 only at the end. */
hy_status hy_unz_read(hy_unz *u, void *out, size_t cap, size_t *got, hy_diag *d)
{
	*got = 0;
	if (u->kind == KIND_GZIP)
		return gz_read(u, out, cap, got, d);
	return zst_read(u, out, cap, got, d);
}

/* Decodes the rest of u into *buf (which already holds *len bytes),
 * growing it geometrically; NUL-terminates. */
hy_status hy_unz_read_all(hy_unz *u, char **buf, size_t *len, size_t *cap, hy_diag *d)
{
	for (;;) {
		hy_status s = hy_io_grow(buf, cap, *len + 1, d); /* room for ≥1 byte + NUL */
		if (s != HY_OK)
			return s;
		size_t got;
		s = hy_unz_read(u, *buf + *len, *cap - *len - 1, &got, d);
		if (s != HY_OK)
			return s;
		*len += got;
		if (u->done)
			break;
	}
	(*buf)[*len] = '\0';
	return HY_OK;
}

/* A first guess at the decoded size, so that most buffers are sized once. */
size_t hy_unz_size_hint(int kind, const unsigned char *p, size_t len)
{
	size_t h = len < SIZE_MAX / 4 ? len * 4 : len;
	if (kind == KIND_GZIP && len >= 18) {
		/* ISIZE of the last member: exact for single-member files < 4 GiB */
		const unsigned char *t = p + len - 4;
		size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
		if (isize > len && isize / 1032 <= len) /* deflate ratio ≤ 1032:1 */
			h = isize + 2; /* + NUL + 1 byte to see the end without growing */
	} else if (kind == KIND_ZSTD) {
		unsigned long long fcs = ZSTD_getFrameContentSize(p, len);
		if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR &&
		    fcs < (unsigned long long)len * 64 + (1u << 20))
			h = (size_t)fcs + 2;
	}
	return h < 4096 ? 4096 : h;
}

hy_status hy_decompress(const char *data, size_t len, char **out, size_t *outlen,
			int *kind, hy_diag *d)
{
	*out = NULL;
	*outlen = 0;
	*kind = hy_unz_kind((const unsigned char *)data, len);
	if (*kind == KIND_PLAIN)
		return HY_OK;
	hy_unz u;
	hy_status s = hy_unz_init(&u, *kind, data, len, d);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	if (s == HY_OK) {
		cap = hy_unz_size_hint(*kind, (const unsigned char *)data, len);
		buf = malloc(cap);
		if (!buf)
			s = hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu bytes)", cap);
	}
	if (s == HY_OK)
		s = hy_unz_read_all(&u, &buf, &n, &cap, d);
	hy_unz_free(&u);
	if (s != HY_OK) {
		free(buf);
		return s;
	}
	*out = buf;
	*outlen = n;
	return HY_OK;
}
