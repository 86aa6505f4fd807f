#include "nn/checkpoint.h"

#include "io/staged.h"
#include "samples/h5.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORMAT_NAME "hydra-checkpoint"

/* Every HDF5 call goes through this: on failure, the reason HDF5 gives (the
 * operating system's, such as "No space left on device", when there is
 * one), the call, file and line; the checkpoint's name is d's source. */
#define H5CHK(expr)                                                                     \
	do {                                                                                \
		if ((expr) < 0) {                                                               \
			st = hy_h5_fail(d, HY_EIO, #expr, __FILE__, __LINE__);                      \
			if (d)                                                                      \
				snprintf(d->source, sizeof d->source, "%s", path);                      \
			goto out;                                                                   \
		}                                                                               \
	} while (0)

static herr_t put_attr(hid_t loc, const char *name, hid_t type, const void *v, hsize_t n)
{
	hid_t sp = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
	if (sp < 0)
		return -1;
	hid_t a = H5Acreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
	herr_t r = a < 0 ? -1 : H5Awrite(a, type, v);
	/* every HDF5 call clears the error stack: keep the failure's for H5CHK */
	hid_t es = r < 0 ? H5Eget_current_stack() : -1;
	if (a >= 0 && H5Aclose(a) < 0) {
		r = -1;
		if (es < 0)
			es = H5Eget_current_stack();
	}
	H5Sclose(sp);
	if (es >= 0)
		H5Eset_current_stack(es);
	return r;
}

static herr_t get_attr(hid_t loc, const char *name, hid_t type, void *v, hssize_t n)
{
	if (H5Aexists(loc, name) <= 0)
		return -1;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	if (a < 0)
		return -1;
	hid_t sp = H5Aget_space(a);
	hssize_t have = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
	herr_t r = have == n ? H5Aread(a, type, v) : -1;
	if (sp >= 0)
		H5Sclose(sp);
	H5Aclose(a);
	return r;
}

static herr_t put_str(hid_t loc, const char *name, const char *s)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	herr_t r = H5Tset_size(t, strlen(s) + 1);
	if (r >= 0)
		r = put_attr(loc, name, t, s, 1);
	H5Tclose(t);
	return r;
}

static herr_t write_set(hid_t f, hid_t lcpl, const char *prefix, const hy_nn_tensor *t,
	const float *data)
{
	char name[HY_NN_NAME_MAX + 32];
	snprintf(name, sizeof name, "%s/%s", prefix, t->name);
	hsize_t dims[HY_NN_MAX_DIMS];
	for (int i = 0; i < t->ndim; i++)
		dims[i] = (hsize_t)t->shape[i];
	hid_t sp = H5Screate_simple(t->ndim, dims, NULL);
	if (sp < 0)
		return -1;
	/* one chunk holding the whole tensor, so that fletcher32 can checksum it */
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t ds = dcpl < 0 || H5Pset_chunk(dcpl, t->ndim, dims) < 0 ||
			   H5Pset_fletcher32(dcpl) < 0
		? -1
		: H5Dcreate2(f, name, H5T_IEEE_F32LE, sp, lcpl, dcpl, H5P_DEFAULT);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	herr_t r = ds < 0 ? -1 : H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
	hid_t es = r < 0 ? H5Eget_current_stack() : -1; /* kept for H5CHK, as in put_attr */
	if (ds >= 0 && H5Dclose(ds) < 0) {
		r = -1;
		if (es < 0)
			es = H5Eget_current_stack();
	}
	H5Sclose(sp);
	if (es >= 0)
		H5Eset_current_stack(es);
	return r;
}

