/* The sample stream (formats/samples.md is the normative spec). */
#include "samples/stream.h"

#include "core/le.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ------------------------------------------------------------ layout */

enum {
	REC_SAMPLE = 1,
	REC_TRAILER = 3,

	/* SAMPLE record offsets */
	SR_ACTION = 1,
	SR_SEAT = 2,
	SR_GRAND_KYOKU = 3,
	SR_HONBA = 4,
	SR_RANK = 5,
	SR_GRP = 6,
	SR_OPP_TENPAI = 7,
	SR_FLAGS = 8,
	SR_STEP = 10,
	SR_SCORE = 12,
	SR_KYOKU_DELTA = 16,
	SR_LOGP = 20,
	SR_VALUE = 24,
	SR_REWARD = 28,
	SR_ADV = 32,
	SR_RET = 36,
	SR_MASK = 40,
	SR_GAME = 48,
	SR_OPP_WAITS = 56,
	SR_OBS = 96,
	SR_OBS_END = SR_OBS + 2 * HY_OBS_SIZE, /* 5876 */

	/* TRAILER record offsets */
	TR_MAGIC = 8,
	TR_COUNT = 16,
	TR_CRC = 24,

	/* header offsets */
	H_VERSION = 8,
	H_HSIZE = 10,
	H_RSIZE = 12,
	H_DTYPE = 16,
	H_CHANNELS = 18,
	H_TILES = 20,
	H_ACTIONS = 22,
};

#define TRAILER_MAGIC "HYSMEND" /* with its NUL: 8 bytes */

_Static_assert(sizeof HY_SMS_MAGIC - 1 == 8, "frame magic is 8 bytes");
_Static_assert(sizeof TRAILER_MAGIC == 8, "trailer magic is 8 bytes with its NUL");
_Static_assert(SR_OPP_WAITS + 24 <= SR_OBS, "fields fit before obs");
_Static_assert(SR_OBS_END == 5876 && SR_OBS_END <= HY_SMS_RECORD_SIZE, "obs fits a record");
_Static_assert(HY_SMS_RECORD_SIZE % 128 == 0, "records are a multiple of 128 bytes");
_Static_assert(sizeof(float) == 4, "IEEE binary32 floats");

int hy_sms_is_stream(const void *data, size_t len)
{
	return data && len >= 8 && memcmp(data, HY_SMS_MAGIC, 8) == 0;
}

const char *hy_sample_check(const hy_sample *s)
{
	if (s->action >= HY_ACTIONS)
		return "action is over 45";
	if (s->mask >> HY_ACTIONS)
		return "mask has bits above 45";
	if (!(s->mask >> s->action & 1))
		return "action is not legal in the mask";
	if (s->seat > 3)
		return "seat is over 3";
	if (s->rank > 3)
		return "rank is over 3";
	if (s->grp >= HY_GRP_CLASSES)
		return "grp is over 23";
	if (s->opp_tenpai > 7)
		return "opp_tenpai has bits above 2";
	for (int o = 0; o < 3; o++)
		if (s->opp_waits[o] >> HY_OBS_TILES)
			return "opp_waits has bits above 33";
	return NULL;
}

void hy_sms_encode(const hy_sample *s, uint8_t *p)
{
	memset(p, 0, HY_SMS_RECORD_SIZE);
	p[0] = REC_SAMPLE;
	p[SR_ACTION] = s->action;
	p[SR_SEAT] = s->seat;
	p[SR_GRAND_KYOKU] = s->grand_kyoku;
	p[SR_HONBA] = s->honba;
	p[SR_RANK] = s->rank;
	p[SR_GRP] = s->grp;
	p[SR_OPP_TENPAI] = s->opp_tenpai;
	p[SR_FLAGS] = s->flags;
	hy_put_u16le(p + SR_STEP, s->step);
	hy_put_u32le(p + SR_SCORE, (uint32_t)s->score);
	hy_put_u32le(p + SR_KYOKU_DELTA, (uint32_t)s->kyoku_delta);
	hy_put_f32le(p + SR_LOGP, s->logp);
	hy_put_f32le(p + SR_VALUE, s->value);
	hy_put_f32le(p + SR_REWARD, s->reward);
	hy_put_f32le(p + SR_ADV, s->adv);
	hy_put_f32le(p + SR_RET, s->ret);
	hy_put_u64le(p + SR_MASK, s->mask);
	hy_put_u64le(p + SR_GAME, s->game);
	for (int o = 0; o < 3; o++)
		hy_put_u64le(p + SR_OPP_WAITS + 8 * o, s->opp_waits[o]);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p + SR_OBS, s->obs, 2 * HY_OBS_SIZE);
