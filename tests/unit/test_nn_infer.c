/* The inference path and the pieces of issue 15 that run on a CPU:
 *  - an inference workspace (hy_nn_work_init_infer) gives the forward
 *    outputs and losses of a training workspace bit for bit, at a batch
 *    below its capacity too, and refuses a batch above it;
 *  - hy_nn_batch_pack + hy_nn_work_put load what hy_nn_work_load loads;
 *  - hy_nn_optim_step through a backend's adamw_tensors (one call over
 *    the table) updates exactly as the per-tensor adamw path;
 *  - the linear-plan index of the CUDA backend (plan.h hy_nn_lt_slot);
 *  - --device names (hy_nn_device_pick) on this machine.
 * Random inputs come from fixed seeds (printed on failure by the asserts'
 * names: SEED below). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda.h"
#include "nn/cuda/plan.h"
#include "nn/cuda/compact.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/synth.h"

static const uint64_t SEED = 15015;

typedef struct outs {
	float *plog, *vout, *gout, *tout, *dan;
	hy_nn_losses l;
} outs;

static float *grab(const float *src, size_t n)
{
	float *p = malloc(n * sizeof *p);
	assert_non_null(p);
	memcpy(p, src, n * sizeof *p);
	return p;
}

/* Forward + losses of n samples on workspace w (the CPU backend: host
 * pointers). */
/* A CPU backend that takes compact batches: widening as compact.h's
 * reference does, "device" copies as memcpy. */
static void expand_cpu(const hy_nn_ctx *c, int B, const uint16_t *obs, hy_nn_act *x)
{
	(void)c;
	hy_nn_obs_expand_cpu(B, obs, (float *)x);
}

static void copy_cpu(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	(void)c;
	memcpy(dst, src, bytes);
}

static void check_compact_info(const hy_nn_batch_info *c, const hy_nn_batch_info *f)
{
	assert_int_equal(c->compact, 1);
	assert_int_equal(f->compact, 0);
	assert_int_equal(c->n, f->n);
	assert_int_equal(c->known, f->known);
	assert_int_equal(c->danger, f->danger);
}

static void run_forward(const hy_nn_model *m, hy_nn_work *w, const hy_sample *s, int n,
	outs *o)
{
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_work_load(w, m, s, n, &d), HY_OK);
	hy_nn_forward(m, w);
	hy_nn_loss(m, w, &o->l);
	o->plog = grab(w->plog, (size_t)n * HY_ACTIONS);
	o->vout = grab(w->vout, (size_t)n);
	o->gout = grab(w->gout, (size_t)n * HY_GRP_CLASSES);
	o->tout = grab(w->tout, (size_t)n * HY_NN_OPP);
	o->dan = grab(w->dan, (size_t)n * HY_NN_TP * HY_NN_OPP);
}

static void outs_free(outs *o)
{
	free(o->plog), free(o->vout), free(o->gout), free(o->tout), free(o->dan);
}

static void same_outs(const outs *a, const outs *b, int n)
{
	assert_memory_equal(a->plog, b->plog, (size_t)n * HY_ACTIONS * sizeof(float));
	assert_memory_equal(a->vout, b->vout, (size_t)n * sizeof(float));
	assert_memory_equal(a->gout, b->gout, (size_t)n * HY_GRP_CLASSES * sizeof(float));
	assert_memory_equal(a->tout, b->tout, (size_t)n * HY_NN_OPP * sizeof(float));
	assert_memory_equal(a->dan, b->dan, (size_t)n * HY_NN_TP * HY_NN_OPP * sizeof(float));
	assert_memory_equal(&a->l, &b->l, sizeof a->l);
}

static void check_arch(hy_nn_arch a, int threads)
{
	enum { CAP = 7 };
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, threads);
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, SEED + (uint64_t)a.blocks);
	hy_nn_model m;
	assert_int_equal(hy_nn_model_init(&m, a, hy_nn_backend_cpu(), &ctx, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&m, &r, &d), HY_OK);
	hy_sample s[CAP + 1];
	hy_nn_synth_samples(&r, s, CAP + 1);
	hy_nn_work wt, wi;
	assert_int_equal(hy_nn_work_init(&wt, &m, CAP, &d), HY_OK);
	assert_int_equal(hy_nn_work_init_infer(&wi, &m, CAP, &d), HY_OK);
	assert_int_equal(wi.infer, 1);
	assert_int_equal(wt.infer, 0);
	/* lighter: fewer allocations than the training workspace */
	assert_true(wi.nallocs < wt.nallocs);
	for (int n = CAP; n >= 1; n -= CAP - 1) { /* the full batch, then 1 */
		outs ot, oi;
		run_forward(&m, &wt, s, n, &ot);
		run_forward(&m, &wi, s, n, &oi);
		same_outs(&ot, &oi, n);
		outs_free(&ot), outs_free(&oi);
	}
	/* a batch above the capacity is refused */
	assert_int_equal(hy_nn_work_load(&wi, &m, s, CAP + 1, &d), HY_EUSAGE);
	hy_nn_work_free(&wi, &m);
	hy_nn_work_free(&wt, &m);
	hy_nn_model_free(&m);
}

