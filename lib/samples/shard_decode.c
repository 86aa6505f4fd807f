/* Reading a shard in two steps (samples/shard.h): hy_shard_fetch takes the
 * stored chunks out of HDF5, hy_shard_decode undoes their filters
 * (fletcher32, deflate, shuffle) without HDF5, in any thread. */
#include "samples/shard.h"

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "samples/shard_internal.h"

typedef struct stored {
	int raw;          /* 1: a stored chunk; 0: rows read through H5Dread */
	uint8_t *p;
	size_t len, cap;
	unsigned mask;    /* filters skipped on this chunk (bit k: filter k) */
	uint64_t chunk0;  /* the chunk's first row                         */
} stored;

struct hy_shard_chunks {
	const hy_shard *sh;
	uint64_t start;
	size_t n;
	stored f[NFIELDS];
};

struct hy_shard_decoder {
	z_stream z;
	int zinit;
	uint8_t *buf; /* a chunk after inflation */
	size_t cap;
};

hy_shard_chunks *hy_shard_chunks_new(void)
{
	return calloc(1, sizeof(hy_shard_chunks));
}

void hy_shard_chunks_free(hy_shard_chunks *c)
{
	if (!c)
		return;
	for (int i = 0; i < NFIELDS; i++)
		free(c->f[i].p);
	free(c);
}

hy_shard_decoder *hy_shard_decoder_new(void)
{
	return calloc(1, sizeof(hy_shard_decoder));
}

void hy_shard_decoder_free(hy_shard_decoder *dec)
{
	if (!dec)
		return;
	if (dec->zinit)
		inflateEnd(&dec->z);
	free(dec->buf);
	free(dec);
}

int hy_shard_chunks_raw(const hy_shard_chunks *c)
{
	int k = 0;
	for (int i = 0; c && i < NFIELDS; i++)
		k += c->f[i].raw;
	return k;
}

uint32_t hy_shard_fletcher32(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t a = 0, b = 0;
	size_t words = len / 2;
	while (words) {
		/* 360 words at most between reductions: the sums stay in 32 bits */
		size_t k = words > 360 ? 360 : words;
		words -= k;
		for (; k; k--, p += 2) {
			a += (uint32_t)p[0] << 8 | p[1];
			b += a;
		}
		a = (a & 0xffff) + (a >> 16);
		b = (b & 0xffff) + (b >> 16);
	}
	if (len % 2) {
		a += (uint32_t)p[0] << 8;
		b += a;
		a = (a & 0xffff) + (a >> 16);
		b = (b & 0xffff) + (b >> 16);
	}
	a = (a & 0xffff) + (a >> 16);
	b = (b & 0xffff) + (b >> 16);
	return b << 16 | a;
}

static hy_status grow(stored *x, size_t len, hy_diag *d)
{
	if (len <= x->cap)
		return HY_OK;
	uint8_t *p = realloc(x->p, len);
	if (!p)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	x->p = p;
	x->cap = len;
	return HY_OK;
}

/* The stored chunk of dataset i that holds rows [start, start + n), or 0
 * when the decoder cannot take it (then x is filled through H5Dread). */
static hy_status fetch_one(hy_shard *sh, int i, uint64_t start, size_t n, stored *x, hy_diag *d)
{
	hy_status st = HY_OK;
	const dpipe *pp = &sh->pipe[i];
	const field *f = &hy_shard_fields[i];
	x->raw = 0;
	if (pp->fast && start / pp->chunk == (start + n - 1) / pp->chunk) {
		hsize_t off[3] = {start - start % pp->chunk, 0, 0};
		hsize_t size = 0;
		HY_H5(H5Dget_chunk_storage_size(sh->ds[i], off, &size), HY_EDATA);
		/* 0: never written (HDF5 gives the fill value); an absurd size
		 * is HDF5's to judge */
		if (size > 0 && size <= 2 * (hsize_t)pp->chunk * f->size + 4096) {
			if ((st = grow(x, (size_t)size, d)))
				return st;
			uint32_t mask = 0;
			HY_H5(H5Dread_chunk(sh->ds[i], H5P_DEFAULT, off, &mask, x->p), HY_EDATA);
			x->raw = 1;
			x->len = (size_t)size;
			x->mask = mask;
			x->chunk0 = off[0];
			return HY_OK;
		}
	}
	if ((st = grow(x, n * f->size, d)))
		return st;
	x->len = n * f->size;
	return hy_shard_read_cols(sh, i, start, n, x->p, d);
out:
	return st;
}