static hy_status save(const char *path, const char *tmp, const hy_nn_model *m,
	const hy_nn_ckpt_meta *meta, float *host, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t f = -1, lcpl = -1;
	const hy_nn_params *p = &m->table;
	const size_t bytes = p->total * sizeof(float);
	/* the HDF5 1.10 file format: its metadata carries checksums */
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	f = fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) < 0
		? -1
		: H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (fapl >= 0)
		H5Pclose(fapl);
	if (f < 0) {
		st = hy_diag_set(d, HY_EIO, 0, "cannot create '%s'", tmp);
		goto out;
	}
	H5CHK(lcpl = H5Pcreate(H5P_LINK_CREATE));
	H5CHK(H5Pset_create_intermediate_group(lcpl, 1));
	int32_t ver = HY_NN_CKPT_VERSION, blocks = m->arch.blocks, ch = m->arch.channels;
	H5CHK(put_str(f, "format", FORMAT_NAME));
	H5CHK(put_attr(f, "version", H5T_STD_I32LE, &ver, 1));
	H5CHK(put_attr(f, "blocks", H5T_STD_I32LE, &blocks, 1));
	H5CHK(put_attr(f, "channels", H5T_STD_I32LE, &ch, 1));
	H5CHK(put_attr(f, "step", H5T_STD_I64LE, &meta->step, 1));
	const hy_nn_optim_cfg *o = &meta->opt;
	H5CHK(put_attr(f, "lr", H5T_NATIVE_FLOAT, &o->lr, 1));
	H5CHK(put_attr(f, "lr_min", H5T_NATIVE_FLOAT, &o->lr_min, 1));
	H5CHK(put_attr(f, "beta1", H5T_NATIVE_FLOAT, &o->beta1, 1));
	H5CHK(put_attr(f, "beta2", H5T_NATIVE_FLOAT, &o->beta2, 1));
	H5CHK(put_attr(f, "eps", H5T_NATIVE_FLOAT, &o->eps, 1));
	H5CHK(put_attr(f, "weight_decay", H5T_NATIVE_FLOAT, &o->wd, 1));
	H5CHK(put_attr(f, "clip", H5T_NATIVE_FLOAT, &o->clip, 1));
	H5CHK(put_attr(f, "warmup", H5T_STD_I64LE, &o->warmup, 1));
	H5CHK(put_attr(f, "total_steps", H5T_STD_I64LE, &o->total, 1));
	H5CHK(put_attr(f, "seed", H5T_STD_U64LE, &meta->seed, 1));
	H5CHK(put_attr(f, "rng_state", H5T_STD_U64LE, meta->rng.s, 4));
	for (int i = 0; i < meta->nextra; i++) {
		const hy_nn_ckpt_attr *x = &meta->extra[i];
		if (x->type == HY_NN_ATTR_STR) {
			H5CHK(put_str(f, x->name, x->value));
			continue;
		}
		hid_t t = x->type == HY_NN_ATTR_I32   ? H5T_STD_I32LE
			: x->type == HY_NN_ATTR_I64 ? H5T_STD_I64LE
			: x->type == HY_NN_ATTR_U64 ? H5T_STD_U64LE
						    : H5T_IEEE_F64LE;
		H5CHK(put_attr(f, x->name, t, x->value, 1));
	}
	static const char *const prefix[3] = {"params", "adam/m", "adam/v"};
	float *const src[3] = {m->w, m->m, m->v};
	for (int k = 0; k < 3; k++) {
		m->be->to_host(host, src[k], bytes);
		for (int i = 0; i < p->count; i++)
			H5CHK(write_set(f, lcpl, prefix[k], &p->t[i], host + p->t[i].offset));
	}
	hid_t ff = f;
	f = -1;
	H5CHK(H5Fclose(ff));
out:
	if (lcpl >= 0)
		H5Pclose(lcpl);
	if (f >= 0)
		H5Fclose(f);
	return st;
}

hy_status hy_nn_ckpt_save(const char *path, const hy_nn_model *m, const hy_nn_ckpt_meta *meta,
	hy_diag *d)
{
	hy_h5_init();
	float *host = malloc(m->table.total * sizeof(float) + 1);
	if (!host)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory saving '%s'", path);
	hy_staged stg;
	hy_status st = hy_staged_create(&stg, path, NULL, d);
	if (st == HY_OK) {
		H5E_BEGIN_TRY
		{
			st = save(path, stg.tmp, m, meta, host, d);
		}
		H5E_END_TRY;
		if (st == HY_OK)
			st = hy_staged_commit(&stg, d); /* fsync, rename; removes on failure */
		else
			hy_staged_discard(&stg);
	}
	free(host);
	return st;
}