#else
	uint8_t *q = p + SR_OBS;
	for (int i = 0; i < HY_OBS_SIZE; i++, q += 2)
		hy_put_u16le(q, s->obs[i]);
#endif
}

void hy_sms_decode(const uint8_t *p, hy_sample *s)
{
	memset(s, 0, sizeof *s);
	s->action = p[SR_ACTION];
	s->seat = p[SR_SEAT];
	s->grand_kyoku = p[SR_GRAND_KYOKU];
	s->honba = p[SR_HONBA];
	s->rank = p[SR_RANK];
	s->grp = p[SR_GRP];
	s->opp_tenpai = p[SR_OPP_TENPAI];
	s->flags = p[SR_FLAGS];
	s->step = hy_get_u16le(p + SR_STEP);
	s->score = hy_get_i32le(p + SR_SCORE);
	s->kyoku_delta = hy_get_i32le(p + SR_KYOKU_DELTA);
	s->logp = hy_get_f32le(p + SR_LOGP);
	s->value = hy_get_f32le(p + SR_VALUE);
	s->reward = hy_get_f32le(p + SR_REWARD);
	s->adv = hy_get_f32le(p + SR_ADV);
	s->ret = hy_get_f32le(p + SR_RET);
	s->mask = hy_get_u64le(p + SR_MASK);
	s->game = hy_get_u64le(p + SR_GAME);
	for (int o = 0; o < 3; o++)
		s->opp_waits[o] = hy_get_u64le(p + SR_OPP_WAITS + 8 * o);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(s->obs, p + SR_OBS, 2 * HY_OBS_SIZE);
#else
	const uint8_t *q = p + SR_OBS;
	for (int i = 0; i < HY_OBS_SIZE; i++, q += 2)
		s->obs[i] = hy_get_u16le(q);
#endif
}

static void put_header(uint8_t *p)
{
	memset(p, 0, HY_SMS_HEADER_SIZE);
	memcpy(p, HY_SMS_MAGIC, 8);
	hy_put_u16le(p + H_VERSION, HY_SMS_VERSION);
	hy_put_u16le(p + H_HSIZE, HY_SMS_HEADER_SIZE);
	hy_put_u32le(p + H_RSIZE, HY_SMS_RECORD_SIZE);
	p[H_DTYPE] = HY_SMS_DTYPE_F16;
	hy_put_u16le(p + H_CHANNELS, HY_OBS_CHANNELS);
	hy_put_u16le(p + H_TILES, HY_OBS_TILES);
	hy_put_u16le(p + H_ACTIONS, HY_ACTIONS);
}

/* ------------------------------------------------------------ writer */

enum { WBUF_RECORDS = 64 };

struct hy_sms_writer {
	FILE *f;
	uint8_t *buf; /* header (once) + up to WBUF_RECORDS records */
	size_t len;
	uint32_t crc;
	uint64_t nrec;
	int header_done;
	hy_status err;
};

hy_status hy_sms_writer_open(hy_sms_writer **wp, FILE *f)
{
	if (!wp)
		return HY_EUSAGE;
	*wp = NULL;
	if (!f)
		return HY_EUSAGE;
	hy_sms_writer *w = calloc(1, sizeof *w);
	if (!w)
		return HY_ENOMEM;
	w->buf = malloc(HY_SMS_HEADER_SIZE + (size_t)WBUF_RECORDS * HY_SMS_RECORD_SIZE);
	if (!w->buf) {
		free(w);
		return HY_ENOMEM;
	}
	w->f = f;
	w->crc = (uint32_t)crc32_z(0, NULL, 0);
	*wp = w;
	return HY_OK;
}

uint64_t hy_sms_writer_count(const hy_sms_writer *w)
{
	return w ? w->nrec : 0;
}

static hy_status w_fail(hy_sms_writer *w, hy_diag *d, hy_status s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static hy_status w_fail(hy_sms_writer *w, hy_diag *d, hy_status s, const char *fmt, ...)
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

static hy_status w_flush(hy_sms_writer *w, hy_diag *d)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len) {
		int e = errno;
		w->len = 0;
		return w_fail(w, d, HY_EIO, "cannot write sample stream: %s",
			      strerror(e ? e : EIO));
	}
	w->len = 0;
	return HY_OK;
}

