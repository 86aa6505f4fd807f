/* The SE-ResNet and its heads: forward, backward and the masked losses on any
 * backend (model.h). */
#include "nn/model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/math.h"

hy_status hy_nn_arch_check(hy_nn_arch a, hy_diag *d)
{
	if (a.channels < HY_NN_GROUPS || a.channels > 4096 || a.channels % HY_NN_GROUPS)
		return hy_diag_set(d, HY_EUSAGE, 0,
			"channels %d: must be a multiple of 32 between 32 and 4096", a.channels);
	if (a.blocks < 0 || a.blocks > 1000)
		return hy_diag_set(d, HY_EUSAGE, 0, "blocks %d: must be between 0 and 1000", a.blocks);
	return HY_OK;
}

hy_status hy_nn_arch_preset(const char *name, hy_nn_arch *a, hy_diag *d)
{
	static const struct {
		const char *name;
		int blocks, channels;
	} presets[] = {{"tiny", 2, 32}, {"small", 6, 64}, {"base", 12, 128}, {"full", 40, 256}};
	for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
		if (!strcmp(name, presets[i].name)) {
			a->blocks = presets[i].blocks;
			a->channels = presets[i].channels;
			a->oracle = 0; /* the presets read the 85 planes */
			return HY_OK;
		}
	return hy_diag_set(d, HY_EUSAGE, 0, "unknown architecture '%s' (tiny, small, base, full)",
		name);
}

/* ------------------------------------------------------------ table */

static int add(hy_nn_params *p, int *fail, const char *name, int ndim, int s0, int s1, int s2,
	hy_nn_init init, int fan_in, float scale, int decay)
{
	int shape[3] = {s0, s1, s2};
	int i = hy_nn_params_add(p, name, ndim, shape, init, fan_in, scale, decay);
	if (i < 0)
		*fail = 1;
	return i;
}

#define KAIM HY_NN_INIT_KAIMING
#define ZERO HY_NN_INIT_ZERO
#define ONE HY_NN_INIT_ONE

static int build_table(hy_nn_model *m)
{
	hy_nn_params *p = &m->table;
	const int C = m->arch.channels, r = C / 16, N = m->arch.blocks;
	int f = 0;
	char nm[HY_NN_NAME_MAX];
	const int in = hy_nn_arch_in(m->arch);
	m->stem = add(p, &f, "stem/conv/weight", 3, C, 3, in, KAIM, 3 * in, 1, 1);
	for (int i = 0; i < N; i++) {
		hy_nn_block_idx *b = &m->blk[i];
#define NAME(s) (snprintf(nm, sizeof nm, "blocks/%02d/%s", i, s), nm)
		b->gn1w = add(p, &f, NAME("gn1/weight"), 1, C, 0, 0, ONE, 0, 1, 0);
		b->gn1b = add(p, &f, NAME("gn1/bias"), 1, C, 0, 0, ZERO, 0, 1, 0);
		b->conv1 = add(p, &f, NAME("conv1/weight"), 3, C, 3, C, KAIM, 3 * C, 1, 1);
		b->gn2w = add(p, &f, NAME("gn2/weight"), 1, C, 0, 0, ONE, 0, 1, 0);
		b->gn2b = add(p, &f, NAME("gn2/bias"), 1, C, 0, 0, ZERO, 0, 1, 0);
		b->conv2 = add(p, &f, NAME("conv2/weight"), 3, C, 3, C, KAIM, 3 * C, 1, 1);
		b->fc1w = add(p, &f, NAME("se/fc1/weight"), 2, r, C, 0, KAIM, C, 1, 1);
		b->fc1b = add(p, &f, NAME("se/fc1/bias"), 1, r, 0, 0, ZERO, 0, 1, 0);
		b->fc2w = add(p, &f, NAME("se/fc2/weight"), 2, C, r, 0, KAIM, r, 1, 1);
		b->fc2b = add(p, &f, NAME("se/fc2/bias"), 1, C, 0, 0, ZERO, 0, 1, 0);
#undef NAME
	}
	m->tgnw = add(p, &f, "trunk/gn/weight", 1, C, 0, 0, ONE, 0, 1, 0);
	m->tgnb = add(p, &f, "trunk/gn/bias", 1, C, 0, 0, ZERO, 0, 1, 0);
	m->pconvw = add(p, &f, "policy/conv/weight", 2, HY_NN_POL_CH, C, 0, KAIM, C, 1, 1);
	m->pconvb = add(p, &f, "policy/conv/bias", 1, HY_NN_POL_CH, 0, 0, ZERO, 0, 1, 0);
	/* flattened input in our layout: tile-major [34][64] */
	m->pfcw = add(p, &f, "policy/fc/weight", 3, HY_ACTIONS, HY_NN_T, HY_NN_POL_CH, KAIM,
		HY_NN_T * HY_NN_POL_CH, 0.1f, 1);
	m->pfcb = add(p, &f, "policy/fc/bias", 1, HY_ACTIONS, 0, 0, ZERO, 0, 1, 0);
	m->v1w = add(p, &f, "value/fc1/weight", 2, HY_NN_VAL_HID, C, 0, KAIM, C, 1, 1);
	m->v1b = add(p, &f, "value/fc1/bias", 1, HY_NN_VAL_HID, 0, 0, ZERO, 0, 1, 0);
	m->v2w = add(p, &f, "value/fc2/weight", 2, 1, HY_NN_VAL_HID, 0, KAIM, HY_NN_VAL_HID, 0.1f, 1);
	m->v2b = add(p, &f, "value/fc2/bias", 1, 1, 0, 0, ZERO, 0, 1, 0);
	m->g1w = add(p, &f, "grp/fc1/weight", 2, HY_NN_GRP_HID, C, 0, KAIM, C, 1, 1);
	m->g1b = add(p, &f, "grp/fc1/bias", 1, HY_NN_GRP_HID, 0, 0, ZERO, 0, 1, 0);
	m->g2w = add(p, &f, "grp/fc2/weight", 2, HY_GRP_CLASSES, HY_NN_GRP_HID, 0, KAIM,
		HY_NN_GRP_HID, 0.1f, 1);
	m->g2b = add(p, &f, "grp/fc2/bias", 1, HY_GRP_CLASSES, 0, 0, ZERO, 0, 1, 0);
	m->t1w = add(p, &f, "tenpai/fc1/weight", 2, HY_NN_TEN_HID, C, 0, KAIM, C, 1, 1);
	m->t1b = add(p, &f, "tenpai/fc1/bias", 1, HY_NN_TEN_HID, 0, 0, ZERO, 0, 1, 0);
	m->t2w = add(p, &f, "tenpai/fc2/weight", 2, HY_NN_OPP, HY_NN_TEN_HID, 0, KAIM,
		HY_NN_TEN_HID, 0.1f, 1);
	m->t2b = add(p, &f, "tenpai/fc2/bias", 1, HY_NN_OPP, 0, 0, ZERO, 0, 1, 0);
	m->dconvw = add(p, &f, "danger/conv/weight", 2, HY_NN_OPP, C, 0, KAIM, C, 0.1f, 1);
	m->dconvb = add(p, &f, "danger/conv/bias", 1, HY_NN_OPP, 0, 0, ZERO, 0, 1, 0);
	return f ? -1 : 0;
}

