/* HDF5 sample shards (formats/shard.md is the normative spec): one dataset
 * per hy_sample field with leading dimension N, chunked and compressed
 * (shuffle + deflate, readable by stock h5dump), plus attributes: format
 * version, encoder version, producing command line, source list.
 *
 * libhdf5 serialises its calls (a thread-safe build holds one lock over
 * every call; a build that is not must never see two threads at once):
 * hy_shard_fetch and hy_shard_decode split a read so that the expensive
 * part runs outside the library. Opening a shard turns off
 * HDF5's own printing of its error stack (H5Eset_auto); HDF5 errors come
 * back as hy_diag messages naming the failed call, file and line. */
#ifndef HY_SAMPLES_SHARD_H
#define HY_SAMPLES_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "io/staged.h"
#include "samples/sample.h"

#define HY_SHARD_FORMAT "hydra-samples" /* value of the `format` attribute */
#define HY_SHARD_VERSION 2
#define HY_SHARD_CHUNK 128               /* default samples per chunk     */
#define HY_SHARD_DEFLATE 1               /* default deflate level         */
#define HY_SHARD_MAX_CHUNK 65536         /* largest chunk a reader accepts */

/* What a writer records besides the samples, and how. Every field may be
 * zero/NULL (and m itself NULL): encoder_version defaults to
 * "hydra-c HY_VERSION", command_line to "", chunk to HY_SHARD_CHUNK,
 * deflate to HY_SHARD_DEFLATE (1–9: that level; -1: no compression),
 * obs_version to HY_OBS_VERSION. */
typedef struct hy_shard_meta {
	const char *encoder_version;
	const char *command_line;
	const char *const *sources;
	size_t nsources;
	uint32_t chunk;
	int deflate;
	/* the `obs_version` attribute: 0 = HY_OBS_VERSION (sample.h), n > 0
	 * that version, HY_SHARD_OBS_UNMARKED none (a copy of unmarked input) */
	int obs_version;
} hy_shard_meta;

#define HY_SHARD_OBS_UNMARKED (-1)

/* Writer: creates "path.tmp-PID-XXXXXX" beside path and renames it to path at
 * close (after fsync), so a partial shard never appears under its name.
 * Samples are buffered one chunk at a time. For rotation (train-%04d.h5),
 * close one writer and open the next. A sample failing hy_sample_check is
 * refused with HY_EUSAGE. */
typedef struct hy_shard_writer hy_shard_writer;
hy_status hy_shard_writer_open(hy_shard_writer **w, const char *path, const hy_shard_meta *m,
			       hy_diag *d);
hy_status hy_shard_write(hy_shard_writer *w, const hy_sample *s, hy_diag *d);
uint64_t hy_shard_writer_count(const hy_shard_writer *w);
/* Sets the `obs_version` attribute after open (a copy learns its input's
 * version from the first read): v = 1–255, or 0 for none (unmarked). */
hy_status hy_shard_writer_set_obs_version(hy_shard_writer *w, int v, hy_diag *d);
/* Flushes, closes, fsyncs and renames into place; frees w. On failure the
 * temporary file is removed. */
hy_status hy_shard_writer_close(hy_shard_writer *w, hy_diag *d);
/* The same, but the rename is deferred to hy_fileset_commit(fs) (a set of
 * shards that appears as a whole or not at all). */
hy_status hy_shard_writer_finish(hy_shard_writer *w, hy_fileset *fs, hy_diag *d);
/* Removes the temporary file; frees w. */
void hy_shard_writer_abort(hy_shard_writer *w);

/* Reader with random access. Opening checks the structure: HY_EFORMAT when
 * the file is not HDF5 or not a sample shard (no `format_version`
 * attribute, a missing dataset, wrong dims or types, datasets of different
 * lengths), HY_EVERSION for a newer format_version, HY_ETRUNC when HDF5
 * reports a truncated file. Reads check every sample (hy_sample_check):
 * HY_EDATA with d->line = 1-based sample index. Float observation types
 * other than IEEE half are converted by HDF5 on reading. */
typedef struct hy_shard hy_shard;
hy_status hy_shard_open(hy_shard **sh, const char *path, hy_diag *d);
/* The same over a file image in memory (copied; e.g. a shard on stdin). */
hy_status hy_shard_open_mem(hy_shard **sh, const char *name, const void *data, size_t len,
			    hy_diag *d);
