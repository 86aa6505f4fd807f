/* One reader over sample streams and HDF5 shards, told apart by content
 * (the first 8 bytes: "HYSAMPLE" or the HDF5 signature), never by name.
 *
 *   hy_sample_reader *r;
 *   hy_sample_reader_open(&r, "train-0001.h5", &d);   // or "-" = stdin
 *   while ((st = hy_sample_read(r, &s, &d)) == HY_OK) ...;   // HY_STOP: end
 *
 * A stream is read sequentially in constant memory (also from a pipe). A
 * shard opened by path is read in place with random access; a shard given
 * as a FILE* (a pipe) is read into memory first. */
#ifndef HY_SAMPLES_READER_H
#define HY_SAMPLES_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"
#include "samples/sample.h"
#include "samples/shard.h"

typedef enum hy_sample_format {
	HY_SAMPLES_STREAM = 1,
	HY_SAMPLES_SHARD = 2,
} hy_sample_format;

typedef struct hy_sample_reader hy_sample_reader;

/* path NULL or "-": standard input (named "(stdin)" in messages). */
hy_status hy_sample_reader_open(hy_sample_reader **r, const char *path, hy_diag *d);
/* Reads from f (not closed by the reader); name is used in messages. */
hy_status hy_sample_reader_open_file(hy_sample_reader **r, const char *name, FILE *f,
				     hy_diag *d);
/* Reads from a buffer in memory (kept by the caller until close). */
hy_status hy_sample_reader_open_mem(hy_sample_reader **r, const char *name, const void *data,
				    size_t len, hy_diag *d);
hy_sample_format hy_sample_reader_format(const hy_sample_reader *r);
/* An upper bound of the samples of a stream opened from a path
 * (stream.h hy_sms_fd_bound on its file: an uncompressed stream's size
 * over a record's), 0 when it cannot be told (compressed, standard input,
 * memory) and for shards. */
uint64_t hy_sample_reader_bound(const hy_sample_reader *r);
/* The observation version of the samples (sample.h HY_OBS_VERSION; 0:
 * unmarked): a shard's attribute, known at open; a stream's first frame
 * header, known after the first hy_sample_read (-1 before). */
int hy_sample_reader_obs_version(const hy_sample_reader *r);
/* One observation version over several inputs: *v < 0 takes r's version
 * (once known), an equal one passes, another one is HY_EDATA naming r's
 * input and both versions, *v's as that of `against` ("the model"; NULL:
 * "the inputs before them"). */
hy_status hy_sample_obs_agree(const hy_sample_reader *r, int *v, const char *against,
			      hy_diag *d);

/* The next sample: HY_OK, HY_STOP at the end, or an error (sticky for
 * streams) with d naming the input and the record/sample number. */
hy_status hy_sample_read(hy_sample_reader *r, hy_sample *s, hy_diag *d);
/* Up to max samples into s[0..*n): HY_OK with *n ≥ 1, or HY_STOP (*n = 0)
 * at the end, or an error (*n samples before it were read fine). */
hy_status hy_sample_read_batch(hy_sample_reader *r, hy_sample *s, size_t max, size_t *n,
			       hy_diag *d);

/* Shards only (HY_EUNSUP for streams): the number of samples, and random
 * access to samples [index, index + n), independent of the sequential
 * position. */
hy_status hy_sample_reader_count(const hy_sample_reader *r, uint64_t *n);
hy_status hy_sample_read_at(hy_sample_reader *r, uint64_t index, size_t n, hy_sample *s,
			    hy_diag *d);
/* The shard's attributes; NULL for a stream. The strings only after
 * hy_sample_reader_describe. */
const hy_shard_info *hy_sample_reader_info(const hy_sample_reader *r);
/* The shard's attributes with its description strings read (shard.h:
 * hy_shard_describe); NULL for a stream or on failure (d filled). */
const hy_shard_info *hy_sample_reader_describe(hy_sample_reader *r, hy_diag *d);

/* The shard being read (NULL for a stream), owned by r: for the two-step
 * reads of shard.h (hy_shard_fetch, hy_shard_decode). */
hy_shard *hy_sample_reader_shard(hy_sample_reader *r);

void hy_sample_reader_close(hy_sample_reader *r);

#endif
