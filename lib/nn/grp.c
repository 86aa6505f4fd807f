/* The GRP (see grp.h): features, the MLP forward and backward passes,
 * AdamW, and the checkpoint of kind "grp" (formats/grp.md). */
#include "nn/grp.h"

#include "core/perm.h"
#include "nn/checkpoint.h" /* hy_nn_kind_refuse */
#include "nn/ckptfile.h"
#include "samples/h5.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIND_NAME "grp"

/* ------------------------------------------------------------ features */

void hy_grp_features(const hy_grp_state *s, float x[HY_GRP_NIN])
{
	memset(x, 0, HY_GRP_NIN * sizeof *x);
	for (int i = 0; i < 4; i++)
		x[i] = (float)((s->scores[i] - 25000) / 10000.0);
	int gk = s->grand_kyoku < HY_GRP_KYOKU ? s->grand_kyoku : HY_GRP_KYOKU - 1;
	x[4 + gk] = 1.0f;
	x[16] = (float)(s->honba < 20 ? s->honba : 20) / 4.0f;
	x[17] = (float)(s->kyotaku < 20 ? s->kyotaku : 20) / 4.0f;
	x[18 + (s->oya & 3)] = 1.0f;
}

int hy_grp_order_index(const int32_t sc[4])
{
	uint8_t order[4];
	for (int s = 0; s < 4; s++) {
		int r = 0;
		for (int o = 0; o < 4; o++)
			r += sc[o] > sc[s] || (sc[o] == sc[s] && o < s);
		order[r] = (uint8_t)s;
	}
	return hy_perm_index(order, 4);
}

void hy_grp_order_ranks(int k, uint8_t rank[4])
{
	static const int fact[3] = {6, 2, 1};
	uint8_t left[4] = {0, 1, 2, 3};
	int nleft = 4;
	for (int r = 0; r < 4; r++) {
		int i = r < 3 ? k / fact[r] : 0;
		if (r < 3)
			k %= fact[r];
		uint8_t seat = left[i];
		rank[seat] = (uint8_t)r;
		for (int j = i; j + 1 < nleft; j++)
			left[j] = left[j + 1];
		nleft--;
	}
}

/* ------------------------------------------------------------ model */

hy_status hy_grp_init(hy_grp *m, int hidden, uint64_t seed, hy_diag *d)
{
	memset(m, 0, sizeof *m);
	if (hidden < 1 || hidden > HY_GRP_HIDDEN_MAX)
		return hy_diag_set(d, HY_EUSAGE, 0, "GRP width %d: want 1 to %d", hidden,
			HY_GRP_HIDDEN_MAX);
	m->hidden = hidden;
	m->seed = seed;
	hy_nn_params *t = &m->table;
	hy_nn_params_init(t);
	const int H = hidden;
	int ok = hy_nn_params_add(t, "fc1/weight", 2, (int[]){H, HY_GRP_NIN}, HY_NN_INIT_KAIMING,
			 HY_GRP_NIN, 1.0f, 1) >= 0 &&
		hy_nn_params_add(t, "fc1/bias", 1, (int[]){H}, HY_NN_INIT_ZERO, 0, 0, 0) >= 0 &&
		hy_nn_params_add(t, "fc2/weight", 2, (int[]){H, H}, HY_NN_INIT_KAIMING, H, 1.0f, 1) >=
			0 &&
		hy_nn_params_add(t, "fc2/bias", 1, (int[]){H}, HY_NN_INIT_ZERO, 0, 0, 0) >= 0 &&
		hy_nn_params_add(t, "fc3/weight", 2, (int[]){HY_GRP_NOUT, H}, HY_NN_INIT_KAIMING, H,
			0.1f, 1) >= 0 &&
		hy_nn_params_add(t, "fc3/bias", 1, (int[]){HY_GRP_NOUT}, HY_NN_INIT_ZERO, 0, 0, 0) >= 0;
	if (ok) {
		m->p = calloc(t->total, sizeof(float));
		m->g = calloc(t->total, sizeof(float));
		m->m = calloc(t->total, sizeof(float));
		m->v = calloc(t->total, sizeof(float));
	}
	if (!ok || !m->p || !m->g || !m->m || !m->v) {
		hy_grp_free(m);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (GRP of width %d)", hidden);
	}
	hy_rng r;
	hy_rng_seed(&r, seed);
	hy_nn_params_fill(t, m->p, &r);
	return HY_OK;
}

