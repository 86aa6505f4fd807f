/* Training data sources: shuffled epochs over shards, a shuffle buffer over
 * streams (see source.h). */
#include "data/source.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi.h"
#include "nn/rng.h"
#include "samples/reader.h"

#define STREAM_TAG 0x53545245414dull /* "STREAM" */

typedef struct unit {
	uint32_t shard;
	uint32_t len;
	uint64_t start;
} unit;

struct hy_data {
	hy_data_mode mode;
	uint64_t seed;
	size_t bufcap;
	const char **paths;
	size_t npaths;
	uint64_t epoch, pos;
	hy_sample *buf;
	int rank, ranks; /* this process's part of each batch (data.h) */
	hy_data_stats stats;
	int started;            /* a read was asked for (hy_data_restart) */
	uint64_t stream_bound;  /* streams: hy_data_stream_bound          */
	int any_stdin;

	/* shards */
	hy_sample_reader **rd;
	uint64_t total;
	unit *units;
	uint32_t *perm;
	size_t nunits, per_buf, nbufs;
	int64_t cur_buf; /* −1: none loaded in this epoch */
	uint32_t *order;
	uint8_t *mine;   /* several ranks: slot i of buf holds one of our chunks */
	size_t bn, bi;
	int hdf5_decode;          /* the old way (data.h)                    */
	int decoders;             /* threads decoding a buffer              */
	hy_shard_chunks **raw;    /* per_buf: the stored chunks of a load    */
	size_t *at;               /* per_buf: where task k's samples go      */
	hy_shard_decoder *dec[HY_DATA_MAX_DECODERS]; /* made when needed */

	/* streams */
	int rereadable;      /* files only, and not one_pass: epochs go on */
	int one_pass;
	hy_sample_reader *r; /* current input, NULL between inputs */
	size_t pi;           /* index of the next input to open    */
	size_t size;         /* samples in the shuffle buffer      */
	int filled, input_done, ended;
	hy_rng rng;
	hy_sample spare; /* a draw for another rank */
	int r_checked;   /* the current input's observation version checked */

	int obs_version; /* of every input (sample.h); -1 before one is known */
};

uint64_t hy_data_mix(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t x = seed ^ (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full);
	for (int i = 0; i < 2; i++) {
		x += 0x9e3779b97f4a7c15ull;
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
		x ^= x >> 31;
	}
	return x;
}

static int is_stdin(const char *p)
{
	return !p || strcmp(p, "-") == 0;
}

int hy_data_obs_version(const hy_data *td)
{
	return td ? td->obs_version : -1;
}

hy_data_mode hy_data_get_mode(const hy_data *td)
{
	return td->mode;
}

uint64_t hy_data_epoch_size(const hy_data *td)
{
	return td->mode == HY_DATA_SHARDS ? td->total : 0;
}

void hy_data_get_cursor(const hy_data *td, hy_data_cursor *c)
{
	c->epoch = td->epoch;
	c->pos = td->pos;
}

/* The shard mode's plan of units and buffers, freed for shard_setup to make
 * again (hy_data_restart); the readers and decoders stay. */
static void shard_unplan(hy_data *td)
{
	for (size_t i = 0; td->raw && i < td->per_buf; i++)
		hy_shard_chunks_free(td->raw[i]);
	free(td->raw);
	free(td->at);
	free(td->units);
	free(td->perm);
	free(td->order);
	free(td->mine);
	free(td->buf);
	td->raw = NULL, td->at = NULL, td->units = NULL, td->perm = NULL;
	td->order = NULL, td->mine = NULL, td->buf = NULL;
	td->total = 0, td->nunits = td->per_buf = td->nbufs = 0;
}

void hy_data_close(hy_data *td)
{
	if (!td)
		return;
	if (td->rd) {
		for (size_t i = 0; i < td->npaths; i++)
			if (td->rd[i])
				hy_sample_reader_close(td->rd[i]);
		free(td->rd);
	}
	if (td->r)
		hy_sample_reader_close(td->r);
	shard_unplan(td);
	for (int i = 0; i < HY_DATA_MAX_DECODERS; i++)
		hy_shard_decoder_free(td->dec[i]);
	free(td->paths);
	free(td);
}

/* ---------------------------------------------------------------- shards */

