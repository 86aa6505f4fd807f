/* The data feed of hydra-fit (issue 15): loader threads that read batches
 * from a training data source (data.h) and pack them as the backend takes
 * them (nn/model.h hy_nn_batch_pack: labels, and the model's input
 * [B][36][85] fp32; or, for a GPU, the compact batch of binary16 planes
 * that the device widens) into host buffers — page-locked where the backend has
 * host_alloc (CUDA), plain memory otherwise — a few batches ahead of the
 * trainer; on a GPU the host→device copy of the next batch runs on its own
 * stream while the current step computes (hy_train_feed_load).
 *
 * Order. The threads only prefetch: batch k is the k-th
 * hy_data_next_part of batch size on the source, exactly as without
 * the feed, so the data order stays a function of the seed and the
 * cursor, and each batch carries the source's cursor after it — the cursor
 * a checkpoint of the step that trained on it must save for an exact
 * resume (the source itself is ahead by the batches in flight). On a
 * source split across ranks (data.h) a batch is this rank's part of the
 * global batch (possibly no sample at all: hy_train_feed_load then leaves
 * the workspace alone).
 *
 * Threads. A loader thread claims the next batch number and reads the
 * batch under the source's lock (the source is sequential), then packs it
 * — the binary16 → fp32 widening and transposition — without any lock, in
 * parallel with the other threads. The batch that needs a new shuffle
 * buffer of shards has it decoded on as many threads as there are loaders
 * (data.h, Decoding: only the fetch of the stored chunks is an HDF5 call,
 * under the library's one lock; inflation and the rest run outside it),
 * while the other loaders wait for the source or pack. Batches are held
 * in a ring of threads + 3 slots: up to one being filled per thread and the
 * two the consumer holds (the batch in use and the next one being copied
 * to the device). */
#ifndef HY_TRAIN_FEED_H
#define HY_TRAIN_FEED_H

#include <stdint.h>

#include "core/status.h"
#include "nn/model.h"
#include "data/source.h"

typedef struct hy_train_feed_cfg {
	int batch;               /* samples a batch (≥ 1)                        */
	int threads;             /* loader threads (1 to HY_TRAIN_FEED_MAX)      */
	const hy_nn_backend *be; /* host_alloc (page-locked) when it has one; NULL:
				  * plain memory                                 */
	int compact;             /* pack compact batches (model.h: binary16
				  * planes, widened on the device by the
				  * backend's expand_obs; half the bytes and no
				  * widening in the loaders): only for a backend
				  * with expand_obs, to_dev_async and dev_copy  */
	int in;                  /* the model's input planes (model.h m->in: 85,
				  * or 290 with the oracle planes; 0 means 85)  */
} hy_train_feed_cfg;

enum { HY_TRAIN_FEED_MAX = 64 };

typedef struct hy_train_batch {
	const void *host;        /* packed batch, hy_nn_batch_bytes_as(info.n,
				  * info.compact) bytes                          */
	hy_nn_batch_info info;
	hy_data_cursor cursor;  /* the source's cursor after this batch         */
	int n_global;            /* samples of the global batch (several ranks:
				  * info.n is this rank's part of them)         */
	uint64_t seq;            /* 0-based batch number since open              */
} hy_train_batch;

typedef struct hy_train_feed hy_train_feed;

/* 1 when be takes compact batches from the feed (cfg.compact): it widens
 * them on its device (expand_obs) and has the feed's copies. */
int hy_train_feed_compact_ok(const hy_nn_backend *be);

/* Starts the threads on td (not owned; nothing else may use it until
 * hy_train_feed_close). HY_EUSAGE for a bad configuration, HY_ENOMEM. */
hy_status hy_train_feed_open(hy_train_feed **f, hy_data *td,
	const hy_train_feed_cfg *cfg, hy_diag *d);
/* Stops and joins the threads, frees the buffers (and the device staging
 * of hy_train_feed_load, with the backend it was made on). NULL is fine. */
void hy_train_feed_close(hy_train_feed *f);

/* The next batch, in order; it stays valid until the second call after
 * this one. HY_STOP when standard input has ended; a reading or packing
 * error (as data.h and hy_nn_batch_pack give it) at the batch where it
 * happened, and the same status from then on. */
hy_status hy_train_feed_next(hy_train_feed *f, const hy_train_batch **b, hy_diag *d);

/* The next batch into workspace w of model m. With the backend's
 * to_dev_async (CUDA): the batch was uploaded by the previous call into
 * one of two device staging buffers on the copy stream; it is copied into
 * w on the ops' stream, and the following batch is taken and its upload
 * queued before returning, so that it runs during this step. Otherwise
 * hy_nn_work_put with be->to_dev. *b: the batch now in w. Statuses as
 * hy_train_feed_next (a failure of the following batch is returned by the
 * next call, when that batch is due). */
hy_status hy_train_feed_load(hy_train_feed *f, hy_nn_work *w, const hy_nn_model *m,
	const hy_train_batch **b, hy_diag *d);

typedef struct hy_train_feed_stats {
	int threads;
	uint64_t batches, samples;                   /* delivered          */
	uint64_t thread_samples[HY_TRAIN_FEED_MAX];  /* packed, per thread */
	double read_s[HY_TRAIN_FEED_MAX];            /* reading, per thread */
	double pack_s[HY_TRAIN_FEED_MAX];            /* packing, per thread */
	double wait_s;                               /* the consumer waiting */
} hy_train_feed_stats;

void hy_train_feed_get_stats(hy_train_feed *f, hy_train_feed_stats *s);

/* hydra-fit --feed-only: opens the source of dc, runs the feed of fc and
 * takes batches (0: until the cursor leaves the first epoch, or standard
 * input ends), touching nothing but the feed. *seconds: wall time from the
 * open to the last batch; *s: the feed's figures. */
hy_status hy_train_feed_measure(const hy_data_cfg *dc, const hy_train_feed_cfg *fc,
	uint64_t batches, double *seconds, hy_train_feed_stats *s, hy_diag *d);

#endif
