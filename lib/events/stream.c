/* The binary event stream (formats/events.md is the normative spec). */
#include "events/stream.h"

#include "core/le.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ------------------------------------------------------------ layout */

enum {
	REC_EVENT = 1,
	REC_TEXT = 2,
	REC_TRAILER = 3,

	TEXT_NAME0 = 0, /* 0–3: names[0..3] */
	TEXT_EXTRA = 4,
	TEXT_SOURCE = 5,
	TEXT_KINDS = 6,
	TEXT_CONTINUED = 1u << 0,
	TEXT_HDR = 12,
	TEXT_CHUNK = HY_EVS_RECORD_SIZE - TEXT_HDR, /* 116 */

	/* EVENT record offsets */
	EV_TYPE = 1,
	EV_FLAGS = 2,
	EV_GAME = 4,
	EV_LINE = 8,
	EV_ACTOR = 12,
	EV_TARGET = 13,
	EV_PAI = 14,
	EV_NCONSUMED = 15,
	EV_CONSUMED = 16,
	EV_TSUMOGIRI = 20,
	EV_BAKAZE = 21,
	EV_KYOKU = 22,
	EV_HONBA = 23,
	EV_KYOTAKU = 24,
	EV_OYA = 25,
	EV_DORA = 26,
	EV_NURA = 27,
	EV_URA = 28,
	EV_SCORES = 36,
	EV_DELTAS = 52,
	EV_TEHAIS = 68,
	EV_END = 120,

	/* TRAILER record offsets */
	TR_MAGIC = 8,
	TR_COUNT = 16,
	TR_CRC = 24,
};

#define TRAILER_MAGIC "HYEVEND" /* with its NUL: 8 bytes */

_Static_assert(sizeof HY_EVS_MAGIC - 1 == 8, "frame magic is 8 bytes");
_Static_assert(sizeof TRAILER_MAGIC == 8, "trailer magic is 8 bytes with its NUL");
_Static_assert(TEXT_CHUNK == 116 && TEXT_CHUNK <= 255, "chunk length fits a byte");
_Static_assert(EV_URA + 5 <= EV_SCORES, "ura fits before scores");
_Static_assert(EV_TEHAIS + 4 * 13 == EV_END && EV_END <= HY_EVS_RECORD_SIZE,
	       "event fields fit a record");
_Static_assert(sizeof(((hy_event *)0)->tehais) == 52, "tehais are 4 x 13 bytes");
_Static_assert(HY_EV_TYPE_COUNT <= 256, "event type fits a byte");

static const char *text_kind_name(unsigned kind)
{
	static const char *const names[TEXT_KINDS] = {"name0", "name1", "name2",
						      "name3", "extra", "source"};
	return kind < TEXT_KINDS ? names[kind] : "?";
}

int hy_evs_is_stream(const void *data, size_t len)
{
	return data && len >= 8 && memcmp(data, HY_EVS_MAGIC, 8) == 0;
}

/* ------------------------------------------------------------ writer */

#define WBUF_SIZE (1u << 20) /* 8192 records */

struct hy_evs_writer {
	FILE *f;
	uint8_t *buf;
	size_t len;
	size_t crc_from; /* buf[crc_from..len) are record bytes not yet in crc */
	uint32_t crc;
	uint64_t nrec;
	int header_done;
	hy_status err;
};

hy_status hy_evs_writer_open(hy_evs_writer **wp, FILE *f)
{
	if (!wp)
		return HY_EUSAGE;
	*wp = NULL;
	if (!f)
		return HY_EUSAGE;
	hy_evs_writer *w = calloc(1, sizeof *w);
	if (!w)
		return HY_ENOMEM;
	w->buf = malloc(WBUF_SIZE);
	if (!w->buf) {
		free(w);
		return HY_ENOMEM;
	}
	w->f = f;
	w->crc = (uint32_t)crc32_z(0, NULL, 0);
	*wp = w;
	return HY_OK;
}