static void shard_start_epoch(hy_data *td, uint64_t e)
{
	hy_rng r;
	hy_rng_seed(&r, hy_data_mix(td->seed, e, 0));
	for (size_t i = 0; i < td->nunits; i++)
		td->perm[i] = (uint32_t)i;
	for (size_t i = td->nunits; i > 1; i--) {
		size_t j = (size_t)hy_rng_below(&r, i);
		uint32_t t = td->perm[i - 1];
		td->perm[i - 1] = td->perm[j];
		td->perm[j] = t;
	}
	td->epoch = e;
	td->pos = 0;
	td->cur_buf = -1;
	td->bn = td->bi = 0;
}

static size_t buf_samples(const hy_data *td, size_t b)
{
	size_t n = 0;
	for (size_t k = b * td->per_buf; k < td->nunits && k < (b + 1) * td->per_buf; k++)
		n += td->units[td->perm[k]].len;
	return n;
}

/* The decoding of a load's ntasks fetched units (data.h, Decoding): each
 * thread takes the next task; the failure kept is the first task's. */
typedef struct decode_job {
	hy_data *td;
	size_t ntasks;
	atomic_size_t next;
	pthread_mutex_t mu;
	size_t bad;       /* the first failed task, or SIZE_MAX */
	hy_status bad_st;
	hy_diag bad_d;
	hy_diag d0;       /* the caller's diagnostics as they were */
} decode_job;

typedef struct decode_arg {
	decode_job *job;
	hy_shard_decoder *dec;
	pthread_t th;
} decode_arg;

static void *decode_worker(void *arg)
{
	decode_arg *a = arg;
	decode_job *j = a->job;
	hy_data *td = j->td;
	hy_diag d;
	for (;;) {
		size_t k = atomic_fetch_add(&j->next, 1);
		if (k >= j->ntasks)
			break;
		d = j->d0;
		hy_status st = hy_shard_decode(a->dec, td->raw[k], td->buf + td->at[k], &d);
		if (st) {
			pthread_mutex_lock(&j->mu);
			if (k < j->bad) {
				j->bad = k;
				j->bad_st = st;
				j->bad_d = d;
			}
			pthread_mutex_unlock(&j->mu);
		}
	}
	return NULL;
}

static hy_status decode_all(hy_data *td, size_t ntasks, hy_diag *d)
{
	int threads = td->decoders;
	if ((size_t)threads > ntasks)
		threads = (int)ntasks;
	for (int i = 0; i < threads; i++)
		if (!td->dec[i] && !(td->dec[i] = hy_shard_decoder_new())) {
			if (i == 0)
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			threads = i;
			break;
		}
	decode_job j = {.td = td, .ntasks = ntasks, .bad = SIZE_MAX};
	atomic_init(&j.next, 0);
	pthread_mutex_init(&j.mu, NULL);
	if (d)
		j.d0 = *d;
	else
		hy_diag_init(&j.d0, NULL);
	decode_arg args[HY_DATA_MAX_DECODERS];
	int started = 0;
	for (int i = 1; i < threads; i++) { /* helpers; too few: the caller does more */
		args[i] = (decode_arg){.job = &j, .dec = td->dec[i]};
		if (pthread_create(&args[i].th, NULL, decode_worker, &args[i]) != 0)
			break;
		started = i;
	}
	args[0] = (decode_arg){.job = &j, .dec = td->dec[0]};
	decode_worker(&args[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(args[i].th, NULL);
	pthread_mutex_destroy(&j.mu);
	if (j.bad == SIZE_MAX)
		return HY_OK;
	if (d)
		*d = j.bad_d;
	return j.bad_st;
}

/* Buffer b: its chunks, or with several ranks only this rank's (the k-th
 * chunk of epoch e's permuted order is rank (k + e) mod ranks's: dealt in
 * turn across the buffers, so no rank gets the odd chunks of every buffer,
 * nor of every epoch); the slots of the others stay unread, and the
 * shuffle is over every slot, as for a single process. */
static hy_status shard_load(hy_data *td, size_t b, hy_diag *d)
{
	size_t n = 0, ntasks = 0;
	for (size_t k = b * td->per_buf; k < td->nunits && k < (b + 1) * td->per_buf; k++) {
		const unit *u = &td->units[td->perm[k]];
		int own = td->ranks < 2 || (k + td->epoch) % (uint64_t)td->ranks ==
			(uint64_t)td->rank;
		if (td->mine)
			memset(td->mine + n, own, u->len);
		if (own && td->hdf5_decode) {
			hy_status st = hy_sample_read_at(td->rd[u->shard], u->start, u->len,
				td->buf + n, d);
			if (st)
				return st;
		} else if (own) {
			hy_shard *sh = hy_sample_reader_shard(td->rd[u->shard]);
			hy_status st = hy_shard_fetch(sh, u->start, u->len, td->raw[ntasks], d);
			if (st)
				return st;
			td->at[ntasks++] = n;
		}
		if (own) {
			td->stats.samples_read += u->len;
			td->stats.chunks_read++;
		}
		n += u->len;
	}
	if (ntasks) {
		hy_status st = decode_all(td, ntasks, d);
		if (st)
			return st;
	}
	hy_rng r;
	hy_rng_seed(&r, hy_data_mix(td->seed, td->epoch, b + 1));
	for (size_t i = 0; i < n; i++)
		td->order[i] = (uint32_t)i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)hy_rng_below(&r, i);
		uint32_t t = td->order[i - 1];
		td->order[i - 1] = td->order[j];
		td->order[j] = t;
	}
	td->cur_buf = (int64_t)b;
	td->bn = n;
	td->bi = 0;
	return HY_OK;
}