uint64_t hy_shard_count(const hy_shard *sh);
/* Samples [start, start + n) into out[0..n); HY_EUSAGE when the range
 * passes the end. Reads go through HDF5's chunk cache, sized to hold two
 * chunks of every dataset, so neighbouring reads are cheap; random single
 * samples cost one chunk decompression each (read chunk-sized blocks and
 * shuffle within them when that matters). */
hy_status hy_shard_read(hy_shard *sh, uint64_t start, size_t n, hy_sample *out, hy_diag *d);

/* Reading in two steps, so that threads decompress in parallel (libhdf5,
 * thread-safe or not, lets one thread at a time in, decompression
 * included):
 *
 *   hy_shard_fetch   (an HDF5 call: serialised like every other one) the
 *                    stored bytes of the chunks that samples [start, start
 *                    + n) lie in, as the filters left them (H5Dread_chunk);
 *   hy_shard_decode  (no HDF5: any thread, in parallel, while the shard
 *                    stays open) the filters undone in the reverse order of
 *                    the pipeline — fletcher32 checked (HDF5's checksum,
 *                    hy_shard_fletcher32), inflated with zlib, unshuffled —
 *                    the rows copied out and every sample checked, exactly
 *                    as hy_shard_read gives them (bit for bit).
 *
 * A dataset the decoder does not handle (an observation type HDF5 must
 * convert, another filter order, a range over two chunks, a chunk never
 * written) is read by hy_shard_fetch through H5Dread as hy_shard_read
 * does. A stored checksum that does not match is HY_EDATA "checksum
 * mismatch: the file is damaged (...)"; a damaged deflate stream HY_EDATA.
 * A hy_shard_chunks holds one range and is reused by the next fetch; a
 * hy_shard_decoder is one thread's scratch (the inflated chunk, zlib's
 * state). */
typedef struct hy_shard_chunks hy_shard_chunks;
typedef struct hy_shard_decoder hy_shard_decoder;
hy_shard_chunks *hy_shard_chunks_new(void);
void hy_shard_chunks_free(hy_shard_chunks *c);
hy_shard_decoder *hy_shard_decoder_new(void);
void hy_shard_decoder_free(hy_shard_decoder *dec);
hy_status hy_shard_fetch(hy_shard *sh, uint64_t start, size_t n, hy_shard_chunks *c,
			 hy_diag *d);
/* Samples of c's range into out[0..n) (n as fetched). */
hy_status hy_shard_decode(hy_shard_decoder *dec, const hy_shard_chunks *c, hy_sample *out,
			  hy_diag *d);
/* Datasets of c's range that the decoder undoes itself (the others came
 * through H5Dread): for tests and figures. */
int hy_shard_chunks_raw(const hy_shard_chunks *c);
/* HDF5's fletcher32 (H5_checksum_fletcher32): 16-bit big-endian words
 * summed modulo 65535, sums from 0; an odd last byte is the high byte of a
 * word. The fletcher32 filter stores it little-endian after the data. */
uint32_t hy_shard_fletcher32(const void *data, size_t len);

/* Attributes of an open shard; strings valid until hy_shard_close, and
 * NULL (0 sources) until hy_shard_describe has read them. */
typedef struct hy_shard_info {
	uint32_t format_version;
	const char *encoder_version;
	const char *command_line;
	const char *const *sources;
	size_t nsources;
	uint32_t chunk; /* samples per chunk of `obs` (0: not chunked) */
	uint32_t obs_version; /* sample.h HY_OBS_VERSION; 0: no attribute */
} hy_shard_info;
const hy_shard_info *hy_shard_get_info(const hy_shard *sh);
/* Reads the string attributes (encoder_version, command_line, sources)
 * into the info: only on request, never on the sample-reading path — they
 * are the part of a shard where crafted files crash libhdf5. NULL on
 * failure (d filled). */
const hy_shard_info *hy_shard_describe(hy_shard *sh, hy_diag *d);
void hy_shard_close(hy_shard *sh);

/* True when data starts with the HDF5 signature (at offset 0: shards have
 * no user block). */
int hy_shard_is_hdf5(const void *data, size_t len);

#endif