static void test_infer_same_as_training(void **state)
{
	check_arch((hy_nn_arch){0, 32, 0}, 1);
	check_arch((hy_nn_arch){3, 32, 0}, 2); /* odd depth: X[3] aliases X[1] */
	check_arch((hy_nn_arch){4, 64, 0}, 1);
}

/* pack + put is what load does: same forward outputs. */
static void test_pack_put(void **state)
{
	enum { N = 5 };
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_rng r;
	hy_rng_seed(&r, SEED);
	hy_nn_model m;
	assert_int_equal(hy_nn_model_init(&m, (hy_nn_arch){1, 32, 0}, hy_nn_backend_cpu(), &ctx, &d),
		HY_OK);
	assert_int_equal(hy_nn_model_init_params(&m, &r, &d), HY_OK);
	hy_sample s[N];
	hy_nn_synth_samples(&r, s, N);
	hy_nn_work w;
	assert_int_equal(hy_nn_work_init_infer(&w, &m, N, &d), HY_OK);
	outs a;
	run_forward(&m, &w, s, N, &a);
	void *buf = malloc(hy_nn_batch_bytes(N));
	assert_non_null(buf);
	hy_nn_batch_info bi;
	assert_int_equal(hy_nn_batch_pack(buf, s, N, &bi, &d), HY_OK);
	assert_int_equal(bi.n, N);
	memset(w.xin, 0x7f, 4); /* the put must overwrite what is there */
	assert_int_equal(hy_nn_work_put(&w, &m, buf, &bi, 0, &d), HY_OK);
	hy_nn_forward(&m, &w);
	outs b;
	hy_nn_loss(&m, &w, &b.l);
	assert_memory_equal(a.plog, w.plog, N * HY_ACTIONS * sizeof(float));
	assert_memory_equal(&a.l, &b.l, sizeof a.l);
	/* the CPU has no device copies */
	assert_int_equal(hy_nn_work_put(&w, &m, buf, &bi, 1, &d), HY_EUSAGE);
	/* the compact batch: 6,460 bytes a sample fewer; refused where the backend cannot
	 * widen it; on a backend that widens it as the CPU reference does
	 * (compact.h), the forward of the fp32 batch bit for bit */
	assert_int_equal(hy_nn_batch_bytes(N) - hy_nn_batch_bytes_as(N, 1),
		(size_t)N * (HY_NN_TP * HY_NN_IN * sizeof(float) - HY_OBS_SIZE * sizeof(uint16_t)));
	void *cbuf = malloc(hy_nn_batch_bytes_as(N, 1));
	assert_non_null(cbuf);
	hy_nn_batch_info cbi;
	assert_int_equal(hy_nn_batch_pack_as(cbuf, s, N, 1, &cbi, &d), HY_OK);
	check_compact_info(&cbi, &bi);
	assert_int_equal(hy_nn_work_put(&w, &m, cbuf, &cbi, 0, &d), HY_EUSAGE);
	hy_nn_backend wide = *hy_nn_backend_cpu();
	wide.expand_obs = expand_cpu;
	wide.dev_copy = copy_cpu;
	m.be = &wide;
	memset(w.xin, 0x7f, 4);
	assert_int_equal(hy_nn_work_put(&w, &m, cbuf, &cbi, 1, &d), HY_OK);
	hy_nn_forward(&m, &w);
	outs cb;
	hy_nn_loss(&m, &w, &cb.l);
	assert_memory_equal(a.plog, w.plog, N * HY_ACTIONS * sizeof(float));
	assert_memory_equal(&a.l, &cb.l, sizeof a.l);
	m.be = hy_nn_backend_cpu();
	free(cbuf);
	/* a label out of range names the sample */
	s[3].action = HY_ACTIONS;
	assert_int_equal(hy_nn_batch_pack(buf, s, N, &bi, &d), HY_EDATA);
	assert_int_equal(d.line, 4);
	outs_free(&a);
	free(buf);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

/* ------------------------------------------------------------ adamw_tensors */

static int tensor_calls;

/* The CPU's per-element update, called once for the whole table. */
static void adamw_tensors_cpu(const hy_nn_ctx *c, const hy_nn_tensor *t, int count, float *p,
	const float *g, float *m, float *v, float lr, float b1, float b2, float eps, float wd,
	float bc1, float sqrt_bc2)
{
	tensor_calls++;
	for (int i = 0; i < count; i++)
		hy_nn_backend_cpu()->adamw(c, t[i].size, p + t[i].offset, g + t[i].offset,
			m + t[i].offset, v + t[i].offset, lr, b1, b2, eps, t[i].decay ? wd : 0.0f, bc1,
			sqrt_bc2);
}

static void test_adamw_tensors(void **state)
{
	enum { N = 6 };
	hy_nn_backend multi = *hy_nn_backend_cpu();
	multi.adamw_tensors = adamw_tensors_cpu;
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_diag d;
	hy_diag_init(&d, "test");
	hy_nn_model m[2];
	hy_nn_work w[2];
	hy_sample s[N];
	hy_rng r;
	hy_rng_seed(&r, SEED);
	hy_nn_synth_samples(&r, s, N);
	for (int k = 0; k < 2; k++) {
		hy_rng_seed(&r, SEED + 1);
		assert_int_equal(hy_nn_model_init(&m[k], (hy_nn_arch){2, 32, 0},
					 k ? &multi : hy_nn_backend_cpu(), &ctx, &d), HY_OK);
		assert_int_equal(hy_nn_model_init_params(&m[k], &r, &d), HY_OK);
		assert_int_equal(hy_nn_work_init(&w[k], &m[k], N, &d), HY_OK);
	}
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 10);
	oc.warmup = 1;
	int64_t step[2] = {0, 0};
	tensor_calls = 0;
	for (int it = 0; it < 3; it++)
		for (int k = 0; k < 2; k++) {
			hy_nn_losses l;
			assert_int_equal(hy_nn_work_load(&w[k], &m[k], s, N, &d), HY_OK);
			hy_nn_forward(&m[k], &w[k]);
			hy_nn_loss(&m[k], &w[k], &l);
			hy_nn_backward(&m[k], &w[k]);
			hy_nn_optim_step(&m[k], &oc, &step[k], NULL);
		}
	assert_int_equal(tensor_calls, 3); /* one call a step, not one a tensor */
	assert_int_equal(step[0], 3);
	assert_int_equal(step[1], 3);
	size_t bytes = m[0].table.total * sizeof(float);
	assert_memory_equal(m[0].w, m[1].w, bytes);
	assert_memory_equal(m[0].m, m[1].m, bytes);
	assert_memory_equal(m[0].v, m[1].v, bytes);
	for (int k = 0; k < 2; k++) {
		hy_nn_work_free(&w[k], &m[k]);
		hy_nn_model_free(&m[k]);
	}
}