static hy_status shard_next(hy_data *td, hy_sample *s, size_t max, size_t *n,
	size_t *mine, hy_diag *d)
{
	*n = *mine = 0;
	while (*n < max) {
		if (td->bi == td->bn) {
			size_t b = (size_t)(td->cur_buf + 1);
			if (b == td->nbufs) {
				shard_start_epoch(td, td->epoch + 1);
				b = 0;
			}
			hy_status st = shard_load(td, b, d);
			if (st)
				return st;
		}
		uint32_t j = td->order[td->bi++];
		if (!td->mine || td->mine[j])
			s[(*mine)++] = td->buf[j];
		(*n)++;
		td->pos++;
	}
	return HY_OK;
}

static hy_status shard_seek(hy_data *td, const hy_data_cursor *c, hy_diag *d)
{
	uint64_t e = c->epoch + c->pos / td->total, p = c->pos % td->total;
	shard_start_epoch(td, e);
	size_t b = 0;
	uint64_t before = 0;
	for (;;) {
		size_t k = buf_samples(td, b);
		if (p < before + k)
			break;
		before += k;
		b++;
	}
	hy_status st = shard_load(td, b, d);
	if (st)
		return st;
	td->bi = (size_t)(p - before);
	td->pos = p;
	return HY_OK;
}

static hy_status shard_setup(hy_data *td, hy_diag *d)
{
	size_t maxchunk = 1, nunits = 0;
	for (size_t i = 0; i < td->npaths; i++) {
		uint64_t cnt = 0;
		hy_sample_reader_count(td->rd[i], &cnt);
		const hy_shard_info *info = hy_sample_reader_info(td->rd[i]);
		size_t ch = info && info->chunk ? info->chunk : 128;
		if (ch > maxchunk)
			maxchunk = ch;
		nunits += (size_t)((cnt + ch - 1) / ch);
		td->total += cnt;
	}
	if (td->total == 0)
		return hy_diag_set(d, HY_EDATA, 0, "no samples in the input shards");
	if (nunits > UINT32_MAX)
		return hy_diag_set(d, HY_EUNSUP, 0, "too many shard chunks (%zu)", nunits);
	td->units = malloc(nunits * sizeof *td->units);
	td->perm = malloc(nunits * sizeof *td->perm);
	if (!td->units || !td->perm)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu shard chunks)", nunits);
	for (size_t i = 0; i < td->npaths; i++) {
		uint64_t cnt = 0;
		hy_sample_reader_count(td->rd[i], &cnt);
		const hy_shard_info *info = hy_sample_reader_info(td->rd[i]);
		size_t ch = info && info->chunk ? info->chunk : 128;
		for (uint64_t st = 0; st < cnt; st += ch) {
			unit *u = &td->units[td->nunits++];
			u->shard = (uint32_t)i;
			u->start = st;
			u->len = (uint32_t)(cnt - st < ch ? cnt - st : ch);
		}
	}
	td->per_buf = (td->bufcap + maxchunk - 1) / maxchunk;
	if (td->per_buf < 1)
		td->per_buf = 1;
	td->nbufs = (td->nunits + td->per_buf - 1) / td->per_buf;
	size_t cap = td->per_buf * maxchunk;
	td->buf = malloc(cap * sizeof *td->buf);
	td->order = malloc(cap * sizeof *td->order);
	if (td->ranks > 1)
		td->mine = malloc(cap);
	if (!td->buf || !td->order || (td->ranks > 1 && !td->mine))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (shuffle buffer of %zu samples)",
			cap);
	if (!td->hdf5_decode) {
		td->raw = calloc(td->per_buf, sizeof *td->raw);
		td->at = calloc(td->per_buf, sizeof *td->at);
		int fail = !td->raw || !td->at;
		for (size_t i = 0; !fail && i < td->per_buf; i++)
			fail = !(td->raw[i] = hy_shard_chunks_new());
		if (fail)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	shard_start_epoch(td, 0);
	return HY_OK;
}

