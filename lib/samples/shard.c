/* HDF5 sample shards (formats/shard.md is the normative spec). Over 1,000
 * lines: the writer, the reader and the two-step read (fetch, decode) share
 * the field table and the per-dataset pipeline; the decoder could move to
 * its own file behind a private header. */
#include "samples/shard.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/version.h"
#include "samples/h5.h"
#include "samples/stream.h" /* hy_sample_check */

/* ------------------------------------------------------------ fields */

enum { K_F16, K_U8, K_U16, K_I32, K_U64, K_F32 };

typedef struct field {
	const char *name;
	int kind;
	int dim1, dim2;   /* trailing dims (0 = none)            */
	size_t offset;    /* in hy_sample                        */
	size_t size;      /* bytes per sample in memory          */
} field;

#define F1(n, k, t) {#n, k, 0, 0, offsetof(hy_sample, n), sizeof(t)}
/* obs first: hy_shard_decode leaves its bytes to the copy of its rows */
static const field fields[] = {
	{"obs", K_F16, HY_OBS_CHANNELS, HY_OBS_TILES, offsetof(hy_sample, obs),
	 sizeof(((hy_sample *)0)->obs)},
	F1(mask, K_U64, uint64_t),
	{"opp_waits", K_U64, 3, 0, offsetof(hy_sample, opp_waits), 3 * sizeof(uint64_t)},
	F1(game, K_U64, uint64_t),
	F1(score, K_I32, int32_t),
	F1(kyoku_delta, K_I32, int32_t),
	F1(logp, K_F32, float),
	F1(value, K_F32, float),
	F1(reward, K_F32, float),
	F1(adv, K_F32, float),
	F1(ret, K_F32, float),
	F1(step, K_U16, uint16_t),
	F1(action, K_U8, uint8_t),
	F1(seat, K_U8, uint8_t),
	F1(grand_kyoku, K_U8, uint8_t),
	F1(honba, K_U8, uint8_t),
	F1(rank, K_U8, uint8_t),
	F1(grp, K_U8, uint8_t),
	F1(opp_tenpai, K_U8, uint8_t),
	F1(flags, K_U8, uint8_t),
};
#undef F1
enum { NFIELDS = sizeof fields / sizeof fields[0] };

_Static_assert(sizeof(((hy_sample *)0)->obs) == 2 * HY_OBS_SIZE, "obs is 2 bytes a cell");

static int field_rank(const field *f)
{
	return 1 + (f->dim1 > 0) + (f->dim2 > 0);
}

static void field_dims(const field *f, hsize_t n, hsize_t dims[3])
{
	dims[0] = n;
	dims[1] = (hsize_t)f->dim1;
	dims[2] = (hsize_t)f->dim2;
}

/* IEEE binary16 (1 sign, 5 exponent bits with bias 15, 10 mantissa bits),
 * derived from a 32-bit float type so that its byte order is base's. */
