/* The checkpoint file format of every kind: its header, format check,
 * groups and tensors (see ckptfile.h). */
#include "nn/ckptfile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/staged.h"
#include "samples/h5.h"

hid_t hy_h5_create_v110(const char *path)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	hid_t f = fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) < 0
		? -1
		: H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (fapl >= 0)
		H5Pclose(fapl);
	return f;
}

/* After a write that returned r: closes obj (an attribute or dataset, with
 * close) and the dataspace sp, keeping the first failure's error stack for
 * H5CHK (every HDF5 call clears it); the write's and the close's status. */
static herr_t close_after(herr_t r, hid_t obj, herr_t (*close)(hid_t), hid_t sp)
{
	hid_t es = r < 0 ? H5Eget_current_stack() : -1;
	if (obj >= 0 && close(obj) < 0) {
		r = -1;
		if (es < 0)
			es = H5Eget_current_stack();
	}
	H5Sclose(sp);
	if (es >= 0)
		H5Eset_current_stack(es);
	return r;
}

herr_t hy_h5_put_attr(hid_t loc, const char *name, hid_t type, const void *v, hsize_t n)
{
	hid_t sp = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
	if (sp < 0)
		return -1;
	hid_t a = H5Acreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
	herr_t r = a < 0 ? -1 : H5Awrite(a, type, v);
	return close_after(r, a, H5Aclose, sp);
}

herr_t hy_h5_get_attr(hid_t loc, const char *name, hid_t type, void *v, hssize_t n)
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

herr_t hy_h5_put_str(hid_t loc, const char *name, const char *s)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	herr_t r = H5Tset_size(t, strlen(s) + 1);
	if (r >= 0)
		r = hy_h5_put_attr(loc, name, t, s, 1);
	H5Tclose(t);
	return r;
}

void hy_h5_get_str(hid_t loc, const char *name, char *buf, size_t cap)
{
	buf[0] = '\0';
	hid_t at = -1, ty = -1;
	if (H5Aexists(loc, name) > 0 && (at = H5Aopen(loc, name, H5P_DEFAULT)) >= 0 &&
		(ty = H5Aget_type(at)) >= 0 && H5Tget_class(ty) == H5T_STRING &&
		H5Tis_variable_str(ty) == 0 && H5Tget_size(ty) < cap)
		if (H5Aread(at, ty, buf) < 0)
			buf[0] = '\0';
	buf[cap - 1] = '\0';
	if (ty >= 0)
		H5Tclose(ty);
	if (at >= 0)
		H5Aclose(at);
}

hy_status hy_h5_save_staged(const char *path,
	hy_status (*write)(void *u, const char *tmp, hy_diag *d), void *u, hy_diag *d)
{
	hy_h5_init();
	hy_staged stg;
	hy_status st = hy_staged_create(&stg, path, NULL, d);
	if (st != HY_OK)
		return st;
	H5E_BEGIN_TRY
	{
		st = write(u, stg.tmp, d);
	}
	H5E_END_TRY;
	if (st == HY_OK)
		st = hy_staged_commit(&stg, d); /* fsync, rename; removes on failure */
	else
		hy_staged_discard(&stg);
	return st;
}

hy_status hy_h5_check_format(hid_t f, const char *path, const char *want, hy_diag *d)
{
	if (H5Aexists(f, "format") <= 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': not a hydra checkpoint (format "
			"attribute missing)", path);
	char fmt[64];
	hy_h5_get_str(f, "format", fmt, sizeof fmt);
	if (!fmt[0])
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': not a hydra checkpoint (its format "
			"attribute is not a short string)", path);
	if (!strcmp(fmt, want))
		return HY_OK;
	for (char *c = fmt; *c; c++) /* shown in a message: printable only */
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	return hy_diag_set(d, HY_EFORMAT, 0, "'%s': not a hydra checkpoint (format attribute "
		"'%s', not '%s')", path, fmt, want);
}

herr_t hy_h5_write_tensor(hid_t f, hid_t lcpl, const char *prefix, const hy_nn_tensor *t,
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
	return close_after(r, ds, H5Dclose, sp);
}

hy_status hy_h5_read_tensor(hid_t f, const char *path, const char *prefix, const hy_nn_tensor *t,
	float *data, int finite, hy_diag *d)
{
	char name[HY_NN_NAME_MAX + 32];
	snprintf(name, sizeof name, "%s/%s", prefix, t->name);
	if (H5Lexists(f, prefix, H5P_DEFAULT) <= 0 || H5Lexists(f, name, H5P_DEFAULT) <= 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': missing dataset /%s", path, name);
	hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
	if (ds < 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': cannot open dataset /%s", path, name);
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
	for (size_t i = 0; finite && st == HY_OK && i < t->size; i++)
		if (!isfinite(data[i]))
			st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': dataset /%s holds a non-finite "
				"value", path, name);
	if (sp >= 0)
		H5Sclose(sp);
	H5Dclose(ds);
	return st;
}

/* ------------------------------------------------------------ what the kinds share */

const char *const hy_h5_group[HY_H5_NGROUPS] = {"params", "adam/m", "adam/v"};

herr_t hy_h5_put_header(hid_t f, const char *kind, int32_t version)
{
	if (hy_h5_put_str(f, "format", HY_H5_FORMAT) < 0 ||
		(kind && hy_h5_put_str(f, "kind", kind) < 0))
		return -1;
	return hy_h5_put_attr(f, "version", H5T_STD_I32LE, &version, 1);
}

hy_status hy_h5_open_checkpoint(const char *path, hid_t *f, hy_diag *d)
{
	int64_t f64;
	*f = -1;
	hy_status st = hy_h5_open_read(path, 0, "checkpoint", &f64, d);
	if (st)
		return st;
	H5E_BEGIN_TRY /* HDF5's own printing off: the message is ours */
	{
		st = hy_h5_check_format((hid_t)f64, path, HY_H5_FORMAT, d);
	}
	H5E_END_TRY;
	if (st != HY_OK) {
		H5Fclose((hid_t)f64);
		return st;
	}
	*f = (hid_t)f64;
	return HY_OK;
}

herr_t hy_h5_write_group(hid_t f, hid_t lcpl, int g, const hy_nn_params *t, const float *data)
{
	for (int i = 0; i < t->count; i++)
		if (hy_h5_write_tensor(f, lcpl, hy_h5_group[g], &t->t[i], data + t->t[i].offset) < 0)
			return -1;
	return 0;
}

hy_status hy_h5_read_group(hid_t f, const char *path, int g, const hy_nn_params *t, float *data,
	int finite, hy_diag *d)
{
	hy_status st = HY_OK;
	for (int i = 0; i < t->count && st == HY_OK; i++)
		st = hy_h5_read_tensor(f, path, hy_h5_group[g], &t->t[i], data + t->t[i].offset,
			finite, d);
	return st;
}
