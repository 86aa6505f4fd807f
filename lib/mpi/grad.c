/* Data-parallel loss normalisation and gradient sum (see grad.h). */
#include "mpi/grad.h"

#include <stdlib.h>
#include <string.h>

#include "nn/backend.h"
#include "nn/cpupath.h"

void hy_mpi_loss_local(const hy_nn_work *w, const hy_nn_losses *l, int nslice,
	double v[HY_MPI_LOSS_N])
{
	memset(v, 0, HY_MPI_LOSS_N * sizeof *v);
	if (nslice <= 0)
		return;
	double b = nslice, nt = (double)w->n_known * HY_NN_OPP,
	       nd = (double)w->n_danger * HY_NN_T;
	v[0] = b;
	v[1] = nt;
	v[2] = nd;
	v[3] = l->policy * b;
	v[4] = l->value * b;
	v[5] = l->grp * b;
	v[6] = l->tenpai * nt;
	v[7] = l->danger * nd;
	v[8] = l->correct;
	v[9] = l->n;
}

void hy_mpi_loss_global(const double g[HY_MPI_LOSS_N], const hy_nn_loss_w *lw,
	hy_nn_losses *l)
{
	memset(l, 0, sizeof *l);
	double b = g[0];
	l->policy = b > 0 ? g[3] / b : 0;
	l->value = b > 0 ? g[4] / b : 0;
	l->grp = b > 0 ? g[5] / b : 0;
	l->tenpai = g[1] > 0 ? g[6] / g[1] : 0;
	l->danger = g[2] > 0 ? g[7] / g[2] : 0;
	l->correct = (int)g[8];
	l->n = (int)g[9];
	l->total = hy_nn_loss_total(lw, l);
}

void hy_mpi_loss_rescale(const hy_nn_model *m, hy_nn_work *w,
	const double local[HY_MPI_LOSS_N], const double global[HY_MPI_LOSS_N])
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const size_t B = (size_t)w->B;
	if (local[0] <= 0)
		return;
	/* hy_nn_loss divided by this slice's counts; the whole batch's are global */
	float sb = (float)(local[0] / global[0]);
	be->scale(c, B * HY_ACTIONS, w->dplog, sb);
	be->scale(c, B, w->dvout, sb);
	be->scale(c, B * HY_GRP_CLASSES, w->dgout, sb);
	if (local[1] > 0)
		be->scale(c, B * HY_NN_OPP, w->dtout, (float)(local[1] / global[1]));
	if (local[2] > 0)
		be->scale(c, B * HY_NN_TP * HY_NN_OPP, w->ddan, (float)(local[2] / global[2]));
}

hy_status hy_mpi_grad_sum(const hy_mpi *ds, const hy_nn_model *m, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	const size_t n = m->table.total;
	if (hy_nn_backend_is_host(m->be)) /* host memory: in place */
		return hy_mpi_sum_f32(ds, m->g, n, d);
	/* device memory: the backend's queued work must be done first */
	hy_status st = m->be->sync ? m->be->sync(m->ctx, d) : HY_OK;
	if (st)
		return st;
	/* bucket by bucket through one page-locked host buffer (the backend's
	 * host_alloc; plain memory when it has none), also under a CUDA-aware
	 * MPI: the backend's device memory comes from the stream-ordered pool,
	 * which CUDA IPC (how a CUDA-aware MPI reaches a peer's buffer on the
	 * same node) cannot map */
	size_t nb = n < HY_MPI_BUCKET ? n : HY_MPI_BUCKET;
	int pinned = m->be->host_alloc && m->be->host_free;
	float *h = pinned ? m->be->host_alloc(nb * sizeof *h) : malloc(nb * sizeof *h);
	if (!h)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (gradient staging buffer)");
	for (size_t o = 0; o < n && !st; o += nb) {
		size_t k = n - o < nb ? n - o : nb;
		m->be->to_host(h, m->g + o, k * sizeof *h);
		st = hy_mpi_sum_f32(ds, h, k, d);
		if (!st)
			m->be->to_dev(m->g + o, h, k * sizeof *h);
	}
	if (pinned)
		m->be->host_free(h);
	else
		free(h);
	return st;
}

/* ---------------------------------------------------------------- overlapped sum */

size_t hy_mpi_overlap_bucket(size_t total)
{
	size_t b = (total + 7) / 8;
	b = (b + 1023) / 1024 * 1024;
	if (b < HY_MPI_OVERLAP_MIN)
		b = HY_MPI_OVERLAP_MIN;
	if (b > HY_MPI_BUCKET)
		b = HY_MPI_BUCKET;
	return b;
}

