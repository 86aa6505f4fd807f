/* lib/export without an ONNX runtime (t0720 runs onnxruntime and ONNX's
 * checker):
 *  - hy_export_reference writes one JSON line per sample whose numbers read
 *    back as the forward pass's floats exactly, null where illegal;
 *  - the ONNX file parses back (protobuf-c) as the documented graph: IR 8,
 *    opset 17, the inputs and outputs of ARCHITECTURE.md §7 with a dynamic
 *    batch, nodes in topological order (every input defined before use),
 *    every parameter an initializer under its checkpoint name with its
 *    values reordered as onnx.c says (k3 conv [out][in][tap], the policy
 *    Linear channel-major);
 *  - a build without the exporter says so (HY_EUNSUP) and writes nothing.
 * The model's weights come from a fixed seed (SEED). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/onnx.h"
#include "export/reference.h"
#include "nn/math.h"
#include "nn/model.h"
#include "nn/synth.h"

#ifdef HY_HAVE_ONNX
#include "onnx.pb-c.h"
#endif

static const uint64_t SEED = 4242;
enum { NS = 5 };

typedef struct fx {
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_sample s[NS];
} fx;

static int setup(void **state)
{
	fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_nn_ctx_init(&f->ctx, 1);
	assert_int_equal(hy_nn_model_init(&f->m, (hy_nn_arch){2, 32, 0}, hy_nn_backend_cpu(),
				 &f->ctx, &d), HY_OK);
	hy_rng r;
	hy_rng_seed(&r, SEED);
	assert_int_equal(hy_nn_model_init_params(&f->m, &r, &d), HY_OK);
	/* non-trivial GroupNorm affine and biases (init gives 1 and 0) */
	for (int i = 0; i < f->m.table.count; i++) {
		const hy_nn_tensor *t = &f->m.table.t[i];
		if (t->init != HY_NN_INIT_KAIMING)
			for (size_t k = 0; k < t->size; k++)
				f->m.w[t->offset + k] += 0.1f * (float)hy_rng_normal(&r);
	}
	hy_nn_synth_samples(&r, f->s, NS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;
	hy_nn_model_free(&f->m);
	free(f);
	return 0;
}

static float num(json_t *v)
{
	assert_true(json_is_number(v));
	return (float)json_number_value(v);
}

static void test_reference(void **state)
{
	fx *f = *state;
	hy_diag d;
	hy_diag_init(&d, "test");
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	assert_non_null(mf);
	assert_int_equal(hy_export_reference(&f->m, f->s, NS, mf, &d), HY_OK);
	fclose(mf);
	/* the forward pass to compare with */
	hy_nn_work w;
	assert_int_equal(hy_nn_work_init_infer(&w, &f->m, NS, &d), HY_OK);
	assert_int_equal(hy_nn_work_load(&w, &f->m, f->s, NS, &d), HY_OK);
	hy_nn_forward(&f->m, &w);
	char *line = buf;
	for (int b = 0; b < NS; b++) {
		char *nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = '\0';
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		assert_non_null(o);
		json_t *obs = json_object_get(o, "obs"), *legal = json_object_get(o, "legal");
		json_t *pol = json_object_get(o, "policy_logits");
		assert_int_equal(json_array_size(obs), HY_OBS_SIZE);
		assert_int_equal(json_array_size(legal), HY_ACTIONS);
		assert_int_equal(json_array_size(pol), HY_ACTIONS);
		for (int i = 0; i < HY_OBS_SIZE; i += 7)
			assert_true(num(json_array_get(obs, (size_t)i)) ==
				hy_nn_half_to_float(f->s[b].obs[i]));
		for (int a = 0; a < HY_ACTIONS; a++) {
			int lg = (int)(f->s[b].mask >> a & 1);
			assert_int_equal(json_integer_value(json_array_get(legal, (size_t)a)), lg);
			json_t *p = json_array_get(pol, (size_t)a);
			if (lg)
				assert_true(num(p) == w.plog[b * HY_ACTIONS + a]);
			else
				assert_true(json_is_null(p));
		}
		assert_true(num(json_object_get(o, "value")) == w.vout[b]);
		json_t *g = json_object_get(o, "grp_logits"), *t = json_object_get(o, "tenpai_logits");
		json_t *dg = json_object_get(o, "danger_logits");
		assert_int_equal(json_array_size(g), HY_GRP_CLASSES);
		assert_int_equal(json_array_size(t), HY_NN_OPP);
		assert_int_equal(json_array_size(dg), HY_NN_OPP * HY_NN_T);
		for (int k = 0; k < HY_GRP_CLASSES; k++)
			assert_true(num(json_array_get(g, (size_t)k)) == w.gout[b * HY_GRP_CLASSES + k]);
		for (int k = 0; k < HY_NN_OPP; k++)
			assert_true(num(json_array_get(t, (size_t)k)) == w.tout[b * HY_NN_OPP + k]);
		for (int o2 = 0; o2 < HY_NN_OPP; o2++)
			for (int k = 0; k < HY_NN_T; k++)
				assert_true(num(json_array_get(dg, (size_t)(o2 * HY_NN_T + k))) ==
					w.dan[((size_t)b * HY_NN_TP + 1 + k) * HY_NN_OPP + o2]);
		json_decref(o);
		line = nl + 1;
	}
	assert_int_equal(*line, '\0');
	hy_nn_work_free(&w, &f->m);
	free(buf);
}