hy_status hy_nn_model_init(hy_nn_model *m, hy_nn_arch a, const hy_nn_backend *be,
	const hy_nn_ctx *ctx, hy_diag *d)
{
	memset(m, 0, sizeof *m);
	hy_status st = hy_nn_arch_check(a, d);
	if (st)
		return st;
	if (a.oracle && strncmp(be->name, "cpu", 3) != 0)
		return hy_diag_set(d, HY_EUNSUP, 0, "a model with the oracle planes runs on the CPU "
			"only (this backend: %s)", be->name);
	m->arch = a;
	m->be = be;
	m->ctx = ctx;
	m->lw = hy_nn_loss_w_policy;
	m->in = hy_nn_arch_in(a);
	m->oracle_scale[0] = m->oracle_scale[1] = 1.0f;
	hy_nn_params_init(&m->table);
	m->blk = calloc(a.blocks ? (size_t)a.blocks : 1, sizeof *m->blk);
	if (!m->blk || build_table(m) < 0)
		goto nomem;
	size_t bytes = m->table.total * sizeof(float);
	m->w = be->alloc(bytes);
	m->g = be->alloc(bytes);
	m->m = be->alloc(bytes);
	m->v = be->alloc(bytes);
	if (!m->w || !m->g || !m->m || !m->v)
		goto nomem;
	if (a.oracle && !(m->stem_eff = malloc(m->table.t[m->stem].size * sizeof(float))))
		goto nomem;
	return HY_OK;
nomem:
	hy_nn_model_free(m);
	return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for a %d×%d model", a.blocks, a.channels);
}

void hy_nn_model_free(hy_nn_model *m)
{
	if (m->be && m->be->graph_reset)
		m->be->graph_reset(m->ctx);
	if (m->be) {
		m->be->free(m->w);
		m->be->free(m->g);
		m->be->free(m->m);
		m->be->free(m->v);
	}
	hy_nn_params_free(&m->table);
	free(m->blk);
	free(m->stem_eff);
	memset(m, 0, sizeof *m);
}

hy_status hy_nn_model_init_params(hy_nn_model *m, hy_rng *r, hy_diag *d)
{
	size_t bytes = m->table.total * sizeof(float);
	float *host = malloc(bytes ? bytes : 1);
	if (!host)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory initialising parameters");
	hy_nn_params_fill(&m->table, host, r);
	m->be->to_dev(m->w, host, bytes);
	free(host);
	m->be->zero(m->m, bytes);
	m->be->zero(m->v, bytes);
	m->be->zero(m->g, bytes);
	return HY_OK;
}

size_t hy_nn_model_param_count(const hy_nn_model *m)
{
	size_t n = 0;
	for (int i = 0; i < m->table.count; i++)
		n += m->table.t[i].size;
	return n;
}

float *hy_nn_model_param(const hy_nn_model *m, int i)
{
	return m->w + m->table.t[i].offset;
}

float *hy_nn_model_grad(const hy_nn_model *m, int i)
{
	return m->g + m->table.t[i].offset;
}

/* ------------------------------------------------------------ workspace */

static void *walloc(hy_nn_work *w, const hy_nn_model *m, size_t bytes, int *fail)
{
	void *p = m->be->alloc(bytes);
	if (!p) {
		*fail = 1;
		return NULL;
	}
	w->allocs[w->nallocs++] = p;
	return p;
}

/* Training (infer 0) or inference (infer 1) workspace. Inference: one
 * set of block activations that every block's act[i] points to, and two
 * trunk buffers that X[i] alternates between (X[i] = X[i % 2]: block i
 * reads X[i] and writes X[i + 1], never the same buffer); no gradients
 * but the heads' output gradients. hy_nn_forward is the same code on both,
 * so the outputs are the same bit for bit. */
