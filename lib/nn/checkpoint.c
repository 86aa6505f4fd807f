/* Checkpoints: the HDF5 writer and the one reader of the format, the kind and
 * version checks, weights-only copies (checkpoint.h). */
#include "nn/checkpoint.h"

#include "nn/ckptfile.h"
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

static hy_status save(const char *path, const char *tmp, const hy_nn_model *m,
	const hy_nn_ckpt_meta *meta, float *host, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t f = -1, lcpl = -1;
	const hy_nn_params *p = &m->table;
	const size_t bytes = p->total * sizeof(float);
	f = hy_h5_create_v110(tmp);
	if (f < 0) {
		st = hy_h5_create_fail(d, path);
		goto out;
	}
	H5CHK(lcpl = H5Pcreate(H5P_LINK_CREATE));
	H5CHK(H5Pset_create_intermediate_group(lcpl, 1));
	int32_t blocks = m->arch.blocks, ch = m->arch.channels;
	H5CHK(hy_h5_put_header(f, NULL, HY_NN_CKPT_VERSION));
	H5CHK(hy_h5_put_attr(f, "blocks", H5T_STD_I32LE, &blocks, 1));
	H5CHK(hy_h5_put_attr(f, "channels", H5T_STD_I32LE, &ch, 1));
	if (m->arch.oracle) { /* formats/checkpoint.md: absent means 0 */
		int32_t op = HY_ORACLE_CHANNELS;
		H5CHK(hy_h5_put_attr(f, "oracle_planes", H5T_STD_I32LE, &op, 1));
		H5CHK(hy_h5_put_attr(f, "oracle_scale", H5T_IEEE_F32LE, m->oracle_scale, 2));
	}
	H5CHK(hy_h5_put_attr(f, "step", H5T_STD_I64LE, &meta->step, 1));
	const hy_nn_optim_cfg *o = &meta->opt;
	H5CHK(hy_h5_put_attr(f, "lr", H5T_NATIVE_FLOAT, &o->lr, 1));
	H5CHK(hy_h5_put_attr(f, "lr_min", H5T_NATIVE_FLOAT, &o->lr_min, 1));
	H5CHK(hy_h5_put_attr(f, "beta1", H5T_NATIVE_FLOAT, &o->beta1, 1));
	H5CHK(hy_h5_put_attr(f, "beta2", H5T_NATIVE_FLOAT, &o->beta2, 1));
	H5CHK(hy_h5_put_attr(f, "eps", H5T_NATIVE_FLOAT, &o->eps, 1));
	H5CHK(hy_h5_put_attr(f, "weight_decay", H5T_NATIVE_FLOAT, &o->wd, 1));
	H5CHK(hy_h5_put_attr(f, "clip", H5T_NATIVE_FLOAT, &o->clip, 1));
	H5CHK(hy_h5_put_attr(f, "warmup", H5T_STD_I64LE, &o->warmup, 1));
	H5CHK(hy_h5_put_attr(f, "total_steps", H5T_STD_I64LE, &o->total, 1));
	H5CHK(hy_h5_put_attr(f, "seed", H5T_STD_U64LE, &meta->seed, 1));
	H5CHK(hy_h5_put_attr(f, "rng_state", H5T_STD_U64LE, meta->rng.s, 4));
	for (int i = 0; i < meta->nextra; i++) {
		const hy_nn_ckpt_attr *x = &meta->extra[i];
		if (x->type == HY_NN_ATTR_STR) {
			H5CHK(hy_h5_put_str(f, x->name, x->value));
			continue;
		}
		hid_t t = x->type == HY_NN_ATTR_I32   ? H5T_STD_I32LE
			: x->type == HY_NN_ATTR_I64 ? H5T_STD_I64LE
			: x->type == HY_NN_ATTR_U64 ? H5T_STD_U64LE
						    : H5T_IEEE_F64LE;
		H5CHK(hy_h5_put_attr(f, x->name, t, x->value, 1));
	}
	float *const src[HY_H5_NGROUPS] = {m->w, m->m, m->v};
	for (int k = 0; k < HY_H5_NGROUPS; k++) {
		m->be->to_host(host, src[k], bytes);
		/* the copy is done and did not fail before a byte of it is
		 * written: a device's copy reports through sync (backend.h) */
		if (m->be->sync && (st = m->be->sync(m->ctx, d)) != HY_OK)
			goto out;
		H5CHK(hy_h5_write_group(f, lcpl, k, p, host));
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

typedef struct save_job {
	const char *path;
	const hy_nn_model *m;
	const hy_nn_ckpt_meta *meta;
	float *host;
} save_job;

static hy_status save_into(void *u, const char *tmp, hy_diag *d)
{
	const save_job *j = u;
	return save(j->path, tmp, j->m, j->meta, j->host, d);
}

hy_status hy_nn_ckpt_save(const char *path, const hy_nn_model *m, const hy_nn_ckpt_meta *meta,
	hy_diag *d)
{
	save_job j = {path, m, meta, malloc(m->table.total * sizeof(float) + 1)};
	if (!j.host)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory saving '%s'", path);
	hy_status st = hy_h5_save_staged(path, save_into, &j, d);
	free(j.host);
	return st;
}

/* Opens and checks the format attributes; fills the architecture. */
static hy_status open_ckpt(const char *path, hid_t *fp, hy_nn_arch *a, hy_diag *d)
{
	hid_t f;
	hy_status st = hy_h5_open_checkpoint(path, &f, d);
	if (st)
		return st;
	int32_t ver = 0, blocks = 0, ch = 0, oracle = 0;
	if (H5Aexists(f, "kind") > 0) { /* another model's checkpoint (nn/grp.h) */
		st = hy_nn_kind_refuse(d, path, HY_NN_KIND_GRP, HY_NN_KIND_NET, NULL);
	} else if (hy_h5_get_attr(f, "version", H5T_NATIVE_INT32, &ver, 1) < 0 ||
		hy_h5_get_attr(f, "blocks", H5T_NATIVE_INT32, &blocks, 1) < 0 ||
		hy_h5_get_attr(f, "channels", H5T_NATIVE_INT32, &ch, 1) < 0) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint lacks version/blocks/channels", path);
	} else if (ver < 1 || ver > HY_NN_CKPT_VERSION) {
		st = hy_diag_set(d, HY_EVERSION, 0, "'%s': checkpoint version %d, this build reads "
			"1 to %d", path, ver, HY_NN_CKPT_VERSION);
	} else if (hy_nn_arch_check((hy_nn_arch){blocks, ch, 0}, NULL) != HY_OK) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': attribute blocks/channels %d x %d is not "
			"an architecture this build accepts", path, (int)blocks, (int)ch);
	} else if (H5Aexists(f, "oracle_planes") > 0 &&
		   (hy_h5_get_attr(f, "oracle_planes", H5T_NATIVE_INT32, &oracle, 1) < 0 ||
		    (oracle != 0 && oracle != HY_ORACLE_CHANNELS))) {
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': attribute oracle_planes is not 0 or %d",
			path, HY_ORACLE_CHANNELS);
	}
	if (st) {
		H5Fclose(f);
		return st;
	}
	a->blocks = blocks;
	a->channels = ch;
	a->oracle = oracle != 0;
	*fp = f;
	return HY_OK;
}