static hy_status w_fail(hy_evs_writer *w, hy_diag *d, hy_status s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static hy_status w_fail(hy_evs_writer *w, hy_diag *d, hy_status s, const char *fmt, ...)
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

static hy_status w_flush(hy_evs_writer *w, hy_diag *d)
{
	if (w->len > w->crc_from)
		w->crc = (uint32_t)crc32_z(w->crc, w->buf + w->crc_from, w->len - w->crc_from);
	if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len) {
		int e = errno;
		w->len = w->crc_from = 0;
		return w_fail(w, d, HY_EIO, "cannot write event stream: %s",
			      strerror(e ? e : EIO));
	}
	w->len = w->crc_from = 0;
	return HY_OK;
}

static void w_header(hy_evs_writer *w)
{
	uint8_t *p = w->buf + w->len; /* len is 0: nothing written yet */
	memset(p, 0, HY_EVS_HEADER_SIZE);
	memcpy(p, HY_EVS_MAGIC, 8);
	hy_put_u16le(p + 8, HY_EVS_VERSION);
	hy_put_u16le(p + 10, HY_EVS_HEADER_SIZE);
	hy_put_u32le(p + 12, HY_EVS_RECORD_SIZE);
	w->len += HY_EVS_HEADER_SIZE;
	w->crc_from = w->len;
	w->header_done = 1;
}

/* Room for one record at the end of the buffer (zeroed), or NULL on a write
 * error (d filled). */
static uint8_t *w_record(hy_evs_writer *w, hy_diag *d)
{
	if (w->len + HY_EVS_RECORD_SIZE > WBUF_SIZE && w_flush(w, d) != HY_OK)
		return NULL;
	uint8_t *p = w->buf + w->len;
	memset(p, 0, HY_EVS_RECORD_SIZE);
	w->len += HY_EVS_RECORD_SIZE;
	w->nrec++;
	return p;
}

static hy_status w_text(hy_evs_writer *w, unsigned kind, uint32_t game, const char *s,
			hy_diag *d)
{
	size_t len = strlen(s);
	if (len > UINT32_MAX)
		return w_fail(w, d, HY_EUSAGE, "game %u: %s text of %zu bytes is too long",
			      game, text_kind_name(kind), len);
	size_t off = 0;
	do {
		size_t n = len - off < TEXT_CHUNK ? len - off : TEXT_CHUNK;
		uint8_t *p = w_record(w, d);
		if (!p)
			return w->err;
		p[0] = REC_TEXT;
		p[1] = (uint8_t)kind;
		p[2] = off + n < len ? TEXT_CONTINUED : 0;
		p[3] = (uint8_t)n;
		hy_put_u32le(p + 4, game);
		hy_put_u32le(p + 8, (uint32_t)len);
		memcpy(p + TEXT_HDR, s + off, n);
		off += n;
	} while (off < len);
	return HY_OK;
}

static void w_event(uint8_t *p, const hy_event *e, uint32_t game)
{
	p[0] = REC_EVENT;
	p[EV_TYPE] = e->type;
	hy_put_u16le(p + EV_FLAGS, e->flags);
	hy_put_u32le(p + EV_GAME, game);
	hy_put_u32le(p + EV_LINE, e->line);
	p[EV_ACTOR] = e->actor;
	p[EV_TARGET] = e->target;
	p[EV_PAI] = e->pai;
	p[EV_NCONSUMED] = e->nconsumed;
	memcpy(p + EV_CONSUMED, e->consumed, 4);
	p[EV_TSUMOGIRI] = e->tsumogiri;
	p[EV_BAKAZE] = e->bakaze;
	p[EV_KYOKU] = e->kyoku;
	p[EV_HONBA] = e->honba;
	p[EV_KYOTAKU] = e->kyotaku;
	p[EV_OYA] = e->oya;
	p[EV_DORA] = e->dora_marker;
	p[EV_NURA] = e->nura;
	memcpy(p + EV_URA, e->ura, 5);
	for (int i = 0; i < 4; i++) {
		hy_put_u32le(p + EV_SCORES + 4 * i, (uint32_t)e->scores[i]);
		hy_put_u32le(p + EV_DELTAS + 4 * i, (uint32_t)e->deltas[i]);
	}
	for (int s = 0; s < 4; s++)
		memcpy(p + EV_TEHAIS + 13 * s, e->tehais[s], 13);
}