void hy_grp_free(hy_grp *m)
{
	hy_nn_params_free(&m->table);
	free(m->p);
	free(m->g);
	free(m->m);
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* Tensor i's parameters (table order: fc1 w b, fc2 w b, fc3 w b). */
static float *par(const hy_grp *m, float *base, int i)
{
	return base + m->table.t[i].offset;
}

/* y[o] = b[o] + Σ_i W[o][i] x[i] */
static void linear(const float *W, const float *b, const float *x, int nin, int nout, float *y)
{
	for (int o = 0; o < nout; o++) {
		const float *w = W + (size_t)o * (size_t)nin;
		float acc = 0.0f;
		for (int i = 0; i < nin; i++)
			acc += w[i] * x[i];
		y[o] = acc + b[o];
	}
}

static void relu(float *x, int n)
{
	for (int i = 0; i < n; i++)
		x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* One row: h1, h2 (post-ReLU) and z. */
static void fwd_row(const hy_grp *m, const float *x, float *h1, float *h2, float *z)
{
	const int H = m->hidden;
	float *p = m->p;
	linear(par(m, p, 0), par(m, p, 1), x, HY_GRP_NIN, H, h1);
	relu(h1, H);
	linear(par(m, p, 2), par(m, p, 3), h1, H, H, h2);
	relu(h2, H);
	linear(par(m, p, 4), par(m, p, 5), h2, H, HY_GRP_NOUT, z);
}

void hy_grp_forward(const hy_grp *m, const float *x, size_t n, float *out)
{
	float h1[HY_GRP_HIDDEN_MAX], h2[HY_GRP_HIDDEN_MAX];
	for (size_t r = 0; r < n; r++)
		fwd_row(m, x + r * HY_GRP_NIN, h1, h2, out + r * HY_GRP_NOUT);
}

/* Softmax in double; returns log Σ exp z. */
static double softmax(const float *z, double p[HY_GRP_NOUT])
{
	double mx = z[0];
	for (int k = 1; k < HY_GRP_NOUT; k++)
		mx = z[k] > mx ? z[k] : mx;
	double s = 0;
	for (int k = 0; k < HY_GRP_NOUT; k++)
		s += p[k] = exp(z[k] - mx);
	for (int k = 0; k < HY_GRP_NOUT; k++)
		p[k] /= s;
	return mx + log(s);
}

void hy_grp_probs(const hy_grp *m, const hy_grp_state *s, double p[HY_GRP_NOUT])
{
	float x[HY_GRP_NIN], z[HY_GRP_NOUT];
	hy_grp_features(s, x);
	hy_grp_forward(m, x, 1, z);
	softmax(z, p);
}

void hy_grp_expected(const hy_grp *m, const hy_grp_state *s, const double pts[4], double e[4])
{
	double p[HY_GRP_NOUT];
	hy_grp_probs(m, s, p);
	for (int i = 0; i < 4; i++)
		e[i] = 0;
	for (int k = 0; k < HY_GRP_NOUT; k++) {
		uint8_t rank[4];
		hy_grp_order_ranks(k, rank);
		for (int i = 0; i < 4; i++)
			e[i] += p[k] * pts[rank[i]];
	}
}

/* g[o][i] += a[o] · b[i] */
static void outer_add(float *g, const float *a, const float *b, int na, int nb)
{
	for (int o = 0; o < na; o++) {
		if (a[o] == 0.0f)
			continue;
		float *row = g + (size_t)o * (size_t)nb;
		for (int i = 0; i < nb; i++)
			row[i] += a[o] * b[i];
	}
}

/* dx[i] = Σ_o W[o][i] dy[o], masked by the ReLU output h (h > 0). */
static void back_relu(const float *W, const float *dy, const float *h, int nin, int nout,
	float *dx)
{
	for (int i = 0; i < nin; i++)
		dx[i] = 0.0f;
	for (int o = 0; o < nout; o++) {
		const float *w = W + (size_t)o * (size_t)nin;
		for (int i = 0; i < nin; i++)
			dx[i] += w[i] * dy[o];
	}
	for (int i = 0; i < nin; i++)
		if (!(h[i] > 0.0f))
			dx[i] = 0.0f;
}

double hy_grp_loss(hy_grp *m, const float *x, const uint8_t *y, size_t n, int grad,
	size_t *correct)
{
	const int H = m->hidden;
	float h1[HY_GRP_HIDDEN_MAX], h2[HY_GRP_HIDDEN_MAX], d1[HY_GRP_HIDDEN_MAX],
		d2[HY_GRP_HIDDEN_MAX], z[HY_GRP_NOUT], dz[HY_GRP_NOUT];
	double p[HY_GRP_NOUT], loss = 0;
	size_t hits = 0;
	if (grad)
		memset(m->g, 0, m->table.total * sizeof *m->g);
	const float inv = n ? 1.0f / (float)n : 0.0f;
	for (size_t r = 0; r < n; r++) {
		const float *xr = x + r * HY_GRP_NIN;
		fwd_row(m, xr, h1, h2, z);
		double lse = softmax(z, p);
		int t = y[r] < HY_GRP_NOUT ? y[r] : 0;
		loss += lse - z[t];
		int best = 0;
		for (int k = 1; k < HY_GRP_NOUT; k++)
			best = z[k] > z[best] ? k : best;
		hits += best == t;
		if (!grad)
			continue;
		for (int k = 0; k < HY_GRP_NOUT; k++)
			dz[k] = (float)(p[k] - (k == t)) * inv;
		outer_add(par(m, m->g, 4), dz, h2, HY_GRP_NOUT, H);
		float *gb3 = par(m, m->g, 5);
		for (int k = 0; k < HY_GRP_NOUT; k++)
			gb3[k] += dz[k];
		back_relu(par(m, m->p, 4), dz, h2, H, HY_GRP_NOUT, d2);
		outer_add(par(m, m->g, 2), d2, h1, H, H);
		float *gb2 = par(m, m->g, 3);
		for (int k = 0; k < H; k++)
			gb2[k] += d2[k];
		back_relu(par(m, m->p, 2), d2, h1, H, H, d1);
		outer_add(par(m, m->g, 0), d1, xr, H, HY_GRP_NIN);
		float *gb1 = par(m, m->g, 1);
		for (int k = 0; k < H; k++)
			gb1[k] += d1[k];
	}
	if (correct)
		*correct = hits;
	return n ? loss / (double)n : 0.0;
}

double hy_grp_adamw(hy_grp *m, const hy_nn_optim_cfg *c, float lr)
{
	const hy_nn_params *t = &m->table;
	double norm = 0;
	for (size_t i = 0; i < t->total; i++)
		norm += (double)m->g[i] * m->g[i];
	norm = sqrt(norm);
	const float gs = c->clip > 0 && norm > c->clip ? (float)(c->clip / norm) : 1.0f;
	m->step++;
	const double bc1 = 1.0 - pow(c->beta1, (double)m->step);
	const double bc2 = 1.0 - pow(c->beta2, (double)m->step);
	for (int k = 0; k < t->count; k++) {
		const hy_nn_tensor *ts = &t->t[k];
		for (size_t i = ts->offset; i < ts->offset + ts->size; i++) {
			float g = m->g[i] * gs;
			m->m[i] = c->beta1 * m->m[i] + (1.0f - c->beta1) * g;
			m->v[i] = c->beta2 * m->v[i] + (1.0f - c->beta2) * g * g;
			double mh = m->m[i] / bc1, vh = m->v[i] / bc2;
			if (ts->decay)
				m->p[i] -= lr * c->wd * m->p[i];
			m->p[i] -= (float)(lr * mh / (sqrt(vh) + c->eps));
		}
	}
	return norm;
}

/* ------------------------------------------------------------ checkpoint */

static hy_status save(const char *path, const char *tmp, const hy_grp *m,
	const hy_grp_attr *extra, int nextra, hy_diag *d)
{
	hy_status st = HY_OK;
	hid_t f = -1, lcpl = -1;
	f = hy_h5_create_v110(tmp);
	if (f < 0) {
		st = hy_h5_create_fail(d, path);
		goto out;
	}
	H5CHK(lcpl = H5Pcreate(H5P_LINK_CREATE));
	H5CHK(H5Pset_create_intermediate_group(lcpl, 1));
	int32_t nin = HY_GRP_NIN, hid = m->hidden, nout = HY_GRP_NOUT;
	H5CHK(hy_h5_put_header(f, KIND_NAME, HY_GRP_CKPT_VERSION));
	H5CHK(hy_h5_put_attr(f, "inputs", H5T_STD_I32LE, &nin, 1));
	H5CHK(hy_h5_put_attr(f, "hidden", H5T_STD_I32LE, &hid, 1));
	H5CHK(hy_h5_put_attr(f, "outputs", H5T_STD_I32LE, &nout, 1));
	H5CHK(hy_h5_put_attr(f, "step", H5T_STD_I64LE, &m->step, 1));
	H5CHK(hy_h5_put_attr(f, "seed", H5T_STD_U64LE, &m->seed, 1));
	for (int i = 0; i < nextra; i++)
		H5CHK(hy_h5_put_attr(f, extra[i].name, H5T_IEEE_F64LE, &extra[i].value, 1));
	const float *src[HY_H5_NGROUPS] = {m->p, m->m, m->v};
	for (int k = 0; k < HY_H5_NGROUPS; k++)
		H5CHK(hy_h5_write_group(f, lcpl, k, &m->table, src[k]));
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
	const hy_grp *m;
	const hy_grp_attr *extra;
	int nextra;
} save_job;

static hy_status save_into(void *u, const char *tmp, hy_diag *d)
{
	const save_job *j = u;
	return save(j->path, tmp, j->m, j->extra, j->nextra, d);
}

hy_status hy_grp_save(const char *path, const hy_grp *m, const hy_grp_attr *extra, int nextra,
	hy_diag *d)
{
	save_job j = {path, m, extra, nextra};
	return hy_h5_save_staged(path, save_into, &j, d);
}

static hy_status load(const char *path, hid_t f, hy_grp *m, hy_diag *d)
{
	char kind[64];
	hy_h5_get_str(f, "kind", kind, sizeof kind);
	int32_t ver = 0, nin = 0, hid = 0, nout = 0;
	int64_t step = 0;
	uint64_t seed = 0;
	if (strcmp(kind, KIND_NAME)) {
		int32_t mode = 0; /* a network's: hy_nn_ckpt_kind_of's reading */
		if (!kind[0] && H5Aexists(f, "train_mode") > 0)
			hy_h5_get_attr(f, "train_mode", H5T_NATIVE_INT32, &mode, 1);
		return hy_nn_kind_refuse(d, path, mode == 2 ? HY_NN_KIND_READER : HY_NN_KIND_POLICY,
			HY_NN_KIND_GRP, NULL);
	}
	if (hy_h5_get_attr(f, "version", H5T_NATIVE_INT32, &ver, 1) < 0 ||
		hy_h5_get_attr(f, "inputs", H5T_NATIVE_INT32, &nin, 1) < 0 ||
		hy_h5_get_attr(f, "hidden", H5T_NATIVE_INT32, &hid, 1) < 0 ||
		hy_h5_get_attr(f, "outputs", H5T_NATIVE_INT32, &nout, 1) < 0 ||
		hy_h5_get_attr(f, "step", H5T_NATIVE_INT64, &step, 1) < 0 ||
		hy_h5_get_attr(f, "seed", H5T_NATIVE_UINT64, &seed, 1) < 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': GRP checkpoint lacks an attribute "
			"(version, inputs, hidden, outputs, step, seed)", path);
	if (ver < 1 || ver > HY_GRP_CKPT_VERSION)
		return hy_diag_set(d, HY_EVERSION, 0, "'%s': GRP checkpoint version %d, this build "
			"reads 1 to %d", path, (int)ver, HY_GRP_CKPT_VERSION);
	if (nin != HY_GRP_NIN || nout != HY_GRP_NOUT || hid < 1 || hid > HY_GRP_HIDDEN_MAX ||
		step < 0)
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': GRP of %d inputs, width %d, %d outputs, "
			"step %lld: this build takes %d inputs, width 1 to %d, %d outputs", path,
			(int)nin, (int)hid, (int)nout, (long long)step, HY_GRP_NIN, HY_GRP_HIDDEN_MAX,
			HY_GRP_NOUT);
	hy_status st = hy_grp_init(m, hid, seed, d);
	if (st != HY_OK)
		return st;
	m->step = step;
	float *dst[HY_H5_NGROUPS] = {m->p, m->m, m->v};
	for (int k = 0; k < HY_H5_NGROUPS && st == HY_OK; k++)
		st = hy_h5_read_group(f, path, k, &m->table, dst[k], 1, d);
	if (st != HY_OK)
		hy_grp_free(m);
	return st;
}

hy_status hy_grp_load(const char *path, hy_grp *m, hy_diag *d)
{
	memset(m, 0, sizeof *m);
	hy_h5_init();
	hid_t f;
	hy_status st = hy_h5_open_checkpoint(path, &f, d); /* the one format check */
	if (st)
		return st;
	H5E_BEGIN_TRY
	{
		st = load(path, f, m, d);
		H5Fclose(f);
	}
	H5E_END_TRY;
	return st;
}