/* ------------------------------------------------------------ the reader */

struct hy_nn_ckpt_reader {
	hid_t f;
	hy_nn_arch arch;
	char path[4096];
};

hy_status hy_nn_ckpt_open(const char *path, hy_nn_ckpt_reader **out, hy_diag *d)
{
	*out = NULL;
	hy_h5_init();
	hy_nn_ckpt_reader *r = calloc(1, sizeof *r);
	if (!r)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory opening '%s'", path);
	snprintf(r->path, sizeof r->path, "%s", path);
	hy_status st;
	H5E_BEGIN_TRY
	{
		st = open_ckpt(path, &r->f, &r->arch, d);
	}
	H5E_END_TRY;
	if (st) {
		free(r);
		return st;
	}
	*out = r;
	return HY_OK;
}

void hy_nn_ckpt_close(hy_nn_ckpt_reader *r)
{
	if (!r)
		return;
	H5E_BEGIN_TRY
	{
		H5Fclose(r->f);
	}
	H5E_END_TRY;
	free(r);
}

const char *hy_nn_ckpt_path(const hy_nn_ckpt_reader *r)
{
	return r->path;
}

hy_nn_arch hy_nn_ckpt_arch_of(const hy_nn_ckpt_reader *r)
{
	return r->arch;
}

