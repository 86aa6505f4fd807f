/* The ONNX graph of the network (export/onnx.h). The model's tensors are in
 * our layouts (formats/checkpoint.md); the graph is in ONNX's NCW layout, so
 * three kinds of weights are reordered on the way: a k3 conv [out][tap][in]
 * becomes [out][in][tap], a 1×1 conv [out][in] becomes [out][in][1], and the
 * policy Linear's tile-major [46][34][64] becomes [46][64·34] (ONNX's
 * Flatten of [N][64][34] is channel-major). Initializers keep the
 * checkpoint's parameter names. */
#include "export/onnx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/output.h"

#ifndef HY_HAVE_ONNX

int hy_export_onnx_built(void)
{
	return 0;
}

hy_status hy_export_onnx_save(const char *path, const hy_nn_model *m,
	const char *producer_version, int obs_version, hy_diag *d)
{
	return hy_diag_set(d, HY_EUNSUP, 0, "this build has no ONNX exporter (built without "
		"protoc-c, libprotobuf-c or onnx.proto: 'make deps', then 'make')");
}

#else

#include <math.h>

#include "core/grow.h"
#include "core/le.h"
#include "onnx.pb-c.h"

int hy_export_onnx_built(void)
{
	return 1;
}

/* ------------------------------------------------------------ builder */

/* Every allocation of the graph is recorded and freed at the end; a failed
 * one sets fail, and the calls after it do nothing useful but stay safe. */
typedef struct gb {
	void **mem;
	size_t nmem, capmem;
	Onnx__NodeProto **node;
	size_t nnode, capnode;
	Onnx__TensorProto **init;
	size_t ninit, capinit;
	float *host; /* the model's parameters, on the host */
	const hy_nn_model *m;
	int fail;
} gb;

static void *gz(gb *g, size_t bytes)
{
	void *p = g->fail ? NULL : calloc(1, bytes ? bytes : 1);
	if (!p || HY_GROW(g->mem, g->capmem, g->nmem + 1, 64)) {
		free(p);
		g->fail = 1;
		return NULL;
	}
	g->mem[g->nmem++] = p;
	return p;
}