/* Opens and checks the format attributes; fills the architecture. */
static hy_status open_ckpt(const char *path, hid_t *fp, hy_nn_arch *a, hy_diag *d)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return hy_diag_set(d, HY_ETRUNC, 0,
			"'%s': not a readable HDF5 checkpoint (truncated or corrupt file, %lld bytes)",
			path, (long long)sb.st_size);
	hy_status st = HY_OK;
	char fmt[64] = {0};
	hid_t at = -1, ty = -1;
	if (H5Aexists(f, "format") > 0 && (at = H5Aopen(f, "format", H5P_DEFAULT)) >= 0 &&
		(ty = H5Aget_type(at)) >= 0 && H5Tget_class(ty) == H5T_STRING &&
		H5Tis_variable_str(ty) == 0 && H5Tget_size(ty) < sizeof fmt)
		H5Aread(at, ty, fmt);
	if (ty >= 0)
		H5Tclose(ty);
	if (at >= 0)
		H5Aclose(at);
	int32_t ver = 0, blocks = 0, ch = 0;
	if (strcmp(fmt, FORMAT_NAME)) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': not a hydra checkpoint (format attribute "
			"missing)", path);
	} else if (H5Aexists(f, "kind") > 0) { /* another model's checkpoint (nn/grp.h) */
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': not a policy network checkpoint (it has "
			"a kind attribute: a GRP checkpoint of hydra-fit --mode grp?)", path);
	} else if (get_attr(f, "version", H5T_NATIVE_INT32, &ver, 1) < 0 ||
		get_attr(f, "blocks", H5T_NATIVE_INT32, &blocks, 1) < 0 ||
		get_attr(f, "channels", H5T_NATIVE_INT32, &ch, 1) < 0) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint lacks version/blocks/channels", path);
	} else if (ver < 1 || ver > HY_NN_CKPT_VERSION) {
		st = hy_diag_set(d, HY_EVERSION, 0, "'%s': checkpoint version %d, this build reads "
			"1 to %d", path, ver, HY_NN_CKPT_VERSION);
	} else if (hy_nn_arch_check((hy_nn_arch){blocks, ch}, NULL) != HY_OK) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': attribute blocks/channels %d x %d is not "
			"an architecture this build accepts", path, (int)blocks, (int)ch);
	}
	if (st) {
		H5Fclose(f);
		return st;
	}
	a->blocks = blocks;
	a->channels = ch;
	*fp = f;
	return HY_OK;
}

hy_status hy_nn_ckpt_arch(const char *path, hy_nn_arch *a, hy_diag *d)
{
	hid_t f = -1;
	hy_status st;
	hy_h5_init();
	H5E_BEGIN_TRY
	{
		st = open_ckpt(path, &f, a, d);
		if (!st)
			H5Fclose(f);
	}
	H5E_END_TRY;
	return st;
}

