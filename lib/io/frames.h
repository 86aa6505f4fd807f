/* Framed streams of fixed-size records, the machinery shared by the event
 * stream (formats/events.md) and the sample stream (formats/samples.md).
 *
 * A frame is a header (8-byte magic, u16 version, u16 header size, u32
 * record size at offset 12, format-specific fields after), records, and a
 * trailer record: byte 0 HY_FRAME_REC_TRAILER, an 8-byte magic (with its
 * NUL) at 8, the u64 record count at 16 and the u32 CRC-32 (zlib) of the
 * frame's record bytes at 24. Frames concatenate.
 *
 * A producer that fails ends its frame with an ABORT record instead of the
 * trailer: byte 0 HY_FRAME_REC_ABORT, "HYABORT" and a NUL at 8, the u32
 * length of a UTF-8 reason at 16 and the reason's bytes from 20 (cut to the
 * record; zero padded). Every reader turns it into HY_EDATA "input stream
 * was aborted by its producer", so the next stage of a pipe fails too.
 *
 * The structs are public so that a format embeds them; their fields are
 * read by the inline helpers below and by nothing else outside frames.c.
 * Record encoding, record checks and the format's own messages stay with
 * the format. */
#ifndef HY_IO_FRAMES_H
#define HY_IO_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"

enum {
	HY_FRAME_REC_TRAILER = 3, /* record type (byte 0) of a trailer */
	HY_FRAME_REC_ABORT = 4,   /* record type of an abort marker */
	HY_FRAME_ABORT_WHY = 20,  /* offset of the reason in an abort record */
	HY_FRAME_CRC_CHUNK = 4096, /* CRC pending bytes folded while still in cache */
};

typedef struct hy_frame_reader hy_frame_reader;

typedef struct hy_frame_format {
	const char *name;         /* "event stream": in messages              */
	const char *a_name;       /* "an event stream"                         */
	const char *count_noun;   /* "record": "<noun> count mismatch"         */
	const char *magic;        /* 8 bytes                                    */
	const char *trailer_magic; /* 8 bytes with its NUL                     */
	unsigned version;
	unsigned header_size;     /* ≥ 16                                       */
	size_t record_size;       /* ≥ 32                                       */
	size_t alt_record_size;   /* 0, or a second size a frame may declare in
				   * its header (the sample stream's hidden-state
				   * extension); one input holds one size    */
	size_t wbuf_size;         /* writer buffer: header + at least 1 record  */
	size_t rbuf_size;         /* file reader buffer: ≥ header, ≥ record     */
	/* Fills the format's fields of a header (bytes 16.. are zero). */
	void (*put_header)(uint8_t *hdr);
	/* Checks the format's fields of a header whose common fields are
	 * valid; fails with hy_frame_rfail (where: " in frame N at byte B" or
	 * ""). NULL: nothing to check. */
	hy_status (*check_header)(hy_frame_reader *r, const uint8_t *hdr, const char *where,
				  hy_diag *d);
} hy_frame_format;

/* ------------------------------------------------------------ writer */

/* One frame: the header is in the buffer from the start; the trailer is
 * written at close. Errors on writing (HY_EIO) and HY_ENOMEM are sticky. */
typedef struct hy_frame_writer {
	const hy_frame_format *fmt;
	FILE *f;
	uint8_t *buf;
	size_t len;
	size_t crc_from; /* buf[crc_from..len) are record bytes not yet in crc */
	uint32_t crc;
	uint64_t nrec;
	size_t rs;       /* this frame's record size (fmt's, or its alternative) */
	hy_status err;
} hy_frame_writer;

hy_status hy_frame_writer_init(hy_frame_writer *w, const hy_frame_format *fmt, FILE *f);
/* Makes the frame's records rs bytes (fmt->record_size or
 * fmt->alt_record_size; the header says which): before the first record
 * only, else HY_EUSAGE. */
hy_status hy_frame_writer_set_record_size(hy_frame_writer *w, size_t rs);
/* Fills d (status, line 0, msg) and returns s; HY_EIO and HY_ENOMEM make
 * the writer fail from then on. */