static char *gs(gb *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *gs(gb *g, const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char *s = gz(g, strlen(buf) + 1);
	if (s)
		strcpy(s, buf);
	return s ? s : "";
}

/* A node op(inputs) → out; returns out. Inputs end at NULL. */
static Onnx__NodeProto *node_v(gb *g, const char *op, const char *out, va_list ap)
{
	Onnx__NodeProto *n = gz(g, sizeof *n);
	const char *in[4];
	size_t k = 0;
	for (const char *s; k < 4 && (s = va_arg(ap, const char *)) != NULL;)
		in[k++] = s;
	char **ins = gz(g, 4 * sizeof *ins), **outs = gz(g, sizeof *outs);
	if (!n || !ins || !outs || HY_GROW(g->node, g->capnode, g->nnode + 1, 64)) {
		g->fail = 1;
		return NULL;
	}
	*n = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
	for (size_t i = 0; i < k; i++)
		ins[i] = (char *)in[i];
	outs[0] = (char *)out;
	n->n_input = k;
	n->input = ins;
	n->n_output = 1;
	n->output = outs;
	n->op_type = (char *)op;
	n->name = gs(g, "%s", out);
	g->node[g->nnode++] = n;
	return n;
}

static Onnx__NodeProto *node(gb *g, const char *op, const char *out, ...)
{
	va_list ap;
	va_start(ap, out);
	Onnx__NodeProto *n = node_v(g, op, out, ap);
	va_end(ap);
	return n;
}

static const char *op(gb *g, const char *op_type, const char *out, ...)
{
	va_list ap;
	va_start(ap, out);
	node_v(g, op_type, out, ap);
	va_end(ap);
	return out;
}

static Onnx__AttributeProto *attr(gb *g, Onnx__NodeProto *n, const char *name)
{
	Onnx__AttributeProto *a = gz(g, sizeof *a);
	if (!n || !a)
		return NULL;
	Onnx__AttributeProto **v = gz(g, (n->n_attribute + 1) * sizeof *v);
	if (!v)
		return NULL;
	*a = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
	a->name = (char *)name;
	a->has_type = 1;
	if (n->n_attribute)
		memcpy(v, n->attribute, n->n_attribute * sizeof *v);
	v[n->n_attribute++] = a;
	n->attribute = v;
	return a;
}

static void attr_i(gb *g, Onnx__NodeProto *n, const char *name, int64_t i)
{
	Onnx__AttributeProto *a = attr(g, n, name);
	if (a)
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, a->has_i = 1, a->i = i;
}

static void attr_f(gb *g, Onnx__NodeProto *n, const char *name, float f)
{
	Onnx__AttributeProto *a = attr(g, n, name);
	if (a)
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, a->has_f = 1, a->f = f;
}

static void attr_ints(gb *g, Onnx__NodeProto *n, const char *name, size_t k,
	const int64_t *v)
{
	Onnx__AttributeProto *a = attr(g, n, name);
	int64_t *c = gz(g, k * sizeof *c);
	if (!a || !c)
		return;
	memcpy(c, v, k * sizeof *c);
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = k;
	a->ints = c;
}

/* An initializer of shape dims[0..nd) and type dt with raw little-endian
 * data of `bytes` bytes (the caller fills it through the returned
 * pointer). */
static uint8_t *init_raw(gb *g, const char *name, int dt, int nd, const int64_t *dims,
	size_t bytes)
{
	Onnx__TensorProto *t = gz(g, sizeof *t);
	int64_t *dv = gz(g, (size_t)(nd ? nd : 1) * sizeof *dv);
	uint8_t *data = gz(g, bytes);
	if (!t || !dv || !data || HY_GROW(g->init, g->capinit, g->ninit + 1, 64)) {
		g->fail = 1;
		return NULL;
	}
	*t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
	if (nd) /* a scalar has no dims (and dims may be NULL) */
		memcpy(dv, dims, (size_t)nd * sizeof *dv);
	t->n_dims = (size_t)nd;
	t->dims = dv;
	t->has_data_type = 1;
	t->data_type = dt;
	t->name = (char *)name;
	t->has_raw_data = 1;
	t->raw_data.len = bytes;
	t->raw_data.data = data;
	g->init[g->ninit++] = t;
	return data;
}

static const char *const_i64(gb *g, const char *name, int n, const int64_t *v)
{
	uint8_t *p = init_raw(g, name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1,
		(int64_t[]){n}, (size_t)n * 8);
	for (int i = 0; p && i < n; i++)
		hy_put_u64le(p + 8 * i, (uint64_t)v[i]);
	return name;
}

static void put_f32(uint8_t *p, size_t i, float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	hy_put_u32le(p + 4 * i, u);
}

static const char *const_f32(gb *g, const char *name, int nd, const int64_t *dims, float x)
{
	size_t n = 1;
	for (int i = 0; i < nd; i++)
		n *= (size_t)dims[i];
	uint8_t *p = init_raw(g, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, nd, dims, n * 4);
	for (size_t i = 0; p && i < n; i++)
		put_f32(p, i, x);
	return name;
}

/* How a parameter's elements are reordered into the ONNX tensor. */
typedef enum layout {
	L_SAME,   /* as stored (vectors, Gemm weights [out][in])       */
	L_CONV3,  /* [out][tap][in] → [out][in][tap]                    */
	L_CONV1,  /* [out][in] → [out][in][1]                           */
	L_COLUMN, /* [C] → [C][1], to broadcast over the tiles          */
	L_POLICY, /* [46][34][64] → [46][64·34]                          */
} layout;

/* The initializer of parameter i (named as in the checkpoint). */
static const char *param(gb *g, int i, layout lay)
{
	const hy_nn_tensor *t = &g->m->table.t[i];
	const float *w = g->host + t->offset;
	int64_t dims[3];
	int nd = t->ndim;
	for (int k = 0; k < nd; k++)
		dims[k] = t->shape[k];
	switch (lay) {
	case L_SAME: break;
	case L_CONV3: dims[1] = t->shape[2], dims[2] = t->shape[1]; break;
	case L_CONV1:
	case L_COLUMN: dims[nd++] = 1; break;
	case L_POLICY: nd = 2, dims[1] = (int64_t)t->shape[1] * t->shape[2]; break;
	}
	uint8_t *p = init_raw(g, t->name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, nd, dims,
		t->size * 4);
	if (!p)
		return t->name;
	if (lay == L_CONV3 || lay == L_POLICY) {
		/* [a][b][c] → [a][c][b] */
		const int A = t->shape[0], B = t->shape[1], C = t->shape[2];
		for (int x = 0; x < A; x++)
			for (int y = 0; y < B; y++)
				for (int z = 0; z < C; z++)
					put_f32(p, ((size_t)x * C + z) * B + y,
						w[((size_t)x * B + y) * C + z]);
	} else {
		for (size_t k = 0; k < t->size; k++)
			put_f32(p, k, w[k]);
	}
	return t->name;
}

/* ------------------------------------------------------------ layers */

static const char *mish(gb *g, const char *x, const char *pre)
{
	const char *sp = op(g, "Softplus", gs(g, "%s/softplus", pre), x, NULL);
	const char *th = op(g, "Tanh", gs(g, "%s/tanh", pre), sp, NULL);
	return op(g, "Mul", gs(g, "%s/mish", pre), x, th, NULL);
}

/* GroupNorm (32 groups, ε 1e-5) with affine γ, β over [N][C][34]:
 * InstanceNormalization of [N][32][C/32·34] with unit scale and zero
 * bias, back to [N][C][34], then ·γ + β per channel. */
static const char *group_norm(gb *g, const char *x, int gw, int gbias, const char *pre)
{
	const char *r1 = op(g, "Reshape", gs(g, "%s/grouped", pre), x, "shape/groups", NULL);
	Onnx__NodeProto *n = node(g, "InstanceNormalization", gs(g, "%s/normed", pre), r1,
		"const/ones32", "const/zeros32", NULL);
	attr_f(g, n, "epsilon", 1e-5f);
	const char *r2 = op(g, "Reshape", gs(g, "%s/ungrouped", pre), gs(g, "%s/normed", pre),
		"shape/trunk", NULL);
	const char *sc = op(g, "Mul", gs(g, "%s/scaled", pre), r2, param(g, gw, L_COLUMN), NULL);
	return op(g, "Add", gs(g, "%s/out", pre), sc, param(g, gbias, L_COLUMN), NULL);
}

static const char *conv(gb *g, const char *x, const char *w, const char *b, int k,
	const char *out)
{
	Onnx__NodeProto *n = b ? node(g, "Conv", out, x, w, b, NULL) : node(g, "Conv", out, x, w,
		NULL);
	attr_ints(g, n, "kernel_shape", 1, (int64_t[]){k});
	attr_ints(g, n, "pads", 2, (int64_t[]){k / 2, k / 2});
	return out;
}

/* y = x·Wᵀ + b with W [out][in] as stored. */
static const char *linear(gb *g, const char *x, int w, int b, const char *out)
{
	Onnx__NodeProto *n = node(g, "Gemm", out, x, param(g, w, L_SAME), param(g, b, L_SAME),
		NULL);
	attr_i(g, n, "transB", 1);
	return out;
}

/* Gemm with initializers that already exist (the SE MLP runs twice). */
static const char *gemm_named(gb *g, const char *x, const char *w, const char *b,
	const char *out)
{
	Onnx__NodeProto *n = node(g, "Gemm", out, x, w, b, NULL);
	attr_i(g, n, "transB", 1);
	return out;
}

static const char *block(gb *g, const char *x, int i)
{
	const hy_nn_block_idx *k = &g->m->blk[i];
	char pre[32];
	snprintf(pre, sizeof pre, "blocks/%02d", i);
	const char *a1 = mish(g, group_norm(g, x, k->gn1w, k->gn1b, gs(g, "%s/gn1", pre)),
		gs(g, "%s/gn1", pre));
	const char *c1 = conv(g, a1, param(g, k->conv1, L_CONV3), NULL, 3,
		gs(g, "%s/conv1/out", pre));
	const char *a2 = mish(g, group_norm(g, c1, k->gn2w, k->gn2b, gs(g, "%s/gn2", pre)),
		gs(g, "%s/gn2", pre));
	const char *y = conv(g, a2, param(g, k->conv2, L_CONV3), NULL, 3,
		gs(g, "%s/conv2/out", pre));
	/* squeeze-excitation: s = σ(MLP(avg y) + MLP(max y)), one shared MLP */
	const char *w1 = param(g, k->fc1w, L_SAME), *b1 = param(g, k->fc1b, L_SAME);
	const char *w2 = param(g, k->fc2w, L_SAME), *b2 = param(g, k->fc2b, L_SAME);
	const char *e[2];
	static const char *const pool[2] = {"GlobalAveragePool", "GlobalMaxPool"};
	static const char *const tag[2] = {"avg", "max"};
	for (int p = 0; p < 2; p++) {
		const char *q = op(g, pool[p], gs(g, "%s/se/%s", pre, tag[p]), y, NULL);
		Onnx__NodeProto *n = node(g, "Flatten", gs(g, "%s/se/%s/flat", pre, tag[p]), q, NULL);
		attr_i(g, n, "axis", 1);
		const char *h = gemm_named(g, gs(g, "%s/se/%s/flat", pre, tag[p]), w1, b1,
			gs(g, "%s/se/%s/fc1", pre, tag[p]));
		h = op(g, "Relu", gs(g, "%s/se/%s/relu", pre, tag[p]), h, NULL);
		e[p] = gemm_named(g, h, w2, b2, gs(g, "%s/se/%s/fc2", pre, tag[p]));
	}
	const char *sum = op(g, "Add", gs(g, "%s/se/sum", pre), e[0], e[1], NULL);
	const char *s = op(g, "Sigmoid", gs(g, "%s/se/gate", pre), sum, NULL);
	s = op(g, "Unsqueeze", gs(g, "%s/se/gate3", pre), s, "axes/2", NULL);
	const char *ys = op(g, "Mul", gs(g, "%s/se/scaled", pre), y, s, NULL);
	return op(g, "Add", gs(g, "%s/out", pre), x, ys, NULL);
}

/* A head MLP on g: Linear → ReLU → Linear. */
static const char *head_mlp(gb *g, const char *x, int w1, int b1, int w2, int b2,
	const char *pre, const char *out)
{
	const char *h = linear(g, x, w1, b1, gs(g, "%s/fc1/out", pre));
	h = op(g, "Relu", gs(g, "%s/relu", pre), h, NULL);
	return linear(g, h, w2, b2, out);
}

static Onnx__ValueInfoProto *value_info(gb *g, const char *name, int elem, int nd,
	const int64_t *dims)
{
	Onnx__ValueInfoProto *v = gz(g, sizeof *v);
	Onnx__TypeProto *tp = gz(g, sizeof *tp);
	Onnx__TypeProto__Tensor *tt = gz(g, sizeof *tt);
	Onnx__TensorShapeProto *sh = gz(g, sizeof *sh);
	Onnx__TensorShapeProto__Dimension **dv = gz(g, (size_t)nd * sizeof *dv);
	if (!v || !tp || !tt || !sh || !dv)
		return NULL;
	*v = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	*tp = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
	*tt = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
	*sh = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
	for (int i = 0; i < nd; i++) {
		Onnx__TensorShapeProto__Dimension *dm = gz(g, sizeof *dm);
		if (!dm)
			return NULL;
		*dm = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
		if (dims[i] < 0) { /* the batch */
			dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			dm->dim_param = "N";
		} else {
			dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			dm->dim_value = dims[i];
		}
		dv[i] = dm;
	}
	sh->n_dim = (size_t)nd;
	sh->dim = dv;
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	tt->shape = sh;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	v->name = (char *)name;
	v->type = tp;
	return v;
}

/* The whole graph into g (nodes and initializers). */
static void build(gb *g)
{
	const hy_nn_model *m = g->m;
	const int C = m->arch.channels, N = m->arch.blocks;
	const int64_t T = HY_NN_T;
	/* shared constants */
	const_i64(g, "shape/groups", 3, (int64_t[]){0, HY_NN_GROUPS, -1});
	const_i64(g, "shape/trunk", 3, (int64_t[]){0, C, T});
	const_i64(g, "shape/flat", 1, (int64_t[]){-1});
	const_i64(g, "axes/2", 1, (int64_t[]){2});
	const_f32(g, "const/ones32", 1, (int64_t[]){HY_NN_GROUPS}, 1.0f);
	const_f32(g, "const/zeros32", 1, (int64_t[]){HY_NN_GROUPS}, 0.0f);
	const_f32(g, "const/-inf", 0, NULL, -INFINITY);
	/* trunk */
	const char *x = conv(g, HY_EXPORT_IN_OBS, param(g, m->stem, L_CONV3), NULL, 3,
		"stem/conv/out");
	for (int i = 0; i < N; i++)
		x = block(g, x, i);
	const char *h = mish(g, group_norm(g, x, m->tgnw, m->tgnb, "trunk/gn"), "trunk/gn");
	Onnx__NodeProto *rm = node(g, "ReduceMean", "trunk/mean", h, NULL);
	const char *gv = "trunk/mean";
	attr_ints(g, rm, "axes", 1, (int64_t[]){2});
	attr_i(g, rm, "keepdims", 0);
	/* policy: 1×1 conv, Mish, channel-major flatten, Linear, mask */
	const char *pz = conv(g, h, param(g, m->pconvw, L_CONV1), param(g, m->pconvb, L_SAME), 1,
		"policy/conv/out");
	const char *pa = mish(g, pz, "policy/conv");
	Onnx__NodeProto *fl = node(g, "Flatten", "policy/flat", pa, NULL);
	attr_i(g, fl, "axis", 1);
	Onnx__NodeProto *pg = node(g, "Gemm", "policy/logits", "policy/flat",
		param(g, m->pfcw, L_POLICY), param(g, m->pfcb, L_SAME), NULL);
	attr_i(g, pg, "transB", 1);
	op(g, "Where", HY_EXPORT_OUT_POLICY, HY_EXPORT_IN_LEGAL, "policy/logits", "const/-inf",
		NULL);
	/* value [N][1] → [N]; grp, tenpai */
	const char *v = head_mlp(g, gv, m->v1w, m->v1b, m->v2w, m->v2b, "value", "value/fc2/out");
	op(g, "Reshape", HY_EXPORT_OUT_VALUE, v, "shape/flat", NULL);
	head_mlp(g, gv, m->g1w, m->g1b, m->g2w, m->g2b, "grp", HY_EXPORT_OUT_GRP);
	head_mlp(g, gv, m->t1w, m->t1b, m->t2w, m->t2b, "tenpai", HY_EXPORT_OUT_TENPAI);
	/* danger: 1×1 conv on h, [N][3][34] */
	conv(g, h, param(g, m->dconvw, L_CONV1), param(g, m->dconvb, L_SAME), 1,
		HY_EXPORT_OUT_DANGER);
}

static char doc[] =
	"Hydra-C SE-ResNet inference graph (ARCHITECTURE.md 7): obs [N,85,34] float and "
	"legal [N,46] bool in; policy_logits [N,46] (-inf where illegal), value [N], "
	"grp_logits [N,24], tenpai_logits [N,3], danger_logits [N,3,34] out.";

hy_status hy_export_onnx_save(const char *path, const hy_nn_model *m,
	const char *producer_version, int obs_version, hy_diag *d)
{
	gb g;
	memset(&g, 0, sizeof g);
	g.m = m;
	const size_t bytes = m->table.total * sizeof(float);
	g.host = malloc(bytes ? bytes : 1);
	if (!g.host)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for the model's weights");
	m->be->to_host(g.host, m->w, bytes);
	build(&g);
	const int F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	const int64_t dyn = -1;
	Onnx__ValueInfoProto *in[2] = {
		value_info(&g, HY_EXPORT_IN_OBS, F, 3, (int64_t[]){dyn, HY_NN_IN, HY_NN_T}),
		value_info(&g, HY_EXPORT_IN_LEGAL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 2,
			(int64_t[]){dyn, HY_ACTIONS}),
	};
	Onnx__ValueInfoProto *out[5] = {
		value_info(&g, HY_EXPORT_OUT_POLICY, F, 2, (int64_t[]){dyn, HY_ACTIONS}),
		value_info(&g, HY_EXPORT_OUT_VALUE, F, 1, (int64_t[]){dyn}),
		value_info(&g, HY_EXPORT_OUT_GRP, F, 2, (int64_t[]){dyn, HY_GRP_CLASSES}),
		value_info(&g, HY_EXPORT_OUT_TENPAI, F, 2, (int64_t[]){dyn, HY_NN_OPP}),
		value_info(&g, HY_EXPORT_OUT_DANGER, F, 3, (int64_t[]){dyn, HY_NN_OPP, HY_NN_T}),
	};
	Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
	graph.name = gs(&g, "hydra_%dx%d", m->arch.blocks, m->arch.channels);
	graph.doc_string = doc;
	graph.n_node = g.nnode;
	graph.node = g.node;
	graph.n_initializer = g.ninit;
	graph.initializer = g.init;
	graph.n_input = 2;
	graph.input = in;
	graph.n_output = 5;
	graph.output = out;
	Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsets[1] = {&opset};
	opset.domain = "";
	opset.has_version = 1;
	opset.version = HY_EXPORT_ONNX_OPSET;
	Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
	model.has_ir_version = 1;
	model.ir_version = HY_EXPORT_ONNX_IR;
	model.n_opset_import = 1;
	model.opset_import = opsets;
	model.producer_name = "hydra-c";
	model.producer_version = (char *)producer_version;
	model.graph = &graph;
	/* what the `obs` input must hold: the checkpoint's observation version */
	char ov[16];
	snprintf(ov, sizeof ov, "%d", obs_version);
	Onnx__StringStringEntryProto meta = ONNX__STRING_STRING_ENTRY_PROTO__INIT,
				     *metas[1] = {&meta};
	meta.key = "obs_version";
	meta.value = ov;
	if (obs_version >= 0) {
		model.n_metadata_props = 1;
		model.metadata_props = metas;
	}
	for (int i = 0; i < 2; i++)
		g.fail |= !in[i];
	for (int i = 0; i < 5; i++)
		g.fail |= !out[i];
	hy_status st = HY_OK;
	uint8_t *buf = NULL;
	size_t len = 0;
	if (!g.fail) {
		len = onnx__model_proto__get_packed_size(&model);
		buf = malloc(len ? len : 1);
	}
	if (g.fail || !buf) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory building the ONNX graph");
	} else if (onnx__model_proto__pack(&model, buf) != len) {
		st = hy_diag_set(d, HY_EIO, 0, "protobuf-c packed a different size than it planned");
	} else {
		hy_output o;
		st = hy_output_open(&o, path, d);
		if (st == HY_OK) {
			if (fwrite(buf, 1, len, o.f) != len) {
				int e = errno;
				hy_output_abort(&o);
				st = hy_diag_set(d, HY_EIO, 0, "cannot write '%s': %s",
					path && strcmp(path, "-") ? path : "standard output",
					strerror(e));
			} else {
				st = hy_output_commit(&o, d);
			}
		}
	}
	free(buf);
	for (size_t i = 0; i < g.nmem; i++)
		free(g.mem[i]);
	free(g.mem);
	free(g.node);
	free(g.init);
	free(g.host);
	return st;
}

#endif
