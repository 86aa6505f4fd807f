/* Framed streams of fixed-size records (see frames.h). */
#include "io/frames.h"

#include "core/le.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum {
	H_VERSION = 8,
	H_HSIZE = 10,
	H_RSIZE = 12,

	TR_MAGIC = 8,
	TR_COUNT = 16,
	TR_CRC = 24,
};

/* ------------------------------------------------------------ writer */

static const char ABORT_MAGIC[8] = "HYABORT"; /* with its NUL */

static void w_free(hy_frame_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->crc_from = 0;
}

hy_status hy_frame_writer_init(hy_frame_writer *w, const hy_frame_format *fmt, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->buf = malloc(fmt->wbuf_size);
	if (!w->buf)
		return HY_ENOMEM;
	w->fmt = fmt;
	w->f = f;
	w->rs = fmt->record_size;
	w->crc = (uint32_t)crc32_z(0, NULL, 0);
	uint8_t *p = w->buf; /* the header: written at the first flush or at close */
	memset(p, 0, fmt->header_size);
	memcpy(p, fmt->magic, 8);
	hy_put_u16le(p + H_VERSION, (uint16_t)fmt->version);
	hy_put_u16le(p + H_HSIZE, (uint16_t)fmt->header_size);
	hy_put_u32le(p + H_RSIZE, (uint32_t)fmt->record_size);
	if (fmt->put_header)
		fmt->put_header(p);
	w->len = w->crc_from = fmt->header_size;
	return HY_OK;
}

hy_status hy_frame_writer_set_record_size(hy_frame_writer *w, size_t rs)
{
	const hy_frame_format *f = w->fmt;
	if (w->nrec || !w->buf || w->len != f->header_size ||
	    (rs != f->record_size && (!f->alt_record_size || rs != f->alt_record_size)) ||
	    f->header_size + rs > f->wbuf_size)
		return HY_EUSAGE;
	w->rs = rs;
	hy_put_u32le(w->buf + H_RSIZE, (uint32_t)rs);
	return HY_OK;
}

hy_status hy_frame_wfail(hy_frame_writer *w, hy_diag *d, hy_status s, const char *fmt, ...)
{
	if (s == HY_EIO || s == HY_ENOMEM)
		w->err = s; /* the frame is lost: later calls fail too */
	if (d) {
		d->status = s;
		d->line = 0;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->msg, sizeof d->msg, fmt, ap);
		va_end(ap);
	}
	return s;
}

hy_status hy_frame_writer_check(hy_frame_writer *w, hy_diag *d)
{
	if (!w->err)
		return HY_OK;
	return hy_frame_wfail(w, d, w->err, "%s writer failed earlier", w->fmt->name);
}

void hy_frame_crc_catch_up_w(hy_frame_writer *w)
{
	if (w->len > w->crc_from)
		w->crc = (uint32_t)crc32_z(w->crc, w->buf + w->crc_from, w->len - w->crc_from);
	w->crc_from = w->len;
}

static hy_status w_io_fail(hy_frame_writer *w, hy_diag *d)
{
	int e = errno;
	return hy_frame_wfail(w, d, HY_EIO, "cannot write %s: %s", w->fmt->name,
			      strerror(e ? e : EIO));
}

hy_status hy_frame_flush(hy_frame_writer *w, hy_diag *d)
{
	hy_frame_crc_catch_up_w(w);
	size_t n = w->len;
	w->len = w->crc_from = 0;
	if (n && fwrite(w->buf, 1, n, w->f) != n)
		return w_io_fail(w, d);
	return HY_OK;
}

hy_status hy_frame_writer_close(hy_frame_writer *w, hy_diag *d)
{
	hy_status s = hy_frame_writer_check(w, d);
	size_t rs = w->rs;
	if (!s && w->len + rs > w->fmt->wbuf_size)
		s = hy_frame_flush(w, d);
	if (!s) {
		hy_frame_crc_catch_up_w(w);
		uint8_t *t = w->buf + w->len;
		memset(t, 0, rs);
		t[0] = HY_FRAME_REC_TRAILER;
		memcpy(t + TR_MAGIC, w->fmt->trailer_magic, 8);
		hy_put_u64le(t + TR_COUNT, w->nrec);
		hy_put_u32le(t + TR_CRC, w->crc);
		w->len += rs;
		w->crc_from = w->len; /* not a record of the frame */
		s = hy_frame_flush(w, d);
	}
	if (!s && (fflush(w->f) != 0 || ferror(w->f)))
		s = w_io_fail(w, d);
	w_free(w);
	return s;
}

