/* Private to lib/io's input layer: the gzip/zstd decoder (decompress.c)
 * that input.c reads compressed files and compressed tars through. Not
 * installed and not for other modules: they use input.h (hy_input_*,
 * hy_decompress). */
#ifndef HY_IO_INPUT_INTERNAL_H
#define HY_IO_INPUT_INTERNAL_H

#include <stddef.h>
#include <zlib.h>
#include <zstd.h>

#include "core/status.h"

/* What the content is (also hy_doc.compressed). */
enum { KIND_PLAIN = 0, KIND_GZIP = 1, KIND_ZSTD = 2 };

/* KIND_GZIP or KIND_ZSTD when p starts with that magic (or a zstd
 * skippable frame), else KIND_PLAIN. */
int hy_unz_kind(const unsigned char *p, size_t len);

/* Geometric growth of a buffer that always keeps room for a NUL after
 * `need` bytes. */
hy_status hy_io_grow(char **buf, size_t *cap, size_t need, hy_diag *d);

/* A streaming gzip or zstd decoder over len bytes at in (not copied; they
 * must outlive the decoder). */
typedef struct hy_unz {
	int kind;
	const unsigned char *in;
	size_t len, pos;
	z_stream zs;
	int zs_live;        /* inflateInit2 succeeded */
	int member_end;     /* gzip: between two members */
	ZSTD_DCtx *zd;
	size_t zret;        /* last ZSTD_decompressStream hint (0 = frame done) */
	int done;
} hy_unz;

/* Starts decoding kind (KIND_GZIP or KIND_ZSTD); hy_unz_free releases it
 * (also after a failed init). */
hy_status hy_unz_init(hy_unz *u, int kind, const void *in, size_t len, hy_diag *d);
void hy_unz_free(hy_unz *u);
/* Fills out[0..cap) as far as the stream goes; *got == 0 only at the end
 * (u->done). A stream cut short is HY_ETRUNC, a damaged one HY_EDATA. */
hy_status hy_unz_read(hy_unz *u, void *out, size_t cap, size_t *got, hy_diag *d);
/* Decodes the rest of u into *buf (which already holds *len bytes of
 * capacity *cap), growing it geometrically; NUL-terminates. */
hy_status hy_unz_read_all(hy_unz *u, char **buf, size_t *len, size_t *cap, hy_diag *d);
/* A first guess at the decoded size of len bytes of kind at p (gzip's
 * ISIZE, zstd's frame content size, within the formats' ratios), so that
 * most buffers are sized once. */
size_t hy_unz_size_hint(int kind, const unsigned char *p, size_t len);

#endif