/* ------------------------------------------------------------ plan index */

static void test_lt_slots(void **state)
{
	hy_nn_lt_index *c = calloc(1, sizeof *c);
	assert_non_null(c);
	int fresh;
	hy_nn_lt_shape a = {1, 256 * 36, 256, 64, 256, 64, 1};
	assert_int_equal(hy_nn_lt_slot(c, &a, &fresh), 0);
	assert_int_equal(fresh, 1);
	assert_int_equal(hy_nn_lt_slot(c, &a, &fresh), 0);
	assert_int_equal(fresh, 0);
	/* every field is part of the key */
	hy_nn_lt_shape other[7];
	for (int f = 0; f < 7; f++)
		other[f] = a;
	other[0].precision = 0, other[1].rows += 36, other[2].in -= 32, other[3].out -= 32;
	other[4].ldx += 32, other[5].ldy += 32, other[6].bias = 0;
	for (int f = 0; f < 7; f++) {
		assert_int_equal(hy_nn_lt_slot(c, &other[f], &fresh), f + 1);
		assert_int_equal(fresh, 1);
	}
	/* invalid shapes get no slot */
	hy_nn_lt_shape bad[] = {{1, 0, 8, 8, 8, 8, 0}, {1, 4, 8, 8, 7, 8, 0}, {1, 4, 8, 8, 8, 7, 0},
		{2, 4, 8, 8, 8, 8, 0}, {1, 4, 8, 8, 8, 8, 2}, {1, 4, 0, 8, 8, 8, 0}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(hy_nn_lt_slot(c, &bad[i], &fresh), -1);
	/* full: new shapes get none, known ones keep theirs */
	for (int i = c->n; i < HY_NN_LT_CACHE; i++) {
		hy_nn_lt_shape b = {0, 1000 + i, 32, 32, 32, 32, 0};
		assert_int_equal(hy_nn_lt_slot(c, &b, &fresh), i);
	}
	hy_nn_lt_shape more = {0, 5, 32, 32, 32, 32, 0};
	assert_int_equal(hy_nn_lt_slot(c, &more, &fresh), -1);
	assert_int_equal(hy_nn_lt_slot(c, &a, &fresh), 0);
	free(c);
}

/* ------------------------------------------------------------ device names */

static void test_device_pick(void **state)
{
	int cuda, ord;
	char why[256];
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_nn_device_pick("cpu", &cuda, &ord, why, sizeof why, &d), HY_OK);
	assert_int_equal(cuda, 0);
	assert_int_equal(hy_nn_device_pick(NULL, &cuda, &ord, why, sizeof why, &d), HY_OK);
	assert_int_equal(cuda, 0);
	assert_int_equal(hy_nn_device_pick("gpu", &cuda, &ord, why, sizeof why, &d), HY_EUSAGE);
	assert_int_equal(hy_nn_device_pick("cuda:x", &cuda, &ord, why, sizeof why, &d), HY_EUSAGE);
	assert_int_equal(hy_nn_device_pick("cuda:-1", &cuda, &ord, why, sizeof why, &d), HY_EUSAGE);
	/* the one parser: the same names and message as the options' */
	const char *bad[] = {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1024", "cuda: 1", "cuda:1 ",
		"CPU", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hy_nn_device_kind k;
		hy_diag_init(&d, "test");
		assert_int_equal(hy_nn_device_parse(bad[i], &k, &ord, &d), HY_EUSAGE);
		char want[128];
		snprintf(want, sizeof want, "bad --device '%s': auto, cpu, cuda or cuda:N (N from 0 "
			"to 1023)", bad[i]);
		assert_string_equal(d.msg, want);
	}
	hy_nn_device_kind k;
	assert_int_equal(hy_nn_device_parse("cuda:17", &k, &ord, &d), HY_OK);
	assert_true(k == HY_NN_DEV_CUDA_N && ord == 17);
	assert_int_equal(hy_nn_device_parse("auto", &k, &ord, &d), HY_OK);
	assert_true(k == HY_NN_DEV_AUTO && ord == 0);
	assert_int_equal(hy_nn_device_parse("cuda", &k, &ord, &d), HY_OK);
	assert_true(k == HY_NN_DEV_CUDA);
	assert_int_equal(hy_nn_device_parse("cpu", &k, &ord, &d), HY_OK);
	assert_true(k == HY_NN_DEV_CPU);
	int gpu = hy_nn_cuda_probe(0, NULL, &d) == HY_OK;
	assert_int_equal(hy_nn_device_pick("auto", &cuda, &ord, why, sizeof why, &d), HY_OK);
	assert_int_equal(cuda, gpu);
	if (!gpu) { /* the fallback says why; cuda is unavailable, with the reason */
		assert_true(why[0] != '\0');
		assert_int_equal(hy_nn_device_pick("cuda", &cuda, &ord, why, sizeof why, &d),
			HY_EUNSUP);
		assert_non_null(strstr(d.msg, "requested device unavailable: --device cuda: "));
	}
	/* an ordinal that no machine has */
	assert_int_equal(hy_nn_device_pick("cuda:1023", &cuda, &ord, why, sizeof why, &d),
		HY_EUNSUP);
}