int hy_nn_ckpt_get(hy_nn_ckpt_reader *r, const char *name, int type, void *value)
{
	hid_t t = type == HY_NN_ATTR_I32 ? H5T_NATIVE_INT32
		: type == HY_NN_ATTR_I64 ? H5T_NATIVE_INT64
		: type == HY_NN_ATTR_U64 ? H5T_NATIVE_UINT64
		: type == HY_NN_ATTR_F64 ? H5T_NATIVE_DOUBLE
					 : -1;
	int rc;
	H5E_BEGIN_TRY
	{
		if (H5Aexists(r->f, name) <= 0)
			rc = 0;
		else
			rc = t >= 0 && hy_h5_get_attr(r->f, name, t, value, 1) >= 0 ? 1 : -1;
	}
	H5E_END_TRY;
	return rc;
}

int hy_nn_ckpt_get_str(hy_nn_ckpt_reader *r, const char *name, char *out, size_t size)
{
	if (size)
		out[0] = '\0';
	int rc = -1;
	H5E_BEGIN_TRY
	{
		hid_t a = -1, ft = -1, mt = -1;
		if (H5Aexists(r->f, name) <= 0) {
			rc = 0;
		} else if ((a = H5Aopen(r->f, name, H5P_DEFAULT)) >= 0 &&
			(ft = H5Aget_type(a)) >= 0 && H5Tget_class(ft) == H5T_STRING &&
			!H5Tis_variable_str(ft) && H5Tget_size(ft) < size) {
			size_t n = H5Tget_size(ft);
			mt = H5Tcopy(H5T_C_S1);
			if (mt >= 0 && H5Tset_size(mt, n + 1) >= 0) {
				memset(out, 0, n + 1);
				rc = H5Aread(a, mt, out) >= 0 ? 1 : -1;
			}
		}
		if (mt >= 0)
			H5Tclose(mt);
		if (ft >= 0)
			H5Tclose(ft);
		if (a >= 0)
			H5Aclose(a);
	}
	H5E_END_TRY;
	if (rc < 0 && size)
		out[0] = '\0';
	return rc;
}

hy_status hy_nn_ckpt_arch(const char *path, hy_nn_arch *a, hy_diag *d)
{
	hy_nn_ckpt_reader *r;
	hy_status st = hy_nn_ckpt_open(path, &r, d);
	if (!st)
		*a = r->arch;
	hy_nn_ckpt_close(r);
	return st;
}

hy_status hy_nn_ckpt_obs_of(hy_nn_ckpt_reader *r, int *v, hy_diag *d)
{
	int32_t ov = 0;
	*v = 0;
	int rc = hy_nn_ckpt_get(r, "obs_version", HY_NN_ATTR_I32, &ov);
	if (rc < 0 || (rc > 0 && (ov < 0 || ov > 255)))
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint attribute 'obs_version' is "
			"not an integer from 0 to 255", r->path);
	*v = ov;
	return HY_OK;
}

hy_status hy_nn_ckpt_obs_version(const char *path, int *v, hy_diag *d)
{
	hy_nn_ckpt_reader *r;
	*v = 0;
	hy_status st = hy_nn_ckpt_open(path, &r, d);
	if (!st)
		st = hy_nn_ckpt_obs_of(r, v, d);
	hy_nn_ckpt_close(r);
	return st;
}

static const char *kind_name(hy_nn_kind k)
{
	switch (k) {
	case HY_NN_KIND_POLICY:
		return "a policy network";
	case HY_NN_KIND_READER:
		return "a wait reader (hydra-fit --mode reader)";
	case HY_NN_KIND_GRP:
		return "a GRP model (hydra-fit --mode grp)";
	case HY_NN_KIND_NET:
		break;
	}
	return "a policy network or a wait reader";
}