static hid_t make_f16(hid_t base)
{
	hid_t t = H5Tcopy(base);
	if (t < 0)
		return t;
	if (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_offset(t, 0) < 0 ||
	    H5Tset_precision(t, 16) < 0 || H5Tset_size(t, 2) < 0 || H5Tset_ebias(t, 15) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* Predefined types are library globals: look them up at run time. */
static hid_t std_type(int kind, int file)
{
	switch (kind) {
	case K_U8: return file ? H5T_STD_U8LE : H5T_NATIVE_UINT8;
	case K_U16: return file ? H5T_STD_U16LE : H5T_NATIVE_UINT16;
	case K_I32: return file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
	case K_U64: return file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
	case K_F32: return file ? H5T_IEEE_F32LE : H5T_NATIVE_FLOAT;
	default: return -1;
	}
}

/* ------------------------------------------------------------ errors */

/* The check macro: every HDF5 call goes through it. `call` returns a
 * negative value on failure (herr_t, hid_t, htri_t); on failure the
 * function's `st` is set and control goes to `out`. */
#define HY_H5(call, status)                                                     \
	do {                                                                      \
		if ((call) < 0) {                                                 \
			st = hy_h5_fail(d, (status), #call, __FILE__, __LINE__);     \
			goto out;                                                 \
		}                                                                 \
	} while (0)

static void h5_quiet(void)
{
	hy_h5_init(); /* HDF5's error printing off, no exit-time clean-up */
}

int hy_shard_is_hdf5(const void *data, size_t len)
{
	return data && len >= 8 && memcmp(data, "\x89HDF\r\n\x1a\n", 8) == 0;
}

/* ------------------------------------------------------------ writer */

struct hy_shard_writer {
	hy_staged st;   /* the temporary and the target (io/staged.h) */
	hid_t file, ftype16, mtype16;
	hid_t ds[NFIELDS];
	uint8_t *col[NFIELDS];
	uint32_t chunk;
	size_t nbuf;     /* samples buffered */
	uint64_t nfile;  /* samples in the file */
	hy_status err;
};

/* A string attribute, fixed-length UTF-8 (format version 2: readers never
 * meet variable-length strings, whose conversion code in libhdf5 is where
 * crafted files crash it): a scalar, or a 1-D array of n strings padded to
 * the longest (a null dataspace for none). */
static hy_status put_str_attr(hid_t loc, const char *name, const char *const *v, size_t n,
			      int array, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t t = -1, sp = -1, a = -1;
	size_t width = 1;
	for (size_t i = 0; i < (array ? n : 1); i++)
		if (strlen(v[i]) + 1 > width)
			width = strlen(v[i]) + 1;
	char *buf = calloc(array && n ? n : 1, width);
	if (!buf)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	for (size_t i = 0; i < (array ? n : 1); i++)
		memcpy(buf + i * width, v[i], strlen(v[i]));
	HY_H5(t = H5Tcopy(H5T_C_S1), HY_EIO);
	HY_H5(H5Tset_size(t, width), HY_EIO);
	HY_H5(H5Tset_strpad(t, H5T_STR_NULLTERM), HY_EIO);
	HY_H5(H5Tset_cset(t, H5T_CSET_UTF8), HY_EIO);
	if (!array) {
		HY_H5(sp = H5Screate(H5S_SCALAR), HY_EIO);
	} else if (n == 0) {
		HY_H5(sp = H5Screate(H5S_NULL), HY_EIO);
	} else {
		hsize_t dim = n;
		HY_H5(sp = H5Screate_simple(1, &dim, NULL), HY_EIO);
	}
	HY_H5(a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), HY_EIO);
	if (!array || n)
		HY_H5(H5Awrite(a, t, buf), HY_EIO);
out:
	free(buf);
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	return st;
}

static hy_status w_attrs(hy_shard_writer *w, const hy_shard_meta *m, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t sp = -1, a = -1;
	char enc[64];
	snprintf(enc, sizeof enc, "hydra-c %s", HY_VERSION);
	const char *fmt = HY_SHARD_FORMAT;
	const char *ev = m && m->encoder_version ? m->encoder_version : enc;
	const char *cl = m && m->command_line ? m->command_line : "";
	uint32_t version = HY_SHARD_VERSION;
	HY_H5(sp = H5Screate(H5S_SCALAR), HY_EIO);
	HY_H5(a = H5Acreate2(w->file, "format_version", H5T_STD_U32LE, sp, H5P_DEFAULT,
			       H5P_DEFAULT), HY_EIO);
	HY_H5(H5Awrite(a, H5T_NATIVE_UINT32, &version), HY_EIO);
	if ((st = put_str_attr(w->file, "format", &fmt, 1, 0, d)) ||
	    (st = put_str_attr(w->file, "encoder_version", &ev, 1, 0, d)) ||
	    (st = put_str_attr(w->file, "command_line", &cl, 1, 0, d)))
		goto out;
	for (size_t i = 0; m && i < m->nsources; i++)
		if (!m->sources[i]) {
			st = hy_diag_set(d, HY_EUSAGE, 0, "source %zu is NULL", i);
			goto out;
		}
	st = put_str_attr(w->file, "sources", m ? m->sources : NULL, m ? m->nsources : 0, 1, d);
out:
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	return st;
}

static hy_status w_datasets(hy_shard_writer *w, int level, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t dcpl = -1, sp = -1;
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &fields[i];
		int rank = field_rank(f);
		hsize_t dims[3], maxd[3], chunk[3];
		field_dims(f, 0, dims);
		field_dims(f, H5S_UNLIMITED, maxd);
		field_dims(f, w->chunk, chunk);
		HY_H5(sp = H5Screate_simple(rank, dims, maxd), HY_EIO);
		HY_H5(dcpl = H5Pcreate(H5P_DATASET_CREATE), HY_EIO);
		HY_H5(H5Pset_chunk(dcpl, rank, chunk), HY_EIO);
		HY_H5(H5Pset_obj_track_times(dcpl, 0), HY_EIO);
		if (level > 0) {
			if (f->kind != K_U8)
				HY_H5(H5Pset_shuffle(dcpl), HY_EIO);
			HY_H5(H5Pset_deflate(dcpl, (unsigned)level), HY_EIO);
		}
		/* last in the pipeline: the checksum covers the stored bytes */
		HY_H5(H5Pset_fletcher32(dcpl), HY_EIO);
		hid_t ft = f->kind == K_F16 ? w->ftype16 : std_type(f->kind, 1);
		HY_H5(w->ds[i] = H5Dcreate2(w->file, f->name, ft, sp, H5P_DEFAULT, dcpl,
					      H5P_DEFAULT), HY_EIO);
		H5Pclose(dcpl);
		H5Sclose(sp);
		dcpl = sp = -1;
	}
out:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (sp >= 0)
		H5Sclose(sp);
	return st;
}

static void w_free(hy_shard_writer *w)
{
	for (int i = 0; i < NFIELDS; i++) {
		if (w->ds[i] >= 0)
			H5Dclose(w->ds[i]);
		free(w->col[i]);
	}
	if (w->ftype16 >= 0)
		H5Tclose(w->ftype16);
	if (w->mtype16 >= 0)
		H5Tclose(w->mtype16);
	if (w->file >= 0)
		H5Fclose(w->file);
	hy_staged_discard(&w->st);
	free(w);
}

void hy_shard_writer_abort(hy_shard_writer *w)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!w)
		return;
	w_free(w); /* removes the temporary unless it was renamed */
}

hy_status hy_shard_writer_open(hy_shard_writer **wp, const char *path, const hy_shard_meta *m,
			       hy_diag *d)
{
	if (!wp || !path || !*path || strcmp(path, "-") == 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "a shard needs a file name");
	*wp = NULL;
	h5_quiet();
	hy_status st = HY_OK;
	hid_t fapl = -1;
	hy_shard_writer *w = calloc(1, sizeof *w);
	if (!w)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	w->file = w->ftype16 = w->mtype16 = -1;
	for (int i = 0; i < NFIELDS; i++)
		w->ds[i] = -1;
	w->chunk = m && m->chunk ? m->chunk : HY_SHARD_CHUNK;
	if (w->chunk > HY_SHARD_MAX_CHUNK) {
		st = hy_diag_set(d, HY_EUSAGE, 0, "chunk of %u samples is over %d", w->chunk,
				 HY_SHARD_MAX_CHUNK);
		goto out;
	}
	int level = m && m->deflate ? m->deflate : HY_SHARD_DEFLATE;
	if (level < 0)
		level = 0; /* no compression */
	if (level > 9) {
		st = hy_diag_set(d, HY_EUSAGE, 0, "deflate level %d is over 9", level);
		goto out;
	}
	if ((st = hy_staged_create(&w->st, path, NULL, d)) != HY_OK)
		goto out;
	for (int i = 0; i < NFIELDS; i++) {
		w->col[i] = malloc((size_t)w->chunk * fields[i].size);
		if (!w->col[i]) {
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			goto out;
		}
	}
	HY_H5(fapl = H5Pcreate(H5P_FILE_ACCESS), HY_EIO);
	HY_H5(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), HY_EIO);
	/* the 1.10 file format: superblock 3 and version 2 object headers, whose
	 * metadata carries checksums (HDF5 1.10 tools read it) */
	HY_H5(H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110), HY_EIO);
	HY_H5(w->file = H5Fcreate(w->st.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), HY_EIO);
	HY_H5(w->ftype16 = make_f16(H5T_IEEE_F32LE), HY_EIO);
	HY_H5(w->mtype16 = make_f16(H5T_NATIVE_FLOAT), HY_EIO);
	if ((st = w_attrs(w, m, d)) || (st = w_datasets(w, level, d)))
		goto out;
out:
	if (fapl >= 0)
		H5Pclose(fapl);
	if (st) {
		hy_shard_writer_abort(w);
		if (d && !d->source[0])
			snprintf(d->source, sizeof d->source, "%s", path);
		return st;
	}
	*wp = w;
	return HY_OK;
}