static hy_status work_alloc(hy_nn_work *w, const hy_nn_model *m, int max_batch, int infer,
	hy_diag *d)
{
	memset(w, 0, sizeof *w);
	if (max_batch < 1)
		return hy_diag_set(d, HY_EUSAGE, 0, "batch size %d: must be at least 1", max_batch);
	const int B = max_batch, C = m->arch.channels, N = m->arch.blocks, r = C / 16;
	/* activation storage: hy_nn_act_size bytes an element (backend.h) */
	const size_t AS = hy_nn_act_size(m->be, m->ctx);
	const size_t R = (size_t)B * HY_NN_TP, RC = R * C * AS, F = sizeof(float);
	int fail = 0;
	w->cap = B;
	w->allocs = calloc((size_t)N * 16 + 64, sizeof *w->allocs);
	w->X = calloc((size_t)N + 1, sizeof *w->X);
	w->act = calloc(N ? (size_t)N : 1, sizeof *w->act);
	if (!w->allocs || !w->X || !w->act)
		fail = 1;
#define A(bytes) walloc(w, m, (bytes), &fail)
	if (!fail) {
		w->xin = A(R * (size_t)m->in * AS);
		for (int i = 0; i <= N; i++)
			w->X[i] = infer && i > 1 ? w->X[i % 2] : A(RC);
		for (int i = 0; i < (infer && N ? 1 : N); i++) {
			hy_nn_block_act *a = &w->act[i];
			a->z1 = A(RC), a->a1 = A(RC), a->c1 = A(RC), a->z2 = A(RC), a->a2 = A(RC);
			a->y = A(RC);
			a->mean1 = A(4 * (size_t)B * HY_NN_GROUPS * F);
			a->rstd1 = a->mean1 ? a->mean1 + B * HY_NN_GROUPS : NULL;
			a->mean2 = a->mean1 ? a->rstd1 + B * HY_NN_GROUPS : NULL;
			a->rstd2 = a->mean1 ? a->mean2 + B * HY_NN_GROUPS : NULL;
			a->P = A(2 * (size_t)B * C * F), a->H = A(2 * (size_t)B * r * F);
			a->E = A(2 * (size_t)B * C * F), a->S = A((size_t)B * C * F);
			a->arg = A((size_t)B * C);
		}
		for (int i = 1; infer && i < N; i++)
			w->act[i] = w->act[0];
		w->zf = A(RC), w->h = A(RC);
		w->meanf = A((size_t)B * HY_NN_GROUPS * F), w->rstdf = A((size_t)B * HY_NN_GROUPS * F);
		w->gvec = A((size_t)B * C * F);
		w->st = A(2 * (size_t)B * HY_NN_GROUPS * F);
		w->st2 = A(2 * (size_t)B * HY_NN_GROUPS * F);
		w->pz = A(R * HY_NN_POL_CH * F), w->pa = A(R * HY_NN_POL_CH * F);
		w->plog = A((size_t)B * HY_ACTIONS * F);
		w->vh = A((size_t)B * HY_NN_VAL_HID * F), w->vout = A((size_t)B * F);
		w->gh = A((size_t)B * HY_NN_GRP_HID * F), w->gout = A((size_t)B * HY_GRP_CLASSES * F);
		w->th = A((size_t)B * HY_NN_TEN_HID * F), w->tout = A((size_t)B * HY_NN_OPP * F);
		w->dan = A(R * HY_NN_OPP * F);
		w->mask = A((size_t)B * 8), w->action = A((size_t)B), w->grp = A((size_t)B);
		w->vt = A((size_t)B * F);
		w->ten_t = A((size_t)B * HY_NN_OPP * F), w->ten_w = A((size_t)B * HY_NN_OPP * F);
		w->dan_t = A(R * HY_NN_OPP * F), w->dan_w = A(R * HY_NN_OPP * F);
		w->dplog = A((size_t)B * HY_ACTIONS * F), w->dvout = A((size_t)B * F);
		w->dgout = A((size_t)B * HY_GRP_CLASSES * F), w->dtout = A((size_t)B * HY_NN_OPP * F);
		w->ddan = A(R * HY_NN_OPP * F);
	}
	if (!fail && !infer) {
		w->dh = A(RC), w->dX = A(RC), w->dA = A(RC), w->dB = A(RC);
		w->dpa = A(R * HY_NN_POL_CH * F), w->dpz = A(R * HY_NN_POL_CH * F);
		w->dg = A((size_t)B * C * F);
		w->dvh = A((size_t)B * HY_NN_VAL_HID * F), w->dgh = A((size_t)B * HY_NN_GRP_HID * F);
		w->dth = A((size_t)B * HY_NN_TEN_HID * F);
		w->dP = A(2 * (size_t)B * C * F), w->dH = A(2 * (size_t)B * r * F);
		w->dE = A(2 * (size_t)B * C * F);
		w->scratch = A(2 * (size_t)B * C * F);
		w->gs = A(2 * (size_t)B * HY_NN_GROUPS * F);
	}
#undef A
	w->infer = infer;
	w->host_bytes = hy_nn_batch_bytes_in(B, 0, m->in);
	w->host = fail ? NULL : malloc(w->host_bytes);
	if (fail || !w->host) {
		hy_nn_work_free(w, m);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for the workspace of batch %d",
			max_batch);
	}
	return HY_OK;
}

hy_status hy_nn_work_init(hy_nn_work *w, const hy_nn_model *m, int max_batch, hy_diag *d)
{
	return work_alloc(w, m, max_batch, 0, d);
}

hy_status hy_nn_work_init_infer(hy_nn_work *w, const hy_nn_model *m, int max_batch,
	hy_diag *d)
{
	return work_alloc(w, m, max_batch, 1, d);
}

