/* HDF5 sample shards (formats/shard.md is the normative spec): the field
 * table, opening a shard and checking its structure, reading it through
 * H5Dread. The writer is in shard_write.c, the two-step read (fetch, then
 * decode outside HDF5) in shard_decode.c; what the three share is in the
 * private shard_internal.h. */
#include "samples/shard.h"

#include <errno.h>
#include <hdf5.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "samples/shard_internal.h"
#include "samples/stream.h" /* hy_sample_check */

/* ------------------------------------------------------------ fields */

#define F1(n, k, t) {#n, k, 0, 0, offsetof(hy_sample, n), sizeof(t)}
/* obs first: hy_shard_decode leaves its bytes to the copy of its rows */
const field hy_shard_fields[] = {
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
_Static_assert(sizeof hy_shard_fields / sizeof hy_shard_fields[0] == NFIELDS,
	       "NFIELDS counts the datasets");
_Static_assert(sizeof(((hy_sample *)0)->obs) == 2 * HY_OBS_SIZE, "obs is 2 bytes a cell");

/* IEEE binary16 (1 sign, 5 exponent bits with bias 15, 10 mantissa bits),
 * derived from a 32-bit float type so that its byte order is base's. */
hid_t hy_shard_make_f16(hid_t base)
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

int hy_shard_is_hdf5(const void *data, size_t len)
{
	return data && len >= 8 && memcmp(data, "\x89HDF\r\n\x1a\n", 8) == 0;
}

/* ------------------------------------------------------------ reader */

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

/* A root attribute that must be a scalar 32-bit unsigned integer. */
static hy_status r_u32_attr(hid_t file, const char *name, uint32_t *v, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t a = -1, t = -1, sp = -1;
	HY_H5(a = H5Aopen(file, name, H5P_DEFAULT), HY_EDATA);
	HY_H5(t = H5Aget_type(a), HY_EDATA);
	HY_H5(sp = H5Aget_space(a), HY_EDATA);
	if (!int_type_is(t, 4, H5T_SGN_NONE) || H5Sget_simple_extent_npoints(sp) != 1) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "attribute %s is not a 32-bit unsigned integer",
				 name);
		goto out;
	}
	HY_H5(H5Aread(a, H5T_NATIVE_UINT32, v), HY_EDATA);
out:
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return st;
}

static hy_status r_structure(hy_shard *sh, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t t = -1, sp = -1, dapl = -1, pl = -1;
	htri_t has;
	HY_H5(has = H5Aexists(sh->file, "format_version"), HY_EDATA);
	if (!has) {
		st = hy_diag_set(d, HY_EFORMAT, 0,
				 "not a sample shard (HDF5 file without a format_version attribute)");
		goto out;
	}
	if ((st = r_u32_attr(sh->file, "format_version", &sh->info.format_version, d)))
		goto out;
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
	HY_H5(has = H5Aexists(sh->file, "obs_version"), HY_EDATA);
	if (has) { /* optional: shards written before it have none (version 0) */
		if ((st = r_u32_attr(sh->file, "obs_version", &sh->info.obs_version, d)))
			goto out;
		if (sh->info.obs_version == 0 || sh->info.obs_version > 255) {
			st = hy_diag_set(d, HY_EFORMAT, 0, "attribute obs_version is not a 32-bit "
					 "unsigned integer from 1 to 255");
			goto out;
		}
	}
	for (int i = 0; i < NFIELDS; i++) {
		const field *f = &hy_shard_fields[i];
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
	}
	/* the signature was there (hy_shard_open): what HDF5 cannot open is a
	 * cut or damaged file, said in words, not as the call that failed */
	struct stat sb;
	if ((sh->file = H5Fopen(path ? path : "hydra-shard-image", H5F_ACC_RDONLY, fapl)) < 0) {
		H5Eclear2(H5E_DEFAULT);
		st = hy_diag_set(d, HY_ETRUNC, 0, "not a readable shard (a truncated or corrupt "
			"HDF5 file, %lld bytes)", !path ? (long long)len
			: stat(path, &sb) == 0 ? (long long)sb.st_size : -1LL);
		goto out;
	}
	HY_H5(sh->mtype16 = hy_shard_make_f16(H5T_NATIVE_FLOAT), HY_EIO);
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

hy_status hy_shard_read_cols(hy_shard *sh, int i, uint64_t start, size_t n, void *buf,
			     hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t fs = -1, ms = -1;
	const field *f = &hy_shard_fields[i];
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

hy_status hy_shard_range_ok(const hy_shard *sh, uint64_t start, size_t n, hy_diag *d)
{
	if (start > sh->n || n > sh->n - start)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "samples %llu..%llu are past the end of the shard (%llu samples)",
				   (unsigned long long)start, (unsigned long long)(start + n),
				   (unsigned long long)sh->n);
	return HY_OK;
}

hy_status hy_shard_check_samples(const hy_sample *out, uint64_t start, size_t n, hy_diag *d)
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
	hy_status st = hy_shard_range_ok(sh, start, n, d);
	if (st || n == 0)
		return st;
	if (n > sh->colcap) {
		for (int i = 0; i < NFIELDS; i++) {
			uint8_t *c = realloc(sh->col[i], n * hy_shard_fields[i].size);
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
		const field *f = &hy_shard_fields[i];
		if ((st = hy_shard_read_cols(sh, i, start, n, sh->col[i], d)))
			goto out;
		for (size_t k = 0; k < n; k++)
			memcpy((char *)&out[k] + f->offset, sh->col[i] + k * f->size, f->size);
	}
	st = hy_shard_check_samples(out, start, n, d);
out:
	if (st && d)
		snprintf(d->source, sizeof d->source, "%s", sh->name);
	return st;
}
