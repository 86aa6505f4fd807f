/* Sample sources (lib/data, below train and play: the trainer and the dataset
 * evaluation both read samples through it; ARCHITECTURE.md §8): an endless, shuffled,
 * resumable sequence of samples over the inputs.
 *
 * Two modes, chosen by content:
 *
 *  - shards: every input is an HDF5 shard named by path. An epoch visits
 *    every sample exactly once: the chunk-sized blocks of all shards are
 *    permuted, grouped into buffers of ~shuffle_buffer samples, and the
 *    samples of each buffer are shuffled (formats/shard.md: read whole
 *    chunks, shuffle within a buffer of chunks). The order of epoch e is a
 *    pure function of (seed, e, the shard sizes).
 *
 *  - streams: any input is a sample stream or standard input. The inputs
 *    are read one after the other in a single pass through a shuffle
 *    buffer of shuffle_buffer samples (a draw takes a uniformly random
 *    sample out of the buffer and refills its slot from the input). Files
 *    are read again for the next epoch (unless cfg one_pass: then, as
 *    standard input always does, the end of the pass ends the data).
 *
 * The cursor (epoch, samples delivered within the epoch) is the whole
 * state: hy_data_seek on a freshly opened source reproduces the
 * sequence from there exactly (streams are re-read and the draws replayed,
 * so a resumed stream must be the same stream).
 *
 * Several ranks (mpirun, lib/mpi; cfg rank of ranks > 1). Every rank
 * follows the same global sequence and cursor — the one of a single
 * process, so a checkpoint resumes with any rank count — and
 * hy_data_next_part gives each rank its part of a batch, in the
 * global order; the parts of all ranks are disjoint and together are the
 * whole batch:
 *
 *  - shards: ranks own chunks, not positions. The chunks are dealt out
 *    in turn (the k-th of epoch e's permuted order to rank (k + e) mod
 *    ranks) and a rank reads only its own chunks of each buffer — about
 *    1/ranks of the bytes and samples; the shuffle of the
 *    buffer is the single process's, over every chunk's slots. A rank's
 *    part of a batch is the batch's samples from its chunks: its size
 *    varies from batch to batch around batch/ranks (by about
 *    √(batch/ranks)), and a buffer of fewer chunks than ranks leaves some
 *    ranks idle (--shuffle-buffer of at least ranks × chunk size avoids it).
 *    Why chunks and not index ranges: a shard is read in compressed,
 *    checksummed chunks, and a shuffled index range of a batch touches
 *    almost every chunk of the buffer, so ranks reading index ranges would
 *    each still read and decompress every chunk.
 *  - streams (files): a stream is read sequentially into the shuffle
 *    buffer, so every rank reads all of it and replays every draw; its part
 *    is its block of the batch's positions (mpi/mpi.h hy_mpi_range_of of the
 *    batch size asked for), the rest is dropped unused. Standard input
 *    cannot be read by several processes (mpirun gives it to rank 0
 *    alone): hydra-fit refuses it under mpirun with several ranks. */
#ifndef HY_DATA_H
#define HY_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "samples/sample.h"

typedef enum hy_data_mode {
	HY_DATA_SHARDS = 1,
	HY_DATA_STREAM = 2,
} hy_data_mode;

typedef struct hy_data_cfg {
	const char *const *paths; /* NULL or "-": standard input       */
	size_t npaths;            /* 0: standard input                 */
	uint64_t seed;
	size_t shuffle_buffer;    /* samples (≥ 1)                     */
	int rank, ranks;          /* this process's part (see above);
				   * ranks 0 or 1: the whole batch     */
	int one_pass;             /* streams: HY_STOP at the end of the
				   * first pass, files as standard input */
	int decoders;             /* shards: threads decoding a buffer's
				   * chunks (0: 1; see Decoding below)  */
	int hdf5_decode;          /* shards: the old way, HDF5 decompresses
				   * (hy_shard_read) in the calling thread,
				   * under the library's lock           */
} hy_data_cfg;

/* Decoding (shards). Loading a buffer fetches the stored chunks of this
 * rank's units (shard.h hy_shard_fetch: HDF5 calls, cheap, in the calling
 * thread) and then decodes them — checksum, inflation, unshuffling, the
 * sample checks — outside HDF5 on `decoders` threads: the caller and
 * decoders − 1 helpers started for the load, each taking the next unit in
 * turn. The samples are bit for bit those of hy_shard_read, in the same
 * slots, so the order and the cursor do not depend on the thread count;
 * a failure is the one of the first failing unit in the buffer's order, as
 * with one thread. */
enum { HY_DATA_MAX_DECODERS = 64 };

typedef struct hy_data_cursor {
	uint64_t epoch; /* 0-based                          */
	uint64_t pos;   /* samples delivered in this epoch  */
} hy_data_cursor;

typedef struct hy_data hy_data;

