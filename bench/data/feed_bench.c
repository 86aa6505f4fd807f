/* The data feed of GPU training (make bench-gpu, bench/data/feed.sh):
 *   feed_bench THREADS BATCH SECONDS LAYOUT SHARD...
 * THREADS loader threads each read and decompress HDF5 shards through
 * data/source (its own shards, or all of them with its own seed when there
 * are fewer shards than threads), shuffle, and assemble batches into two
 * host buffers of their own (double buffering); the main thread takes the
 * batches in turn and, where a GPU is usable, copies each to the device on
 * its own stream from pinned memory. LAYOUT is what a batch holds:
 *   f32   the model's input as hy_nn_work_load builds it: [B][36][85] fp32
 *         with zero pad rows, plus labels (12,240 + 64 bytes a sample);
 *   f16   the compact form: the sample's 85×34 binary16 observation as
 *         stored, plus labels (5,780 + 64 bytes), to be widened on the GPU;
 *   read  nothing assembled: the reading alone.
 * FEED_DECODE=hdf5: the chunks are decompressed by HDF5 (H5Dread, under the
 * library's lock), the old way; otherwise fetched raw under it and decoded
 * by each loader thread outside it (samples/shard.h hy_shard_decode).
 * Prints samples/s in all and per loader thread, the bytes a sample moves
 * to the device, and how many observation values are small integers (a
 * one-byte form would hold them exactly). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HY_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "nn/backend.h"
#include "nn/cuda/compact.h"
#include "nn/math.h"
#include "samples/sample.h"
#include "data/source.h"

enum { LAB = 64 }; /* label bytes a sample: mask, action, grp, rank, targets */

typedef struct feeder feeder;

typedef struct loader {
	feeder *f;
	int id;
	hy_data *td;
	hy_sample *s;
	void *buf[2];
	int ready[2]; /* 1: filled, waiting for the consumer */
	long filled;
	unsigned long long ints, vals; /* observation values that are integers 0–255 */
	int frac[HY_OBS_CHANNELS];     /* channel holds another value */
	pthread_t th;
	char err[600];
} loader;

