/* One reader over sample streams and shards (see reader.h). */
#include "samples/reader.h"
#include "core/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "samples/stream.h"

struct hy_sample_reader {
	hy_sample_format format;
	char *name;
	FILE *own;          /* opened by us: closed at close      */
	hy_sms_reader *sms; /* stream                             */
	hy_shard *sh;       /* shard                              */
	char *image;        /* shard read from a FILE*            */
	uint64_t pos;       /* shard: next sample                 */
	hy_sample *blk;     /* shard: block for hy_sample_read    */
	size_t blkcap, blkn, blkpos;
};

static hy_status set_src(hy_diag *d, const char *name, hy_status st)
{
	if (d && st && st != HY_STOP && !d->source[0])
		snprintf(d->source, sizeof d->source, "%s", name);
	return st;
}

static hy_status new_reader(hy_sample_reader **rp, const char *name, hy_diag *d)
{
	*rp = calloc(1, sizeof **rp);
	if (!*rp || !((*rp)->name = strdup(name ? name : ""))) {
		free(*rp);
		*rp = NULL;
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	return HY_OK;
}

/* Reads the rest of f after the first n bytes of pre into a malloc'ed buffer. */
static hy_status slurp(FILE *f, const uint8_t *pre, size_t n, char **out, size_t *len,
		       hy_diag *d)
{
	size_t cap = 1u << 20, used = n;
	char *b = malloc(cap);
	if (!b)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	memcpy(b, pre, n);
	for (;;) {
		if (HY_GROW(b, cap, used + 1, cap)) {
			free(b);
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		}
		size_t got = fread(b + used, 1, cap - used, f);
		used += got;
		if (got == 0) {
			if (ferror(f)) {
				int e = errno;
				free(b);
				return hy_diag_set(d, HY_EIO, 0, "cannot read: %s",
						   strerror(e ? e : EIO));
			}
			break;
		}
	}
	*out = b;
	*len = used;
	return HY_OK;
}

hy_status hy_sample_reader_open_file(hy_sample_reader **rp, const char *name, FILE *f,
				     hy_diag *d)
{
	if (!rp || !f)
		return HY_EUSAGE;
	hy_status st = new_reader(rp, name, d);
	if (st)
		return set_src(d, name ? name : "", st);
	hy_sample_reader *r = *rp;
	uint8_t sig[8];
	size_t got = fread(sig, 1, sizeof sig, f);
	if (got < sizeof sig && ferror(f)) {
		int e = errno;
		st = hy_diag_set(d, HY_EIO, 0, "cannot read: %s", strerror(e ? e : EIO));
	} else if (hy_shard_is_hdf5(sig, got)) {
		size_t len = 0;
		r->format = HY_SAMPLES_SHARD;
		st = slurp(f, sig, got, &r->image, &len, d);
		if (!st)
			st = hy_shard_open_mem(&r->sh, r->name, r->image, len, d);
	} else {
		r->format = HY_SAMPLES_STREAM;
		st = hy_sms_reader_open_file_prefix(&r->sms, r->name, f, sig, got);
		if (st)
			hy_diag_set(d, st, 0, "cannot open the sample stream");
	}
	if (st) {
		set_src(d, r->name, st);
		hy_sample_reader_close(r);
		*rp = NULL;
	}
	return st;
}

hy_status hy_sample_reader_open(hy_sample_reader **rp, const char *path, hy_diag *d)
{
	if (!rp)
		return HY_EUSAGE;
	*rp = NULL;
	if (!path || strcmp(path, "-") == 0)
		return hy_sample_reader_open_file(rp, "(stdin)", stdin, d);
	FILE *f = fopen(path, "rb");
	if (!f)
		return set_src(d, path, hy_diag_set(d, HY_EIO, 0, "cannot open: %s", strerror(errno)));
	uint8_t sig[8];
	size_t got = fread(sig, 1, sizeof sig, f);
	if (hy_shard_is_hdf5(sig, got)) {
		fclose(f);
		hy_status st = new_reader(rp, path, d);
		if (st)
			return set_src(d, path, st);
		(*rp)->format = HY_SAMPLES_SHARD;
		st = hy_shard_open(&(*rp)->sh, path, d);
		if (st) {
			hy_sample_reader_close(*rp);
			*rp = NULL;
		}
		return st;
	}
	rewind(f);
	hy_status st = hy_sample_reader_open_file(rp, path, f, d);
	if (st) {
		fclose(f);
		return st;
	}
	(*rp)->own = f;
	return HY_OK;
}

uint64_t hy_sample_reader_bound(const hy_sample_reader *r)
{
	return r && r->format == HY_SAMPLES_STREAM && r->own ? hy_sms_fd_bound(fileno(r->own)) : 0;
}

hy_status hy_sample_reader_open_mem(hy_sample_reader **rp, const char *name, const void *data,
				    size_t len, hy_diag *d)
{
	if (!rp || (!data && len))
		return HY_EUSAGE;
	hy_status st = new_reader(rp, name, d);
	if (st)
		return set_src(d, name ? name : "", st);
	hy_sample_reader *r = *rp;
	if (hy_shard_is_hdf5(data, len)) {
		r->format = HY_SAMPLES_SHARD;
		st = hy_shard_open_mem(&r->sh, r->name, data, len, d);
	} else {
		r->format = HY_SAMPLES_STREAM;
		st = hy_sms_reader_open_mem(&r->sms, r->name, data ? data : "", len);
		if (st)
			hy_diag_set(d, st, 0, "cannot open the sample stream");
	}
	if (st) {
		set_src(d, r->name, st);
		hy_sample_reader_close(r);
		*rp = NULL;
	}
	return st;
}

hy_sample_format hy_sample_reader_format(const hy_sample_reader *r)
{
	return r ? r->format : 0;
}

hy_status hy_sample_obs_agree(const hy_sample_reader *r, int *v, const char *against,
			      hy_diag *d)
{
	int rv = hy_sample_reader_obs_version(r);
	if (rv < 0 || rv == *v)
		return HY_OK;
	if (*v < 0) {
		*v = rv;
		return HY_OK;
	}
	return set_src(d, r->name, hy_diag_set(d, HY_EVERSION, 0, "samples of observation "
		"version %d, %s %d: samples of two encoders cannot be mixed (remake the older "
		"ones; ARCHITECTURE.md section 5)", rv, against ? against : "the inputs before them",
		*v));
}

int hy_sample_reader_obs_version(const hy_sample_reader *r)
{
	if (!r)
		return -1;
	if (r->format == HY_SAMPLES_SHARD)
		return (int)hy_shard_get_info(r->sh)->obs_version;
	return hy_sms_reader_obs_version(r->sms);
}

void hy_sample_reader_close(hy_sample_reader *r)
{
	if (!r)
		return;
	hy_sms_reader_close(r->sms);
	hy_shard_close(r->sh);
	if (r->own)
		fclose(r->own);
	free(r->image);
	free(r->blk);
	free(r->name);
	free(r);
}

hy_status hy_sample_read(hy_sample_reader *r, hy_sample *s, hy_diag *d)
{
	if (!r || !s)
		return HY_EUSAGE;
	if (r->sms)
		return hy_sms_read(r->sms, s, d);
	if (r->blkpos == r->blkn) {
		uint64_t left = hy_shard_count(r->sh) - r->pos;
		if (left == 0)
			return HY_STOP;
		if (!r->blk) {
			const hy_shard_info *in = hy_shard_get_info(r->sh);
			r->blkcap = in->chunk ? in->chunk : HY_SHARD_CHUNK;
			if (r->blkcap > 4096)
				r->blkcap = 4096;
			r->blk = malloc(r->blkcap * sizeof *r->blk);
			if (!r->blk)
				return set_src(d, r->name, hy_diag_set(d, HY_ENOMEM, 0, "out of memory"));
		}
		/* align blocks to chunks, so that each chunk is decompressed once */
		size_t n = r->blkcap - (size_t)(r->pos % r->blkcap);
		if (n > left)
			n = (size_t)left;
		hy_status st = hy_shard_read(r->sh, r->pos, n, r->blk, d);
		if (st)
			return st;
		r->blkn = n;
		r->blkpos = 0;
	}
	*s = r->blk[r->blkpos++];
	r->pos++;
	return HY_OK;
}

hy_status hy_sample_read_batch(hy_sample_reader *r, hy_sample *s, size_t max, size_t *n,
			       hy_diag *d)
{
	if (!r || !n || (!s && max))
		return HY_EUSAGE;
	*n = 0;
	if (r->sh && r->blkpos == r->blkn) {
		uint64_t left = hy_shard_count(r->sh) - r->pos;
		if (left == 0)
			return HY_STOP;
		size_t k = max < left ? max : (size_t)left;
		hy_status st = hy_shard_read(r->sh, r->pos, k, s, d);
		if (st)
			return st;
		r->pos += k;
		*n = k;
		return HY_OK;
	}
	while (*n < max) {
		hy_status st = hy_sample_read(r, &s[*n], d);
		if (st == HY_STOP)
			return *n ? HY_OK : HY_STOP;
		if (st)
			return st;
		++*n;
	}
	return HY_OK;
}

hy_status hy_sample_reader_count(const hy_sample_reader *r, uint64_t *n)
{
	if (!r || !n)
		return HY_EUSAGE;
	if (!r->sh)
		return HY_EUNSUP;
	*n = hy_shard_count(r->sh);
	return HY_OK;
}

hy_status hy_sample_read_at(hy_sample_reader *r, uint64_t index, size_t n, hy_sample *s,
			    hy_diag *d)
{
	if (!r)
		return HY_EUSAGE;
	if (!r->sh)
		return set_src(d, r->name,
			       hy_diag_set(d, HY_EUNSUP, 0,
					   "random access needs a shard, not a sample stream"));
	return hy_shard_read(r->sh, index, n, s, d);
}

hy_shard *hy_sample_reader_shard(hy_sample_reader *r)
{
	return r ? r->sh : NULL;
}

const hy_shard_info *hy_sample_reader_info(const hy_sample_reader *r)
{
	return r && r->sh ? hy_shard_get_info(r->sh) : NULL;
}

const hy_shard_info *hy_sample_reader_describe(hy_sample_reader *r, hy_diag *d)
{
	return r && r->sh ? hy_shard_describe(r->sh, d) : NULL;
}