/* Opens every input (errors name the input). An input with no samples at
 * all is HY_EDATA in shard mode. */
hy_status hy_data_open(hy_data **td, const hy_data_cfg *cfg, hy_diag *d);
void hy_data_close(hy_data *td);

hy_data_mode hy_data_get_mode(const hy_data *td);
/* The observation version of the inputs (samples/sample.h; 0: unmarked),
 * one for all of them: hy_data_open refuses files of two versions, and a
 * stream on standard input that differs fails the read that meets it. -1
 * until known (standard input before its first read). */
int hy_data_obs_version(const hy_data *td);
/* Samples per epoch in shard mode; 0 (unknown) for streams. */
uint64_t hy_data_epoch_size(const hy_data *td);
/* Streams: an upper bound of the samples of a pass when every input is an
 * uncompressed stream file (samples/reader.h hy_sample_reader_bound, taken
 * as they were opened), else 0; 0 for shards. */
uint64_t hy_data_stream_bound(const hy_data *td);
/* Before the first read: the seed, the shuffle buffer and one_pass of the
 * run in place of those it was opened with (the inputs, rank and ranks
 * stay), as if it had been opened with them — so that a caller who opened
 * the inputs to learn their length before it knew the rest (hydra-fit's
 * plan) reads them through the same handle, no input opened twice.
 * HY_EUSAGE after a read. */
hy_status hy_data_restart(hy_data *td, uint64_t seed, size_t shuffle_buffer, int one_pass,
	hy_diag *d);

/* Up to max samples into s[0..*n). HY_OK with *n ≥ 1; HY_STOP with *n = 0
 * when standard input (or a one_pass stream) has ended (files and shards
 * never end otherwise: the next epoch starts); or an error naming the
 * input and record. HY_EUSAGE for a
 * source of several ranks (hy_data_next_part). */
hy_status hy_data_next(hy_data *td, hy_sample *s, size_t max, size_t *n,
	hy_diag *d);
/* The next batch of up to max samples of the global sequence (*n of them:
 * the cursor moves by *n, on every rank alike), of which this rank's part
 * goes to s[0..*mine), in the global order; *mine may be 0. One rank:
 * hy_data_next, *mine = *n. Statuses as hy_data_next. */
hy_status hy_data_next_part(hy_data *td, hy_sample *s, size_t max, size_t *n,
	size_t *mine, hy_diag *d);

/* What the source read from its inputs since it was opened, seeks
 * included: samples decoded, and whole shard chunks read (0 for streams). */
typedef struct hy_data_stats {
	uint64_t samples_read;
	uint64_t chunks_read;
} hy_data_stats;
void hy_data_get_stats(const hy_data *td, hy_data_stats *s);

/* Threads decoding each buffer from now on (1 to HY_DATA_MAX_DECODERS;
 * clamped): the feed sets its loader count (feed.h). No effect on
 * streams or with cfg hdf5_decode. */
void hy_data_set_decoders(hy_data *td, int n);

void hy_data_get_cursor(const hy_data *td, hy_data_cursor *c);
/* Moves to cursor c. Shards: immediate. Streams: only forward from the
 * current position (re-reading and replaying the draws; an earlier epoch of
 * standard input is HY_EUSAGE); HY_STOP if the input ends before c. */
hy_status hy_data_seek(hy_data *td, const hy_data_cursor *c, hy_diag *d);

/* Reads every sample of the inputs once, in order, in batches of up to max:
 * calls fn(u, s, n) per batch until it returns non-zero (HY_STOP) or the
 * inputs end (HY_OK). For validation sets. With obs non-NULL, every input's
 * observation version must be *obs (-1: the first input's), checked before
 * its first batch goes to fn; `against` names what *obs came from in the
 * message (hy_sample_obs_agree). */
hy_status hy_data_scan(const char *const *paths, size_t npaths, hy_sample *buf,
	size_t max, int (*fn)(void *u, const hy_sample *s, size_t n), void *u, int *obs,
	const char *against, hy_diag *d);

/* hy_data_scan of the samples a network meets outside training (its
 * evaluation, its reference outputs): they must hold the observation it was
 * trained on. trained is the checkpoint's obs_version
 * (hy_nn_ckpt_obs_version): the inputs must be of that version, or, for an
 * unmarked network (0), of one version that unmarked files may hold
 * (hy_obs_compatible). HY_EDATA otherwise, naming the input or both
 * versions; the check every program makes where a model meets samples. */
hy_status hy_data_scan_model(const char *const *paths, size_t npaths, hy_sample *buf,
	size_t max, int (*fn)(void *u, const hy_sample *s, size_t n), void *u, int trained,
	hy_diag *d);

/* A 64-bit mix of (seed, a, b) for deriving independent RNG seeds. */
uint64_t hy_data_mix(uint64_t seed, uint64_t a, uint64_t b);

#endif