static hy_status w_flush(hy_shard_writer *w, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t fs = -1, ms = -1;
	if (!w->nbuf)
		return HY_OK;
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &fields[i];
		int rank = field_rank(f);
		hsize_t dims[3], start[3] = {w->nfile, 0, 0}, count[3];
		field_dims(f, w->nfile + w->nbuf, dims);
		field_dims(f, w->nbuf, count);
		HY_H5(H5Dset_extent(w->ds[i], dims), HY_EIO);
		HY_H5(fs = H5Dget_space(w->ds[i]), HY_EIO);
		HY_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), HY_EIO);
		HY_H5(ms = H5Screate_simple(rank, count, NULL), HY_EIO);
		hid_t mt = f->kind == K_F16 ? w->mtype16 : std_type(f->kind, 0);
		HY_H5(H5Dwrite(w->ds[i], mt, ms, fs, H5P_DEFAULT, w->col[i]), HY_EIO);
		H5Sclose(fs);
		H5Sclose(ms);
		fs = ms = -1;
	}
	w->nfile += w->nbuf;
	w->nbuf = 0;
out:
	if (fs >= 0)
		H5Sclose(fs);
	if (ms >= 0)
		H5Sclose(ms);
	if (st)
		w->err = st;
	return st;
}

hy_status hy_shard_write(hy_shard_writer *w, const hy_sample *s, hy_diag *d)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!w || !s)
		return HY_EUSAGE;
	if (w->err)
		return hy_diag_set(d, w->err, 0, "shard writer failed earlier");
	const char *why = hy_sample_check(s);
	if (why)
		return hy_diag_set(d, HY_EUSAGE, 0, "sample %llu cannot be written: %s",
				   (unsigned long long)(w->nfile + w->nbuf + 1), why);
	for (int i = 0; i < NFIELDS; i++)
		memcpy(w->col[i] + w->nbuf * fields[i].size, (const char *)s + fields[i].offset,
		       fields[i].size);
	if (++w->nbuf == w->chunk)
		return w_flush(w, d);
	return HY_OK;
}

uint64_t hy_shard_writer_count(const hy_shard_writer *w)
{
	return w ? w->nfile + w->nbuf : 0;
}

hy_status hy_shard_writer_close(hy_shard_writer *w, hy_diag *d)
{
	return hy_shard_writer_finish(w, NULL, d);
}

hy_status hy_shard_writer_finish(hy_shard_writer *w, hy_fileset *fs, hy_diag *d)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!w)
		return HY_EUSAGE;
	char path[sizeof d->source];
	snprintf(path, sizeof path, "%s", w->st.path ? w->st.path : "");
	hy_status st = w->err;
	if (st) {
		hy_diag_set(d, st, 0, "shard writer failed earlier");
		goto out;
	}
	if ((st = w_flush(w, d)))
		goto out;
	for (int i = 0; i < NFIELDS; i++) {
		hid_t ds = w->ds[i];
		w->ds[i] = -1;
		HY_H5(H5Dclose(ds), HY_EIO);
	}
	hid_t file = w->file;
	w->file = -1;
	HY_H5(H5Fclose(file), HY_EIO);
	if (fs) {
		if ((st = hy_staged_sync(&w->st, d)) == HY_OK)
			st = hy_fileset_add(fs, &w->st, d);
	} else {
		st = hy_staged_commit(&w->st, d);
	}
out:
	if (st && d)
		snprintf(d->source, sizeof d->source, "%s", path);
	hy_shard_writer_abort(w); /* frees; removes the temporary on failure */
	return st;
}

/* ------------------------------------------------------------ reader */

/* How a dataset's chunks are stored, for hy_shard_decode. */
typedef struct dpipe {
	int fast;          /* chunks decodable here (else H5Dread)               */
	int nf;
	int filt[3];       /* the pipeline, in the order of writing              */
	uint32_t chunk;    /* rows a chunk                                       */
	size_t elem;       /* bytes an element in the file (= in memory)         */
	size_t per_row;    /* elements a row                                     */
} dpipe;

struct hy_shard {
	char *name;
	hid_t file, mtype16;
	hid_t ds[NFIELDS];
	dpipe pipe[NFIELDS];
	uint64_t n;
	uint8_t *col[NFIELDS];
	size_t colcap; /* samples each col holds */
	hy_shard_info info;
	char *enc, *cmd;
	char **src;
	size_t nsrc;
	int described;  /* string attributes read (hy_shard_describe) */
};

void hy_shard_close(hy_shard *sh)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!sh)
		return;
	for (int i = 0; i < NFIELDS; i++) {
		if (sh->ds[i] >= 0)
			H5Dclose(sh->ds[i]);
		free(sh->col[i]);
	}
	if (sh->mtype16 >= 0)
		H5Tclose(sh->mtype16);
	if (sh->file >= 0)
		H5Fclose(sh->file);
	for (size_t i = 0; i < sh->nsrc; i++)
		free(sh->src[i]);
	free(sh->src);
	free(sh->enc);
	free(sh->cmd);
	free(sh->name);
	free(sh);
}

/* Reads a string attribute (scalar or 1-D; variable or fixed length) into
 * *out[0..*n), malloc'ed. A missing attribute gives zero strings. */
static hy_status get_str_attr(const hy_shard *sh, const char *name, char ***out, size_t *n,
			      hy_diag *d)
{
	hid_t loc = sh->file;
	hy_status st = HY_OK;
	hid_t a = -1, ft = -1, sp = -1, mt = -1;
	char **v = NULL;
	char *fixed = NULL;
	size_t cnt = 0;
	*out = NULL;
	*n = 0;
	htri_t has;
	HY_H5(has = H5Aexists(loc, name), HY_EDATA);
	if (!has)
		return HY_OK;
	HY_H5(a = H5Aopen(loc, name, H5P_DEFAULT), HY_EDATA);
	HY_H5(ft = H5Aget_type(a), HY_EDATA);
	if (H5Tget_class(ft) != H5T_STRING) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "attribute '%s' is not a string", name);
		goto out;
	}
	HY_H5(sp = H5Aget_space(a), HY_EDATA);
	H5S_class_t sc = H5Sget_simple_extent_type(sp);
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	if (sc == H5S_NULL || np <= 0)
		goto out;
	cnt = (size_t)np;
	v = calloc(cnt, sizeof *v);
	if (!v) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		goto out;
	}
	HY_H5(mt = H5Tcopy(H5T_C_S1), HY_EDATA);
	HY_H5(H5Tset_cset(mt, H5Tget_cset(ft)), HY_EDATA);
	htri_t vl;
	HY_H5(vl = H5Tis_variable_str(ft), HY_EDATA);
	if (vl && sh->info.format_version >= 2) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "attribute '%s' is a variable-length string "
				 "(version 2 shards use fixed-length ones)", name);
		goto out;
	}
	if (!vl && (H5Tget_size(ft) == 0 || H5Tget_size(ft) > (1u << 20))) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "attribute '%s' has strings of %zu bytes", name,
				 H5Tget_size(ft));
		goto out;
	}
	if (vl) {
		HY_H5(H5Tset_size(mt, H5T_VARIABLE), HY_EDATA);
		HY_H5(H5Aread(a, mt, v), HY_EDATA);
		for (size_t i = 0; i < cnt; i++) {
			char *c = strdup(v[i] ? v[i] : "");
			H5free_memory(v[i]);
			v[i] = c;
			if (!c)
				st = HY_ENOMEM;
		}
	} else {
		size_t sz = H5Tget_size(ft);
		HY_H5(H5Tset_size(mt, sz + 1), HY_EDATA);
		fixed = calloc(cnt, sz + 1);
		if (!fixed) {
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			goto out;
		}
		HY_H5(H5Aread(a, mt, fixed), HY_EDATA);
		for (size_t i = 0; i < cnt; i++)
			if (!(v[i] = strndup(fixed + i * (sz + 1), sz)))
				st = HY_ENOMEM;
	}
	if (st)
		hy_diag_set(d, st, 0, "out of memory");