void hy_frame_writer_abort(hy_frame_writer *w, const char *why)
{
	size_t rs = w->rs;
	if (w->buf && !w->err && (w->len + rs <= w->fmt->wbuf_size || !hy_frame_flush(w, NULL))) {
		uint8_t *t = w->buf + w->len;
		memset(t, 0, rs);
		t[0] = HY_FRAME_REC_ABORT;
		memcpy(t + TR_MAGIC, ABORT_MAGIC, 8);
		size_t n = why ? strlen(why) : 0;
		if (n > rs - HY_FRAME_ABORT_WHY)
			n = rs - HY_FRAME_ABORT_WHY;
		hy_put_u32le(t + TR_COUNT, (uint32_t)n);
		if (n)
			memcpy(t + HY_FRAME_ABORT_WHY, why, n);
		w->len += rs;
		hy_frame_crc_catch_up_w(w);
		if (!hy_frame_flush(w, NULL))
			fflush(w->f);
	}
	w_free(w);
}

/* ------------------------------------------------------------ reader */

static hy_status r_init(hy_frame_reader *r, const hy_frame_format *fmt, const char *source)
{
	memset(r, 0, sizeof *r);
	r->fmt = fmt;
	r->err_game = UINT32_MAX;
	const char *s = source ? source : "";
	r->source = malloc(strlen(s) + 1);
	if (!r->source)
		return HY_ENOMEM;
	strcpy(r->source, s);
	return HY_OK;
}

hy_status hy_frame_reader_init_mem(hy_frame_reader *r, const hy_frame_format *fmt,
				   const char *source, const void *data, size_t len)
{
	hy_status s = r_init(r, fmt, source);
	if (s)
		return s;
	r->data = data;
	r->len = len;
	r->eof = 1;
	return HY_OK;
}

hy_status hy_frame_reader_init_file(hy_frame_reader *r, const hy_frame_format *fmt,
				    const char *source, FILE *f, const void *prefix,
				    size_t nprefix)
{
	hy_status s = r_init(r, fmt, source);
	if (s)
		return s;
	r->buf = malloc(fmt->rbuf_size);
	if (!r->buf) {
		hy_frame_reader_fini(r);
		return HY_ENOMEM;
	}
	r->f = f;
	r->data = r->buf;
	if (nprefix)
		memcpy(r->buf, prefix, nprefix);
	r->len = nprefix;
	return HY_OK;
}

void hy_frame_reader_fini(hy_frame_reader *r)
{
	free(r->source);
	free(r->buf);
	r->source = NULL;
	r->buf = NULL;
}

void hy_frame_rdiag(const hy_frame_reader *r, hy_diag *d)
{
	if (!d)
		return;
	d->status = r->err;
	d->line = r->err_line;
	d->game = r->err_game;
	snprintf(d->source, sizeof d->source, "%s", r->source);
	snprintf(d->msg, sizeof d->msg, "%s", r->err_msg);
}

hy_status hy_frame_rfail(hy_frame_reader *r, hy_diag *d, hy_status s, uint64_t rec,
			 uint32_t game, const char *fmt, ...)
{
	r->err = s;
	r->err_line = rec > UINT32_MAX ? UINT32_MAX : (uint32_t)rec;
	r->err_game = game;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err_msg, sizeof r->err_msg, fmt, ap);
	va_end(ap);
	hy_frame_rdiag(r, d);
	return s;
}

void hy_frame_crc_catch_up_r(hy_frame_reader *r)
{
	if (r->in_frame && r->pos > r->crc_mark)
		r->crc = (uint32_t)crc32_z(r->crc, r->data + r->crc_mark, r->pos - r->crc_mark);
	r->crc_mark = r->pos;
}