static void w_header(hy_sms_writer *w)
{
	put_header(w->buf + w->len);
	w->len += HY_SMS_HEADER_SIZE;
	w->header_done = 1;
}

hy_status hy_sms_write(hy_sms_writer *w, const hy_sample *s, hy_diag *d)
{
	if (!w || !s)
		return HY_EUSAGE;
	if (w->err)
		return w_fail(w, d, w->err, "sample stream writer failed earlier");
	const char *why = hy_sample_check(s);
	if (why)
		return w_fail(w, d, HY_EUSAGE, "sample %llu cannot be written: %s",
			      (unsigned long long)w->nrec + 1, why);
	if (!w->header_done)
		w_header(w);
	if (w->len + HY_SMS_RECORD_SIZE > HY_SMS_HEADER_SIZE + (size_t)WBUF_RECORDS * HY_SMS_RECORD_SIZE) {
		hy_status st = w_flush(w, d);
		if (st)
			return st;
	}
	uint8_t *p = w->buf + w->len;
	hy_sms_encode(s, p);
	w->crc = (uint32_t)crc32_z(w->crc, p, HY_SMS_RECORD_SIZE);
	w->len += HY_SMS_RECORD_SIZE;
	w->nrec++;
	return HY_OK;
}

hy_status hy_sms_writer_close(hy_sms_writer *w, hy_diag *d)
{
	if (!w)
		return HY_EUSAGE;
	hy_status s = w->err;
	if (s)
		w_fail(w, d, s, "sample stream writer failed earlier");
	if (!s && !w->header_done)
		w_header(w);
	if (!s && w->len + HY_SMS_RECORD_SIZE >
			  HY_SMS_HEADER_SIZE + (size_t)WBUF_RECORDS * HY_SMS_RECORD_SIZE)
		s = w_flush(w, d);
	if (!s) {
		uint8_t *t = w->buf + w->len;
		memset(t, 0, HY_SMS_RECORD_SIZE);
		t[0] = REC_TRAILER;
		memcpy(t + TR_MAGIC, TRAILER_MAGIC, 8);
		hy_put_u64le(t + TR_COUNT, w->nrec);
		hy_put_u32le(t + TR_CRC, w->crc);
		w->len += HY_SMS_RECORD_SIZE;
		s = w_flush(w, d);
	}
	if (!s && (fflush(w->f) != 0 || ferror(w->f))) {
		int e = errno;
		s = w_fail(w, d, HY_EIO, "cannot write sample stream: %s", strerror(e ? e : EIO));
	}
	free(w->buf);
	free(w);
	return s;
}

void hy_sms_writer_abort(hy_sms_writer *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w);
}

/* ------------------------------------------------------------ reader */

struct hy_sms_reader {
	char *source;
	FILE *f;              /* NULL: memory reader          */
	const uint8_t *data;  /* memory reader: data[pos..len) */
	size_t pos, len;
	uint8_t prefix[8];    /* sniffed bytes, read first     */
	size_t npre, prepos;
	uint8_t *rec;         /* one record                    */
	uint64_t offset;      /* input bytes consumed          */
	int in_frame;
	uint64_t frames, records, frame_samples;
	uint32_t crc;
	hy_status err;
	uint32_t err_line;
	char err_msg[sizeof((hy_diag *)0)->msg];
};

static hy_status r_new(hy_sms_reader **rp, const char *source)
{
	*rp = NULL;
	hy_sms_reader *r = calloc(1, sizeof *r);
	if (!r)
		return HY_ENOMEM;
	const char *s = source ? source : "";
	r->source = strdup(s);
	r->rec = malloc(HY_SMS_RECORD_SIZE);
	if (!r->source || !r->rec) {
		hy_sms_reader_close(r);
		return HY_ENOMEM;
	}
	*rp = r;
	return HY_OK;
}

hy_status hy_sms_reader_open_mem(hy_sms_reader **rp, const char *source, const void *data,
				 size_t len)
{
	if (!rp || (!data && len))
		return HY_EUSAGE;
	hy_status s = r_new(rp, source);
	if (s)
		return s;
	(*rp)->data = data;
	(*rp)->len = len;
	return HY_OK;
}

hy_status hy_sms_reader_open_file_prefix(hy_sms_reader **rp, const char *source, FILE *f,
					 const void *prefix, size_t nprefix)
{
	if (!rp || !f || nprefix > 8 || (nprefix && !prefix))
		return HY_EUSAGE;
	hy_status s = r_new(rp, source);
	if (s)
		return s;
	(*rp)->f = f;
	if (nprefix)
		memcpy((*rp)->prefix, prefix, nprefix);
	(*rp)->npre = nprefix;
	return HY_OK;
}