size_t hy_mpi_buckets(size_t total, size_t bucket)
{
	return (total + bucket - 1) / bucket;
}

void hy_mpi_bucket_range(size_t total, size_t bucket, size_t i, size_t *lo, size_t *hi)
{
	size_t off = i * bucket; /* from the end */
	*hi = off < total ? total - off : 0;
	*lo = *hi > bucket ? *hi - bucket : 0;
}

size_t hy_mpi_buckets_ready(size_t total, size_t bucket, size_t from)
{
	size_t nb = hy_mpi_buckets(total, bucket);
	if (from == 0)
		return nb;
	if (from >= total)
		return 0;
	/* bucket i (not the last, which reaches 0) starts at total − (i+1)·bucket */
	size_t k = (total - from) / bucket;
	return k < nb ? k : nb;
}

struct hy_mpi_overlap {
	const hy_mpi *ds;
	const hy_nn_model *m;
	size_t total, bucket, nb;
	size_t started; /* buckets 0 .. started−1 are summing */
	size_t queued;  /* async: buckets 0 .. queued−1 downloading or summing */
	int device;     /* m->g is device memory: sync before handing it over */
	int async;      /* the backend downloads behind the ops (to_host_async
			 * and fences): no wait for the whole queue a bucket */
	float *h;       /* staging: page-locked copy of the gradient, or NULL */
	int pinned;
	hy_mpi_reqs *q;
	int in_backward; /* between begin and end: a start is "early" */
	hy_status st;    /* the first failure of this step */
	hy_diag d;
	hy_mpi_overlap_stats stats;
};

/* The sum of bucket i over the ranks, its floats in buf. */
static hy_status start_one(hy_mpi_overlap *o, size_t i, float *buf, size_t n)
{
	hy_status st = hy_mpi_isum_f32(o->ds, o->q, i, buf, n, &o->d);
	if (st)
		return st;
	o->started = i + 1;
	o->stats.buckets++;
	o->stats.early += o->in_backward;
	return HY_OK;
}

/* Starts buckets started .. upto−1 (upto > started), waiting for the
 * queued work that wrote them and copying them down one after the other
 * (host memory, or a backend without downloads behind the ops). */
static hy_status start_buckets(hy_mpi_overlap *o, size_t upto)
{
	const hy_nn_model *m = o->m;
	hy_status st;
	if (o->device && m->be->sync && (st = m->be->sync(m->ctx, &o->d)))
		return st; /* the queued backward ops that wrote these buckets */
	for (size_t i = o->started; i < upto; i++) {
		size_t lo, hi;
		hy_mpi_bucket_range(o->total, o->bucket, i, &lo, &hi);
		float *buf = m->g + lo;
		if (o->h) { /* device gradients: through host memory */
			m->be->to_host(o->h + lo, m->g + lo, (hi - lo) * sizeof(float));
			buf = o->h + lo;
		}
		if ((st = start_one(o, i, buf, hi - lo)))
			return st;
	}
	return HY_OK;
}

/* Async downloads: bucket i's fence (HY_NN_COPY_FENCES − HY_NN_FENCE_GRAD
 * of them, in turn). */
enum { GRAD_FENCES = HY_NN_COPY_FENCES - HY_NN_FENCE_GRAD };
static int fence_of(size_t i)
{
	return HY_NN_FENCE_GRAD + (int)(i % GRAD_FENCES);
}

/* Starts the downloaded buckets in order: those whose fence has passed
 * (wait 0: without waiting), or all of them (wait 1). */
static hy_status start_downloaded(hy_mpi_overlap *o, int wait)
{
	const hy_nn_model *m = o->m;
	while (o->started < o->queued) {
		size_t i = o->started, lo, hi;
		if (wait)
			m->be->copy_wait(m->ctx, fence_of(i));
		else if (!m->be->copy_done(m->ctx, fence_of(i)))
			break;
		hy_mpi_bucket_range(o->total, o->bucket, i, &lo, &hi);
		hy_status st = start_one(o, i, o->h + lo, hi - lo);
		if (st)
			return st;
	}
	return HY_OK;
}

/* Queues the downloads of buckets queued .. upto−1 behind the ops that
 * wrote them, each with its fence; the host goes on queueing the backward
 * pass meanwhile. A fence is reused only after its bucket has started. */