out:
	free(fixed);
	if (st && v) {
		for (size_t i = 0; i < cnt; i++)
			free(v[i]);
		free(v);
		v = NULL;
		cnt = 0;
	}
	*out = v;
	*n = v ? cnt : 0;
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	if (a >= 0)
		H5Aclose(a);
	return st;
}

static hy_status get_one_str(const hy_shard *sh, const char *name, char **out, hy_diag *d)
{
	char **v;
	size_t n;
	hy_status st = get_str_attr(sh, name, &v, &n, d);
	if (st)
		return st;
	*out = n ? v[0] : strdup("");
	for (size_t i = 1; i < n; i++)
		free(v[i]);
	free(v);
	return *out ? HY_OK : hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
}

/* An integer type of exactly this size and sign: little-endian, every bit
 * used (precision 8·size, offset 0) — nothing HDF5 would have to convert
 * in odd ways. */
static int int_type_is(hid_t t, size_t size, H5T_sign_t sign)
{
	return H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == size &&
	       H5Tget_sign(t) == sign && H5Tget_precision(t) == 8 * size &&
	       H5Tget_offset(t) == 0 && H5Tget_order(t) == H5T_ORDER_LE;
}

/* The file type of a dataset is the one formats/shard.md gives its field
 * (obs: IEEE binary16 as written, or IEEE binary32). */
static int type_ok(const field *f, hid_t t)
{
	switch (f->kind) {
	case K_U8: return int_type_is(t, 1, H5T_SGN_NONE);
	case K_U16: return int_type_is(t, 2, H5T_SGN_NONE);
	case K_I32: return int_type_is(t, 4, H5T_SGN_2);
	case K_U64: return int_type_is(t, 8, H5T_SGN_NONE);
	case K_F32: return H5Tequal(t, H5T_IEEE_F32LE) > 0;
	case K_F16: {
		if (H5Tequal(t, H5T_IEEE_F32LE) > 0)
			return 1;
		size_t spos, epos, esize, mpos, msize;
		return H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 2 &&
		       H5Tget_order(t) == H5T_ORDER_LE && H5Tget_precision(t) == 16 &&
		       H5Tget_offset(t) == 0 && H5Tget_ebias(t) == 15 &&
		       H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 && spos == 15 &&
		       epos == 10 && esize == 5 && mpos == 0 && msize == 10;
	}
	default: return 0;
	}
}

/* Chunked along N with 1 ≤ chunk ≤ HY_SHARD_MAX_CHUNK samples and whole
 * rows otherwise, and no filters but shuffle, deflate and fletcher32 (the
 * last one required from version 2 on): checked before any data is read,
 * since chunk geometry and filters are where crafted files hurt libhdf5. */
static hy_status layout_ok(const hy_shard *sh, const field *f, hid_t pl, const hsize_t *want,
			   hy_diag *d)
{
	if (H5Pget_layout(pl) != H5D_CHUNKED)
		return hy_diag_set(d, HY_EFORMAT, 0, "dataset '%s' is not chunked", f->name);
	hsize_t cd[3] = {0, 0, 0};
	int rank = field_rank(f);
	if (H5Pget_chunk(pl, 3, cd) != rank || cd[0] < 1 || cd[0] > HY_SHARD_MAX_CHUNK ||
	    (rank > 1 && cd[1] != want[1]) || (rank > 2 && cd[2] != want[2]))
		return hy_diag_set(d, HY_EFORMAT, 0, "dataset '%s' has chunks of a shape "
				   "formats/shard.md does not allow", f->name);
	int nf = H5Pget_nfilters(pl), fletcher = 0;
	if (nf < 0 || nf > 3)
		return hy_diag_set(d, HY_EFORMAT, 0, "dataset '%s' has %d filters", f->name, nf);
	for (int k = 0; k < nf; k++) {
		unsigned flags, cdv[8];
		size_t ncd = 8;
		char name[64];
		H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)k, &flags, &ncd, cdv, sizeof name,
						 name, NULL);
		if (id == H5Z_FILTER_FLETCHER32)
			fletcher = 1;
		else if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE)
			return hy_diag_set(d, HY_EFORMAT, 0, "dataset '%s' uses filter %d, "
					   "not one of shuffle, deflate, fletcher32", f->name,
					   (int)id);
	}
	if (sh->info.format_version >= 2 && !fletcher)
		return hy_diag_set(d, HY_EFORMAT, 0, "dataset '%s' has no fletcher32 checksum",
				   f->name);
	return HY_OK;
}

/* Whether hy_shard_decode can undo the dataset's filters itself: the stored
 * elements are the memory's (little-endian host; obs binary16, not a type
 * HDF5 converts), each of shuffle, deflate and fletcher32 at most once and
 * shuffle first (undone last, fused with the copy of the rows). layout_ok
 * has checked the chunk shape and that no other filter is there. */