hy_status hy_nn_kind_refuse(hy_diag *d, const char *path, hy_nn_kind have, hy_nn_kind want,
	const char *role)
{
	if (role)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s' is %s, and %s needs %s", path,
			kind_name(have), role, kind_name(want));
	return hy_diag_set(d, HY_EFORMAT, 0, "'%s' is %s, not %s", path, kind_name(have),
		kind_name(want));
}

hy_nn_kind hy_nn_ckpt_kind_of(hy_nn_ckpt_reader *r)
{
	int32_t mode = 0;
	if (hy_nn_ckpt_get(r, "train_mode", HY_NN_ATTR_I32, &mode) == 1 && mode == 2)
		return HY_NN_KIND_READER;
	return HY_NN_KIND_POLICY;
}

hy_status hy_nn_ckpt_want(hy_nn_ckpt_reader *r, hy_nn_kind want, const char *role,
	hy_diag *d)
{
	hy_nn_kind have = hy_nn_ckpt_kind_of(r);
	if (want == HY_NN_KIND_NET || have == want)
		return HY_OK;
	return hy_nn_kind_refuse(d, r->path, have, want, role);
}

hy_status hy_nn_ckpt_playable_of(hy_nn_ckpt_reader *r, hy_diag *d)
{
	int ov;
	const char *path = r->path;
	hy_status st = hy_nn_ckpt_obs_of(r, &ov, d);
	if (st || hy_obs_compatible(ov, HY_OBS_VERSION))
		return st;
	if (!ov)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': records no observation version, so it "
			"was trained on version %d or older, and this build encodes version %d "
			"(ARCHITECTURE.md section 5): train it again on samples of this build", path,
			HY_OBS_UNMARKED_MAX, HY_OBS_VERSION);
	return hy_diag_set(d, HY_EFORMAT, 0, "'%s': trained on observation version %d, and this "
		"build encodes version %d (ARCHITECTURE.md section 5): train it again on samples "
		"of this build", path, ov, HY_OBS_VERSION);
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

/* The training attributes of an open checkpoint. */
static hy_status read_meta(hid_t f, const char *path, hy_nn_ckpt_meta *meta, hy_diag *d)
{
	hy_status st;
	hy_nn_optim_cfg *o = &meta->opt;
	if (hy_h5_get_attr(f, "step", H5T_NATIVE_INT64, &meta->step, 1) < 0 ||
		hy_h5_get_attr(f, "lr", H5T_NATIVE_FLOAT, &o->lr, 1) < 0 ||
		hy_h5_get_attr(f, "lr_min", H5T_NATIVE_FLOAT, &o->lr_min, 1) < 0 ||
		hy_h5_get_attr(f, "beta1", H5T_NATIVE_FLOAT, &o->beta1, 1) < 0 ||
		hy_h5_get_attr(f, "beta2", H5T_NATIVE_FLOAT, &o->beta2, 1) < 0 ||
		hy_h5_get_attr(f, "eps", H5T_NATIVE_FLOAT, &o->eps, 1) < 0 ||
		hy_h5_get_attr(f, "weight_decay", H5T_NATIVE_FLOAT, &o->wd, 1) < 0 ||
		hy_h5_get_attr(f, "clip", H5T_NATIVE_FLOAT, &o->clip, 1) < 0 ||
		hy_h5_get_attr(f, "warmup", H5T_NATIVE_INT64, &o->warmup, 1) < 0 ||
		hy_h5_get_attr(f, "total_steps", H5T_NATIVE_INT64, &o->total, 1) < 0 ||
		hy_h5_get_attr(f, "seed", H5T_NATIVE_UINT64, &meta->seed, 1) < 0 ||
		hy_h5_get_attr(f, "rng_state", H5T_NATIVE_UINT64, meta->rng.s, 4) < 0)
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint lacks a training attribute "
			"(step, optimiser, seed or rng_state)", path);
	else
		st = check_meta(path, meta, d);
	return st;
}

/* The tensors of an open checkpoint into m (which must have its
 * architecture), through host[total floats]. */