hy_status hy_shard_fetch(hy_shard *sh, uint64_t start, size_t n, hy_shard_chunks *c,
			 hy_diag *d)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!sh || !c)
		return HY_EUSAGE;
	hy_status st = hy_shard_range_ok(sh, start, n, d);
	c->sh = sh;
	c->start = start;
	c->n = 0;
	for (int i = 0; !st && n && i < NFIELDS; i++)
		st = fetch_one(sh, i, start, n, &c->f[i], d);
	if (st) {
		if (d)
			snprintf(d->source, sizeof d->source, "%s", sh->name);
		return st;
	}
	c->n = n;
	return HY_OK;
}

/* Inflates p[0..len) (a zlib stream, as HDF5's deflate filter writes it)
 * into dec->buf; exactly want bytes or HY_EDATA. */
static hy_status inflate_chunk(hy_shard_decoder *dec, const uint8_t *p, size_t len, size_t want,
			       int checked, const char *what, hy_diag *d)
{
	if (want > dec->cap) {
		free(dec->buf);
		dec->cap = 0;
		if (!(dec->buf = malloc(want)))
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		dec->cap = want;
	}
	z_stream *z = &dec->z;
	if (!dec->zinit) {
		memset(z, 0, sizeof *z);
		if (inflateInit(z) != Z_OK)
			return hy_diag_set(d, HY_ENOMEM, 0, "zlib: inflateInit failed");
		dec->zinit = 1;
	} else if (inflateReset(z) != Z_OK) {
		return hy_diag_set(d, HY_EDATA, 0, "zlib: inflateReset failed");
	}
	/* zlib's adler32 of the inflated bytes (a sixth of the time) only
	 * where no fletcher32 has vouched for the stored ones */
	if (inflateValidate(z, !checked) != Z_OK)
		return hy_diag_set(d, HY_EDATA, 0, "zlib: inflateValidate failed");
	z->next_in = (Bytef *)p;
	z->avail_in = (uInt)len;
	z->next_out = dec->buf;
	z->avail_out = (uInt)want;
	int zr = inflate(z, Z_FINISH);
	if (zr != Z_STREAM_END || z->total_out != want)
		return hy_diag_set(d, HY_EDATA, 0, "%s: the deflate stream is damaged (zlib: %s, "
				   "%lu of %zu bytes)", what,
				   zr == Z_STREAM_END ? "short" : z->msg ? z->msg : "incomplete",
				   (unsigned long)z->total_out, want);
	return HY_OK;
}

/* Rows [row0, row0 + n) of a chunk of nelem elements of elem bytes, per_row
 * a row, into out[k] at offset; shuffled: byte j of element e is at
 * src[j · nelem + e] (HDF5's shuffle filter). */
static void copy_rows(hy_sample *out, size_t offset, const uint8_t *src, size_t nelem,
		      size_t elem, size_t per_row, uint64_t row0, size_t n, int shuffled)
{
	const size_t bytes = elem * per_row;
	for (size_t r = 0; r < n; r++) {
		uint8_t *o = (uint8_t *)&out[r] + offset;
		size_t e0 = (size_t)(row0 + r) * per_row;
		if (!shuffled) {
			memcpy(o, src + e0 * elem, bytes);
		} else if (elem == 2) {
			const uint8_t *lo = src + e0, *hi = src + nelem + e0;
			size_t k = 0;
#ifdef __SSE2__
			/* 16 elements a step: the low and high bytes interleaved */
			for (; k + 16 <= per_row; k += 16) {
				__m128i l = _mm_loadu_si128((const __m128i *)(lo + k));
				__m128i h = _mm_loadu_si128((const __m128i *)(hi + k));
				_mm_storeu_si128((__m128i *)(o + 2 * k), _mm_unpacklo_epi8(l, h));
				_mm_storeu_si128((__m128i *)(o + 2 * k + 16), _mm_unpackhi_epi8(l, h));
			}
#endif
			for (; k < per_row; k++) {
				uint16_t v = (uint16_t)(lo[k] | hi[k] << 8);
				memcpy(o + 2 * k, &v, 2);
			}
		} else {
			for (size_t j = 0; j < elem; j++) {
				const uint8_t *pl = src + j * nelem + e0;
				for (size_t k = 0; k < per_row; k++)
					o[k * elem + j] = pl[k];
			}
		}
	}
}