void hy_nn_work_free(hy_nn_work *w, const hy_nn_model *m)
{
	if (m->be && m->be->graph_reset)
		m->be->graph_reset(m->ctx);
	for (int i = 0; i < w->nallocs; i++)
		m->be->free(w->allocs[i]);
	free(w->allocs);
	free(w->X);
	free(w->act);
	free(w->host);
	memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------ inputs */

float hy_nn_value_target(int rank)
{
	static const float pts[4] = {0.90f, 0.45f, 0.0f, -1.35f};
	return rank >= 0 && rank < 4 ? pts[rank] : 0.0f;
}

/* The packed batch (model.h): mask, vt, ten_t, ten_w, dan_t, dan_w, the
 * input (xin fp32, or obs binary16 when compact), action, grp — every
 * section a multiple of 8 bytes but the last two. */
typedef struct batch_view {
	uint64_t *mask;
	float *vt, *ten_t, *ten_w, *dan_t, *dan_w, *xin;
	uint16_t *obs;
	uint8_t *action, *grp;
} batch_view;

static size_t input_bytes(int n, int compact, int in)
{
	return compact ? (size_t)n * HY_OBS_SIZE * sizeof(uint16_t)
		       : (size_t)n * HY_NN_TP * (size_t)in * sizeof(float);
}

static void batch_view_of(batch_view *v, const void *buf, int n, int compact, int in)
{
	const size_t R = (size_t)n * HY_NN_TP, F = sizeof(float);
	char *h = (char *)buf;
	v->mask = (uint64_t *)h;
	h += (size_t)n * 8;
	v->vt = (float *)h;
	h += (size_t)n * F;
	v->ten_t = (float *)h, v->ten_w = v->ten_t + (size_t)n * HY_NN_OPP;
	h += 2 * (size_t)n * HY_NN_OPP * F;
	v->dan_t = (float *)h, v->dan_w = v->dan_t + R * HY_NN_OPP;
	h += 2 * R * HY_NN_OPP * F;
	v->xin = compact ? NULL : (float *)h;
	v->obs = compact ? (uint16_t *)h : NULL;
	h += input_bytes(n, compact, in);
	v->action = (uint8_t *)h, v->grp = v->action + n;
}

size_t hy_nn_batch_bytes_in(int n, int compact, int in)
{
	const size_t R = (size_t)n * HY_NN_TP, F = sizeof(float);
	return (size_t)n * (8 + 2 + F * (1 + 2 * HY_NN_OPP)) + 2 * R * HY_NN_OPP * F +
		input_bytes(n, compact, in);
}

size_t hy_nn_batch_bytes_as(int n, int compact)
{
	return hy_nn_batch_bytes_in(n, compact, HY_NN_IN);
}

/* Sample x's input rows [36][in] (pads zero, written by the caller): the 85
 * planes, then with in > 85 the 205 oracle planes as they are (the model
 * scales them through its stem: model.h oracle_scale). */
static void pack_input(float *xin, const hy_sample *x, int in, float *oracle)
{
	for (int c = 0; c < HY_NN_IN; c++)
		for (int t = 0; t < HY_NN_T; t++)
			xin[(size_t)(1 + t) * in + c] = hy_nn_half_to_float(x->obs[c * HY_NN_T + t]);
	if (in == HY_NN_IN)
		return;
	hy_oracle_planes(x, 1.0f, 1.0f, oracle);
	for (int c = 0; c < HY_ORACLE_CHANNELS; c++)
		for (int t = 0; t < HY_NN_T; t++)
			xin[(size_t)(1 + t) * in + HY_NN_IN + c] = oracle[c * HY_NN_T + t];
}

size_t hy_nn_batch_bytes(int n)
{
	return hy_nn_batch_bytes_as(n, 0);
}

static hy_status pack(void *buf, const hy_sample *s, int n, int compact, int in,
	int need_hidden, hy_nn_batch_info *bi, hy_diag *d)
{
	const size_t R = (size_t)n * HY_NN_TP, F = sizeof(float);
	if (in != HY_NN_IN && (compact || in != HY_NN_IN + HY_ORACLE_CHANNELS))
		return hy_diag_set(d, HY_EUSAGE, 0, "a batch of %d input planes%s: 85, or 290 "
			"not compact", in, compact ? " (compact)" : "");
	float *oracle = NULL;
	if (in != HY_NN_IN && !(oracle = malloc(sizeof(float) * HY_ORACLE_SIZE)))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory packing a batch");
	batch_view v;
	batch_view_of(&v, buf, n, compact, in);
	uint64_t *mask = v.mask;
	float *vt = v.vt, *ten_t = v.ten_t, *ten_w = v.ten_w, *dan_t = v.dan_t, *dan_w = v.dan_w;
	float *xin = v.xin;
	uint8_t *action = v.action, *grp = v.grp;
	memset(dan_t, 0, 2 * R * HY_NN_OPP * F);
	if (xin)
		memset(xin, 0, R * (size_t)in * F);
	int known = 0, danger = 0;
	for (int b = 0; b < n; b++) {
		const hy_sample *x = &s[b];
		if (x->action >= HY_ACTIONS || x->rank > 3 || x->grp >= HY_GRP_CLASSES) {
			free(oracle);
			return hy_diag_set(d, HY_EDATA, (uint32_t)b + 1,
				"sample label out of range (action %u, rank %u, grp %u)", x->action, x->rank,
				x->grp);
		}
		if (oracle && need_hidden && !(x->flags & HY_SAMPLE_F_HIDDEN)) {
			free(oracle);
			return hy_diag_set(d, HY_EDATA, (uint32_t)b + 1, "sample without its hidden "
				"state for a model with the oracle planes (its samples come from "
				"hydra-sp --hidden)");
		}
		if (xin)
			pack_input(xin + (size_t)b * HY_NN_TP * in, x, in, oracle);
		else /* compact: the sample's own planes, widened by the backend */
			memcpy(v.obs + (size_t)b * HY_OBS_SIZE, x->obs, sizeof x->obs);
		mask[b] = x->mask & ((1ull << HY_ACTIONS) - 1);
		action[b] = x->action;
		grp[b] = x->grp;
		vt[b] = hy_nn_value_target(x->rank);
		int kn = (x->flags & HY_SAMPLE_F_OPP_KNOWN) != 0;
		known += kn;
		for (int o = 0; o < HY_NN_OPP; o++) {
			int tp = x->opp_tenpai >> o & 1;
			ten_t[b * HY_NN_OPP + o] = (float)tp;
			ten_w[b * HY_NN_OPP + o] = (float)kn;
			if (!(kn && tp))
				continue;
			danger++;
			for (int t = 0; t < HY_NN_T; t++) {
				size_t i = ((size_t)b * HY_NN_TP + 1 + t) * HY_NN_OPP + o;
				/* a furiten opponent's waits deal in to nobody */
				dan_t[i] = (float)(x->opp_waits[o] >> t & 1 &&
						   !(x->flags & HY_SAMPLE_F_FURITEN_OF(o)));
				dan_w[i] = 1.0f;
			}
		}
	}
	free(oracle);
	bi->n = n;
	bi->known = known;
	bi->danger = danger;
	bi->compact = compact;
	bi->in = in;
	return HY_OK;
}

hy_status hy_nn_batch_pack_in(void *buf, const hy_sample *s, int n, int compact, int in,
	hy_nn_batch_info *bi, hy_diag *d)
{
	return pack(buf, s, n, compact, in, 1, bi, d);
}

hy_status hy_nn_batch_pack_as(void *buf, const hy_sample *s, int n, int compact,
	hy_nn_batch_info *bi, hy_diag *d)
{
	return hy_nn_batch_pack_in(buf, s, n, compact, HY_NN_IN, bi, d);
}

int hy_nn_model_needs_hidden(const hy_nn_model *m)
{
	return m->arch.oracle && (m->oracle_scale[0] != 0.0f || m->oracle_scale[1] != 0.0f);
}

hy_status hy_nn_batch_pack(void *buf, const hy_sample *s, int n, hy_nn_batch_info *bi,
	hy_diag *d)
{
	return hy_nn_batch_pack_as(buf, s, n, 0, bi, d);
}

hy_status hy_nn_work_put(hy_nn_work *w, const hy_nn_model *m, const void *buf,
	const hy_nn_batch_info *bi, int on_dev, hy_diag *d)
{
	const int n = bi->n;
	if (n < 1 || n > w->cap)
		return hy_diag_set(d, HY_EUSAGE, 0, "batch of %d samples: workspace holds 1 to %d", n,
			w->cap);
	const hy_nn_backend *be = m->be;
	if (on_dev && !be->dev_copy)
		return hy_diag_set(d, HY_EUSAGE, 0, "backend %s has no device copies", be->name);
	if (bi->compact && !(on_dev && be->expand_obs))
		return hy_diag_set(d, HY_EUSAGE, 0,
			"a compact batch must be in the memory of a backend that widens it (%s)",
			be->name);
	const size_t R = (size_t)n * HY_NN_TP, F = sizeof(float);
	const int in = bi->compact ? HY_NN_IN : bi->in;
	if (in != m->in)
		return hy_diag_set(d, HY_EUSAGE, 0, "a batch of %d input planes for a model of %d",
			in, m->in);
	batch_view v;
	batch_view_of(&v, buf, n, bi->compact, in);
#define PUT(dst, src, bytes)                                   \
	do {                                                   \
		if (on_dev)                                    \
			be->dev_copy(m->ctx, (dst), (src), (bytes)); \
		else                                           \
			be->to_dev((dst), (src), (bytes));     \
	} while (0)
	/* the input into activation storage (fp32 → bf16 where it is bf16);
	 * a compact batch is widened by the backend, from its device copy */
	if (bi->compact)
		be->expand_obs(m->ctx, n, v.obs, w->xin);
	else if (on_dev)
		hy_nn_act_from_f32(be, m->ctx, R * (size_t)in, v.xin, w->xin);
	else
		hy_nn_act_put(be, m->ctx, R * (size_t)in, v.xin, w->xin);
	PUT(w->mask, v.mask, (size_t)n * 8);
	PUT(w->action, v.action, (size_t)n);
	PUT(w->grp, v.grp, (size_t)n);
	PUT(w->vt, v.vt, (size_t)n * F);
	PUT(w->ten_t, v.ten_t, (size_t)n * HY_NN_OPP * F);
	PUT(w->ten_w, v.ten_w, (size_t)n * HY_NN_OPP * F);
	PUT(w->dan_t, v.dan_t, R * HY_NN_OPP * F);
	PUT(w->dan_w, v.dan_w, R * HY_NN_OPP * F);
#undef PUT
	w->B = n;
	w->n_known = bi->known;
	w->n_danger = bi->danger;
	return HY_OK;
}

hy_status hy_nn_work_load(hy_nn_work *w, const hy_nn_model *m, const hy_sample *s, int n,
	hy_diag *d)
{
	if (n < 1 || n > w->cap)
		return hy_diag_set(d, HY_EUSAGE, 0, "batch of %d samples: workspace holds 1 to %d", n,
			w->cap);
	hy_nn_batch_info bi;
	hy_status st = pack(w->host, s, n, 0, m->in, hy_nn_model_needs_hidden(m), &bi, d);
	return st ? st : hy_nn_work_put(w, m, w->host, &bi, 0, d);
}

/* ------------------------------------------------------------ forward */

#define P(i) hy_nn_model_param(m, (i))
#define G(i) hy_nn_model_grad(m, (i))

/* The scale of input plane i of an oracle model (model.h oracle_scale). */
static float in_scale(const hy_nn_model *m, int i)
{
	return i < HY_NN_IN ? 1.0f
	       : i < HY_NN_IN + HY_ORACLE_WALL ? m->oracle_scale[0] : m->oracle_scale[1];
}

static int scaled(const hy_nn_model *m)
{
	return m->arch.oracle && (m->oracle_scale[0] != 1.0f || m->oracle_scale[1] != 1.0f);
}

/* The stem's weights [C][3][in] as the forward takes them: an oracle
 * model's columns of the oracle planes multiplied by their group's scale
 * (into stem_eff; host memory, the CPU backends' own), which is the
 * convolution of the scaled planes. */
static const float *stem_weights(const hy_nn_model *m)
{
	if (!scaled(m))
		return P(m->stem);
	const float *w = P(m->stem);
	const size_t rows = m->table.t[m->stem].size / (size_t)m->in;
	for (size_t r = 0; r < rows; r++)
		for (int i = 0; i < m->in; i++)
			m->stem_eff[r * (size_t)m->in + i] = w[r * (size_t)m->in + i] * in_scale(m, i);
	return m->stem_eff;
}

/* The chain rule through stem_weights: ∂L/∂W = ∂L/∂W_eff · scale. */
static void stem_grad_scale(const hy_nn_model *m)
{
	if (!scaled(m))
		return;
	float *g = G(m->stem);
	const size_t rows = m->table.t[m->stem].size / (size_t)m->in;
	for (size_t r = 0; r < rows; r++)
		for (int i = HY_NN_IN; i < m->in; i++)
			g[r * (size_t)m->in + i] *= in_scale(m, i);
}

/* Whether the block runs through path v3's fused ops (nn/ops.h). */
static int fused(const hy_nn_model *m)
{
	return m->be->fused_block && m->be->fused_block(m->ctx, m->arch.channels);
}

/* Block i's forward through the fused ops: w->st holds the statistics of
 * X[i] on entry and of X[i + 1] on return (the last block's are not needed:
 * the trunk's GroupNorm takes its own). */
static void block_fwd_fused(const hy_nn_model *m, hy_nn_work *w, int i)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B, C = m->arch.channels;
	const hy_nn_block_idx *k = &m->blk[i];
	hy_nn_block_act *a = &w->act[i];
	be->gn_conv3_fwd(c, B, C, w->X[i], w->st, P(k->gn1w), P(k->gn1b), P(k->conv1), a->mean1,
		a->rstd1, a->c1, w->st2, NULL, NULL, NULL, a->a1);
	be->gn_conv3_fwd(c, B, C, a->c1, w->st2, P(k->gn2w), P(k->gn2b), P(k->conv2), a->mean2,
		a->rstd2, a->y, NULL, a->P, a->P + (size_t)B * C, a->arg, a->a2);
}