hy_status hy_evs_write_game(hy_evs_writer *w, const hy_game *g, hy_diag *d)
{
	if (!w || !g)
		return HY_EUSAGE;
	if (w->err)
		return w_fail(w, d, w->err, "event stream writer failed earlier");
	/* Check first, so that a bad game leaves the frame unchanged. */
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		if (e->type >= HY_EV_TYPE_COUNT || e->nconsumed > 4 || e->nura > 5)
			return w_fail(w, d, HY_EUSAGE,
				      "game %u, event %zu: cannot be stored (type %u, "
				      "nconsumed %u, nura %u)",
				      g->index, i + 1, e->type, e->nconsumed, e->nura);
	}
	if (!w->header_done)
		w_header(w);
	hy_status s = w_text(w, TEXT_SOURCE, g->index, g->source ? g->source : "", d);
	for (size_t i = 0; s == HY_OK && i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		uint8_t *p = w_record(w, d);
		if (!p)
			return w->err;
		w_event(p, e, g->index);
		for (unsigned k = 0; s == HY_OK && k < 4; k++)
			if (e->names[k])
				s = w_text(w, TEXT_NAME0 + k, g->index, e->names[k], d);
		if (s == HY_OK && e->extra)
			s = w_text(w, TEXT_EXTRA, g->index, e->extra, d);
	}
	return s;
}

hy_status hy_evs_writer_close(hy_evs_writer *w, hy_diag *d)
{
	if (!w)
		return HY_EUSAGE;
	hy_status s = w->err;
	if (s)
		w_fail(w, d, s, "event stream writer failed earlier");
	if (!s && !w->header_done)
		w_header(w);
	if (!s)
		s = w_flush(w, d);
	if (!s) {
		uint8_t t[HY_EVS_RECORD_SIZE] = {0};
		t[0] = REC_TRAILER;
		memcpy(t + TR_MAGIC, TRAILER_MAGIC, 8);
		hy_put_u64le(t + TR_COUNT, w->nrec);
		hy_put_u32le(t + TR_CRC, w->crc);
		if (fwrite(t, 1, sizeof t, w->f) != sizeof t || fflush(w->f) != 0 ||
		    ferror(w->f)) {
			int e = errno;
			s = w_fail(w, d, HY_EIO, "cannot write event stream: %s",
				   strerror(e ? e : EIO));
		}
	}
	free(w->buf);
	free(w);
	return s;
}

/* ------------------------------------------------------------ reader */

#define RBUF_SIZE (1u << 18)

struct hy_evs_reader {
	char *source;
	FILE *f;          /* NULL: memory reader                         */
	uint8_t *buf;     /* file reader's buffer                        */
	const uint8_t *data; /* window: data[pos..len) unread            */
	size_t pos, len;
	int eof;          /* no more bytes beyond data[len]              */
	uint64_t offset;  /* input offset of data[0]                     */
	int in_frame;
	uint64_t frames, records, frame_records;
	size_t crc_mark;  /* data[crc_mark..pos) consumed, not yet in crc */
	uint32_t crc;
	char *txt;        /* text being assembled                        */
	size_t txtcap;
	hy_status err;    /* sticky error                                */
	uint32_t err_line, err_game;
	char err_msg[sizeof ((hy_diag *)0)->msg];
};

static hy_status r_new(hy_evs_reader **rp, const char *source)
{
	*rp = NULL;
	hy_evs_reader *r = calloc(1, sizeof *r);
	if (!r)
		return HY_ENOMEM;
	const char *s = source ? source : "";
	r->source = malloc(strlen(s) + 1);
	if (!r->source) {
		free(r);
		return HY_ENOMEM;
	}
	strcpy(r->source, s);
	r->err_game = UINT32_MAX;
	*rp = r;
	return HY_OK;
}

hy_status hy_evs_reader_open_mem(hy_evs_reader **rp, const char *source, const void *data,
				 size_t len)
{
	if (!rp || (!data && len))
		return HY_EUSAGE;
	hy_status s = r_new(rp, source);
	if (s)
		return s;
	(*rp)->data = data;
	(*rp)->len = len;
	(*rp)->eof = 1;
	return HY_OK;
}