hy_status hy_sms_reader_open_file(hy_sms_reader **rp, const char *source, FILE *f)
{
	return hy_sms_reader_open_file_prefix(rp, source, f, NULL, 0);
}

void hy_sms_reader_close(hy_sms_reader *r)
{
	if (!r)
		return;
	free(r->source);
	free(r->rec);
	free(r);
}

uint64_t hy_sms_reader_records(const hy_sms_reader *r)
{
	return r ? r->records : 0;
}

static void r_to_diag(const hy_sms_reader *r, hy_diag *d)
{
	if (!d)
		return;
	d->status = r->err;
	d->line = r->err_line;
	d->game = UINT32_MAX;
	snprintf(d->source, sizeof d->source, "%s", r->source);
	snprintf(d->msg, sizeof d->msg, "%s", r->err_msg);
}

static hy_status r_fail(hy_sms_reader *r, hy_diag *d, hy_status s, uint64_t rec,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static hy_status r_fail(hy_sms_reader *r, hy_diag *d, hy_status s, uint64_t rec,
			const char *fmt, ...)
{
	r->err = s;
	r->err_line = rec > UINT32_MAX ? UINT32_MAX : (uint32_t)rec;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err_msg, sizeof r->err_msg, fmt, ap);
	va_end(ap);
	r_to_diag(r, d);
	return s;
}

/* Reads up to n bytes into dst; returns how many (fewer only at the end of
 * the input or on a read error: *ioerr set). */
static size_t r_get(hy_sms_reader *r, uint8_t *dst, size_t n, int *ioerr)
{
	size_t got = 0;
	*ioerr = 0;
	if (!r->f) {
		got = r->len - r->pos < n ? r->len - r->pos : n;
		memcpy(dst, r->data + r->pos, got);
		r->pos += got;
	} else {
		while (got < n && r->prepos < r->npre)
			dst[got++] = r->prefix[r->prepos++];
		if (got < n) {
			got += fread(dst + got, 1, n - got, r->f);
			if (got < n && ferror(r->f))
				*ioerr = 1;
		}
	}
	r->offset += got;
	return got;
}

static hy_status r_io_fail(hy_sms_reader *r, hy_diag *d)
{
	int e = errno;
	return r_fail(r, d, HY_EIO, r->records, "cannot read sample stream: %s",
		      strerror(e ? e : EIO));
}

/* Reads a frame header: HY_OK, HY_STOP at the clean end, or an error. */
static hy_status r_header(hy_sms_reader *r, hy_diag *d)
{
	uint8_t p[HY_SMS_HEADER_SIZE];
	uint64_t at = r->offset;
	int ioerr;
	size_t got = r_get(r, p, sizeof p, &ioerr);
	if (ioerr)
		return r_io_fail(r, d);
	char where[96] = "";
	if (r->frames)
		snprintf(where, sizeof where, " in frame %llu at byte %llu",
			 (unsigned long long)r->frames + 1, (unsigned long long)at);
	if (got < sizeof p) {
		if (got == 0 && r->frames)
			return HY_STOP;
		if (got == 0)
			return r_fail(r, d, HY_ETRUNC, 0, "truncated sample stream: input is empty");
		if (memcmp(p, HY_SMS_MAGIC, got < 8 ? got : 8) != 0)
			return r_fail(r, d, HY_EFORMAT, r->records,
				      "not a sample stream (bad magic)%s", where);
		return r_fail(r, d, HY_ETRUNC, r->records,
			      "truncated sample stream: frame header cut short (%zu of %d bytes)%s",
			      got, HY_SMS_HEADER_SIZE, where);
	}
	if (memcmp(p, HY_SMS_MAGIC, 8) != 0)
		return r_fail(r, d, HY_EFORMAT, r->records, "not a sample stream (bad magic)%s",
			      where);
	unsigned version = hy_get_u16le(p + H_VERSION);
	if (version > HY_SMS_VERSION)
		return r_fail(r, d, HY_EVERSION, r->records,
			      "sample stream version %u is newer than this program supports (%d)%s",
			      version, HY_SMS_VERSION, where);
	if (version == 0)
		return r_fail(r, d, HY_EFORMAT, r->records, "sample stream version 0 is invalid%s",
			      where);
	unsigned hsize = hy_get_u16le(p + H_HSIZE);
	if (hsize != HY_SMS_HEADER_SIZE)
		return r_fail(r, d, HY_EFORMAT, r->records,
			      "sample stream header size %u is not %d%s", hsize,
			      HY_SMS_HEADER_SIZE, where);
	uint32_t rsize = hy_get_u32le(p + H_RSIZE);
	if (rsize != HY_SMS_RECORD_SIZE)
		return r_fail(r, d, HY_EFORMAT, r->records,
			      "sample stream record size %lu is not %d%s", (unsigned long)rsize,
			      HY_SMS_RECORD_SIZE, where);
	if (p[H_DTYPE] != HY_SMS_DTYPE_F16)
		return r_fail(r, d, HY_EFORMAT, r->records,
			      "sample stream obs dtype %u is not %d (IEEE half)%s", p[H_DTYPE],
			      HY_SMS_DTYPE_F16, where);
	unsigned ch = hy_get_u16le(p + H_CHANNELS), ti = hy_get_u16le(p + H_TILES),
		 ac = hy_get_u16le(p + H_ACTIONS);
	if (ch != HY_OBS_CHANNELS || ti != HY_OBS_TILES || ac != HY_ACTIONS)
		return r_fail(r, d, HY_EFORMAT, r->records,
			      "sample stream shape is obs %ux%u, %u actions; this program "
			      "reads obs %dx%d, %d actions%s",
			      ch, ti, ac, HY_OBS_CHANNELS, HY_OBS_TILES, HY_ACTIONS, where);
	r->in_frame = 1;
	r->frames++;
	r->frame_samples = 0;
	r->crc = (uint32_t)crc32_z(0, NULL, 0);
	return HY_OK;
}

