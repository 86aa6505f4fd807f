/* The event stream: the binary image of hy_game sequences (formats/events.md
 * is the normative spec). Fixed 128-byte little-endian records after a
 * 32-byte frame header; a frame ends with a trailer record holding the record
 * count and a CRC-32 (zlib) of all record bytes; frames concatenate. */
#ifndef HY_EVENTS_STREAM_H
#define HY_EVENTS_STREAM_H

#include <stdio.h>

#include "core/status.h"
#include "events/event.h"

#define HY_EVS_MAGIC "HYEVENTS"      /* 8 bytes at offset 0 of a frame   */
#define HY_EVS_VERSION 1
#define HY_EVS_HEADER_SIZE 32
#define HY_EVS_RECORD_SIZE 128

/* Writer: one frame per writer (header at the first write or at close).
 * Writes to a FILE*; the caller owns the file. */
typedef struct hy_evs_writer hy_evs_writer;
hy_status hy_evs_writer_open(hy_evs_writer **w, FILE *f);
hy_status hy_evs_write_game(hy_evs_writer *w, const hy_game *g, hy_diag *d);
/* Writes the trailer (and the header, for an empty frame); frees w. */
hy_status hy_evs_writer_close(hy_evs_writer *w, hy_diag *d);
/* Ends the frame as failed (formats/events.md, ABORT record) with the reason
 * `why` (may be NULL) and frees w: readers of the stream then fail with
 * "input stream was aborted by its producer". What a failing producer calls
 * instead of hy_evs_writer_close. */
void hy_evs_writer_abort(hy_evs_writer *w, const char *why);

/* True when data starts with the event-stream magic, or is a non-empty
 * prefix of it (a stream cut inside its header: truncated). */
int hy_evs_is_stream(const void *data, size_t len);

/* Reader over one or more concatenated frames, either in memory (a hy_doc's
 * data) or from a FILE* read sequentially (a pipe: constant memory). Each
 * call fills g (cleared first) with the next game;
 * HY_STOP at the clean end. Errors: HY_EFORMAT (bad magic, record size),
 * HY_EVERSION (newer version), HY_ETRUNC (no trailer, short record),
 * HY_EDATA (checksum or count mismatch, bad record) — with d naming the
 * record number. `source` names the buffer in diagnostics. */
typedef struct hy_evs_reader hy_evs_reader;
hy_status hy_evs_reader_open_mem(hy_evs_reader **r, const char *source, const void *data,
				 size_t len);
hy_status hy_evs_reader_open_file(hy_evs_reader **r, const char *source, FILE *f);
/* Games are those of the stream's provenance: g->source and g->index come
 * from the records, not from `source`. Records counted so far (all frames): */
uint64_t hy_evs_reader_records(const hy_evs_reader *r);
hy_status hy_evs_read_game(hy_evs_reader *r, hy_game *g, hy_diag *d);
void hy_evs_reader_close(hy_evs_reader *r);

#endif
