/* Private to lib/samples: what the three files of the shard code share —
 * shard.c (the field table; opening a shard, checking its structure,
 * reading it through H5Dread), shard_write.c (the writer) and
 * shard_decode.c (the two-step read: fetch, then decode outside HDF5). */
#ifndef HY_SAMPLES_SHARD_INTERNAL_H
#define HY_SAMPLES_SHARD_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "samples/h5.h"
#include "samples/sample.h"
#include "samples/shard.h"

/* ------------------------------------------------------------ fields */

enum { K_F16, K_U8, K_U16, K_I32, K_U64, K_F32 };

typedef struct field {
	const char *name;
	int kind;
	int dim1, dim2;   /* trailing dims (0 = none)            */
	size_t offset;    /* in hy_sample                        */
	size_t size;      /* bytes per sample in memory          */
} field;

/* One entry a dataset (shard.c); obs first: hy_shard_decode leaves its
 * bytes to the copy of its rows. */
enum { NFIELDS = 20 };
extern const field hy_shard_fields[NFIELDS];

static inline int field_rank(const field *f)
{
	return 1 + (f->dim1 > 0) + (f->dim2 > 0);
}

static inline void field_dims(const field *f, hsize_t n, hsize_t dims[3])
{
	dims[0] = n;
	dims[1] = (hsize_t)f->dim1;
	dims[2] = (hsize_t)f->dim2;
}

/* IEEE binary16 (1 sign, 5 exponent bits with bias 15, 10 mantissa bits),
 * derived from a 32-bit float type so that its byte order is base's. */
hid_t hy_shard_make_f16(hid_t base);

/* Predefined types are library globals: look them up at run time. */
static inline hid_t std_type(int kind, int file)
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

static inline void h5_quiet(void)
{
	hy_h5_init(); /* HDF5's error printing off, no exit-time clean-up */
}

/* ------------------------------------------- an open shard (shard.c) */

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

/* Rows [start, start + n) of dataset i through H5Dread (HDF5 undoes the
 * filters and converts the type) into buf, n · hy_shard_fields[i].size
 * bytes. */
hy_status hy_shard_read_cols(hy_shard *sh, int i, uint64_t start, size_t n, void *buf,
			     hy_diag *d);
/* HY_EUSAGE when samples [start, start + n) pass the end of the shard. */
hy_status hy_shard_range_ok(const hy_shard *sh, uint64_t start, size_t n, hy_diag *d);
/* Every sample of out[0..n) (the shard's samples from start) checked. */
hy_status hy_shard_check_samples(const hy_sample *out, uint64_t start, size_t n, hy_diag *d);

#endif