/* ---------------------------------------------------------------- streams */

/* The next sample of the concatenated inputs into *s; HY_STOP at the end. */
static hy_status stream_read(hy_data *td, hy_sample *s, hy_diag *d)
{
	for (;;) {
		if (!td->r) {
			if (td->pi == td->npaths)
				return HY_STOP;
			hy_status st = hy_sample_reader_open(&td->r, td->paths[td->pi], d);
			if (st) {
				td->r = NULL;
				return st;
			}
		}
		hy_status st = hy_sample_read(td->r, s, d);
		if (st == HY_OK)
			td->stats.samples_read++;
		if ((st == HY_OK || st == HY_STOP) && !td->r_checked) {
			hy_status ov = hy_sample_obs_agree(td->r, &td->obs_version, NULL, d);
			if (ov)
				return ov;
			td->r_checked = 1;
		}
		if (st != HY_STOP)
			return st;
		td->r_checked = 0;
		hy_sample_reader_close(td->r);
		td->r = NULL;
		td->pi++;
	}
}

static hy_status stream_start_epoch(hy_data *td, uint64_t e)
{
	if (td->r) {
		hy_sample_reader_close(td->r);
		td->r = NULL;
	}
	td->pi = 0;
	td->r_checked = 0;
	td->size = 0;
	td->filled = td->input_done = 0;
	td->epoch = e;
	td->pos = 0;
	hy_rng_seed(&td->rng, hy_data_mix(td->seed, e, STREAM_TAG));
	return HY_OK;
}

/* The stream mode's buffer of bufcap samples and its first epoch, at the
 * open and again at hy_data_restart. */
static hy_status stream_setup(hy_data *td, int one_pass, hy_diag *d)
{
	td->one_pass = one_pass;
	td->rereadable = !td->any_stdin && !one_pass;
	hy_sample *b = realloc(td->buf, td->bufcap * sizeof *td->buf);
	if (!b)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (shuffle buffer of %zu samples)",
			td->bufcap);
	td->buf = b;
	return stream_start_epoch(td, 0);
}

static hy_status stream_draw(hy_data *td, hy_sample *out, hy_diag *d)
{
	for (;;) {
		if (td->ended)
			return HY_STOP;
		if (!td->filled) {
			while (td->size < td->bufcap) {
				hy_status st = stream_read(td, &td->buf[td->size], d);
				if (st == HY_STOP) {
					td->input_done = 1;
					break;
				}
				if (st)
					return st;
				td->size++;
			}
			td->filled = 1;
		}
		if (td->size > 0)
			break;
		/* the epoch is over */
		if (td->pos == 0 && td->epoch == 0) {
			hy_diag_set(d, HY_EDATA, 0, "no samples: the stream is empty (no game was "
				"encoded into it, or every game of the self-play run that wrote it "
				"aborted)");
			if (d && td->npaths == 1)
				snprintf(d->source, sizeof d->source, "%s",
					strcmp(td->paths[0], "-") ? td->paths[0] : "standard input");
			return HY_EDATA;
		}
		if (td->pos == 0)
			return hy_diag_set(d, HY_EDATA, 0, "no samples in the input");
		if (!td->rereadable) {
			td->ended = 1;
			return HY_STOP;
		}
		stream_start_epoch(td, td->epoch + 1);
	}
	size_t j = (size_t)hy_rng_below(&td->rng, td->size);
	*out = td->buf[j];
	td->pos++;
	if (!td->input_done) {
		hy_status st = stream_read(td, &td->buf[j], d);
		if (st == HY_OK)
			return HY_OK;
		if (st != HY_STOP)
			return st;
		td->input_done = 1;
	}
	td->buf[j] = td->buf[td->size - 1];
	td->size--;
	return HY_OK;
}

/* With several ranks every draw is made and this rank keeps its block of
 * the batch's positions (of max: an early end of the input shortens the
 * last ranks' parts). */