static char *tmpname(void)
{
	static char p[64];
	snprintf(p, sizeof p, "/tmp/test_export.%ld.onnx", (long)getpid());
	return p;
}

#ifdef HY_HAVE_ONNX
static int defined(char **names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return 1;
	return 0;
}

static const Onnx__TensorProto *initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (!strcmp(g->initializer[i]->name, name))
			return g->initializer[i];
	return NULL;
}

static float raw_at(const Onnx__TensorProto *t, size_t i)
{
	assert_true(t->has_raw_data && (i + 1) * 4 <= t->raw_data.len);
	const uint8_t *p = t->raw_data.data + 4 * i;
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

static void check_io(Onnx__ValueInfoProto *v, const char *name, int elem, int nd,
	const int64_t *dims)
{
	assert_string_equal(v->name, name);
	assert_int_equal(v->type->value_case, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
	Onnx__TypeProto__Tensor *tt = v->type->tensor_type;
	assert_int_equal(tt->elem_type, elem);
	assert_int_equal(tt->shape->n_dim, nd);
	assert_int_equal(tt->shape->dim[0]->value_case,
		ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
	assert_string_equal(tt->shape->dim[0]->dim_param, "N");
	for (int i = 1; i < nd; i++)
		assert_int_equal(tt->shape->dim[i]->dim_value, dims[i]);
}

static void test_onnx_graph(void **state)
{
	fx *f = *state;
	const hy_nn_model *m = &f->m;
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_export_onnx_built(), 1);
	const char *path = tmpname();
	assert_int_equal(hy_export_onnx_save(path, m, "test", 2, &d), HY_OK);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long len = ftell(fp);
	rewind(fp);
	uint8_t *buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	unlink(path);
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, (size_t)len, buf);
	assert_non_null(mp);
	assert_int_equal(mp->ir_version, 8);
	assert_int_equal(mp->n_opset_import, 1);
	assert_int_equal(mp->opset_import[0]->version, 17);
	const Onnx__GraphProto *g = mp->graph;
	const int F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	assert_int_equal(g->n_input, 2);
	check_io(g->input[0], "obs", F, 3, (int64_t[]){0, 85, 34});
	check_io(g->input[1], "legal", ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 2, (int64_t[]){0, 46});
	assert_int_equal(g->n_output, 5);
	check_io(g->output[0], "policy_logits", F, 2, (int64_t[]){0, 46});
	check_io(g->output[1], "value", F, 1, (int64_t[]){0});
	check_io(g->output[2], "grp_logits", F, 2, (int64_t[]){0, 24});
	check_io(g->output[3], "tenpai_logits", F, 2, (int64_t[]){0, 3});
	check_io(g->output[4], "danger_logits", F, 3, (int64_t[]){0, 3, 34});
	/* topological order: inputs, initializers or earlier outputs */
	size_t cap = 2 + g->n_initializer + g->n_node, n = 0;
	char **def = malloc(cap * sizeof *def);
	assert_non_null(def);
	def[n++] = "obs";
	def[n++] = "legal";
	for (size_t i = 0; i < g->n_initializer; i++)
		def[n++] = g->initializer[i]->name;
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *nd = g->node[i];
		for (size_t k = 0; k < nd->n_input; k++)
			if (!defined(def, n, nd->input[k]))
				fail_msg("node %s (%s): input %s not defined before it", nd->name,
					nd->op_type, nd->input[k]);
		assert_int_equal(nd->n_output, 1);
		assert_false(defined(def, n, nd->output[0])); /* single assignment */
		def[n++] = nd->output[0];
	}
	for (size_t i = 0; i < g->n_output; i++)
		assert_true(defined(def, n, g->output[i]->name));
	free(def);
	/* every parameter under its name, with its floats, reordered */
	for (int i = 0; i < m->table.count; i++) {
		const hy_nn_tensor *t = &m->table.t[i];
		const Onnx__TensorProto *it = initializer(g, t->name);
		if (!it)
			fail_msg("parameter %s is not an initializer", t->name);
		assert_int_equal(it->data_type, F);
		assert_int_equal(it->raw_data.len, t->size * 4);
	}
	const hy_nn_tensor *st = &m->table.t[m->stem];
	const Onnx__TensorProto *si = initializer(g, st->name);
	assert_int_equal(si->n_dims, 3);
	assert_int_equal(si->dims[0], 32);
	assert_int_equal(si->dims[1], HY_NN_IN);
	assert_int_equal(si->dims[2], 3);
	for (int o = 0; o < 32; o += 5)
		for (int c = 0; c < HY_NN_IN; c += 3)
			for (int k = 0; k < 3; k++)
				assert_true(raw_at(si, ((size_t)o * HY_NN_IN + c) * 3 + k) ==
					m->w[st->offset + ((size_t)o * 3 + k) * HY_NN_IN + c]);
	const hy_nn_tensor *pt = &m->table.t[m->pfcw];
	const Onnx__TensorProto *pi = initializer(g, pt->name);
	assert_int_equal(pi->n_dims, 2);
	assert_int_equal(pi->dims[0], HY_ACTIONS);
	assert_int_equal(pi->dims[1], HY_NN_T * HY_NN_POL_CH);
	for (int a = 0; a < HY_ACTIONS; a += 5)
		for (int t = 0; t < HY_NN_T; t++)
			for (int c = 0; c < HY_NN_POL_CH; c += 7)
				assert_true(raw_at(pi, ((size_t)a * HY_NN_POL_CH + c) * HY_NN_T + t) ==
					m->w[pt->offset + ((size_t)a * HY_NN_T + t) * HY_NN_POL_CH + c]);
	const hy_nn_tensor *gt = &m->table.t[m->blk[1].gn2w];
	const Onnx__TensorProto *gi = initializer(g, gt->name);
	assert_int_equal(gi->n_dims, 2); /* [C][1]: broadcast over the tiles */
	for (int c = 0; c < 32; c++)
		assert_true(raw_at(gi, (size_t)c) == m->w[gt->offset + c]);
	onnx__model_proto__free_unpacked(mp, NULL);
	free(buf);
}
#else
static void test_onnx_graph(void **state)
{
	fx *f = *state;
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_export_onnx_built(), 0);
	const char *path = tmpname();
	assert_int_equal(hy_export_onnx_save(path, &f->m, "test", 2, &d), HY_EUNSUP);
	assert_non_null(strstr(d.msg, "no ONNX exporter"));
	assert_int_equal(access(path, F_OK), -1);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_onnx_graph, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