static hy_status r_trailer(hy_sms_reader *r, const uint8_t *p, hy_diag *d)
{
	uint64_t rec = r->records + 1;
	if (memcmp(p + TR_MAGIC, TRAILER_MAGIC, 8) != 0)
		return r_fail(r, d, HY_EDATA, rec, "bad trailer record: magic is not \"HYSMEND\"");
	uint64_t count = hy_get_u64le(p + TR_COUNT);
	if (count != r->frame_samples)
		return r_fail(r, d, HY_EDATA, rec,
			      "sample count mismatch: trailer says %llu, frame has %llu",
			      (unsigned long long)count, (unsigned long long)r->frame_samples);
	uint32_t crc = hy_get_u32le(p + TR_CRC);
	if (crc != r->crc)
		return r_fail(r, d, HY_EDATA, rec,
			      "checksum mismatch: trailer says CRC-32 %08lx, records give %08lx",
			      (unsigned long)crc, (unsigned long)r->crc);
	r->records++;
	r->in_frame = 0;
	return HY_OK;
}

hy_status hy_sms_read(hy_sms_reader *r, hy_sample *s, hy_diag *d)
{
	if (!r || !s)
		return HY_EUSAGE;
	if (r->err) {
		r_to_diag(r, d);
		return r->err;
	}
	for (;;) {
		if (!r->in_frame) {
			hy_status st = r_header(r, d);
			if (st)
				return st;
		}
		int ioerr;
		size_t got = r_get(r, r->rec, HY_SMS_RECORD_SIZE, &ioerr);
		if (ioerr)
			return r_io_fail(r, d);
		if (got < HY_SMS_RECORD_SIZE) {
			if (got)
				return r_fail(r, d, HY_ETRUNC, r->records + 1,
					      "truncated sample stream: no trailer after record "
					      "%llu (record %llu is cut short: %zu of %d bytes)",
					      (unsigned long long)r->records,
					      (unsigned long long)r->records + 1, got,
					      HY_SMS_RECORD_SIZE);
			return r_fail(r, d, HY_ETRUNC, r->records,
				      "truncated sample stream: no trailer after record %llu",
				      (unsigned long long)r->records);
		}
		uint64_t rec = r->records + 1;
		const uint8_t *p = r->rec;
		if (p[0] == REC_TRAILER) {
			hy_status st = r_trailer(r, p, d);
			if (st)
				return st;
			continue;
		}
		if (p[0] != REC_SAMPLE)
			return r_fail(r, d, HY_EDATA, rec, "unknown record type %u", p[0]);
		r->crc = (uint32_t)crc32_z(r->crc, p, HY_SMS_RECORD_SIZE);
		hy_sms_decode(p, s);
		const char *why = hy_sample_check(s);
		if (why)
			return r_fail(r, d, HY_EDATA, rec, "bad sample record: %s", why);
		r->records++;
		r->frame_samples++;
		return HY_OK;
	}
}