static hy_status stream_next(hy_data *td, hy_sample *s, size_t max, size_t *n,
	size_t *mine, hy_diag *d)
{
	uint64_t lo = 0, hi = max;
	if (td->ranks > 1)
		hy_mpi_range_of(td->rank, td->ranks, max, &lo, &hi);
	*n = *mine = 0;
	while (*n < max) {
		int keep = *n >= lo && *n < hi;
		hy_status st = stream_draw(td, keep ? &s[*mine] : &td->spare, d);
		if (st == HY_STOP)
			return *n ? HY_OK : HY_STOP;
		if (st)
			return st;
		*mine += keep;
		(*n)++;
	}
	return HY_OK;
}

static hy_status stream_seek(hy_data *td, const hy_data_cursor *c, hy_diag *d)
{
	if (c->epoch < td->epoch || (c->epoch == td->epoch && c->pos < td->pos))
		return hy_diag_set(d, HY_EUSAGE, 0, "cannot seek a stream backwards");
	if (c->epoch > 0 && !td->rereadable)
		return hy_diag_set(d, HY_EUSAGE, 0,
			"cannot resume %s at epoch %llu: it is read once",
			td->one_pass ? "a one-pass run" : "standard input",
			(unsigned long long)c->epoch);
	hy_sample tmp;
	while (td->epoch < c->epoch || td->pos < c->pos) {
		hy_status st = stream_draw(td, &tmp, d);
		if (st == HY_STOP)
			return hy_diag_set(d, HY_STOP, 0,
				"the input ended after %llu samples, before the resume point "
				"(epoch %llu, sample %llu): not the same input?",
				(unsigned long long)td->pos, (unsigned long long)c->epoch,
				(unsigned long long)c->pos);
		if (st)
			return st;
	}
	return HY_OK;
}

/* ---------------------------------------------------------------- common */

