/* The shard writer (samples/shard.h, formats/shard.md): attributes, one
 * chunked dataset a field, samples buffered a chunk at a time, the file
 * staged under a temporary name until it is complete. */
#include "samples/shard.h"

#include <hdf5.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "io/staged.h"
#include "samples/shard_internal.h"
#include "samples/stream.h" /* hy_sample_check */

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

/* Removes a root attribute if the file has it. */
static hy_status del_attr(hid_t f, const char *name, hy_diag *d)
{
	hy_status st = HY_OK;
	htri_t has;
	HY_H5(has = H5Aexists(f, name), HY_EIO);
	if (has)
		HY_H5(H5Adelete(f, name), HY_EIO);
out:
	return st;
}

/* A scalar 32-bit unsigned attribute (replaced when it exists). */
static hy_status put_u32_attr(hid_t f, const char *name, uint32_t v, hy_diag *d)
{
	hid_t sp = -1, a = -1;
	hy_status st = del_attr(f, name, d);
	if (st)
		return st;
	HY_H5(sp = H5Screate(H5S_SCALAR), HY_EIO);
	HY_H5(a = H5Acreate2(f, name, H5T_STD_U32LE, sp, H5P_DEFAULT, H5P_DEFAULT), HY_EIO);
	HY_H5(H5Awrite(a, H5T_NATIVE_UINT32, &v), HY_EIO);
out:
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	return st;
}

/* The `obs_version` attribute: v (1–255), or none for v = 0 (unmarked). */
static hy_status put_obs_version(hy_shard_writer *w, int v, hy_diag *d)
{
	if (v < 0 || v > 255)
		return hy_diag_set(d, HY_EUSAGE, 0, "observation version %d is not 0-255", v);
	return v ? put_u32_attr(w->file, "obs_version", (uint32_t)v, d)
		 : del_attr(w->file, "obs_version", d);
}

hy_status hy_shard_writer_set_obs_version(hy_shard_writer *w, int v, hy_diag *d)
{
	if (!w)
		return HY_EUSAGE;
	if (w->err)
		return hy_diag_set(d, w->err, 0, "shard writer failed earlier");
	return put_obs_version(w, v, d);
}

static hy_status w_attrs(hy_shard_writer *w, const hy_shard_meta *m, hy_diag *d)
{
	hy_status st;
	char enc[64];
	snprintf(enc, sizeof enc, "hydra-c %s", HY_VERSION);
	const char *fmt = HY_SHARD_FORMAT;
	const char *ev = m && m->encoder_version ? m->encoder_version : enc;
	const char *cl = m && m->command_line ? m->command_line : "";
	if ((st = put_u32_attr(w->file, "format_version", HY_SHARD_VERSION, d)) ||
	    (st = put_obs_version(w, !m || !m->obs_version ? HY_OBS_VERSION
				  : m->obs_version < 0 ? 0 : m->obs_version, d)) ||
	    (st = put_str_attr(w->file, "format", &fmt, 1, 0, d)) ||
	    (st = put_str_attr(w->file, "encoder_version", &ev, 1, 0, d)) ||
	    (st = put_str_attr(w->file, "command_line", &cl, 1, 0, d)))
		return st;
	for (size_t i = 0; m && i < m->nsources; i++)
		if (!m->sources[i])
			return hy_diag_set(d, HY_EUSAGE, 0, "source %zu is NULL", i);
	return put_str_attr(w->file, "sources", m ? m->sources : NULL, m ? m->nsources : 0, 1, d);
}

static hy_status w_datasets(hy_shard_writer *w, int level, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t dcpl = -1, sp = -1;
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &hy_shard_fields[i];
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
		w->col[i] = malloc((size_t)w->chunk * hy_shard_fields[i].size);
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
	HY_H5(w->ftype16 = hy_shard_make_f16(H5T_IEEE_F32LE), HY_EIO);
	HY_H5(w->mtype16 = hy_shard_make_f16(H5T_NATIVE_FLOAT), HY_EIO);
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
		const field *f = &hy_shard_fields[i];
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
	if (s->flags & HY_SAMPLE_F_HIDDEN)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "sample %llu cannot be written: a shard does not hold the hidden "
				   "state (oracle samples of hydra-sp --hidden travel as sample "
				   "streams)", (unsigned long long)(w->nfile + w->nbuf + 1));
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &hy_shard_fields[i];
		memcpy(w->col[i] + w->nbuf * f->size, (const char *)s + f->offset, f->size);
	}
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