static void pipe_setup(dpipe *pp, const field *f, hid_t t, hid_t pl)
{
	memset(pp, 0, sizeof *pp);
	hsize_t cd[3] = {0, 0, 0};
	if (H5Pget_chunk(pl, 3, cd) < 1)
		return;
	pp->chunk = (uint32_t)cd[0];
	pp->elem = H5Tget_size(t);
	pp->per_row = (size_t)(f->dim1 > 0 ? f->dim1 : 1) * (size_t)(f->dim2 > 0 ? f->dim2 : 1);
	if (pp->elem == 0 || pp->elem * pp->per_row != f->size)
		return; /* obs as binary32: HDF5 converts it */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	return;
#endif
	int nf = H5Pget_nfilters(pl), seen = 0;
	if (nf < 0 || nf > 3)
		return;
	for (int k = 0; k < nf; k++) {
		unsigned flags, cdv[8] = {0};
		size_t ncd = 8;
		char name[64];
		H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)k, &flags, &ncd, cdv, sizeof name,
						 name, NULL);
		int bit = id == H5Z_FILTER_SHUFFLE ? 1 : id == H5Z_FILTER_DEFLATE ? 2
			: id == H5Z_FILTER_FLETCHER32 ? 4 : 0;
		if (!bit || (seen & bit))
			return;
		if (id == H5Z_FILTER_SHUFFLE && (k != 0 || ncd < 1 || cdv[0] != pp->elem))
			return;
		seen |= bit;
		pp->filt[k] = (int)id;
	}
	pp->nf = nf;
	pp->fast = 1;
}

static hy_status r_structure(hy_shard *sh, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t a = -1, t = -1, sp = -1, dapl = -1, pl = -1;
	htri_t has;
	HY_H5(has = H5Aexists(sh->file, "format_version"), HY_EDATA);
	if (!has) {
		st = hy_diag_set(d, HY_EFORMAT, 0,
				 "not a sample shard (HDF5 file without a format_version attribute)");
		goto out;
	}
	HY_H5(a = H5Aopen(sh->file, "format_version", H5P_DEFAULT), HY_EDATA);
	HY_H5(t = H5Aget_type(a), HY_EDATA);
	HY_H5(sp = H5Aget_space(a), HY_EDATA);
	if (!int_type_is(t, 4, H5T_SGN_NONE) || H5Sget_simple_extent_npoints(sp) != 1) {
		st = hy_diag_set(d, HY_EFORMAT, 0,
				 "attribute format_version is not a 32-bit unsigned integer");
		goto out;
	}
	HY_H5(H5Aread(a, H5T_NATIVE_UINT32, &sh->info.format_version), HY_EDATA);
	if (sh->info.format_version > HY_SHARD_VERSION) {
		st = hy_diag_set(d, HY_EVERSION, 0,
				 "sample shard version %lu is newer than this program supports (%d)",
				 (unsigned long)sh->info.format_version, HY_SHARD_VERSION);
		goto out;
	}
	if (sh->info.format_version == 0) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "sample shard version 0 is invalid");
		goto out;
	}
	/* the string attributes are read only on request (hy_shard_describe) */
	H5Sclose(sp);
	H5Tclose(t);
	sp = t = -1;
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &fields[i];
		HY_H5(has = H5Lexists(sh->file, f->name, H5P_DEFAULT), HY_EDATA);
		if (!has) {
			st = hy_diag_set(d, HY_EFORMAT, 0, "not a sample shard: no dataset '%s'",
					 f->name);
			goto out;
		}
		HY_H5(dapl = H5Pcreate(H5P_DATASET_ACCESS), HY_EDATA);
		HY_H5(sh->ds[i] = H5Dopen2(sh->file, f->name, dapl), HY_EFORMAT);
		HY_H5(t = H5Dget_type(sh->ds[i]), HY_EDATA);
		HY_H5(sp = H5Dget_space(sh->ds[i]), HY_EDATA);
		if (!type_ok(f, t)) {
			st = hy_diag_set(d, HY_EFORMAT, 0,
					 "dataset '%s' is not of the type formats/shard.md gives it",
					 f->name);
			goto out;
		}
		int rank = H5Sget_simple_extent_ndims(sp);
		hsize_t dims[3] = {0, 0, 0}, want[3];
		if (rank != field_rank(f) || H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
			st = hy_diag_set(d, HY_EFORMAT, 0,
					 "dataset '%s' has %d dimensions; expected %d", f->name, rank,
					 field_rank(f));
			goto out;
		}
		field_dims(f, dims[0], want);
		if (i == 0)
			sh->n = dims[0];
		if (dims[0] != sh->n || dims[1] != want[1] || dims[2] != want[2]) {
			char got[64], exp[64];
			snprintf(got, sizeof got, "[%llu", (unsigned long long)dims[0]);
			snprintf(exp, sizeof exp, "[%llu", (unsigned long long)sh->n);
			for (int k = 1; k < rank; k++) {
				size_t l = strlen(got), m = strlen(exp);
				snprintf(got + l, sizeof got - l, ",%llu", (unsigned long long)dims[k]);
				snprintf(exp + m, sizeof exp - m, ",%llu", (unsigned long long)want[k]);
			}
			st = hy_diag_set(d, HY_EFORMAT, 0, "dataset '%s' has dims %s]; expected %s]",
					 f->name, got, exp);
			goto out;
		}
		/* chunk cache: two chunks, so that block reads never decompress twice */
		HY_H5(pl = H5Dget_create_plist(sh->ds[i]), HY_EDATA);
		if ((st = layout_ok(sh, f, pl, want, d)) != HY_OK)
			goto out;
		pipe_setup(&sh->pipe[i], f, t, pl);
		{
			hsize_t cd[3] = {0, 0, 0};
			HY_H5(H5Pget_chunk(pl, 3, cd), HY_EDATA);
			if (i == 0)
				sh->info.chunk = (uint32_t)cd[0];
			size_t bytes = (size_t)cd[0] * f->size * 2 + (1u << 20);
			H5Dclose(sh->ds[i]);
			sh->ds[i] = -1;
			HY_H5(H5Pset_chunk_cache(dapl, 1009, bytes, 0.75), HY_EDATA);
			HY_H5(sh->ds[i] = H5Dopen2(sh->file, f->name, dapl), HY_EFORMAT);
		}
		H5Pclose(pl);
		H5Pclose(dapl);
		H5Sclose(sp);
		H5Tclose(t);
		pl = dapl = sp = t = -1;
	}
out:
	if (pl >= 0)
		H5Pclose(pl);
	if (dapl >= 0)
		H5Pclose(dapl);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return st;
}