/* Makes n bytes available at data + pos: HY_OK, HY_STOP when the input ends
 * first (len - pos tells how many are there), or HY_EIO (errno kept). */
static hy_status r_fill(hy_frame_reader *r, size_t n)
{
	if (r->len - r->pos >= n)
		return HY_OK;
	if (r->eof)
		return HY_STOP;
	hy_frame_crc_catch_up_r(r);
	size_t keep = r->len - r->pos;
	memmove(r->buf, r->buf + r->pos, keep);
	r->offset += r->pos;
	r->pos = r->crc_mark = 0;
	r->len = keep;
	while (r->len < n && !r->eof) {
		size_t want = r->fmt->rbuf_size - r->len;
		size_t got = fread(r->buf + r->len, 1, want, r->f);
		r->len += got;
		if (got < want) {
			if (ferror(r->f))
				return HY_EIO;
			r->eof = 1;
		}
	}
	return r->len - r->pos >= n ? HY_OK : HY_STOP;
}

static hy_status r_io_fail(hy_frame_reader *r, hy_diag *d)
{
	int e = errno;
	return hy_frame_rfail(r, d, HY_EIO, r->records, UINT32_MAX, "cannot read %s: %s",
			      r->fmt->name, strerror(e ? e : EIO));
}

/* Reads a frame header: HY_OK, HY_STOP at the clean end of the input, or an
 * error. */
static hy_status r_header(hy_frame_reader *r, hy_diag *d)
{
	const hy_frame_format *fmt = r->fmt;
	const char *name = fmt->name;
	int hs = (int)fmt->header_size;
	hy_status s = r_fill(r, fmt->header_size);
	if (s == HY_EIO)
		return r_io_fail(r, d);
	const uint8_t *p = r->data + r->pos;
	size_t avail = r->len - r->pos;
	uint64_t at = r->offset + r->pos;
	uint64_t rec = r->records;
	char where[96] = "";
	if (r->frames)
		snprintf(where, sizeof where, " in frame %llu at byte %llu",
			 (unsigned long long)r->frames + 1, (unsigned long long)at);
	if (s == HY_STOP) {
		if (avail == 0 && r->frames)
			return HY_STOP;
		if (avail == 0)
			return hy_frame_rfail(r, d, HY_ETRUNC, 0, UINT32_MAX,
					      "truncated %s: input is empty", name);
		if (memcmp(p, fmt->magic, avail < 8 ? avail : 8) != 0)
			return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
					      "not %s (bad magic)%s", fmt->a_name, where);
		return hy_frame_rfail(r, d, HY_ETRUNC, rec, UINT32_MAX,
				      "truncated %s: frame header cut short (%zu of %d bytes)%s",
				      name, avail, hs, where);
	}
	if (memcmp(p, fmt->magic, 8) != 0)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX, "not %s (bad magic)%s",
				      fmt->a_name, where);
	unsigned version = hy_get_u16le(p + H_VERSION);
	if (version > fmt->version)
		return hy_frame_rfail(r, d, HY_EVERSION, rec, UINT32_MAX,
				      "%s version %u is newer than this program supports (%d)%s",
				      name, version, (int)fmt->version, where);
	if (version == 0)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
				      "%s version 0 is invalid%s", name, where);
	unsigned hsize = hy_get_u16le(p + H_HSIZE);
	if (hsize != fmt->header_size)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
				      "%s header size %u is not %d%s", name, hsize, hs, where);
	uint32_t rsize = hy_get_u32le(p + H_RSIZE);
	if (rsize != fmt->record_size && (!fmt->alt_record_size || rsize != fmt->alt_record_size))
		return fmt->alt_record_size
			       ? hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
						"%s record size %lu is not %zu or %zu%s", name,
						(unsigned long)rsize, fmt->record_size,
						fmt->alt_record_size, where)
			       : hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
						"%s record size %lu is not %zu%s", name,
						(unsigned long)rsize, fmt->record_size, where);
	if (r->rs && rsize != r->rs)
		return hy_frame_rfail(r, d, HY_EFORMAT, rec, UINT32_MAX,
				      "%s record size %lu differs from the first frame's %zu%s", name,
				      (unsigned long)rsize, r->rs, where);
	r->rs = rsize;
	if (fmt->check_header && (s = fmt->check_header(r, p, where, d)) != HY_OK)
		return s;
	r->pos += fmt->header_size;
	r->in_frame = 1;
	r->frames++;
	r->frame_records = 0;
	r->crc = (uint32_t)crc32_z(0, NULL, 0);
	r->crc_mark = r->pos;
	return HY_OK;
}

