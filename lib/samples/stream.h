/* The sample stream: the binary image of hy_sample sequences
 * (formats/samples.md is the normative spec). A 32-byte frame header, then
 * fixed 5888-byte little-endian records, one per sample; a frame ends with a
 * trailer record holding the sample count and a CRC-32 (zlib) of the sample
 * records; frames concatenate (`cat a b` is a stream). */
#ifndef HY_SAMPLES_STREAM_H
#define HY_SAMPLES_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"
#include "samples/sample.h"

#define HY_SMS_MAGIC "HYSAMPLE"   /* 8 bytes at offset 0 of a frame */
#define HY_SMS_VERSION 1
#define HY_SMS_HEADER_SIZE 32
#define HY_SMS_RECORD_SIZE 5888
/* with the hidden-state extension (header byte 24 = 1): 5888 + 128 */
#define HY_SMS_RECORD_SIZE_HIDDEN 6016
#define HY_SMS_DTYPE_F16 1        /* obs dtype code: IEEE binary16 LE */

/* True when data starts with the sample-stream magic, or is a non-empty
 * prefix of it (a stream cut inside its header: truncated). */
int hy_sms_is_stream(const void *data, size_t len);

/* An upper bound of the samples in the stream open as fd, without reading
 * it: its size over a record's, when fd is a regular file (a redirected
 * standard input too) that starts with the magic (so not compressed);
 * 0 when it cannot be told (a pipe, a compressed or other file). The
 * file's offset is left where it was. */
uint64_t hy_sms_fd_bound(int fd);

/* Checks what a record can hold and a consumer relies on: action ≤ 45 and
 * set in mask, mask below bit 46, seat and rank ≤ 3, grp ≤ 23, opp_tenpai
 * ≤ 7, opp_waits below bit 34. Returns NULL when s is valid, else a short
 * English reason (static string). */
const char *hy_sample_check(const hy_sample *s);

/* Writer: one frame per writer (header at the first sample or at close).
 * Writes to a FILE*; the caller owns the file. A sample that fails
 * hy_sample_check is refused (HY_EUSAGE) and leaves the frame unchanged. */
typedef struct hy_sms_writer hy_sms_writer;
hy_status hy_sms_writer_open(hy_sms_writer **w, FILE *f);
hy_status hy_sms_write(hy_sms_writer *w, const hy_sample *s, hy_diag *d);
uint64_t hy_sms_writer_count(const hy_sms_writer *w);
/* The observation version the frame's header records (sample.h
 * HY_OBS_VERSION unless set): before the first sample only (HY_EUSAGE
 * after it, or for v > 255). */
hy_status hy_sms_writer_set_obs_version(hy_sms_writer *w, unsigned v);
/* With on = 1, the frame is of the hidden-state extension (formats/
 * samples.md): every sample written must have HY_SAMPLE_F_HIDDEN, and its
 * hy_hidden is kept. Before the first sample only (HY_EUSAGE after it).
 * Without it the hidden state of a sample is not written (nor its flag). */
hy_status hy_sms_writer_set_hidden(hy_sms_writer *w, int on);
int hy_sms_writer_hidden(const hy_sms_writer *w);
/* Writes the trailer (and the header, for an empty frame), flushes; frees w. */
hy_status hy_sms_writer_close(hy_sms_writer *w, hy_diag *d);
/* Ends the frame as failed (formats/samples.md, ABORT record) with the
 * reason `why` (may be NULL) and frees w: every reader of the stream then
 * fails with "input stream was aborted by its producer", never sees a
 * complete-looking partial stream. What a failing producer calls instead of
 * hy_sms_writer_close. */
void hy_sms_writer_abort(hy_sms_writer *w, const char *why);

/* Reader over one or more concatenated frames, in memory or from a FILE*
 * read sequentially (a pipe: constant memory). hy_sms_read fills s with the
 * next sample; HY_STOP at the clean end. Errors: HY_EFORMAT (bad magic,
 * header/record size, dtype, shape), HY_EVERSION (newer version), HY_ETRUNC
 * (empty input, no trailer, short record), HY_EDATA (checksum or count
 * mismatch, invalid sample) — d->line names the 1-based record number.
 * Errors are sticky. A streaming reader delivers samples before it checks
 * their frame's trailer: a consumer treats the whole input as failed when
 * any call fails. `source` names the input in diagnostics. */
typedef struct hy_sms_reader hy_sms_reader;
hy_status hy_sms_reader_open_mem(hy_sms_reader **r, const char *source, const void *data,
				 size_t len);
hy_status hy_sms_reader_open_file(hy_sms_reader **r, const char *source, FILE *f);
/* As open_file, for a caller that already consumed the first nprefix (≤ 8)
 * bytes of f to sniff the format: they are read before the rest of f. */
hy_status hy_sms_reader_open_file_prefix(hy_sms_reader **r, const char *source, FILE *f,
					 const void *prefix, size_t nprefix);
hy_status hy_sms_read(hy_sms_reader *r, hy_sample *s, hy_diag *d);
/* The observation version of the frames read so far (sample.h), or -1
 * before the first header is read. A frame whose version differs from the
 * first frame's is an error of the read that meets it (HY_EDATA: two
 * encodings of the observation in one stream). */
int hy_sms_reader_obs_version(const hy_sms_reader *r);
/* 1 when the stream's records carry the hidden state (the extension;
 * known after the first header), else 0. */
int hy_sms_reader_hidden(const hy_sms_reader *r);
/* Records read so far (all frames, trailers included). */
uint64_t hy_sms_reader_records(const hy_sms_reader *r);
void hy_sms_reader_close(hy_sms_reader *r);

/* Record codec, for tests and tools: encodes s into rec (HY_SMS_RECORD_SIZE
 * bytes, reserved bytes zero; no hidden state) / decodes rec into s (no
 * validation). */
void hy_sms_encode(const hy_sample *s, uint8_t *rec);
void hy_sms_decode(const uint8_t *rec, hy_sample *s);

#endif