static hy_status queue_downloads(hy_mpi_overlap *o, size_t upto)
{
	const hy_nn_model *m = o->m;
	for (size_t i = o->queued; i < upto; i++) {
		if (i - o->started >= GRAD_FENCES) { /* fence i's last bucket first */
			m->be->copy_wait(m->ctx, fence_of(o->started));
			hy_status st = start_downloaded(o, 0);
			if (st)
				return st;
		}
		size_t lo, hi;
		hy_mpi_bucket_range(o->total, o->bucket, i, &lo, &hi);
		m->be->to_host_async(m->ctx, o->h + lo, m->g + lo, (hi - lo) * sizeof(float));
		m->be->copy_mark(m->ctx, fence_of(i));
		o->queued = i + 1;
	}
	return HY_OK;
}

/* w->ready: [from, total) of m->g is final. */
static void on_ready(void *arg, size_t from)
{
	hy_mpi_overlap *o = arg;
	if (o->st || from == 0) /* 0: the end; hy_mpi_overlap_end starts the rest */
		return;
	size_t k = hy_mpi_buckets_ready(o->total, o->bucket, from);
	if (o->async) {
		if ((k > o->queued && (o->st = queue_downloads(o, k))) ||
			(o->st = start_downloaded(o, 0)))
			return;
	} else if (k > o->started && (o->st = start_buckets(o, k))) {
		return;
	}
	int done;
	o->st = hy_mpi_test(o->ds, o->q, &done, &o->d);
}

hy_status hy_mpi_overlap_init(hy_mpi_overlap **out, const hy_mpi *ds, const hy_nn_model *m,
	hy_diag *d)
{
	*out = NULL;
	hy_mpi_overlap *o = calloc(1, sizeof *o);
	if (!o)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	o->ds = ds;
	o->m = m;
	o->total = m->table.total;
	o->bucket = hy_mpi_overlap_bucket(o->total);
	o->nb = hy_mpi_buckets(o->total, o->bucket);
	o->device = !hy_nn_backend_is_host(m->be);
	hy_status st = hy_mpi_reqs_init(&o->q, o->nb, d);
	if (!st && o->device && ds->size > 1) {
		/* one page-locked copy of the whole gradient (plain memory when
		 * the backend has no host_alloc), also under a CUDA-aware MPI:
		 * Open MPI's CUDA support covers point-to-point and blocking
		 * collectives, not the non-blocking MPI_Iallreduce this uses, so
		 * device pointers go to MPI only in the blocking hy_mpi_grad_sum */
		size_t bytes = o->total * sizeof(float);
		o->pinned = m->be->host_alloc && m->be->host_free;
		o->h = o->pinned ? m->be->host_alloc(bytes) : malloc(bytes);
		if (!o->h)
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of %smemory for the gradient staging "
				"buffer (%zu bytes)", o->pinned ? "page-locked " : "", bytes);
		o->stats.staged = 1;
		/* downloads behind the ops into page-locked memory */
		o->async = o->h && o->pinned && m->be->to_host_async && m->be->copy_mark &&
			   m->be->copy_wait && m->be->copy_done;
	}
	if (st) {
		hy_mpi_overlap_free(o);
		return st;
	}
	*out = o;
	return HY_OK;
}

void hy_mpi_overlap_free(hy_mpi_overlap *o)
{
	if (!o)
		return;
	if (o->h && o->pinned)
		o->m->be->host_free(o->h);
	else
		free(o->h);
	hy_mpi_reqs_free(o->q);
	free(o);
}

void hy_mpi_overlap_begin(hy_mpi_overlap *o, hy_nn_work *w)
{
	o->started = o->queued = 0;
	o->st = HY_OK;
	o->in_backward = 1;
	hy_diag_init(&o->d, NULL);
	if (o->ds->size > 1) {
		w->ready = on_ready;
		w->ready_arg = o;
	}
}

hy_status hy_mpi_overlap_end(hy_mpi_overlap *o, hy_nn_work *w, hy_diag *d)
{
	w->ready = NULL;
	w->ready_arg = NULL;
	o->in_backward = 0;
	if (o->ds->size < 2)
		return HY_OK;
	hy_status st = o->st;
	if (!st && o->async) {
		if (!(st = queue_downloads(o, o->nb)))
			st = start_downloaded(o, 1);
	} else if (!st && o->started < o->nb) {
		st = start_buckets(o, o->nb);
	}
	/* every started sum ends before the buffers are touched, even after a
	 * failure (the caller then ends the job) */
	hy_status ws = hy_mpi_wait(o->ds, o->q, st ? NULL : &o->d);
	if (!st)
		st = ws;
	if (!st && o->h)
		o->m->be->to_dev(o->m->g, o->h, o->total * sizeof(float));
	o->stats.steps++;
	o->started = o->queued = 0;
	if (st && d)
		*d = o->d;
	return st;
}

void hy_mpi_overlap_get_stats(const hy_mpi_overlap *o, hy_mpi_overlap_stats *s)
{
	*s = o->stats;
}