hy_status hy_data_open(hy_data **out, const hy_data_cfg *cfg, hy_diag *d)
{
	*out = NULL;
	hy_data *td = calloc(1, sizeof *td);
	size_t np = cfg->npaths ? cfg->npaths : 1;
	if (!td || !(td->paths = calloc(np, sizeof *td->paths))) {
		free(td);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	td->npaths = np;
	td->obs_version = -1;
	td->seed = cfg->seed;
	td->bufcap = cfg->shuffle_buffer ? cfg->shuffle_buffer : 1;
	td->ranks = cfg->ranks > 1 ? cfg->ranks : 1;
	td->rank = td->ranks > 1 ? cfg->rank : 0;
	td->hdf5_decode = cfg->hdf5_decode;
	hy_data_set_decoders(td, cfg->decoders);
	if (td->rank < 0 || td->rank >= td->ranks) {
		hy_data_close(td);
		return hy_diag_set(d, HY_EUSAGE, 0, "rank %d of %d", cfg->rank, cfg->ranks);
	}
	int any_stdin = 0;
	for (size_t i = 0; i < np; i++) {
		td->paths[i] = cfg->npaths ? cfg->paths[i] : "-";
		if (is_stdin(td->paths[i])) {
			td->paths[i] = "-";
			any_stdin++;
		}
	}
	if (any_stdin > 1) {
		hy_data_close(td);
		return hy_diag_set(d, HY_EUSAGE, 0, "standard input named more than once");
	}
	hy_status st = HY_OK;
	int shards = !any_stdin;
	td->any_stdin = any_stdin;
	uint64_t bound = 0;
	if (shards) {
		td->rd = calloc(np, sizeof *td->rd);
		if (!td->rd)
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		for (size_t i = 0; !st && i < np; i++) {
			st = hy_sample_reader_open(&td->rd[i], td->paths[i], d);
			if (st) {
				td->rd[i] = NULL;
				break;
			}
			if (hy_sample_reader_format(td->rd[i]) != HY_SAMPLES_SHARD) {
				/* a stream's version is in its first header: read one
				 * sample (a failure shows again when it is read) */
				hy_sample one;
				hy_diag ignore;
				hy_diag_init(&ignore, NULL);
				hy_sample_read(td->rd[i], &one, &ignore);
				shards = 0;
			}
			/* files of two encoders are refused before any training */
			st = hy_sample_obs_agree(td->rd[i], &td->obs_version, NULL, d);
			/* every input's bound, or none (hy_data_stream_bound) */
			uint64_t b = hy_sample_reader_bound(td->rd[i]);
			bound = b && (i == 0 || bound) ? bound + b : 0;
		}
		if (st) {
			hy_data_close(td);
			return st;
		}
	}
	if (shards) {
		td->mode = HY_DATA_SHARDS;
		st = shard_setup(td, d);
	} else {
		if (td->rd) {
			for (size_t i = 0; i < np; i++)
				if (td->rd[i])
					hy_sample_reader_close(td->rd[i]);
			free(td->rd);
			td->rd = NULL;
		}
		td->mode = HY_DATA_STREAM;
		td->stream_bound = bound;
		st = stream_setup(td, cfg->one_pass, d);
	}
	if (st) {
		hy_data_close(td);
		return st;
	}
	*out = td;
	return HY_OK;
}

uint64_t hy_data_stream_bound(const hy_data *td)
{
	return td->mode == HY_DATA_STREAM ? td->stream_bound : 0;
}

hy_status hy_data_restart(hy_data *td, uint64_t seed, size_t shuffle_buffer, int one_pass,
	hy_diag *d)
{
	if (td->started)
		return hy_diag_set(d, HY_EUSAGE, 0, "hy_data_restart after a read");
	td->seed = seed;
	td->bufcap = shuffle_buffer ? shuffle_buffer : 1;
	if (td->mode == HY_DATA_SHARDS) {
		shard_unplan(td);
		return shard_setup(td, d);
	}
	return stream_setup(td, one_pass, d);
}

hy_status hy_data_next_part(hy_data *td, hy_sample *s, size_t max, size_t *n,
	size_t *mine, hy_diag *d)
{
	td->started = 1;
	return td->mode == HY_DATA_SHARDS ? shard_next(td, s, max, n, mine, d)
						: stream_next(td, s, max, n, mine, d);
}

hy_status hy_data_next(hy_data *td, hy_sample *s, size_t max, size_t *n,
	hy_diag *d)
{
	size_t mine;
	*n = 0;
	if (td->ranks > 1)
		return hy_diag_set(d, HY_EUSAGE, 0, "a source split across %d ranks gives parts of "
			"batches (hy_data_next_part)", td->ranks);
	return hy_data_next_part(td, s, max, n, &mine, d);
}

void hy_data_set_decoders(hy_data *td, int n)
{
	td->decoders = n < 1 ? 1 : n > HY_DATA_MAX_DECODERS ? HY_DATA_MAX_DECODERS : n;
}

void hy_data_get_stats(const hy_data *td, hy_data_stats *s)
{
	*s = td->stats;
}

hy_status hy_data_seek(hy_data *td, const hy_data_cursor *c, hy_diag *d)
{
	td->started = 1;
	return td->mode == HY_DATA_SHARDS ? shard_seek(td, c, d) : stream_seek(td, c, d);
}

hy_status hy_data_scan(const char *const *paths, size_t npaths, hy_sample *buf,
	size_t max, int (*fn)(void *u, const hy_sample *s, size_t n), void *u, int *obs,
	const char *against, hy_diag *d)
{
	for (size_t i = 0; i < npaths; i++) {
		hy_sample_reader *r;
		hy_status st = hy_sample_reader_open(&r, paths[i], d);
		if (st)
			return st;
		for (int first = 1;; first = 0) {
			size_t n = 0;
			st = hy_sample_read_batch(r, buf, max, &n, d);
			if (first && obs && (st == HY_OK || st == HY_STOP)) {
				hy_status ov = hy_sample_obs_agree(r, obs, against, d);
				if (ov) {
					st = ov;
					break;
				}
			}
			if (st == HY_STOP) {
				st = HY_OK;
				break;
			}
			if (st)
				break;
			if (fn(u, buf, n)) {
				st = HY_STOP;
				break;
			}
		}
		hy_sample_reader_close(r);
		if (st)
			return st;
	}
	return HY_OK;
}

hy_status hy_data_scan_model(const char *const *paths, size_t npaths, hy_sample *buf,
	size_t max, int (*fn)(void *u, const hy_sample *s, size_t n), void *u, int trained,
	hy_diag *d)
{
	int ov = trained ? trained : -1;
	hy_status st = hy_data_scan(paths, npaths, buf, max, fn, u, &ov, "the model", d);
	if ((st == HY_OK || st == HY_STOP) && ov >= 0 && !hy_obs_compatible(trained, ov))
		return hy_diag_set(d, HY_EVERSION, 0, "samples of observation version %d, and the "
			"model records none (trained on version %d or older)", ov,
			HY_OBS_UNMARKED_MAX);
	return st;
}