static hy_status read_set(hid_t f, const char *path, const char *prefix, const hy_nn_tensor *t,
	float *data, hy_diag *d)
{
	char name[HY_NN_NAME_MAX + 32];
	snprintf(name, sizeof name, "%s/%s", prefix, t->name);
	hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
	if (ds < 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': missing dataset /%s", path, name);
	hy_status st = HY_OK;
	hid_t sp = H5Dget_space(ds);
	hsize_t dims[HY_NN_MAX_DIMS + 1];
	int nd = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
	int same = nd == t->ndim && H5Sget_simple_extent_dims(sp, dims, NULL) == nd;
	for (int i = 0; same && i < nd; i++)
		same = dims[i] == (hsize_t)t->shape[i];
	if (!same)
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': dataset /%s has the wrong shape", path, name);
	else if (H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
		st = hy_h5_checksum_failed() /* fletcher32: the stored bytes changed */
			? hy_diag_set(d, HY_EDATA, 0, "'%s': dataset /%s: checksum mismatch (the "
				"file is damaged)", path, name)
			: hy_diag_set(d, HY_ETRUNC, 0, "'%s': cannot read dataset /%s (truncated "
				"file?)", path, name);
	if (sp >= 0)
		H5Sclose(sp);
	H5Dclose(ds);
	return st;
}

/* The training attributes get the ranges of the options that set them
 * (cmd/hydra-fit.c): a damaged or crafted checkpoint is refused (status 3,
 * naming the attribute) instead of training on to NaN or worse. */
static hy_status check_meta(const char *path, const hy_nn_ckpt_meta *meta, hy_diag *d)
{
	const hy_nn_optim_cfg *o = &meta->opt;
	const char *bad = meta->step < 0 || meta->step > INT64_MAX / 4 ? "step"
		: !(o->lr > 0 && o->lr <= 10) ? "lr"
		: !(o->lr_min >= 0 && o->lr_min <= 10) ? "lr_min"
		: !(o->beta1 >= 0 && o->beta1 < 1) ? "beta1"
		: !(o->beta2 >= 0 && o->beta2 < 1) ? "beta2"
		: !(o->eps > 0 && o->eps < 1) ? "eps"
		: !(o->wd >= 0 && o->wd <= 10) ? "weight_decay"
		: !(o->clip >= 0 && isfinite(o->clip)) ? "clip"
		: o->warmup < 0 || o->warmup > INT64_MAX / 4 ? "warmup"
		: o->total < 0 || o->total > INT64_MAX / 4 ? "total_steps"
		: NULL;
	if (bad)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint attribute '%s' is out of "
			"range", path, bad);
	return HY_OK;
}

static hy_status load(const char *path, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, float *host, hy_diag *d)
{
	hid_t f = -1;
	hy_nn_arch a;
	hy_status st = open_ckpt(path, &f, &a, d);
	if (st)
		return st;
	if (a.blocks != m->arch.blocks || a.channels != m->arch.channels) {
		st = hy_diag_set(d, HY_EFORMAT, 0,
			"'%s': checkpoint architecture is %d blocks × %d channels, the model is %d × %d",
			path, a.blocks, a.channels, m->arch.blocks, m->arch.channels);
		goto out;
	}
	const hy_nn_params *p = &m->table;
	const size_t bytes = p->total * sizeof(float);
	static const char *const prefix[3] = {"params", "adam/m", "adam/v"};
	float *const dst[3] = {m->w, m->m, m->v};
	for (int k = 0; k < (weights_only ? 1 : 3); k++) {
		memset(host, 0, bytes);
		for (int i = 0; i < p->count; i++)
			if ((st = read_set(f, path, prefix[k], &p->t[i], host + p->t[i].offset, d)))
				goto out;
		m->be->to_dev(dst[k], host, bytes);
	}
	if (weights_only) {
		m->be->zero(m->m, bytes);
		m->be->zero(m->v, bytes);
	}
	if (meta) {
		hy_nn_optim_cfg *o = &meta->opt;
		if (get_attr(f, "step", H5T_NATIVE_INT64, &meta->step, 1) < 0 ||
			get_attr(f, "lr", H5T_NATIVE_FLOAT, &o->lr, 1) < 0 ||
			get_attr(f, "lr_min", H5T_NATIVE_FLOAT, &o->lr_min, 1) < 0 ||
			get_attr(f, "beta1", H5T_NATIVE_FLOAT, &o->beta1, 1) < 0 ||
			get_attr(f, "beta2", H5T_NATIVE_FLOAT, &o->beta2, 1) < 0 ||
			get_attr(f, "eps", H5T_NATIVE_FLOAT, &o->eps, 1) < 0 ||
			get_attr(f, "weight_decay", H5T_NATIVE_FLOAT, &o->wd, 1) < 0 ||
			get_attr(f, "clip", H5T_NATIVE_FLOAT, &o->clip, 1) < 0 ||
			get_attr(f, "warmup", H5T_NATIVE_INT64, &o->warmup, 1) < 0 ||
			get_attr(f, "total_steps", H5T_NATIVE_INT64, &o->total, 1) < 0 ||
			get_attr(f, "seed", H5T_NATIVE_UINT64, &meta->seed, 1) < 0 ||
			get_attr(f, "rng_state", H5T_NATIVE_UINT64, meta->rng.s, 4) < 0)
			st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint lacks a training attribute "
				"(step, optimiser, seed or rng_state)", path);
		else
			st = check_meta(path, meta, d);
	}
out:
	H5Fclose(f);
	return st;
}

hy_status hy_nn_ckpt_load(const char *path, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, hy_diag *d)
{
	hy_h5_init();
	float *host = malloc(m->table.total * sizeof(float) + 1);
	if (!host)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory loading '%s'", path);
	hy_status st;
	H5E_BEGIN_TRY
	{
		st = load(path, m, meta, weights_only, host, d);
	}
	H5E_END_TRY;
	free(host);
	return st;
}
