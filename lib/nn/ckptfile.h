/* Private to lib/nn: the checkpoint file format (formats/checkpoint.md),
 * the one place that writes its header, checks its format and knows its
 * groups of tensors, for every kind of it — the policy network's and the
 * wait reader's (checkpoint.c: one format, told apart by train_mode) and
 * the GRP's (grp.c, kind "grp"): attributes, string attributes, and a
 * named tensor as one fletcher32-checksummed chunk. On a
 * failure the herr_t functions leave the failing call's error stack
 * current, for the callers' H5CHK reports. */
#ifndef HY_NN_CKPTFILE_H
#define HY_NN_CKPTFILE_H

#include <hdf5.h>
#include <stddef.h>

#include <stdio.h>

#include "core/status.h"
#include "samples/h5.h"
#include "nn/params.h"

/* Every HDF5 call goes through this: on failure, the reason HDF5 gives (the
 * operating system's, such as "No space left on device", when there is
 * one), the call, file and line; the checkpoint's name (a
 * variable `path` in scope) is d's source; needs `st`, `d` and a label
 * `out`. */
#define H5CHK(expr)                                                                     \
	do {                                                                                \
		if ((expr) < 0) {                                                               \
			st = hy_h5_fail(d, HY_EIO, #expr, __FILE__, __LINE__);                      \
			if (d)                                                                      \
				snprintf(d->source, sizeof d->source, "%s", path);                      \
			goto out;                                                                   \
		}                                                                               \
	} while (0)

/* What every kind of checkpoint shares (formats/checkpoint.md), written and
 * checked here only: the root attribute format "hydra-checkpoint", a kind
 * (none for a network's; "grp" for the GRP's), a version; and the three
 * groups of a model's arrays, one dataset per tensor of its table. */
#define HY_H5_FORMAT "hydra-checkpoint"
enum { HY_H5_PARAMS, HY_H5_ADAM_M, HY_H5_ADAM_V, HY_H5_NGROUPS };
extern const char *const hy_h5_group[HY_H5_NGROUPS]; /* "params", "adam/m", "adam/v" */
/* The header: format, kind (NULL: none) and version. */
herr_t hy_h5_put_header(hid_t f, const char *kind, int32_t version);
/* Opens a checkpoint of any kind for reading and checks its format (the one
 * check; HY_EFORMAT as hy_h5_check_format); *f to close with H5Fclose. */
hy_status hy_h5_open_checkpoint(const char *path, hid_t *f, hy_diag *d);
/* Every tensor of table t from data, or into data (the reads as
 * hy_h5_read_tensor), under group g (HY_H5_PARAMS ...). */
herr_t hy_h5_write_group(hid_t f, hid_t lcpl, int g, const hy_nn_params *t, const float *data);
hy_status hy_h5_read_group(hid_t f, const char *path, int g, const hy_nn_params *t, float *data,
	int finite, hy_diag *d);

/* Creates (truncating) a file in the HDF5 1.10 format, whose metadata
 * carries checksums; −1 on failure. */
hid_t hy_h5_create_v110(const char *path);

/* An attribute of n values (n == 1: a scalar). */
herr_t hy_h5_put_attr(hid_t loc, const char *name, hid_t type, const void *v, hsize_t n);
/* Reads an attribute of exactly n values; −1 when absent or of another size. */
herr_t hy_h5_get_attr(hid_t loc, const char *name, hid_t type, void *v, hssize_t n);
/* A fixed-length string attribute. */
herr_t hy_h5_put_str(hid_t loc, const char *name, const char *s);
/* A fixed-length string attribute into buf (empty when absent or other). */
void hy_h5_get_str(hid_t loc, const char *name, char *buf, size_t cap);
/* Saves a checkpoint at path atomically, the sequence both kinds share: a
 * staged temporary beside it (io/staged.h), filled by write(u, tmp, d)
 * with HDF5's automatic error printing off, then fsync and rename; the
 * temporary removed when write or the commit fails. */
hy_status hy_h5_save_staged(const char *path,
	hy_status (*write)(void *u, const char *tmp, hy_diag *d), void *u, hy_diag *d);
/* The root attribute `format` of the file at path is want: HY_OK, or
 * HY_EFORMAT saying whether it is missing, not a short string, or another
 * word (shown, printable characters only). */
hy_status hy_h5_check_format(hid_t f, const char *path, const char *want, hy_diag *d);
/* Tensor t as dataset PREFIX/NAME, its shape, one chunk (fletcher32 over
 * all of it); lcpl creates the intermediate groups. */
herr_t hy_h5_write_tensor(hid_t f, hid_t lcpl, const char *prefix, const hy_nn_tensor *t,
	const float *data);
/* Reads dataset PREFIX/NAME of the file at path into data, checking its
 * shape against t: HY_EFORMAT when missing or of another shape (or, with
 * finite, holding a non-finite value), HY_EDATA on a checksum mismatch,
 * HY_ETRUNC when it cannot be read. */
hy_status hy_h5_read_tensor(hid_t f, const char *path, const char *prefix, const hy_nn_tensor *t,
	float *data, int finite, hy_diag *d);

#endif