static hy_status r_open(hy_shard **shp, const char *name, const char *path, const void *data,
			size_t len, hy_diag *d)
{
	*shp = NULL;
	h5_quiet();
	hy_status st = HY_OK;
	hid_t fapl = -1;
	hy_shard *sh = calloc(1, sizeof *sh);
	if (!sh)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	sh->file = sh->mtype16 = -1;
	for (int i = 0; i < NFIELDS; i++)
		sh->ds[i] = -1;
	sh->name = strdup(name ? name : "");
	if (!sh->name) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		goto out;
	}
	HY_H5(fapl = H5Pcreate(H5P_FILE_ACCESS), HY_EIO);
	HY_H5(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), HY_EIO);
	if (!path) {
		HY_H5(H5Pset_fapl_core(fapl, 1u << 20, 0), HY_EIO);
		HY_H5(H5Pset_file_image(fapl, (void *)data, len), HY_EIO);
		HY_H5(sh->file = H5Fopen("hydra-shard-image", H5F_ACC_RDONLY, fapl), HY_EDATA);
	} else {
		HY_H5(sh->file = H5Fopen(path, H5F_ACC_RDONLY, fapl), HY_EDATA);
	}
	HY_H5(sh->mtype16 = make_f16(H5T_NATIVE_FLOAT), HY_EIO);
	st = r_structure(sh, d);
out:
	if (fapl >= 0)
		H5Pclose(fapl);
	if (st) {
		if (d)
			snprintf(d->source, sizeof d->source, "%s", name ? name : "");
		hy_shard_close(sh);
		return st;
	}
	*shp = sh;
	return HY_OK;
}

hy_status hy_shard_open(hy_shard **shp, const char *path, hy_diag *d)
{
	if (!shp || !path)
		return HY_EUSAGE;
	*shp = NULL;
	/* Look first, for plain messages on the usual mistakes. */
	FILE *f = fopen(path, "rb");
	if (!f) {
		hy_status st = hy_diag_set(d, HY_EIO, 0, "cannot open: %s", strerror(errno));
		if (d)
			snprintf(d->source, sizeof d->source, "%s", path);
		return st;
	}
	unsigned char sig[8];
	size_t got = fread(sig, 1, sizeof sig, f);
	fclose(f);
	if (!hy_shard_is_hdf5(sig, got)) {
		hy_status st = got == 0 ? hy_diag_set(d, HY_ETRUNC, 0, "empty file, not a shard")
					: hy_diag_set(d, HY_EFORMAT, 0,
						      "not an HDF5 sample shard (bad signature)");
		if (d)
			snprintf(d->source, sizeof d->source, "%s", path);
		return st;
	}
	return r_open(shp, path, path, NULL, 0, d);
}

hy_status hy_shard_open_mem(hy_shard **shp, const char *name, const void *data, size_t len,
			    hy_diag *d)
{
	if (!shp || !data)
		return HY_EUSAGE;
	*shp = NULL;
	if (!hy_shard_is_hdf5(data, len)) {
		hy_status st = hy_diag_set(d, HY_EFORMAT, 0, "not an HDF5 sample shard (bad signature)");
		if (d)
			snprintf(d->source, sizeof d->source, "%s", name ? name : "");
		return st;
	}
	return r_open(shp, name, NULL, data, len, d);
}

uint64_t hy_shard_count(const hy_shard *sh)
{
	return sh ? sh->n : 0;
}

const hy_shard_info *hy_shard_get_info(const hy_shard *sh)
{
	return sh ? &sh->info : NULL;
}

const hy_shard_info *hy_shard_describe(hy_shard *sh, hy_diag *d)
{
	if (!sh)
		return NULL;
	if (sh->described)
		return &sh->info;
	hy_status st;
	if ((st = get_one_str(sh, "encoder_version", &sh->enc, d)) ||
	    (st = get_one_str(sh, "command_line", &sh->cmd, d)) ||
	    (st = get_str_attr(sh, "sources", &sh->src, &sh->nsrc, d))) {
		if (d)
			snprintf(d->source, sizeof d->source, "%s", sh->name);
		return NULL;
	}
	sh->info.encoder_version = sh->enc;
	sh->info.command_line = sh->cmd;
	sh->info.sources = (const char *const *)sh->src;
	sh->info.nsources = sh->nsrc;
	sh->described = 1;
	return &sh->info;
}

/* Rows [start, start + n) of dataset i through H5Dread (HDF5 undoes the
 * filters and converts the type) into buf, n · fields[i].size bytes. */
static hy_status read_cols(hy_shard *sh, int i, uint64_t start, size_t n, void *buf, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t fs = -1, ms = -1;
	const field *f = &fields[i];
	int rank = field_rank(f);
	hsize_t fstart[3] = {start, 0, 0}, count[3];
	field_dims(f, n, count);
	HY_H5(fs = H5Dget_space(sh->ds[i]), HY_EDATA);
	HY_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, fstart, NULL, count, NULL), HY_EDATA);
	HY_H5(ms = H5Screate_simple(rank, count, NULL), HY_EDATA);
	hid_t mt = f->kind == K_F16 ? sh->mtype16 : std_type(f->kind, 0);
	HY_H5(H5Dread(sh->ds[i], mt, ms, fs, H5P_DEFAULT, buf), HY_EDATA);
out:
	if (fs >= 0)
		H5Sclose(fs);
	if (ms >= 0)
		H5Sclose(ms);
	return st;
}

static hy_status range_ok(const hy_shard *sh, uint64_t start, size_t n, hy_diag *d)
{
	if (start > sh->n || n > sh->n - start)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "samples %llu..%llu are past the end of the shard (%llu samples)",
				   (unsigned long long)start, (unsigned long long)(start + n),
				   (unsigned long long)sh->n);
	return HY_OK;
}

/* Every sample of out[0..n) (the shard's samples from start) checked. */
static hy_status check_samples(const hy_sample *out, uint64_t start, size_t n, hy_diag *d)
{
	for (size_t k = 0; k < n; k++) {
		const char *why = hy_sample_check(&out[k]);
		if (why) {
			uint64_t idx = start + k + 1;
			return hy_diag_set(d, HY_EDATA, idx > UINT32_MAX ? UINT32_MAX : (uint32_t)idx,
					   "bad sample %llu: %s", (unsigned long long)idx, why);
		}
	}
	return HY_OK;
}

hy_status hy_shard_read(hy_shard *sh, uint64_t start, size_t n, hy_sample *out, hy_diag *d)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!sh || (!out && n))
		return HY_EUSAGE;
	hy_status st = range_ok(sh, start, n, d);
	if (st || n == 0)
		return st;
	if (n > sh->colcap) {
		for (int i = 0; i < NFIELDS; i++) {
			uint8_t *c = realloc(sh->col[i], n * fields[i].size);
			if (!c) {
				st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
				goto out;
			}
			sh->col[i] = c;
		}
		sh->colcap = n;
	}
	memset(out, 0, n * sizeof *out);
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &fields[i];
		if ((st = read_cols(sh, i, start, n, sh->col[i], d)))
			goto out;
		for (size_t k = 0; k < n; k++)
			memcpy((char *)&out[k] + f->offset, sh->col[i] + k * f->size, f->size);
	}
	st = check_samples(out, start, n, d);