/* The GPU of each rank on fake node layouts: 8 ranks on a node of 4 GPUs
 * share two each in turn; 2 ranks on 1 GPU share it; the local rank comes
 * from the launcher's variable, first of Open MPI's, MPICH's, PMIx's and
 * Slurm's, and 0 outside a launcher or on garbage. */
static void test_device_for_rank(void **state)
{
	static const int want4[8] = {0, 1, 2, 3, 0, 1, 2, 3};
	for (int r = 0; r < 8; r++)
		assert_int_equal(hy_nn_device_for_rank(r, 4), want4[r]);
	assert_int_equal(hy_nn_device_for_rank(1, 1), 0);
	assert_int_equal(hy_nn_device_for_rank(3, 0), 0); /* no GPU: 0, refused by the probe */
	assert_int_equal(hy_nn_device_for_rank(-1, 4), 0);
	static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		"PMIX_LOCAL_RANK", "SLURM_LOCALID"};
	for (int i = 0; i < 4; i++)
		unsetenv(vars[i]);
	assert_int_equal(hy_nn_local_rank_env(), 0);
	setenv("SLURM_LOCALID", "5", 1);
	assert_int_equal(hy_nn_local_rank_env(), 5);
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1); /* Open MPI's first */
	assert_int_equal(hy_nn_local_rank_env(), 3);
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1); /* garbage: the next one */
	assert_int_equal(hy_nn_local_rank_env(), 5);
	for (int i = 0; i < 4; i++)
		unsetenv(vars[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_for_rank),
		cmocka_unit_test(test_infer_same_as_training),
		cmocka_unit_test(test_pack_put),
		cmocka_unit_test(test_adamw_tensors),
		cmocka_unit_test(test_lt_slots),
		cmocka_unit_test(test_device_pick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