static void block_fwd(const hy_nn_model *m, hy_nn_work *w, int i)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B, C = m->arch.channels;
	const hy_nn_block_idx *k = &m->blk[i];
	hy_nn_block_act *a = &w->act[i];
	be->gn_mish_fwd(c, B, C, w->X[i], P(k->gn1w), P(k->gn1b), a->z1, a->a1, a->mean1,
		a->rstd1);
	be->conv3_fwd(c, B, C, C, a->a1, P(k->conv1), a->c1);
	be->gn_mish_fwd(c, B, C, a->c1, P(k->gn2w), P(k->gn2b), a->z2, a->a2, a->mean2, a->rstd2);
	be->conv3_fwd(c, B, C, C, a->a2, P(k->conv2), a->y);
	be->pool_fwd(c, B, C, a->y, a->P, a->P + (size_t)B * C, a->arg, C);
}

static void forward_ops(const hy_nn_model *m, hy_nn_work *w)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B, C = m->arch.channels, N = m->arch.blocks, r = C / 16;
	const int R = B * HY_NN_TP, f = fused(m);
	be->conv3_fwd(c, B, m->in, C, w->xin, stem_weights(m), w->X[0]);
	if (f && N)
		be->gn_stats(c, B, C, w->X[0], w->st);
	for (int i = 0; i < N; i++) {
		const hy_nn_block_idx *k = &m->blk[i];
		hy_nn_block_act *a = &w->act[i];
		if (f)
			block_fwd_fused(m, w, i);
		else
			block_fwd(m, w, i);
		be->linear_fwd(c, 2 * B, C, r, a->P, C, P(k->fc1w), P(k->fc1b), a->H, r, 0);
		be->relu_fwd(c, (size_t)2 * B * r, a->H);
		be->linear_fwd(c, 2 * B, r, C, a->H, r, P(k->fc2w), P(k->fc2b), a->E, C, 0);
		if (f && i + 1 < N)
			be->se_fwd_stats(c, B, C, w->X[i], a->y, a->E, a->S, w->X[i + 1], w->st);
		else
			be->se_fwd(c, B, C, w->X[i], a->y, a->E, a->S, w->X[i + 1]);
	}
	be->gn_mish_fwd(c, B, C, w->X[N], P(m->tgnw), P(m->tgnb), w->zf, w->h, w->meanf, w->rstdf);
	be->pool_fwd(c, B, C, w->h, w->gvec, NULL, NULL, C);
	/* policy */
	be->conv1_fwd(c, B, C, HY_NN_POL_CH, w->h, P(m->pconvw), P(m->pconvb), w->pz);
	be->mish_fwd(c, (size_t)R * HY_NN_POL_CH, w->pz, w->pa);
	be->linear_fwd(c, B, HY_NN_T * HY_NN_POL_CH, HY_ACTIONS, w->pa + HY_NN_POL_CH,
		HY_NN_TP * HY_NN_POL_CH, P(m->pfcw), P(m->pfcb), w->plog, HY_ACTIONS, 0);
	/* value, grp, tenpai */
	be->linear_fwd(c, B, C, HY_NN_VAL_HID, w->gvec, C, P(m->v1w), P(m->v1b), w->vh,
		HY_NN_VAL_HID, 0);
	be->relu_fwd(c, (size_t)B * HY_NN_VAL_HID, w->vh);
	be->linear_fwd(c, B, HY_NN_VAL_HID, 1, w->vh, HY_NN_VAL_HID, P(m->v2w), P(m->v2b), w->vout,
		1, 0);
	be->linear_fwd(c, B, C, HY_NN_GRP_HID, w->gvec, C, P(m->g1w), P(m->g1b), w->gh,
		HY_NN_GRP_HID, 0);
	be->relu_fwd(c, (size_t)B * HY_NN_GRP_HID, w->gh);
	be->linear_fwd(c, B, HY_NN_GRP_HID, HY_GRP_CLASSES, w->gh, HY_NN_GRP_HID, P(m->g2w),
		P(m->g2b), w->gout, HY_GRP_CLASSES, 0);
	be->linear_fwd(c, B, C, HY_NN_TEN_HID, w->gvec, C, P(m->t1w), P(m->t1b), w->th,
		HY_NN_TEN_HID, 0);
	be->relu_fwd(c, (size_t)B * HY_NN_TEN_HID, w->th);
	be->linear_fwd(c, B, HY_NN_TEN_HID, HY_NN_OPP, w->th, HY_NN_TEN_HID, P(m->t2w), P(m->t2b),
		w->tout, HY_NN_OPP, 0);
	/* danger: [B][36][3] logits, pads zero */
	be->conv1_fwd(c, B, C, HY_NN_OPP, w->h, P(m->dconvw), P(m->dconvb), w->dan);
}