static hy_status load(hy_nn_ckpt_reader *r, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, float *host, hy_diag *d)
{
	const char *path = r->path;
	hy_nn_arch a = r->arch;
	if (a.blocks != m->arch.blocks || a.channels != m->arch.channels)
		return hy_diag_set(d, HY_EFORMAT, 0,
			"'%s': checkpoint architecture is %d blocks × %d channels, the model is %d × %d",
			path, a.blocks, a.channels, m->arch.blocks, m->arch.channels);
	/* an 85-plane model's weights start an oracle model (--init): its
	 * stem's columns for the oracle planes start at 0 */
	const int widen = !a.oracle && m->arch.oracle && weights_only;
	if (a.oracle != m->arch.oracle && !widen)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': the checkpoint's input is %d planes, "
			"the model's %d (the oracle planes: hydra-fit --oracle)", path,
			hy_nn_arch_in(a), m->in);
	if (!weights_only && hy_nn_ckpt_weights_only(r))
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s' holds the weights alone (hydra-export "
			"--weights), no optimiser state: it can start a run (--init), not resume one",
			path);
	const hy_nn_params *p = &m->table;
	const size_t bytes = p->total * sizeof(float);
	float *const dst[HY_H5_NGROUPS] = {m->w, m->m, m->v};
	hy_status st = HY_OK;
	hy_nn_params narrow = *p;
	if (widen) { /* read the stem as the checkpoint holds it: [C][3][85] */
		if (!(narrow.t = malloc((size_t)p->count * sizeof *p->t)))
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory loading '%s'", path);
		memcpy(narrow.t, p->t, (size_t)p->count * sizeof *p->t);
		hy_nn_tensor *x = &narrow.t[m->stem];
		x->shape[2] = HY_NN_IN;
		x->size = x->size / (size_t)m->in * HY_NN_IN;
		p = &narrow;
	}
	for (int k = 0; k < (weights_only ? 1 : HY_H5_NGROUPS); k++) {
		memset(host, 0, bytes);
		if ((st = hy_h5_read_group(r->f, path, k, p, host, 1, d)))
			break;
		if (widen) { /* rows of 85 to rows of 290, the last first (in place) */
			float *w = host + p->t[m->stem].offset;
			const size_t rows = p->t[m->stem].size / HY_NN_IN;
			for (size_t i = rows; i-- > 0;) {
				memmove(w + i * (size_t)m->in, w + i * HY_NN_IN, HY_NN_IN * sizeof *w);
				memset(w + i * (size_t)m->in + HY_NN_IN, 0,
					(size_t)(m->in - HY_NN_IN) * sizeof *w);
			}
		}
		m->be->to_dev(dst[k], host, bytes);
	}
	if (widen)
		free(narrow.t);
	if (st)
		return st;
	if (weights_only) {
		m->be->zero(m->m, bytes);
		m->be->zero(m->v, bytes);
	}
	/* the oracle planes' scales the model was saved at (a faded student's
	 * are 0: it plays on the public planes alone) */
	if (m->arch.oracle && a.oracle && H5Aexists(r->f, "oracle_scale") > 0 &&
	    hy_h5_get_attr(r->f, "oracle_scale", H5T_NATIVE_FLOAT, m->oracle_scale, 2) < 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': attribute oracle_scale is not 2 floats",
			path);
	if (meta)
		st = read_meta(r->f, path, meta, d);
	return st;
}

hy_status hy_nn_ckpt_meta_of(hy_nn_ckpt_reader *r, hy_nn_ckpt_meta *meta, hy_diag *d)
{
	hy_status st;
	H5E_BEGIN_TRY
	{
		st = read_meta(r->f, r->path, meta, d);
	}
	H5E_END_TRY;
	return st;
}

hy_status hy_nn_ckpt_load_from(hy_nn_ckpt_reader *r, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, hy_diag *d)
{
	float *host = malloc(m->table.total * sizeof(float) + 1);
	if (!host)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory loading '%s'", r->path);
	hy_status st;
	H5E_BEGIN_TRY
	{
		st = load(r, m, meta, weights_only, host, d);
	}
	H5E_END_TRY;
	free(host);
	return st;
}