out:
	if (st && d)
		snprintf(d->source, sizeof d->source, "%s", sh->name);
	return st;
}

/* ------------------------------------------------- fetch, then decode */

typedef struct stored {
	int raw;          /* 1: a stored chunk; 0: rows read through H5Dread */
	uint8_t *p;
	size_t len, cap;
	unsigned mask;    /* filters skipped on this chunk (bit k: filter k) */
	uint64_t chunk0;  /* the chunk's first row                         */
} stored;

struct hy_shard_chunks {
	const hy_shard *sh;
	uint64_t start;
	size_t n;
	stored f[NFIELDS];
};

struct hy_shard_decoder {
	z_stream z;
	int zinit;
	uint8_t *buf; /* a chunk after inflation */
	size_t cap;
};

hy_shard_chunks *hy_shard_chunks_new(void)
{
	return calloc(1, sizeof(hy_shard_chunks));
}

void hy_shard_chunks_free(hy_shard_chunks *c)
{
	if (!c)
		return;
	for (int i = 0; i < NFIELDS; i++)
		free(c->f[i].p);
	free(c);
}

hy_shard_decoder *hy_shard_decoder_new(void)
{
	return calloc(1, sizeof(hy_shard_decoder));
}

void hy_shard_decoder_free(hy_shard_decoder *dec)
{
	if (!dec)
		return;
	if (dec->zinit)
		inflateEnd(&dec->z);
	free(dec->buf);
	free(dec);
}

int hy_shard_chunks_raw(const hy_shard_chunks *c)
{
	int k = 0;
	for (int i = 0; c && i < NFIELDS; i++)
		k += c->f[i].raw;
	return k;
}

uint32_t hy_shard_fletcher32(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t a = 0, b = 0;
	size_t words = len / 2;
	while (words) {
		/* 360 words at most between reductions: the sums stay in 32 bits */
		size_t k = words > 360 ? 360 : words;
		words -= k;
		for (; k; k--, p += 2) {
			a += (uint32_t)p[0] << 8 | p[1];
			b += a;
		}
		a = (a & 0xffff) + (a >> 16);
		b = (b & 0xffff) + (b >> 16);
	}
	if (len % 2) {
		a += (uint32_t)p[0] << 8;
		b += a;
		a = (a & 0xffff) + (a >> 16);
		b = (b & 0xffff) + (b >> 16);
	}
	a = (a & 0xffff) + (a >> 16);
	b = (b & 0xffff) + (b >> 16);
	return b << 16 | a;
}

static hy_status grow(stored *x, size_t len, hy_diag *d)
{
	if (len <= x->cap)
		return HY_OK;
	uint8_t *p = realloc(x->p, len);
	if (!p)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	x->p = p;
	x->cap = len;
	return HY_OK;
}

/* The stored chunk of dataset i that holds rows [start, start + n), or 0
 * when the decoder cannot take it (then x is filled through H5Dread). */
static hy_status fetch_one(hy_shard *sh, int i, uint64_t start, size_t n, stored *x, hy_diag *d)
{
	hy_status st = HY_OK;
	const dpipe *pp = &sh->pipe[i];
	const field *f = &fields[i];
	x->raw = 0;
	if (pp->fast && start / pp->chunk == (start + n - 1) / pp->chunk) {
		hsize_t off[3] = {start - start % pp->chunk, 0, 0};
		hsize_t size = 0;
		HY_H5(H5Dget_chunk_storage_size(sh->ds[i], off, &size), HY_EDATA);
		/* 0: never written (HDF5 gives the fill value); an absurd size
		 * is HDF5's to judge */
		if (size > 0 && size <= 2 * (hsize_t)pp->chunk * f->size + 4096) {
			if ((st = grow(x, (size_t)size, d)))
				return st;
			uint32_t mask = 0;
			HY_H5(H5Dread_chunk(sh->ds[i], H5P_DEFAULT, off, &mask, x->p), HY_EDATA);
			x->raw = 1;
			x->len = (size_t)size;
			x->mask = mask;
			x->chunk0 = off[0];
			return HY_OK;
		}
	}
	if ((st = grow(x, n * f->size, d)))
		return st;
	x->len = n * f->size;
	return read_cols(sh, i, start, n, x->p, d);
out:
	return st;
}

hy_status hy_shard_fetch(hy_shard *sh, uint64_t start, size_t n, hy_shard_chunks *c,
			 hy_diag *d)
{
	h5_quiet(); /* this thread too (h5.h) */
	if (!sh || !c)
		return HY_EUSAGE;
	hy_status st = range_ok(sh, start, n, d);
	c->sh = sh;
	c->start = start;
	c->n = 0;
	for (int i = 0; !st && n && i < NFIELDS; i++)
		st = fetch_one(sh, i, start, n, &c->f[i], d);
	if (st) {
		if (d)
			snprintf(d->source, sizeof d->source, "%s", sh->name);
		return st;
	}
	c->n = n;
	return HY_OK;
}

/* Inflates p[0..len) (a zlib stream, as HDF5's deflate filter writes it)
 * into dec->buf; exactly want bytes or HY_EDATA. */
static hy_status inflate_chunk(hy_shard_decoder *dec, const uint8_t *p, size_t len, size_t want,
			       int checked, const char *what, hy_diag *d)
{
	if (want > dec->cap) {
		free(dec->buf);
		dec->cap = 0;
		if (!(dec->buf = malloc(want)))
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		dec->cap = want;
	}
	z_stream *z = &dec->z;
	if (!dec->zinit) {
		memset(z, 0, sizeof *z);
		if (inflateInit(z) != Z_OK)
			return hy_diag_set(d, HY_ENOMEM, 0, "zlib: inflateInit failed");
		dec->zinit = 1;
	} else if (inflateReset(z) != Z_OK) {
		return hy_diag_set(d, HY_EDATA, 0, "zlib: inflateReset failed");
	}
	/* zlib's adler32 of the inflated bytes (a sixth of the time) only
	 * where no fletcher32 has vouched for the stored ones */
	if (inflateValidate(z, !checked) != Z_OK)
		return hy_diag_set(d, HY_EDATA, 0, "zlib: inflateValidate failed");
	z->next_in = (Bytef *)p;
	z->avail_in = (uInt)len;
	z->next_out = dec->buf;
	z->avail_out = (uInt)want;
	int zr = inflate(z, Z_FINISH);
	if (zr != Z_STREAM_END || z->total_out != want)
		return hy_diag_set(d, HY_EDATA, 0, "%s: the deflate stream is damaged (zlib: %s, "
				   "%lu of %zu bytes)", what,
				   zr == Z_STREAM_END ? "short" : z->msg ? z->msg : "incomplete",
				   (unsigned long)z->total_out, want);
	return HY_OK;
}