/* An inference forward may be a graph's replay (backend.h graph_begin);
 * a training forward always queues its
 * ops (its backward reads what they leave in the workspace either way, but
 * its losses' host bookkeeping is not a graph's). */
void hy_nn_forward(const hy_nn_model *m, hy_nn_work *w)
{
	const hy_nn_backend *be = m->be;
	int g = w->infer && be->graph_begin ? be->graph_begin(m->ctx, m, w, w->B) : 0;
	if (g == HY_NN_GRAPH_REPLAYED)
		return;
	forward_ops(m, w);
	if (g == HY_NN_GRAPH_CAPTURING && be->graph_end(m->ctx))
		forward_ops(m, w);
}

void hy_nn_loss(const hy_nn_model *m, hy_nn_work *w, hy_nn_losses *out)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B;
	const size_t R = (size_t)B * HY_NN_TP;
	memset(out, 0, sizeof *out);
	out->n = B;
	/* queued with the ops; read with one wait (backend.h: the losses) */
	double lp = 0, lv = 0, lg = 0, lt = 0, ld = 0;
	const hy_nn_loss_w *lw = &m->lw;
	be->softmax_ce(c, B, HY_ACTIONS, w->plog, w->mask, w->action, lw->policy / B,
		w->dplog, &lp, &out->correct);
	be->mse(c, (size_t)B, w->vout, w->vt, lw->value / B, w->dvout, &lv);
	be->softmax_ce(c, B, HY_GRP_CLASSES, w->gout, NULL, w->grp, lw->grp / B, w->dgout,
		&lg, NULL);
	double nt = (double)w->n_known * HY_NN_OPP, nd = (double)w->n_danger * HY_NN_T;
	be->bce(c, (size_t)B * HY_NN_OPP, w->tout, w->ten_t, w->ten_w,
		nt > 0 ? (float)(lw->tenpai / nt) : 0.0f, w->dtout, &lt);
	be->bce(c, R * HY_NN_OPP, w->dan, w->dan_t, w->dan_w,
		nd > 0 ? (float)(lw->danger / nd) : 0.0f, w->ddan, &ld);
	if (be->sync) /* a failure is kept for the caller's sync; the sums are NAN */
		(void)be->sync(c, NULL);
	out->policy = lp / B;
	out->value = lv / B;
	out->grp = lg / B;
	out->tenpai = nt > 0 ? lt / nt : 0.0;
	out->danger = nd > 0 ? ld / nd : 0.0;
	out->total = hy_nn_loss_total(lw, out);
}