struct feeder {
	int threads, batch, layout; /* 0 f32, 1 f16, 2 read */
	size_t bytes;               /* of one batch buffer */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	loader *l;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void assemble(loader *l, void *buf)
{
	const feeder *f = l->f;
	const int B = f->batch;
	if (f->layout == 0) {
		float *x = buf;
		memset(x, 0, (size_t)B * HY_NN_TP * HY_OBS_CHANNELS * sizeof *x);
		for (int b = 0; b < B; b++) {
			const uint16_t *o = l->s[b].obs;
			for (int c = 0; c < HY_OBS_CHANNELS; c++)
				for (int t = 0; t < HY_NN_T; t++)
					x[((size_t)b * HY_NN_TP + 1 + t) * HY_OBS_CHANNELS + c] =
						hy_nn_half_to_float(o[c * HY_NN_T + t]);
		}
	} else if (f->layout == 1) {
		hy_nn_obs_pack(l->s, B, buf);
	}
	if (f->layout != 2) { /* labels after the observations */
		unsigned char *lab = (unsigned char *)buf + f->bytes - (size_t)B * LAB;
		for (int b = 0; b < B; b++) {
			const hy_sample *s = &l->s[b];
			unsigned char *p = lab + (size_t)b * LAB;
			memcpy(p, &s->mask, 8);
			memcpy(p + 8, s->opp_waits, 24);
			p[32] = s->action, p[33] = s->grp, p[34] = s->rank, p[35] = s->opp_tenpai;
			p[36] = s->flags;
		}
	}
}

/* Small integers among one batch's observation values (first batch only:
 * a survey, not part of the timing loop's work). */
static void survey(loader *l)
{
	for (int b = 0; b < l->f->batch; b++)
		for (int i = 0; i < HY_OBS_SIZE; i++) {
			float v = hy_nn_half_to_float(l->s[b].obs[i]);
			int ok = v >= 0 && v <= 255 && v == floorf(v);
			l->ints += ok;
			l->vals++;
			l->frac[i / HY_NN_T] |= !ok;
		}
}

static void *run_loader(void *arg)
{
	loader *l = arg;
	feeder *f = l->f;
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (long k = 0;; k++) {
		int i = (int)(k & 1);
		pthread_mutex_lock(&f->mu);
		while (l->ready[i] && !f->stop)
			pthread_cond_wait(&f->cv, &f->mu);
		int stop = f->stop;
		pthread_mutex_unlock(&f->mu);
		if (stop)
			break;
		size_t got = 0, want = (size_t)f->batch;
		while (got < want) {
			size_t n = 0;
			hy_status st = hy_data_next(l->td, l->s + got, want - got, &n, &d);
			if (st) { /* shards are endless: HY_STOP would be a stream's end */
				snprintf(l->err, sizeof l->err, "%s",
					st == HY_STOP ? "the input ended" : d.msg);
				pthread_mutex_lock(&f->mu);
				f->stop = 1;
				pthread_cond_broadcast(&f->cv);
				pthread_mutex_unlock(&f->mu);
				return NULL;
			}
			got += n;
		}
		if (k == 0)
			survey(l);
		assemble(l, l->buf[i]);
		pthread_mutex_lock(&f->mu);
		l->ready[i] = 1;
		l->filled++;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: feed_bench THREADS BATCH SECONDS f32|f16|read SHARD...\n");
		return 2;
	}
	feeder f = {.threads = atoi(argv[1]), .batch = atoi(argv[2])};
	double secs = atof(argv[3]);
	f.layout = !strcmp(argv[4], "f32") ? 0 : !strcmp(argv[4], "f16") ? 1 : 2;
	/* FEED_DECODE=hdf5: the old way, HDF5 decompresses under its lock */
	const char *how = getenv("FEED_DECODE");
	int hdf5 = how && !strcmp(how, "hdf5");
	if (f.threads < 1 || f.batch < 1 || secs <= 0) {
		fprintf(stderr, "feed_bench: threads, batch and seconds must be positive\n");
		return 2;
	}
	const char *const *shards = (const char *const *)argv + 5;
	int nsh = argc - 5;
	size_t per = f.layout == 0 ? (size_t)HY_NN_TP * HY_OBS_CHANNELS * 4 + LAB
		: f.layout == 1 ? (size_t)HY_OBS_SIZE * 2 + LAB : 0;
	f.bytes = per * (size_t)f.batch;
	int pinned = 0;
#ifdef HY_HAVE_CUDA
	void *dev = NULL;
	cudaStream_t copy = NULL;
	int ndev = 0;
	if (f.bytes && cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0 &&
		cudaMalloc(&dev, f.bytes) == cudaSuccess && cudaStreamCreate(&copy) == cudaSuccess)
		pinned = 1;
	else
		(void)cudaGetLastError();
#endif
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	f.l = calloc((size_t)f.threads, sizeof *f.l);
	if (!f.l)
		return 1;
	for (int t = 0; t < f.threads; t++) {
		loader *l = &f.l[t];
		l->f = &f;
		l->id = t;
		/* shards round-robin over threads; fewer shards than threads: all,
		 * with the thread's own seed */
		const char **mine = calloc((size_t)nsh, sizeof *mine);
		size_t nm = 0;
		for (int i = 0; i < nsh; i++)
			if (nsh < f.threads || i % f.threads == t)
				mine[nm++] = shards[i];
		hy_data_cfg dc = {.paths = mine, .npaths = nm, .seed = 1000 + (uint64_t)t,
			.shuffle_buffer = 8192, .hdf5_decode = hdf5};
		hy_diag d;
		hy_diag_init(&d, NULL);
		if (hy_data_open(&l->td, &dc, &d)) {
			fprintf(stderr, "feed_bench: %s\n", d.msg);
			return 1;
		}
		free(mine);
		l->s = malloc((size_t)f.batch * sizeof *l->s);
		for (int i = 0; i < 2; i++) {
#ifdef HY_HAVE_CUDA
			if (pinned) {
				if (cudaHostAlloc(&l->buf[i], f.bytes, cudaHostAllocDefault) != cudaSuccess)
					return 1;
				continue;
			}
#endif
			l->buf[i] = malloc(f.bytes ? f.bytes : 1);
		}
		if (!l->s || !l->buf[0] || !l->buf[1])
			return 1;
	}
	for (int t = 0; t < f.threads; t++)
		pthread_create(&f.l[t].th, NULL, run_loader, &f.l[t]);
	/* the consumer: batches in turn from each loader's buffers */
	double t0 = now(), t1 = t0;
	long taken = 0, warm = (long)f.threads * 2;
	for (long k = 0;; k++) {
		loader *l = &f.l[k % f.threads];
		int i = (int)((k / f.threads) & 1);
		pthread_mutex_lock(&f.mu);
		while (!l->ready[i] && !f.stop)
			pthread_cond_wait(&f.cv, &f.mu);
		int stop = f.stop;
		pthread_mutex_unlock(&f.mu);
		if (stop)
			break;
#ifdef HY_HAVE_CUDA
		if (pinned && (cudaMemcpyAsync(dev, l->buf[i], f.bytes, cudaMemcpyHostToDevice,
				       copy) != cudaSuccess ||
				      cudaStreamSynchronize(copy) != cudaSuccess)) {
			fprintf(stderr, "feed_bench: host-to-device copy failed\n");
			return 1;
		}
#endif
		pthread_mutex_lock(&f.mu);
		l->ready[i] = 0;
		pthread_cond_broadcast(&f.cv);
		pthread_mutex_unlock(&f.mu);
		if (++taken == warm) /* the first buffers filled: the clock starts */
			t0 = now();
		t1 = now();
		if (taken > warm && t1 - t0 >= secs) {
			pthread_mutex_lock(&f.mu);
			f.stop = 1;
			pthread_cond_broadcast(&f.cv);
			pthread_mutex_unlock(&f.mu);
			break;
		}
	}
	unsigned long long ints = 0, vals = 0;
	int bad = 0, frac[HY_OBS_CHANNELS] = {0}, u8ch = 0;
	for (int t = 0; t < f.threads; t++) {
		pthread_join(f.l[t].th, NULL);
		if (f.l[t].err[0]) {
			fprintf(stderr, "feed_bench: loader %d: %s\n", t, f.l[t].err);
			bad = 1;
		}
		ints += f.l[t].ints;
		vals += f.l[t].vals;
		for (int c = 0; c < HY_OBS_CHANNELS; c++)
			frac[c] |= f.l[t].frac[c];
	}
	for (int c = 0; c < HY_OBS_CHANNELS; c++)
		u8ch += !frac[c];
	if (bad)
		return 1;
	double sps = (double)(taken - warm) * f.batch / (t1 - t0);
	printf("feed %s%s: %d loader thread%s, batch %d: %.0f samples/s (%.0f per thread), "
		"%zu bytes/sample to the device, %s buffers%s; observation values that are "
		"integers 0-255: %.2f%%, channels with only such values: %d of %d\n", argv[4],
		hdf5 ? " (hdf5 decode)" : "",
		f.threads, f.threads > 1 ? "s" : "", f.batch, sps, sps / f.threads, per,
		pinned ? "pinned" : "plain host",
		pinned ? " with a host-to-device copy each" : " (no GPU: no copy)",
		vals ? 100.0 * (double)ints / (double)vals : 0.0, u8ch, HY_OBS_CHANNELS);
	for (int t = 0; t < f.threads; t++) {
		hy_data_close(f.l[t].td);
		free(f.l[t].s);
		for (int i = 0; i < 2; i++) {
#ifdef HY_HAVE_CUDA
			if (pinned) {
				cudaFreeHost(f.l[t].buf[i]);
				continue;
			}
#endif
			free(f.l[t].buf[i]);
		}
	}
#ifdef HY_HAVE_CUDA
	if (dev)
		cudaFree(dev);
	if (copy)
		cudaStreamDestroy(copy);
#endif
	free(f.l);
	return 0;
}