/* Rows [row0, row0 + n) of a chunk of nelem elements of elem bytes, per_row
 * a row, into out[k] at offset; shuffled: byte j of element e is at
 * src[j · nelem + e] (HDF5's shuffle filter). */
static void copy_rows(hy_sample *out, size_t offset, const uint8_t *src, size_t nelem,
		      size_t elem, size_t per_row, uint64_t row0, size_t n, int shuffled)
{
	const size_t bytes = elem * per_row;
	for (size_t r = 0; r < n; r++) {
		uint8_t *o = (uint8_t *)&out[r] + offset;
		size_t e0 = (size_t)(row0 + r) * per_row;
		if (!shuffled) {
			memcpy(o, src + e0 * elem, bytes);
		} else if (elem == 2) {
			const uint8_t *lo = src + e0, *hi = src + nelem + e0;
			size_t k = 0;
#ifdef __SSE2__
			/* 16 elements a step: the low and high bytes interleaved */
			for (; k + 16 <= per_row; k += 16) {
				__m128i l = _mm_loadu_si128((const __m128i *)(lo + k));
				__m128i h = _mm_loadu_si128((const __m128i *)(hi + k));
				_mm_storeu_si128((__m128i *)(o + 2 * k), _mm_unpacklo_epi8(l, h));
				_mm_storeu_si128((__m128i *)(o + 2 * k + 16), _mm_unpackhi_epi8(l, h));
			}
#endif
			for (; k < per_row; k++) {
				uint16_t v = (uint16_t)(lo[k] | hi[k] << 8);
				memcpy(o + 2 * k, &v, 2);
			}
		} else {
			for (size_t j = 0; j < elem; j++) {
				const uint8_t *pl = src + j * nelem + e0;
				for (size_t k = 0; k < per_row; k++)
					o[k * elem + j] = pl[k];
			}
		}
	}
}

/* Dataset i's rows of c into out: the filters undone in reverse order. */
static hy_status decode_one(hy_shard_decoder *dec, const hy_shard_chunks *c, int i,
			    hy_sample *out, hy_diag *d)
{
	const stored *x = &c->f[i];
	const field *f = &fields[i];
	if (!x->raw) {
		for (size_t k = 0; k < c->n; k++)
			memcpy((char *)&out[k] + f->offset, x->p + k * f->size, f->size);
		return HY_OK;
	}
	const dpipe *pp = &c->sh->pipe[i];
	const size_t want = (size_t)pp->chunk * f->size;
	const uint8_t *p = x->p;
	size_t len = x->len;
	int shuffled = 0, checked = 0;
	char what[128];
	snprintf(what, sizeof what, "dataset '%s', chunk at sample %llu", f->name,
		 (unsigned long long)x->chunk0 + 1);
	for (int k = pp->nf - 1; k >= 0; k--) {
		if (x->mask & (1u << k))
			continue; /* an optional filter that was not applied */
		switch (pp->filt[k]) {
		case H5Z_FILTER_FLETCHER32: {
			if (len < 4)
				return hy_diag_set(d, HY_EDATA, 0, "checksum mismatch: the file is "
						   "damaged (%s: %zu bytes stored)", what, len);
			len -= 4;
			uint32_t want_sum = (uint32_t)p[len] | (uint32_t)p[len + 1] << 8 |
					    (uint32_t)p[len + 2] << 16 | (uint32_t)p[len + 3] << 24;
			uint32_t sum = hy_shard_fletcher32(p, len);
			/* HDF5 before 1.6.3 stored the halves byte-swapped on
			 * little-endian machines; HDF5 accepts both */
			uint32_t old = (sum & 0x00ff00ffu) << 8 | (sum & 0xff00ff00u) >> 8;
			if (want_sum != sum && want_sum != old)
				return hy_diag_set(d, HY_EDATA, 0, "checksum mismatch: the file is "
						   "damaged (%s: fletcher32 %08x, stored %08x)", what,
						   (unsigned)sum, (unsigned)want_sum);
			checked = 1;
			break;
		}
		case H5Z_FILTER_DEFLATE: {
			hy_status st = inflate_chunk(dec, p, len, want, checked, what, d);
			if (st)
				return st;
			p = dec->buf;
			len = want;
			break;
		}
		case H5Z_FILTER_SHUFFLE:
			shuffled = 1;
			break;
		default:
			return hy_diag_set(d, HY_EUNSUP, 0, "%s: filter %d", what, pp->filt[k]);
		}
	}
	if (len != want)
		return hy_diag_set(d, HY_EDATA, 0, "%s holds %zu bytes after its filters; expected "
				   "%zu", what, len, want);
	size_t nelem = want / pp->elem;
	/* HDF5 leaves 1-byte elements and single elements as they are */
	shuffled = shuffled && pp->elem > 1 && nelem > 1;
	copy_rows(out, f->offset, p, nelem, pp->elem, pp->per_row, c->start - x->chunk0, c->n,
		  shuffled);
	return HY_OK;
}

hy_status hy_shard_decode(hy_shard_decoder *dec, const hy_shard_chunks *c, hy_sample *out,
			  hy_diag *d)
{
	if (!dec || !c || !c->sh || (!out && c->n))
		return HY_EUSAGE;
	hy_status st = HY_OK;
	/* every field is written whole: only the bytes between them need
	 * clearing, as hy_shard_read clears them; obs, most of a sample, not */
	const size_t o0 = fields[0].offset, o1 = o0 + fields[0].size;
	for (size_t k = 0; k < c->n; k++) {
		memset(&out[k], 0, o0);
		memset((char *)&out[k] + o1, 0, sizeof *out - o1);
	}
	for (int i = 0; !st && c->n && i < NFIELDS; i++)
		st = decode_one(dec, c, i, out, d);
	if (!st)
		st = check_samples(out, c->start, c->n, d);
	if (st && d)
		snprintf(d->source, sizeof d->source, "%s", c->sh->name);
	return st;
}