hy_status hy_frame_next_slow(hy_frame_reader *r, uint32_t game, const uint8_t **p, hy_diag *d)
{
	*p = NULL;
	if (!r->in_frame) {
		hy_status s = r_header(r, d);
		if (s)
			return s;
	}
	size_t rs = r->rs;
	hy_status s = r_fill(r, rs);
	if (s == HY_OK) {
		*p = r->data + r->pos;
		return HY_OK;
	}
	if (s == HY_EIO)
		return r_io_fail(r, d);
	size_t avail = r->len - r->pos;
	const char *name = r->fmt->name;
	if (avail)
		return hy_frame_rfail(r, d, HY_ETRUNC, r->records + 1, game,
				      "truncated %s: no trailer after record %llu "
				      "(record %llu is cut short: %zu of %d bytes)",
				      name, (unsigned long long)r->records,
				      (unsigned long long)r->records + 1, avail, (int)rs);
	return hy_frame_rfail(r, d, HY_ETRUNC, r->records, game,
			      "truncated %s: no trailer after record %llu", name,
			      (unsigned long long)r->records);
}

hy_status hy_frame_aborted(hy_frame_reader *r, const uint8_t *p, uint32_t game, hy_diag *d)
{
	uint64_t rec = r->records + 1;
	size_t rs = r->rs;
	if (memcmp(p + TR_MAGIC, ABORT_MAGIC, 8) != 0)
		return hy_frame_rfail(r, d, HY_EDATA, rec, game,
				      "bad abort record: magic is not \"HYABORT\"");
	size_t n = hy_get_u32le(p + TR_COUNT);
	if (n > rs - HY_FRAME_ABORT_WHY)
		n = rs - HY_FRAME_ABORT_WHY;
	char why[256];
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < sizeof why; i++) {
		unsigned char c = p[HY_FRAME_ABORT_WHY + i];
		why[k++] = c >= 0x20 && c != 0x7f ? (char)c : '?';
	}
	why[k] = 0;
	return hy_frame_rfail(r, d, HY_EDATA, rec, game,
			      "input stream was aborted by its producer%s%s", k ? ": " : "", why);
}

hy_status hy_frame_trailer(hy_frame_reader *r, const uint8_t *p, hy_diag *d)
{
	uint64_t rec = r->records + 1;
	hy_frame_crc_catch_up_r(r); /* the records before the trailer */
	if (memcmp(p + TR_MAGIC, r->fmt->trailer_magic, 8) != 0)
		return hy_frame_rfail(r, d, HY_EDATA, rec, UINT32_MAX,
				      "bad trailer record: magic is not \"%s\"",
				      r->fmt->trailer_magic);
	uint64_t count = hy_get_u64le(p + TR_COUNT);
	if (count != r->frame_records)
		return hy_frame_rfail(r, d, HY_EDATA, rec, UINT32_MAX,
				      "%s count mismatch: trailer says %llu, frame has %llu",
				      r->fmt->count_noun, (unsigned long long)count,
				      (unsigned long long)r->frame_records);
	uint32_t crc = hy_get_u32le(p + TR_CRC);
	if (crc != r->crc)
		return hy_frame_rfail(r, d, HY_EDATA, rec, UINT32_MAX,
				      "checksum mismatch: trailer says CRC-32 %08lx, records give %08lx",
				      (unsigned long)crc, (unsigned long)r->crc);
	r->pos += r->rs;
	r->records++;
	r->in_frame = 0;
	r->crc_mark = r->pos;
	return HY_OK;
}