hy_status hy_frame_wfail(hy_frame_writer *w, hy_diag *d, hy_status s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* HY_OK, or the sticky error with "<name> writer failed earlier" in d. */
hy_status hy_frame_writer_check(hy_frame_writer *w, hy_diag *d);
/* Writes the buffer out (slow path of hy_frame_record). */
hy_status hy_frame_flush(hy_frame_writer *w, hy_diag *d);
/* Writes the trailer, flushes f, frees the buffer: the writer's status. */
hy_status hy_frame_writer_close(hy_frame_writer *w, hy_diag *d);
/* Ends the frame as failed: the records still buffered, then an ABORT
 * record with `why` (may be NULL), flushed; frees the buffer. Writes
 * nothing when the writer has already failed (the frame is cut short, which
 * readers report as truncated). Never ends the frame as complete. */
void hy_frame_writer_abort(hy_frame_writer *w, const char *why);

void hy_frame_crc_catch_up_w(hy_frame_writer *w);

/* Room for one record (contents undefined: the caller fills all of it
 * before the next call or close), or NULL on a write error (d filled,
 * w->err set). */
static inline uint8_t *hy_frame_record(hy_frame_writer *w, hy_diag *d)
{
	size_t rs = w->rs;
	if (w->len - w->crc_from >= HY_FRAME_CRC_CHUNK)
		hy_frame_crc_catch_up_w(w);
	if (w->len + rs > w->fmt->wbuf_size && hy_frame_flush(w, d) != HY_OK)
		return NULL;
	uint8_t *p = w->buf + w->len;
	w->len += rs;
	w->nrec++;
	return p;
}

/* ------------------------------------------------------------ reader */

/* Over concatenated frames, in memory or from a FILE* read sequentially.
 * Errors are sticky, with the record number (d->line) and game of the
 * first one. */
struct hy_frame_reader {
	const hy_frame_format *fmt;
	char *source;
	FILE *f;             /* NULL: memory reader                         */
	uint8_t *buf;        /* file reader's buffer                        */
	const uint8_t *data; /* window: data[pos..len) unread               */
	size_t pos, len;
	int eof;             /* no more bytes beyond data[len]              */
	uint64_t offset;     /* input offset of data[0]                     */
	int in_frame;
	size_t rs;           /* record size of the input (its first header's:
			      * fmt's or its alternative); 0 before it     */
	uint64_t frames, records, frame_records;
	size_t crc_mark;     /* data[crc_mark..pos) consumed, not yet in crc */
	uint32_t crc;
	hy_status err;
	uint32_t err_line, err_game;
	char err_msg[sizeof((hy_diag *)0)->msg];
};

hy_status hy_frame_reader_init_mem(hy_frame_reader *r, const hy_frame_format *fmt,
				   const char *source, const void *data, size_t len);
/* The first nprefix bytes (≤ the header size) are read before f. */
hy_status hy_frame_reader_init_file(hy_frame_reader *r, const hy_frame_format *fmt,
				    const char *source, FILE *f, const void *prefix,
				    size_t nprefix);
void hy_frame_reader_fini(hy_frame_reader *r);

/* Records an error (sticky) for record number rec and copies it to d. */
hy_status hy_frame_rfail(hy_frame_reader *r, hy_diag *d, hy_status s, uint64_t rec,
			 uint32_t game, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Copies the sticky error to d (no-op for NULL d). */
void hy_frame_rdiag(const hy_frame_reader *r, hy_diag *d);

/* Slow path of hy_frame_next. */
hy_status hy_frame_next_slow(hy_frame_reader *r, uint32_t game, const uint8_t **p, hy_diag *d);
void hy_frame_crc_catch_up_r(hy_frame_reader *r);

/* The next record, not consumed (a frame header before it is read and
 * checked): HY_OK with *p, HY_STOP at the clean end of the input (between
 * frames), or an error (a missing trailer is named with game). */
static inline hy_status hy_frame_next(hy_frame_reader *r, uint32_t game, const uint8_t **p,
				      hy_diag *d)
{
	if (r->in_frame && r->len - r->pos >= r->rs) {
		*p = r->data + r->pos;
		return HY_OK;
	}
	return hy_frame_next_slow(r, game, p, d);
}

/* Consumes the record returned by hy_frame_next. */
static inline void hy_frame_consume(hy_frame_reader *r)
{
	r->pos += r->rs;
	r->records++;
	r->frame_records++;
	if (r->pos - r->crc_mark >= HY_FRAME_CRC_CHUNK)
		hy_frame_crc_catch_up_r(r);
}

/* The ABORT record at p (the record hy_frame_next returned): records the
 * sticky HY_EDATA "input stream was aborted by its producer: <reason>" for
 * its record number and returns it. */
hy_status hy_frame_aborted(hy_frame_reader *r, const uint8_t *p, uint32_t game, hy_diag *d);

/* Checks the trailer record at p (the record hy_frame_next returned) and
 * consumes it, ending the frame. */
hy_status hy_frame_trailer(hy_frame_reader *r, const uint8_t *p, hy_diag *d);

#endif