hy_status hy_evs_reader_open_file(hy_evs_reader **rp, const char *source, FILE *f)
{
	if (!rp || !f)
		return HY_EUSAGE;
	hy_status s = r_new(rp, source);
	if (s)
		return s;
	hy_evs_reader *r = *rp;
	r->buf = malloc(RBUF_SIZE);
	if (!r->buf) {
		hy_evs_reader_close(r);
		*rp = NULL;
		return HY_ENOMEM;
	}
	r->f = f;
	r->data = r->buf;
	return HY_OK;
}

void hy_evs_reader_close(hy_evs_reader *r)
{
	if (!r)
		return;
	free(r->source);
	free(r->buf);
	free(r->txt);
	free(r);
}

uint64_t hy_evs_reader_records(const hy_evs_reader *r)
{
	return r ? r->records : 0;
}

static uint32_t line_of(uint64_t rec)
{
	return rec > UINT32_MAX ? UINT32_MAX : (uint32_t)rec;
}

static void r_to_diag(const hy_evs_reader *r, hy_diag *d)
{
	if (!d)
		return;
	d->status = r->err;
	d->line = r->err_line;
	d->game = r->err_game;
	snprintf(d->source, sizeof d->source, "%s", r->source);
	snprintf(d->msg, sizeof d->msg, "%s", r->err_msg);
}

/* Records an error (sticky) and copies it to d. */
static hy_status r_fail(hy_evs_reader *r, hy_diag *d, hy_status s, uint64_t rec, uint32_t game,
			const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static hy_status r_fail(hy_evs_reader *r, hy_diag *d, hy_status s, uint64_t rec, uint32_t game,
			const char *fmt, ...)
{
	r->err = s;
	r->err_line = line_of(rec);
	r->err_game = game;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err_msg, sizeof r->err_msg, fmt, ap);
	va_end(ap);
	r_to_diag(r, d);
	return s;
}

static void r_crc_catch_up(hy_evs_reader *r)
{
	if (r->in_frame && r->pos > r->crc_mark)
		r->crc = (uint32_t)crc32_z(r->crc, r->data + r->crc_mark, r->pos - r->crc_mark);
	r->crc_mark = r->pos;
}

/* Makes n bytes available at data + pos: HY_OK, HY_STOP when the input ends
 * first (len - pos tells how many are there), or HY_EIO (errno kept). */