const hy_nn_loss_w hy_nn_loss_w_policy = {HY_NN_W_POLICY, HY_NN_W_VALUE, HY_NN_W_GRP,
	HY_NN_W_TENPAI, HY_NN_W_DANGER};
const hy_nn_loss_w hy_nn_loss_w_reader = {0, 0, 0, 1, 1};

double hy_nn_loss_total(const hy_nn_loss_w *lw, const hy_nn_losses *l)
{
	return lw->policy * l->policy + lw->value * l->value + lw->grp * l->grp +
	       lw->tenpai * l->tenpai + lw->danger * l->danger;
}

/* ------------------------------------------------------------ backward */

/* Block i's backward from dA = ∂L/∂y (the SE gate's and the pools' parts
 * summed) to dX += the trunk's part: the core ops, or path v3's. */
static void block_bwd(const hy_nn_model *m, hy_nn_work *w, int i)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B, C = m->arch.channels;
	const hy_nn_block_idx *k = &m->blk[i];
	hy_nn_block_act *a = &w->act[i];
	be->conv3_bwd(c, B, C, C, a->a2, P(k->conv2), w->dA, w->dB, G(k->conv2));
	be->gn_mish_bwd(c, B, C, a->c1, a->z2, P(k->gn2w), a->mean2, a->rstd2, w->dB, w->dA, 0,
		G(k->gn2w), G(k->gn2b), w->scratch);
	be->conv3_bwd(c, B, C, C, a->a1, P(k->conv1), w->dA, w->dB, G(k->conv1));
	be->gn_mish_bwd(c, B, C, w->X[i], a->z1, P(k->gn1w), a->mean1, a->rstd1, w->dB, w->dX, 1,
		G(k->gn1w), G(k->gn1b), w->scratch);
}

