/* The data feed: loader threads, a ring of packed batches, the staged
 * device copies (see feed.h). */
#include "train/feed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EMPTY = 0, FILLING, READY };

typedef struct slot {
	int state;
	hy_sample *s;      /* the batch's samples, as read       */
	void *host;        /* packed, hy_nn_batch_bytes(batch)   */
	hy_train_batch b;
	hy_status st;      /* of reading or packing this batch   */
	hy_diag d;
} slot;

typedef struct loader {
	hy_train_feed *f;
	pthread_t th;
	int started;
	uint64_t samples;
	double read_s, pack_s;
} loader;

struct hy_train_feed {
	hy_data *td;
	int batch, threads, nslots;
	int compact;              /* batches packed compact (feed.h)     */
	int in;                   /* input planes of a batch (feed.h)    */
	const hy_nn_backend *hbe; /* host memory from hbe->host_alloc, or NULL */
	slot *slots;
	loader *ld;
	pthread_mutex_t mu;   /* the ring, the counters, stop        */
	pthread_mutex_t rd;   /* the source: claim + read in order   */
	pthread_cond_t cv;
	int stop, ended;      /* ended: a batch failed or the input ended */
	uint64_t claim;       /* next batch number to read           */
	uint64_t take;        /* next batch number to deliver        */
	uint64_t delivered, samples;
	double wait_s;
	hy_diag src;          /* the caller's source name for messages */
	/* hy_train_feed_load: device staging (two packed batches) */
	const hy_nn_backend *dbe;
	const hy_nn_ctx *dctx;
	void *stage[2];
	const hy_train_batch *next; /* taken and uploaded, not yet in the work */
	hy_status next_st;          /* the failure to report at the next load */
	hy_diag next_d;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One loader thread: claim the next batch number and read it under the
 * source's lock (so batches are read in their order), then pack it alone. */
static void *loader_main(void *arg)
{
	loader *l = arg;
	hy_train_feed *f = l->f;
	for (;;) {
		pthread_mutex_lock(&f->rd);
		pthread_mutex_lock(&f->mu);
		slot *sl = NULL;
		while (!f->stop && !f->ended) {
			sl = &f->slots[f->claim % (uint64_t)f->nslots];
			if (sl->state == EMPTY)
				break;
			sl = NULL;
			pthread_cond_wait(&f->cv, &f->mu);
		}
		if (!sl) {
			pthread_mutex_unlock(&f->mu);
			pthread_mutex_unlock(&f->rd);
			break;
		}
		sl->state = FILLING;
		sl->b.seq = f->claim++;
		pthread_mutex_unlock(&f->mu);

		double t0 = now_s();
		size_t n = 0, all = 0;
		hy_diag_init(&sl->d, NULL); /* no line, no game: not "game 1" */
		memcpy(sl->d.source, f->src.source, sizeof sl->d.source);
		sl->st = hy_data_next_part(f->td, sl->s, (size_t)f->batch, &all, &n, &sl->d);
		sl->b.n_global = (int)all;
		hy_data_get_cursor(f->td, &sl->b.cursor);
		int failed = sl->st != HY_OK;
		if (failed) { /* no batch after this one: its status is the last word */
			pthread_mutex_lock(&f->mu);
			f->ended = 1;
			pthread_mutex_unlock(&f->mu);
		}
		pthread_mutex_unlock(&f->rd);
		double t1 = now_s();
		if (!failed)
			sl->st = hy_nn_batch_pack_in(sl->host, sl->s, (int)n, f->compact, f->in,
				&sl->b.info, &sl->d);
		double t2 = now_s();

		pthread_mutex_lock(&f->mu);
		l->read_s += t1 - t0;
		l->pack_s += t2 - t1;
		if (!failed)
			l->samples += n;
		if (sl->st && !failed)
			f->ended = 1; /* a packing error stops the reading too */
		sl->state = READY;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
	return NULL;
}

int hy_train_feed_compact_ok(const hy_nn_backend *be)
{
	return be && be->expand_obs && be->to_dev_async && be->dev_copy;
}

static void *host_mem(const hy_nn_backend *be, size_t bytes)
{
	return be ? be->host_alloc(bytes) : calloc(1, bytes ? bytes : 1);
}

static void host_release(const hy_nn_backend *be, void *p)
{
	if (be)
		be->host_free(p);
	else
		free(p);
}

void hy_train_feed_close(hy_train_feed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	for (int i = 0; f->ld && i < f->threads; i++)
		if (f->ld[i].started)
			pthread_join(f->ld[i].th, NULL);
	if (f->dbe) { /* the queued copies end before their memory goes */
		if (f->dbe->sync)
			(void)f->dbe->sync(f->dctx, NULL);
		f->dbe->free(f->stage[0]);
		f->dbe->free(f->stage[1]);
	}
	for (int i = 0; f->slots && i < f->nslots; i++) {
		free(f->slots[i].s);
		host_release(f->hbe, f->slots[i].host);
	}
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->rd);
	pthread_mutex_destroy(&f->mu);
	free(f->slots);
	free(f->ld);
	free(f);
}

hy_status hy_train_feed_open(hy_train_feed **out, hy_data *td,
	const hy_train_feed_cfg *cfg, hy_diag *d)
{
	*out = NULL;
	if (cfg->batch < 1 || cfg->threads < 1 || cfg->threads > HY_TRAIN_FEED_MAX)
		return hy_diag_set(d, HY_EUSAGE, 0, "feed of batch %d with %d loader threads: want a "
			"batch ≥ 1 and 1 to %d threads", cfg->batch, cfg->threads, HY_TRAIN_FEED_MAX);
	if (cfg->compact && !hy_train_feed_compact_ok(cfg->be))
		return hy_diag_set(d, HY_EUSAGE, 0, "compact batches need a backend that widens "
			"them on its device (%s does not)", cfg->be ? cfg->be->name : "no backend");
	hy_train_feed *f = calloc(1, sizeof *f);
	if (!f)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	pthread_mutex_init(&f->mu, NULL);
	pthread_mutex_init(&f->rd, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->td = td;
	/* the batch that loads a buffer decodes it on as many threads as
	 * there are loaders (the others wait for the source meanwhile) */
	hy_data_set_decoders(td, cfg->threads);
	f->batch = cfg->batch;
	f->threads = cfg->threads;
	f->compact = cfg->compact;
	f->in = cfg->in ? cfg->in : HY_NN_IN;
	f->nslots = cfg->threads + 3;
	f->hbe = cfg->be && cfg->be->host_alloc && cfg->be->host_free ? cfg->be : NULL;
	if (d)
		memcpy(f->src.source, d->source, sizeof f->src.source);
	f->slots = calloc((size_t)f->nslots, sizeof *f->slots);
	f->ld = calloc((size_t)f->threads, sizeof *f->ld);
	int fail = !f->slots || !f->ld;
	const size_t bytes = hy_nn_batch_bytes_in(f->batch, f->compact, f->in);
	for (int i = 0; !fail && i < f->nslots; i++) {
		f->slots[i].s = malloc((size_t)f->batch * sizeof *f->slots[i].s);
		f->slots[i].host = host_mem(f->hbe, bytes);
		f->slots[i].b.host = f->slots[i].host;
		fail = !f->slots[i].s || !f->slots[i].host;
	}
	if (fail) {
		hy_train_feed_close(f);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of %smemory for the feed's %d batches of %d",
			cfg->be && cfg->be->host_alloc ? "page-locked " : "", cfg->threads + 3,
			cfg->batch);
	}
	for (int i = 0; i < f->threads; i++) {
		loader *l = &f->ld[i];
		l->f = f;
		if (pthread_create(&l->th, NULL, loader_main, l) != 0) {
			hy_train_feed_close(f);
			return hy_diag_set(d, HY_ENOMEM, 0, "cannot start loader thread %d", i + 1);
		}
		l->started = 1;
	}
	*out = f;
	return HY_OK;
}

hy_status hy_train_feed_next(hy_train_feed *f, const hy_train_batch **b, hy_diag *d)
{
	*b = NULL;
	double t0 = now_s();
	/* the batch two before this one goes back to the loaders once its
	 * upload has read its page-locked buffer (the fence recorded after it:
	 * the steps may be queued ahead of the device) */
	if (f->take >= 2 && f->dbe && f->dbe->copy_wait)
		f->dbe->copy_wait(f->dctx, HY_NN_FENCE_FEED + (int)((f->take - 2) % 2));
	pthread_mutex_lock(&f->mu);
	if (f->take >= 2) {
		slot *old = &f->slots[(f->take - 2) % (uint64_t)f->nslots];
		if (old->state == READY && old->b.seq == f->take - 2 && !old->st) {
			old->state = EMPTY;
			pthread_cond_broadcast(&f->cv);
		}
	}
	slot *sl = &f->slots[f->take % (uint64_t)f->nslots];
	while (!(sl->state == READY && sl->b.seq == f->take))
		pthread_cond_wait(&f->cv, &f->mu);
	hy_status st = sl->st;
	if (st) { /* kept READY with its status: every later call says the same */
		if (d) {
			*d = sl->d;
			d->status = st;
		}
	} else {
		f->take++;
		f->delivered++;
		f->samples += (uint64_t)sl->b.info.n;
		*b = &sl->b;
	}
	f->wait_s += now_s() - t0;
	pthread_mutex_unlock(&f->mu);
	return st;
}

/* The upload of batch b into staging buffer seq % 2 (copy stream), then
 * its fence: its slot returns to the loaders two batches later, after it
 * (hy_train_feed_next). */
static void upload(hy_train_feed *f, const hy_train_batch *b)
{
	if (b->info.n > 0)
		f->dbe->to_dev_async(f->dctx, f->stage[b->seq % 2], b->host,
			hy_nn_batch_bytes_in(b->info.n, b->info.compact, b->info.in));
	if (f->dbe->copy_mark)
		f->dbe->copy_mark(f->dctx, HY_NN_FENCE_FEED + (int)(b->seq % 2));
}

hy_status hy_train_feed_load(hy_train_feed *f, hy_nn_work *w, const hy_nn_model *m,
	const hy_train_batch **out, hy_diag *d)
{
	const hy_nn_backend *be = m->be;
	*out = NULL;
	if (!be->to_dev_async || !be->dev_copy) { /* the CPU: a plain copy */
		const hy_train_batch *b;
		hy_status st = hy_train_feed_next(f, &b, d);
		if (st)
			return st;
		if (b->info.n > 0 && (st = hy_nn_work_put(w, m, b->host, &b->info, 0, d)))
			return st;
		*out = b;
		return HY_OK;
	}
	if (!f->dbe) { /* first call: the staging, and batch 0's upload */
		size_t bytes = hy_nn_batch_bytes_in(f->batch, f->compact, f->in);
		f->stage[0] = be->alloc(bytes);
		f->stage[1] = be->alloc(bytes);
		f->dbe = be;
		f->dctx = m->ctx;
		if (!f->stage[0] || !f->stage[1])
			return hy_diag_set(d, HY_ENOMEM, 0, "out of device memory for the feed's "
				"staging (2 batches of %d)", f->batch);
		f->next_st = hy_train_feed_next(f, &f->next, &f->next_d);
		if (!f->next_st)
			upload(f, f->next);
	}
	if (f->next_st) {
		if (d)
			*d = f->next_d;
		return f->next_st;
	}
	const hy_train_batch *b = f->next;
	hy_status st = b->info.n > 0 ? hy_nn_work_put(w, m, f->stage[b->seq % 2], &b->info, 1, d)
				     : HY_OK; /* another rank's samples only */
	if (st)
		return st;
	/* the next batch now (it is usually ready: the loaders run ahead), so
	 * that its upload overlaps this step's ops; the staging buffer it
	 * lands in was last read by the previous dev_copy, which the upload
	 * waits for (backend.h) */
	f->next_st = hy_train_feed_next(f, &f->next, &f->next_d);
	if (!f->next_st)
		upload(f, f->next);
	*out = b;
	return HY_OK;
}

void hy_train_feed_get_stats(hy_train_feed *f, hy_train_feed_stats *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_lock(&f->mu);
	s->threads = f->threads;
	s->batches = f->delivered;
	s->samples = f->samples;
	s->wait_s = f->wait_s;
	for (int i = 0; i < f->threads; i++) {
		s->thread_samples[i] = f->ld[i].samples;
		s->read_s[i] = f->ld[i].read_s;
		s->pack_s[i] = f->ld[i].pack_s;
	}
	pthread_mutex_unlock(&f->mu);
}

hy_status hy_train_feed_measure(const hy_data_cfg *dc, const hy_train_feed_cfg *fc,
	uint64_t batches, double *seconds, hy_train_feed_stats *s, hy_diag *d)
{
	memset(s, 0, sizeof *s);
	*seconds = 0;
	double t0 = now_s();
	hy_data *td;
	hy_status st = hy_data_open(&td, dc, d);
	if (st)
		return st;
	hy_train_feed *f;
	if ((st = hy_train_feed_open(&f, td, fc, d))) {
		hy_data_close(td);
		return st;
	}
	for (uint64_t k = 0; !batches || k < batches; k++) {
		const hy_train_batch *b;
		st = hy_train_feed_next(f, &b, d);
		if (st == HY_STOP) {
			st = HY_OK;
			break;
		}
		if (st || (!batches && b->cursor.epoch > 0))
			break;
	}
	*seconds = now_s() - t0;
	hy_train_feed_get_stats(f, s);
	hy_train_feed_close(f);
	hy_data_close(td);
	return st;
}