hy_status hy_nn_ckpt_open_frozen(const char *path, const char *role, const hy_nn_model *like,
	int cap, hy_nn_model *m, hy_nn_work *w, int *obs, hy_diag *d)
{
	hy_nn_ckpt_reader *ck; /* opened once */
	hy_status st = hy_nn_ckpt_open(path, &ck, d);
	if (st == HY_OK && (st = hy_nn_ckpt_want(ck, HY_NN_KIND_POLICY, role, d)))
		hy_nn_ckpt_close(ck);
	if (st)
		return st;
	if ((st = hy_nn_model_init(m, hy_nn_ckpt_arch_of(ck), like->be, like->ctx, d))) {
		hy_nn_ckpt_close(ck);
		return st;
	}
	st = hy_nn_ckpt_load_from(ck, m, NULL, 1, d);
	if (st == HY_OK && obs)
		st = hy_nn_ckpt_obs_of(ck, obs, d);
	hy_nn_ckpt_close(ck);
	if (st || (st = hy_nn_work_init_infer(w, m, cap, d)))
		hy_nn_model_free(m);
	return st;
}

hy_status hy_nn_ckpt_load(const char *path, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, hy_diag *d)
{
	hy_nn_ckpt_reader *r;
	hy_status st = hy_nn_ckpt_open(path, &r, d);
	if (!st)
		st = hy_nn_ckpt_load_from(r, m, meta, weights_only, d);
	hy_nn_ckpt_close(r);
	return st;
}

/* ------------------------------------------------------------ weights only */

/* One root attribute of the source into the copy (H5Aiterate2's callback:
 * dst is the copy's file id). */
static herr_t copy_attr(hid_t src, const char *name, const H5A_info_t *info, void *u)
{
	hid_t dst = *(hid_t *)u, a = -1, t = -1, s = -1, b = -1;
	herr_t rc = -1;
	void *buf = NULL;
	(void)info;
	if (!strcmp(name, "weights_only"))
		return 0; /* written afresh */
	if ((a = H5Aopen(src, name, H5P_DEFAULT)) < 0 || (t = H5Aget_type(a)) < 0 ||
		(s = H5Aget_space(a)) < 0)
		goto out;
	hssize_t n = H5Sget_simple_extent_npoints(s);
	size_t size = H5Tget_size(t);
	if (n < 0 || !size || !(buf = calloc((size_t)n + 1, size)))
		goto out;
	if (H5Aread(a, t, buf) < 0 || (b = H5Acreate2(dst, name, t, s, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		goto out;
	rc = H5Awrite(b, t, buf);
out:
	free(buf);
	if (b >= 0)
		H5Aclose(b);
	if (s >= 0)
		H5Sclose(s);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return rc;
}

typedef struct weights_job {
	hy_nn_ckpt_reader *r;
	const char *path;
} weights_job;

static hy_status weights_into(void *u, const char *tmp, hy_diag *d)
{
	const weights_job *j = u;
	const char *path = j->path;
	hy_status st = HY_OK;
	hid_t f = hy_h5_create_v110(tmp);
	if (f < 0)
		return hy_h5_create_fail(d, path);
	hsize_t at = 0;
	int32_t one = 1;
	H5CHK(H5Aiterate2(j->r->f, H5_INDEX_NAME, H5_ITER_INC, &at, copy_attr, &f));
	H5CHK(hy_h5_put_attr(f, "weights_only", H5T_STD_I32LE, &one, 1));
	H5CHK(H5Ocopy(j->r->f, hy_h5_group[HY_H5_PARAMS], f, hy_h5_group[HY_H5_PARAMS],
		H5P_DEFAULT, H5P_DEFAULT));
	hid_t ff = f;
	f = -1;
	H5CHK(H5Fclose(ff));
out:
	if (f >= 0)
		H5Fclose(f);
	return st;
}

hy_status hy_nn_ckpt_save_weights(hy_nn_ckpt_reader *r, const char *path, hy_diag *d)
{
	if (H5Lexists(r->f, hy_h5_group[HY_H5_PARAMS], H5P_DEFAULT) <= 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': checkpoint has no parameters", r->path);
	weights_job j = {r, path};
	return hy_h5_save_staged(path, weights_into, &j, d);
}

int hy_nn_ckpt_weights_only(hy_nn_ckpt_reader *r)
{
	int32_t v = 0;
	return hy_nn_ckpt_get(r, "weights_only", HY_NN_ATTR_I32, &v) == 1 && v == 1;
}