static hy_status r_fill(hy_evs_reader *r, size_t n)
{
	if (r->len - r->pos >= n)
		return HY_OK;
	if (r->eof)
		return HY_STOP;
	r_crc_catch_up(r);
	size_t keep = r->len - r->pos;
	memmove(r->buf, r->buf + r->pos, keep);
	r->offset += r->pos;
	r->pos = r->crc_mark = 0;
	r->len = keep;
	while (r->len < n && !r->eof) {
		size_t want = RBUF_SIZE - r->len;
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

static hy_status r_io_fail(hy_evs_reader *r, hy_diag *d)
{
	int e = errno;
	return r_fail(r, d, HY_EIO, r->records, UINT32_MAX, "cannot read event stream: %s",
		      strerror(e ? e : EIO));
}

/* Reads a frame header: HY_OK, HY_STOP at the clean end of the input, or an
 * error. */
static hy_status r_header(hy_evs_reader *r, hy_diag *d)
{
	hy_status s = r_fill(r, HY_EVS_HEADER_SIZE);
	if (s == HY_EIO)
		return r_io_fail(r, d);
	const uint8_t *p = r->data + r->pos;
	size_t avail = r->len - r->pos;
	uint64_t at = r->offset + r->pos;
	char where[96] = "";
	if (r->frames)
		snprintf(where, sizeof where, " in frame %llu at byte %llu",
			 (unsigned long long)r->frames + 1, (unsigned long long)at);
	if (s == HY_STOP) {
		if (avail == 0 && r->frames)
			return HY_STOP;
		if (avail == 0)
			return r_fail(r, d, HY_ETRUNC, 0, UINT32_MAX,
				      "truncated event stream: input is empty");
		if (memcmp(p, HY_EVS_MAGIC, avail < 8 ? avail : 8) != 0)
			return r_fail(r, d, HY_EFORMAT, r->records, UINT32_MAX,
				      "not an event stream (bad magic)%s", where);
		return r_fail(r, d, HY_ETRUNC, r->records, UINT32_MAX,
			      "truncated event stream: frame header cut short "
			      "(%zu of %d bytes)%s",
			      avail, HY_EVS_HEADER_SIZE, where);
	}
	if (memcmp(p, HY_EVS_MAGIC, 8) != 0)
		return r_fail(r, d, HY_EFORMAT, r->records, UINT32_MAX,
			      "not an event stream (bad magic)%s", where);
	unsigned version = hy_get_u16le(p + 8);
	if (version > HY_EVS_VERSION)
		return r_fail(r, d, HY_EVERSION, r->records, UINT32_MAX,
			      "event stream version %u is newer than this program supports (%d)%s",
			      version, HY_EVS_VERSION, where);
	if (version == 0)
		return r_fail(r, d, HY_EFORMAT, r->records, UINT32_MAX,
			      "event stream version 0 is invalid%s", where);
	unsigned hsize = hy_get_u16le(p + 10);
	if (hsize != HY_EVS_HEADER_SIZE)
		return r_fail(r, d, HY_EFORMAT, r->records, UINT32_MAX,
			      "event stream header size %u is not %d%s", hsize,
			      HY_EVS_HEADER_SIZE, where);
	uint32_t rsize = hy_get_u32le(p + 12);
	if (rsize != HY_EVS_RECORD_SIZE)
		return r_fail(r, d, HY_EFORMAT, r->records, UINT32_MAX,
			      "event stream record size %lu is not %d%s", (unsigned long)rsize,
			      HY_EVS_RECORD_SIZE, where);
	r->pos += HY_EVS_HEADER_SIZE;
	r->in_frame = 1;
	r->frames++;
	r->frame_records = 0;
	r->crc = (uint32_t)crc32_z(0, NULL, 0);
	r->crc_mark = r->pos;
	return HY_OK;
}

/* The next record (not consumed), or NULL with the error set. */
static const uint8_t *r_peek(hy_evs_reader *r, uint32_t game, hy_diag *d)
{
	hy_status s = r_fill(r, HY_EVS_RECORD_SIZE);
	if (s == HY_OK)
		return r->data + r->pos;
	if (s == HY_EIO) {
		r_io_fail(r, d);
		return NULL;
	}
	size_t avail = r->len - r->pos;
	if (avail)
		r_fail(r, d, HY_ETRUNC, r->records + 1, game,
		       "truncated event stream: no trailer after record %llu "
		       "(record %llu is cut short: %zu of %d bytes)",
		       (unsigned long long)r->records, (unsigned long long)r->records + 1, avail,
		       HY_EVS_RECORD_SIZE);
	else
		r_fail(r, d, HY_ETRUNC, r->records, game,
		       "truncated event stream: no trailer after record %llu",
		       (unsigned long long)r->records);
	return NULL;
}

static void r_consume(hy_evs_reader *r)
{
	r->pos += HY_EVS_RECORD_SIZE;
	r->records++;
	r->frame_records++;
}

static hy_status r_trailer(hy_evs_reader *r, const uint8_t *p, hy_diag *d)
{
	uint64_t rec = r->records + 1;
	r_crc_catch_up(r); /* the records before the trailer */
	if (memcmp(p + TR_MAGIC, TRAILER_MAGIC, 8) != 0)
		return r_fail(r, d, HY_EDATA, rec, UINT32_MAX,
			      "bad trailer record: magic is not \"HYEVEND\"");
	uint64_t count = hy_get_u64le(p + TR_COUNT);
	if (count != r->frame_records)
		return r_fail(r, d, HY_EDATA, rec, UINT32_MAX,
			      "record count mismatch: trailer says %llu, frame has %llu",
			      (unsigned long long)count, (unsigned long long)r->frame_records);
	uint32_t crc = hy_get_u32le(p + TR_CRC);
	if (crc != r->crc)
		return r_fail(r, d, HY_EDATA, rec, UINT32_MAX,
			      "checksum mismatch: trailer says CRC-32 %08lx, records give %08lx",
			      (unsigned long)crc, (unsigned long)r->crc);
	r->pos += HY_EVS_RECORD_SIZE;
	r->records++;
	r->in_frame = 0;
	return HY_OK;
}

static hy_status r_event(hy_evs_reader *r, const uint8_t *p, hy_game *g, hy_diag *d)
{
	uint64_t rec = r->records + 1;
	hy_event e;
	memset(&e, 0, sizeof e);
	e.type = p[EV_TYPE];
	if (e.type >= HY_EV_TYPE_COUNT)
		return r_fail(r, d, HY_EDATA, rec, g->index,
			      "bad event record: event type %u is out of range (0-%d)", e.type,
			      HY_EV_TYPE_COUNT - 1);
	e.nconsumed = p[EV_NCONSUMED];
	if (e.nconsumed > 4)
		return r_fail(r, d, HY_EDATA, rec, g->index,
			      "bad event record: nconsumed %u is over 4", e.nconsumed);
	e.nura = p[EV_NURA];
	if (e.nura > 5)
		return r_fail(r, d, HY_EDATA, rec, g->index,
			      "bad event record: nura %u is over 5", e.nura);
	e.flags = hy_get_u16le(p + EV_FLAGS);
	e.line = hy_get_u32le(p + EV_LINE);
	e.actor = p[EV_ACTOR];
	e.target = p[EV_TARGET];
	e.pai = p[EV_PAI];
	memcpy(e.consumed, p + EV_CONSUMED, 4);
	e.tsumogiri = p[EV_TSUMOGIRI];
	e.bakaze = p[EV_BAKAZE];
	e.kyoku = p[EV_KYOKU];
	e.honba = p[EV_HONBA];
	e.kyotaku = p[EV_KYOTAKU];
	e.oya = p[EV_OYA];
	e.dora_marker = p[EV_DORA];
	memcpy(e.ura, p + EV_URA, 5);
	for (int i = 0; i < 4; i++) {
		e.scores[i] = hy_get_i32le(p + EV_SCORES + 4 * i);
		e.deltas[i] = hy_get_i32le(p + EV_DELTAS + 4 * i);
	}
	for (int s = 0; s < 4; s++)
		memcpy(e.tehais[s], p + EV_TEHAIS + 13 * s, 13);
	if (!hy_game_push(g, &e))
		return r_fail(r, d, HY_ENOMEM, rec, g->index, "out of memory");
	r_consume(r);
	return HY_OK;
}

/* Reads the TEXT record at p and its continuations into r->txt; *kind and
 * *len tell what was read, *game the game index it carries. */
static hy_status r_text(hy_evs_reader *r, const uint8_t *p, unsigned *kind, size_t *len,
			uint32_t *game, hy_diag *d)
{
	*kind = p[1];
	*game = hy_get_u32le(p + 4);
	uint32_t total = hy_get_u32le(p + 8);
	const char *kname = text_kind_name(*kind);
	uint32_t g = *game;
	if (*kind >= TEXT_KINDS)
		return r_fail(r, d, HY_EDATA, r->records + 1, g,
			      "bad text record: kind %u is out of range (0-%d)", *kind,
			      TEXT_KINDS - 1);
	size_t have = 0;
	for (;;) {
		uint64_t rec = r->records + 1;
		unsigned n = p[3];
		int more = p[2] & TEXT_CONTINUED;
		if (n > TEXT_CHUNK)
			return r_fail(r, d, HY_EDATA, rec, g,
				      "bad text record (%s): chunk length %u is over %d", kname,
				      n, TEXT_CHUNK);
		if (n > total - have || (more && (n != TEXT_CHUNK || have + n == total)) ||
		    (!more && have + n != total))
			return r_fail(r, d, HY_EDATA, rec, g,
				      "bad text record (%s): chunk of %u bytes at %zu does not "
				      "fit a %s string of %lu bytes",
				      kname, n, have, more ? "continued" : "final",
				      (unsigned long)total);
		if (memchr(p + TEXT_HDR, 0, n))
			return r_fail(r, d, HY_EDATA, rec, g,
				      "bad text record (%s): NUL byte in text", kname);
		if (have + n + 1 > r->txtcap) {
			size_t cap = r->txtcap ? r->txtcap : 256;
			while (cap < have + n + 1)
				cap *= 2;
			char *t = realloc(r->txt, cap);
			if (!t)
				return r_fail(r, d, HY_ENOMEM, rec, g, "out of memory");
			r->txt = t;
			r->txtcap = cap;
		}
		memcpy(r->txt + have, p + TEXT_HDR, n);
		have += n;
		r_consume(r);
		if (!more)
			break;
		p = r_peek(r, g, d);
		if (!p)
			return r->err;
		if (p[0] != REC_TEXT || p[1] != *kind || hy_get_u32le(p + 4) != g ||
		    hy_get_u32le(p + 8) != total)
			return r_fail(r, d, HY_EDATA, r->records + 1, g,
				      "bad text record: continuation of the %s string expected",
				      kname);
	}
	*len = have;
	return HY_OK;
}

hy_status hy_evs_read_game(hy_evs_reader *r, hy_game *g, hy_diag *d)
{
	if (!r || !g)
		return HY_EUSAGE;
	if (r->err) {
		r_to_diag(r, d);
		return r->err;
	}
	hy_game_clear(g);
	int have_game = 0;
	uint8_t seen = 0; /* text kinds given for the last event */
	for (;;) {
		if (!r->in_frame) {
			hy_status s = r_header(r, d);
			if (s)
				return s;
		}
		uint32_t gi = have_game ? g->index : UINT32_MAX;
		const uint8_t *p = r_peek(r, gi, d);
		if (!p)
			return r->err;
		uint64_t rec = r->records + 1;
		switch (p[0]) {
		case REC_TRAILER: {
			hy_status s = r_trailer(r, p, d);
			if (s)
				return s;
			if (have_game)
				return HY_OK;
			break;
		}
		case REC_TEXT: {
			if (p[1] == TEXT_SOURCE && have_game)
				return HY_OK; /* the next game starts here */
			unsigned kind = 0;
			size_t len = 0;
			uint32_t tg = 0;
			hy_status s = r_text(r, p, &kind, &len, &tg, d);
			if (s)
				return s;
			if (kind == TEXT_SOURCE) {
				g->index = tg;
				g->source = hy_game_strdup(g, r->txt, len);
				if (!g->source)
					return r_fail(r, d, HY_ENOMEM, rec, tg, "out of memory");
				have_game = 1;
				break;
			}
			if (!have_game || g->n == 0)
				return r_fail(r, d, HY_EDATA, rec, gi,
					      "bad text record (%s): no event before it in its game",
					      text_kind_name(kind));
			if (tg != g->index)
				return r_fail(r, d, HY_EDATA, rec, gi,
					      "bad text record (%s): game index %lu differs from "
					      "the game's %lu",
					      text_kind_name(kind), (unsigned long)tg,
					      (unsigned long)g->index);
			if (seen & (1u << kind))
				return r_fail(r, d, HY_EDATA, rec, gi,
					      "bad text record (%s): given twice for one event",
					      text_kind_name(kind));
			seen |= (uint8_t)(1u << kind);
			const char *str = hy_game_strdup(g, r->txt, len);
			if (!str)
				return r_fail(r, d, HY_ENOMEM, rec, gi, "out of memory");
			hy_event *e = &g->ev[g->n - 1];
			if (kind == TEXT_EXTRA)
				e->extra = str;
			else
				e->names[kind - TEXT_NAME0] = str;
			break;
		}
		case REC_EVENT: {
			if (!have_game)
				return r_fail(r, d, HY_EDATA, rec, UINT32_MAX,
					      "bad event record: no source record before it "
					      "in its frame");
			uint32_t eg = hy_get_u32le(p + EV_GAME);
			if (eg != g->index)
				return r_fail(r, d, HY_EDATA, rec, gi,
					      "bad event record: game index %lu differs from the "
					      "game's %lu",
					      (unsigned long)eg, (unsigned long)g->index);
			hy_status s = r_event(r, p, g, d);
			if (s)
				return s;
			seen = 0;
			break;
		}
		default:
			return r_fail(r, d, HY_EDATA, rec, gi, "unknown record type %u", p[0]);
		}
	}
}