/* Dataset i's rows of c into out: the filters undone in reverse order. */
static hy_status decode_one(hy_shard_decoder *dec, const hy_shard_chunks *c, int i,
			    hy_sample *out, hy_diag *d)
{
	const stored *x = &c->f[i];
	const field *f = &hy_shard_fields[i];
	if (!x->raw) {
		for (size_t k = 0; k < c->n; k++)
			memcpy((char *)&out[k] + f->offset, x->p + k * f->size, f->size);
		return HY_OK;
	}
	const dpipe *pp = &c->sh->pipe[i];
	const size_t want = (size_t)pp->chunk * f->size;
	const uint8_t *p = x->p;
	size_t len = x->len;
	int shuffled = 0, checked = 0;
	char what[128];
	snprintf(what, sizeof what, "dataset '%s', chunk at sample %llu", f->name,
		 (unsigned long long)x->chunk0 + 1);
	for (int k = pp->nf - 1; k >= 0; k--) {
		if (x->mask & (1u << k))
			continue; /* an optional filter that was not applied */
		switch (pp->filt[k]) {
		case H5Z_FILTER_FLETCHER32: {
			if (len < 4)
				return hy_diag_set(d, HY_EDATA, 0, "checksum mismatch: the file is "
						   "damaged (%s: %zu bytes stored)", what, len);
			len -= 4;
			uint32_t want_sum = (uint32_t)p[len] | (uint32_t)p[len + 1] << 8 |
					    (uint32_t)p[len + 2] << 16 | (uint32_t)p[len + 3] << 24;
			uint32_t sum = hy_shard_fletcher32(p, len);
			/* HDF5 before 1.6.3 stored the halves byte-swapped on
			 * little-endian machines; HDF5 accepts both */
			uint32_t old = (sum & 0x00ff00ffu) << 8 | (sum & 0xff00ff00u) >> 8;
			if (want_sum != sum && want_sum != old)
				return hy_diag_set(d, HY_EDATA, 0, "checksum mismatch: the file is "
						   "damaged (%s: fletcher32 %08x, stored %08x)", what,
						   (unsigned)sum, (unsigned)want_sum);
			checked = 1;
			break;
		}
		case H5Z_FILTER_DEFLATE: {
			hy_status st = inflate_chunk(dec, p, len, want, checked, what, d);
			if (st)
				return st;
			p = dec->buf;
			len = want;
			break;
		}
		case H5Z_FILTER_SHUFFLE:
			shuffled = 1;
			break;
		default:
			return hy_diag_set(d, HY_EUNSUP, 0, "%s: filter %d", what, pp->filt[k]);
		}
	}
	if (len != want)
		return hy_diag_set(d, HY_EDATA, 0, "%s holds %zu bytes after its filters; expected "
				   "%zu", what, len, want);
	size_t nelem = want / pp->elem;
	/* HDF5 leaves 1-byte elements and single elements as they are */
	shuffled = shuffled && pp->elem > 1 && nelem > 1;
	copy_rows(out, f->offset, p, nelem, pp->elem, pp->per_row, c->start - x->chunk0, c->n,
		  shuffled);
	return HY_OK;
}

hy_status hy_shard_decode(hy_shard_decoder *dec, const hy_shard_chunks *c, hy_sample *out,
			  hy_diag *d)
{
	if (!dec || !c || !c->sh || (!out && c->n))
		return HY_EUSAGE;
	hy_status st = HY_OK;
	/* every field is written whole: only the bytes between them need
	 * clearing, as hy_shard_read clears them; obs, most of a sample, not */
	const size_t o0 = hy_shard_fields[0].offset, o1 = o0 + hy_shard_fields[0].size;
	for (size_t k = 0; k < c->n; k++) {
		memset(&out[k], 0, o0);
		memset((char *)&out[k] + o1, 0, sizeof *out - o1);
	}
	for (int i = 0; !st && c->n && i < NFIELDS; i++)
		st = decode_one(dec, c, i, out, d);
	if (!st)
		st = hy_shard_check_samples(out, c->start, c->n, d);
	if (st && d)
		snprintf(d->source, sizeof d->source, "%s", c->sh->name);
	return st;
}