static void block_bwd_fused(const hy_nn_model *m, hy_nn_work *w, int i)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B, C = m->arch.channels;
	const hy_nn_block_idx *k = &m->blk[i];
	hy_nn_block_act *a = &w->act[i];
	be->gn_conv3_bwd(c, B, C, a->c1, P(k->gn2w), P(k->gn2b), a->mean2, a->rstd2, P(k->conv2),
		w->dA, w->dB, G(k->conv2), G(k->gn2w), G(k->gn2b), w->gs, a->a2);
	be->gn_bwd_apply(c, B, C, a->c1, P(k->gn2w), a->mean2, a->rstd2, w->dB, w->gs, w->dA, 0);
	be->gn_conv3_bwd(c, B, C, w->X[i], P(k->gn1w), P(k->gn1b), a->mean1, a->rstd1,
		P(k->conv1), w->dA, w->dB, G(k->conv1), G(k->gn1w), G(k->gn1b), w->gs, a->a1);
	be->gn_bwd_apply(c, B, C, w->X[i], P(k->gn1w), a->mean1, a->rstd1, w->dB, w->gs, w->dX, 1);
}

void hy_nn_backward(const hy_nn_model *m, hy_nn_work *w)
{
	const hy_nn_backend *be = m->be;
	const hy_nn_ctx *c = m->ctx;
	const int B = w->B, C = m->arch.channels, N = m->arch.blocks, r = C / 16;
	const int R = B * HY_NN_TP, f = fused(m);
	assert(!w->infer); /* an inference workspace keeps nothing for backward */
	be->zero(m->g, m->table.total * sizeof(float));
	/* policy: fc (valid rows of dpa only), Mish, 1×1 conv → dh */
	be->zero(w->dpa, (size_t)R * HY_NN_POL_CH * sizeof(float));
	be->linear_bwd(c, B, HY_NN_T * HY_NN_POL_CH, HY_ACTIONS, w->pa + HY_NN_POL_CH,
		HY_NN_TP * HY_NN_POL_CH, P(m->pfcw), w->dplog, HY_ACTIONS, w->dpa + HY_NN_POL_CH, 0,
		G(m->pfcw), G(m->pfcb));
	be->mish_bwd(c, (size_t)R * HY_NN_POL_CH, w->pz, w->dpa, w->dpz);
	be->conv1_bwd(c, B, C, HY_NN_POL_CH, w->h, P(m->pconvw), w->dpz, w->dh, 0, G(m->pconvw),
		G(m->pconvb));
	/* danger */
	be->conv1_bwd(c, B, C, HY_NN_OPP, w->h, P(m->dconvw), w->ddan, w->dh, 1, G(m->dconvw),
		G(m->dconvb));
	/* value, grp, tenpai → dg */
	be->linear_bwd(c, B, HY_NN_VAL_HID, 1, w->vh, HY_NN_VAL_HID, P(m->v2w), w->dvout, 1, w->dvh,
		0, G(m->v2w), G(m->v2b));
	be->relu_bwd(c, (size_t)B * HY_NN_VAL_HID, w->vh, w->dvh);
	be->linear_bwd(c, B, C, HY_NN_VAL_HID, w->gvec, C, P(m->v1w), w->dvh, HY_NN_VAL_HID, w->dg,
		0, G(m->v1w), G(m->v1b));
	be->linear_bwd(c, B, HY_NN_GRP_HID, HY_GRP_CLASSES, w->gh, HY_NN_GRP_HID, P(m->g2w),
		w->dgout, HY_GRP_CLASSES, w->dgh, 0, G(m->g2w), G(m->g2b));
	be->relu_bwd(c, (size_t)B * HY_NN_GRP_HID, w->gh, w->dgh);
	be->linear_bwd(c, B, C, HY_NN_GRP_HID, w->gvec, C, P(m->g1w), w->dgh, HY_NN_GRP_HID, w->dg,
		1, G(m->g1w), G(m->g1b));
	be->linear_bwd(c, B, HY_NN_TEN_HID, HY_NN_OPP, w->th, HY_NN_TEN_HID, P(m->t2w), w->dtout,
		HY_NN_OPP, w->dth, 0, G(m->t2w), G(m->t2b));
	be->relu_bwd(c, (size_t)B * HY_NN_TEN_HID, w->th, w->dth);
	be->linear_bwd(c, B, C, HY_NN_TEN_HID, w->gvec, C, P(m->t1w), w->dth, HY_NN_TEN_HID, w->dg,
		1, G(m->t1w), G(m->t1b));
	be->pool_bwd(c, B, C, w->dg, NULL, NULL, C, w->dh);
	/* trunk */
	be->gn_mish_bwd(c, B, C, w->X[N], w->zf, P(m->tgnw), w->meanf, w->rstdf, w->dh, w->dX, 0,
		G(m->tgnw), G(m->tgnb), w->scratch);
	if (w->ready)
		w->ready(w->ready_arg, m->table.t[m->tgnw].offset);
	for (int i = N - 1; i >= 0; i--) {
		const hy_nn_block_idx *k = &m->blk[i];
		hy_nn_block_act *a = &w->act[i];
		be->se_bwd(c, B, C, a->y, a->S, w->dX, w->dA, w->dE);
		be->linear_bwd(c, 2 * B, r, C, a->H, r, P(k->fc2w), w->dE, C, w->dH, 0, G(k->fc2w),
			G(k->fc2b));
		be->relu_bwd(c, (size_t)2 * B * r, a->H, w->dH);
		be->linear_bwd(c, 2 * B, C, r, a->P, C, P(k->fc1w), w->dH, r, w->dP, 0, G(k->fc1w),
			G(k->fc1b));
		be->pool_bwd(c, B, C, w->dP, w->dP + (size_t)B * C, a->arg, C, w->dA);
		if (f)
			block_bwd_fused(m, w, i);
		else
			block_bwd(m, w, i);
		if (w->ready)
			w->ready(w->ready_arg, m->table.t[k->gn1w].offset);
	}
	be->conv3_bwd(c, B, m->in, C, w->xin, stem_weights(m), w->dX, NULL, G(m->stem));
	stem_grad_scale(m);
	if (w->ready)
		w->ready(w->ready_arg, 0);
}
