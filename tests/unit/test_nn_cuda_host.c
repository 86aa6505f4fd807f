/* The CPU-runnable parts of the CUDA backend (lib/nn/cuda/plan.h,
 * nn/math.h's bf16 rounding, the entry points of cuda.h without a GPU):
 * - bf16 round-to-nearest-even against the definition, computed another
 *   way (the two neighbouring bf16 values compared in double);
 * - the memory plan against the allocations hy_nn_model_init and
 *   hy_nn_work_init really make (counted through a wrapping backend), the
 *   largest batch that fits, and the refusal of a batch that does not;
 * - the keys and the cache of the per-shape convolution choice;
 * - the compact sample form: binary16 widening, and the expansion into the
 *   model's input equal to what hy_nn_work_load builds;
 * - checkpoints of a model in device memory: a backend whose memory holds
 *   every byte inverted (so that any access not through to_dev/to_host
 *   reads garbage) round-trips CPU → "device" → CPU bit for bit: the
 *   checkpoint code is backend-neutral, as a GPU needs;
 * - the CUDA entry points refusing cleanly where there is no GPU;
 * - the thread mappings of issue 43's v2 kernels (lib/nn/cuda/map.h):
 *   every thread of a GroupNorm block walked, each value of a sample owned
 *   by exactly one and the register arrays big enough; the taps' source
 *   index equal to the three shifted rows; the L2 chunk plan; the path
 *   HYDRA_CUDA_PATH picks;
 * - the graphs of inference forwards: plan.c's index, and hy_nn_forward's
 *   use of a backend's graph hooks (replay, capture, a failed capture's
 *   second queueing, the reset when a workspace or model is freed). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "nn/cuda/compact.h"
#include "nn/cuda/cuda.h"
#include "nn/cuda/map.h"
#include "nn/cuda/v3/map3.h"
#include "nn/cuda/plan.h"
#include "nn/math.h"
#include "nn/model.h"
#include "nn/rng.h"
#include "nn/synth.h"

static const uint64_t SEED = 20261124;

/* ------------------------------------------------------------ bf16 */

static float from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* The value of a bf16 pattern, with the pattern above the largest finite
 * one (0x7f80, +inf) taken as 2^128: IEEE rounding decides overflow as if
 * the exponent range were unbounded. */
static double bf16_value(uint32_t h)
{
	if ((h & 0x7fff) == 0x7f80)
		return (h & 0x8000 ? -1.0 : 1.0) * ldexp(1.0, 128);
	return (double)from_bits(h << 16);
}

/* The definition: the nearer of the two bf16 values around x, the one
 * with an even last bit on a tie; NaN → 0x7fff; ±inf kept. */
static uint16_t bf16_reference(uint32_t u)
{
	float x = from_bits(u);
	if (isnan(x))
		return 0x7fff;
	if (isinf(x))
		return (uint16_t)(u >> 16);
	uint32_t lo = u >> 16, hi = lo + 1; /* toward zero, and one step away */
	if ((u & 0xffff) == 0)
		return (uint16_t)lo;
	double dl = fabs((double)x - bf16_value(lo)), dh = fabs(bf16_value(hi) - (double)x);
	if (dl < dh)
		return (uint16_t)lo;
	if (dh < dl)
		return (uint16_t)hi;
	return (uint16_t)(lo & 1 ? hi : lo);
}

static void check_bf16(uint32_t u)
{
	uint16_t got = hy_nn_bf16_round(from_bits(u)), want = bf16_reference(u);
	if (got != want)
		fail_msg("bf16 of 0x%08x: got 0x%04x, want 0x%04x", u, got, want);
}

static void test_bf16_round(void **state)
{
	(void)state;
	/* every upper half with the lower halves around the rounding points */
	static const uint32_t low[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
	for (uint32_t hi = 0; hi < 0x10000; hi++)
		for (size_t k = 0; k < sizeof low / sizeof low[0]; k++)
			check_bf16(hi << 16 | low[k]);
	hy_rng r;
	hy_rng_seed(&r, SEED);
	for (int i = 0; i < 2000000; i++)
		check_bf16((uint32_t)hy_rng_u64(&r));
	/* named cases */
	assert_int_equal(hy_nn_bf16_round(1.0f), 0x3f80);
	assert_int_equal(hy_nn_bf16_round(from_bits(0x3f808000)), 0x3f80); /* tie, even below */
	assert_int_equal(hy_nn_bf16_round(from_bits(0x3f818000)), 0x3f82); /* tie, even above */
	assert_int_equal(hy_nn_bf16_round(from_bits(0x7f7fffff)), 0x7f80); /* overflow to inf */
	assert_int_equal(hy_nn_bf16_round(-INFINITY), 0xff80);
	assert_int_equal(hy_nn_bf16_round(NAN), 0x7fff);
	assert_int_equal(hy_nn_bf16_round(from_bits(0xffc00001)), 0x7fff);
	assert_int_equal(hy_nn_bf16_round(from_bits(0x00008000)), 0x0000); /* subnormal tie */
	assert_int_equal(hy_nn_bf16_round(from_bits(0x00018000)), 0x0002);
	/* widening is exact: representable values survive the round trip */
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = hy_nn_bf16_to_float((uint16_t)h);
		if (!isnan(f))
			assert_int_equal(hy_nn_bf16_round(f), h);
	}
}

/* ------------------------------------------------------------ memory plan */

/* A CPU backend whose alloc counts what it hands out, rounded as the
 * CUDA arena rounds (test-local state). */
static size_t counted;
static const hy_nn_backend *cpu;

static void *count_alloc(size_t bytes)
{
	counted += hy_nn_cuda_round(bytes);
	return cpu->alloc(bytes);
}

/* As a bf16 context stores activations: 2 bytes an element (the buffers
 * are only counted here, never used as bf16). */
static size_t act_bf16(const hy_nn_ctx *c)
{
	(void)c;
	return 2;
}

static void test_plan_matches_allocations(void **state)
{
	(void)state;
	cpu = hy_nn_backend_cpu();
	hy_nn_backend be = *cpu, be16 = *cpu;
	be.alloc = count_alloc;
	be16.alloc = count_alloc;
	be16.act_size = act_bf16;
	hy_nn_ctx c;
	hy_nn_ctx_init(&c, 1);
	static const hy_nn_arch archs[] = {{2, 32, 0}, {6, 64, 0}, {0, 32, 0}, {1, 96, 0}};
	static const int batches[] = {1, 3, 17};
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
		hy_nn_arch a = archs[i];
		hy_nn_model m;
		hy_diag d;
		hy_diag_init(&d, NULL);
		counted = 0;
		assert_int_equal(hy_nn_model_init(&m, a, &be, &c, &d), HY_OK);
		size_t largest = 0, maxt = 0;
		assert_int_equal(hy_nn_plan_param_floats(a, &largest), m.table.total);
		for (int k = 0; k < m.table.count; k++)
			if (m.table.t[k].size > maxt)
				maxt = m.table.t[k].size;
		assert_int_equal(largest, maxt);
		hy_nn_mem_plan p;
		hy_nn_plan_mem(a, 1, HY_NN_PREC_BF16, 0, &p);
		assert_int_equal(counted, p.params);
		for (size_t j = 0; j < sizeof batches / sizeof batches[0]; j++)
			for (int inf = 0; inf < 2; inf++)
				for (int prec = 0; prec < 2; prec++) {
					hy_nn_work w;
					counted = 0;
					m.be = prec == HY_NN_PREC_BF16 ? &be16 : &be;
					assert_int_equal(inf ? hy_nn_work_init_infer(&w, &m, batches[j], &d)
							     : hy_nn_work_init(&w, &m, batches[j], &d), HY_OK);
					size_t plan = hy_nn_plan_work_bytes(a, batches[j], prec, inf);
					if (counted != plan)
						fail_msg("%dx%d batch %d %s: work_init%s allocates %zu bytes, "
							"the plan says %zu", a.blocks, a.channels, batches[j],
							prec ? "bf16" : "fp32", inf ? "_infer" : "", counted, plan);
					hy_nn_work_free(&w, &m);
				}
		m.be = &be;
		hy_nn_model_free(&m);
	}
}

static void test_plan_scratch(void **state)
{
	(void)state;
	hy_nn_arch a = {40, 256, 0};
	hy_nn_cuda_scratch s16, s32;
	hy_nn_plan_scratch(a, 256, HY_NN_PREC_BF16, &s16);
	hy_nn_plan_scratch(a, 256, HY_NN_PREC_FP32, &s32);
	/* bf16 operands: the taps of R·256 values, 2 bytes each; none in fp32 */
	assert_true(s16.act16[0] >= (size_t)(256 * HY_NN_TP - 2) * 3 * 256 * 2);
	assert_int_equal(s32.act16[0], 0);
	/* the largest tensor of full: a 3-tap 256→256 convolution */
	assert_true(s16.w16[0] >= (size_t)256 * 3 * 256 * 2);
	assert_true(s16.total > s32.total);
	assert_int_equal(s16.total % HY_NN_CUDA_ALIGN, 0);
	assert_int_equal(s16.total, s16.act16[0] + s16.act16[1] + s16.w16[0] +
		s16.w16[1] + s16.wtmp + s16.ones + s16.partials + s16.workspace);
}

/* Issue 56's crash: for every architecture the programs use and every
 * batch a context may be planned for, the scratch holds what v2's chunked
 * convolution asks of it (conv.cu conv_chunk: n·kpad(3·cols) taps with n at
 * most all rows, kpad(3·cols)·nout padded weights) for the stem (85 input
 * channels, K = 255 padded to 256) and the trunk, forward and input
 * gradient, whatever the L2 (no chunking is the largest ask). */
static void test_plan_scratch_v2_chunks(void **state)
{
	(void)state;
	static const char *const archs[] = {"tiny", "small", "base", "full"};
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
		hy_nn_arch a;
		hy_diag d;
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_nn_arch_preset(archs[i], &a, &d), HY_OK);
		for (int B = 1; B <= 4096; B += B < 64 ? 1 : B < 2048 ? 17 : 255) {
			hy_nn_cuda_scratch s;
			hy_nn_plan_scratch(a, B, HY_NN_PREC_BF16, &s);
			int rows = B * HY_NN_TP - 2;
			int conv[3][2] = {{HY_NN_IN, a.channels}, {a.channels, a.channels}};
			for (int k = 0; k < 2; k++)
				for (int fwd = 0; fwd < 2; fwd++) {
					int cin = conv[k][0], cout = conv[k][1];
					int cols = fwd ? cin : cout, nout = fwd ? cout : cin;
					int kp = hy_nn_kpad(3 * cols);
					for (size_t l2 = 0; l2 <= (size_t)64 << 20; l2 += (size_t)16 << 20) {
						int n = hy_nn_conv_chunk_rows(rows, kp, l2, 132);
						if ((size_t)n * kp > s.act16[0] / 2 ||
							(size_t)kp * nout > s.w16[0] / 2) {
							print_error("%s batch %d conv %d->%d %s: %d rows of %d "
								"taps, scratch %zu and %zu values\n", archs[i], B, cin,
								cout, fwd ? "forward" : "dx", n, kp,
								s.act16[0] / 2, s.w16[0] / 2);
							fail();
						}
					}
				}
		}
	}
}

static void test_max_batch(void **state)
{
	(void)state;
	hy_nn_arch full = {40, 256, 0}, small = {6, 64, 0};
	const size_t GiB = (size_t)1 << 30;
	static const size_t avail[] = {(size_t)80 << 30, (size_t)24 << 30, (size_t)3 << 30};
	for (size_t i = 0; i < sizeof avail / sizeof avail[0]; i++) {
		int mb = hy_nn_plan_max_batch(full, HY_NN_PREC_BF16, 0, avail[i]);
		assert_true(mb > 0 && mb < 1 << 20);
		hy_nn_mem_plan p, q;
		hy_nn_plan_mem(full, mb, HY_NN_PREC_BF16, 0, &p);
		hy_nn_plan_mem(full, mb + 1, HY_NN_PREC_BF16, 0, &q);
		assert_true(p.total + HY_NN_CUDA_MARGIN <= avail[i]);
		assert_true(q.total + HY_NN_CUDA_MARGIN > avail[i]);
	}
	/* the workspace of full grows by ~5.5 MB a sample in bf16 (each of
	 * the 40 blocks keeps 7 bf16 maps of 36×256: 129 KB, plus the fp32
	 * SE vectors and statistics): 80 GiB holds about 15,000 samples, and
	 * batch 2048 of the benchmarks fits; fp32 storage about half that */
	int mb80 = hy_nn_plan_max_batch(full, HY_NN_PREC_BF16, 0, 80 * GiB);
	/* an inference context keeps no activations for backward: many times
	 * the batch in the same memory */
	assert_true(hy_nn_plan_max_batch(full, HY_NN_PREC_BF16, 1, 80 * GiB) > 8 * mb80);
	if (mb80 < 12000 || mb80 > 18000)
		fail_msg("full in 80 GiB: largest batch %d", mb80);
	int mb80f = hy_nn_plan_max_batch(full, HY_NN_PREC_FP32, 0, 80 * GiB);
	if (mb80f < 6000 || mb80f > 9000 || mb80f * 3 > mb80 * 2)
		fail_msg("full in 80 GiB, fp32 storage: largest batch %d (bf16 %d)", mb80f, mb80);
	assert_int_equal(hy_nn_plan_max_batch(full, HY_NN_PREC_BF16, 0, HY_NN_CUDA_MARGIN), 0);
	assert_int_equal(hy_nn_plan_max_batch(small, HY_NN_PREC_FP32, 0, (size_t)1 << 50), 1 << 20);
}

static void test_refusal(void **state)
{
	(void)state;
	hy_nn_arch full = {40, 256, 0};
	hy_diag d;
	hy_diag_init(&d, NULL);
	const size_t avail = (size_t)16 << 30;
	int mb = hy_nn_plan_max_batch(full, HY_NN_PREC_BF16, 0, avail);
	assert_int_equal(hy_nn_plan_check(full, mb, HY_NN_PREC_BF16, 0, avail, "GPU 0 (test)", &d),
		HY_OK);
	assert_int_equal(hy_nn_plan_check(full, mb + 1, HY_NN_PREC_BF16, 0, avail, "GPU 0 (test)",
		&d), HY_EUSAGE);
	char want[64];
	snprintf(want, sizeof want, "the largest batch that fits is %d", mb);
	if (!strstr(d.msg, want) || !strstr(d.msg, "GPU 0 (test) has 16.00 GiB free"))
		fail_msg("refusal message: %s", d.msg);
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_nn_plan_check(full, 1, HY_NN_PREC_BF16, 0, (size_t)100 << 20, "GPU 0 (x)",
		&d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "not even a batch of 1 fits"));
}

/* ------------------------------------------------------------ conv cache */

static void test_conv_keys(void **state)
{
	(void)state;
	static const int Bs[] = {1, 2, 3, 256, 257, 1024, 2048, (1 << 21) - 1};
	static const int Cs[] = {1, 32, 64, 85, 256, 4096, 8191};
	enum { NB = 8, NC = 7 };
	uint64_t *keys = malloc(3 * 2 * NB * NC * NC * sizeof *keys);
	assert_non_null(keys);
	size_t n = 0;
	for (int dir = 0; dir < 3; dir++)
		for (int p = 0; p < 2; p++)
			for (int b = 0; b < NB; b++)
				for (int i = 0; i < NC; i++)
					for (int o = 0; o < NC; o++) {
						uint64_t k = hy_nn_conv_key(dir, p, Bs[b], Cs[i], Cs[o]);
						assert_true(k != 0);
						keys[n++] = k;
					}
	for (size_t i = 0; i < n; i++) /* all distinct */
		for (size_t j = i + 1; j < n; j++)
			if (keys[i] == keys[j])
				fail_msg("keys %zu and %zu collide", i, j);
	free(keys);
	assert_int_equal(hy_nn_conv_key(3, 0, 1, 32, 32), 0);
	assert_int_equal(hy_nn_conv_key(0, 2, 1, 32, 32), 0);
	assert_int_equal(hy_nn_conv_key(0, 0, 0, 32, 32), 0);
	assert_int_equal(hy_nn_conv_key(0, 0, 1 << 21, 32, 32), 0);
	assert_int_equal(hy_nn_conv_key(0, 0, 1, 8192, 32), 0);
	assert_int_equal(hy_nn_conv_key(0, 0, 1, 32, 0), 0);

	hy_nn_conv_cache c = {0};
	hy_nn_conv_choice e = {hy_nn_conv_key(HY_NN_CONV_BWD_FILTER, 1, 256, 85, 256),
		HY_NN_CONV_CUDNN, 1, 1024, 0.5f, 0.25f, 0};
	assert_null(hy_nn_conv_cache_find(&c, e.key));
	assert_int_equal(hy_nn_conv_cache_put(&c, &e), 0);
	const hy_nn_conv_choice *f = hy_nn_conv_cache_find(&c, e.key);
	assert_non_null(f);
	assert_int_equal(f->impl, HY_NN_CONV_CUDNN);
	e.impl = HY_NN_CONV_GEMM; /* replacing keeps one entry */
	assert_int_equal(hy_nn_conv_cache_put(&c, &e), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(hy_nn_conv_cache_find(&c, e.key)->impl, HY_NN_CONV_GEMM);
	char buf[256];
	hy_nn_conv_cache_format(&c, buf, sizeof buf);
	assert_string_equal(buf, "conv bwd-filter B=256 85->256 bf16: gemm 0.500 ms, cudnn algo 1 "
		"0.250 ms: gemm\n");
	for (int b = 1; c.n < HY_NN_CONV_CACHE; b++) {
		hy_nn_conv_choice g = {hy_nn_conv_key(0, 0, b, 64, 64), HY_NN_CONV_GEMM, -1, 0, -1, -1, 0};
		assert_int_equal(hy_nn_conv_cache_put(&c, &g), 0);
	}
	/* full: the least recently used entry gives way, the one just found stays */
	assert_non_null(hy_nn_conv_cache_find(&c, e.key));
	uint64_t second = c.e[1].key, third = c.e[2].key;
	assert_non_null(hy_nn_conv_cache_find(&c, second));
	hy_nn_conv_choice g = {hy_nn_conv_key(0, 0, 5000, 64, 64), HY_NN_CONV_GEMM, -1, 0, -1, -1, 0};
	assert_int_equal(hy_nn_conv_cache_put(&c, &g), 0);
	assert_int_equal(c.n, HY_NN_CONV_CACHE);
	assert_non_null(hy_nn_conv_cache_find(&c, g.key));
	assert_non_null(hy_nn_conv_cache_find(&c, e.key));
	assert_non_null(hy_nn_conv_cache_find(&c, second));
	assert_null(hy_nn_conv_cache_find(&c, third)); /* the oldest untouched: evicted */
	/* inference batches 1…1024 fall on 11 keys, each ≥ its batch */
	uint64_t seen[16];
	int nseen = 0;
	for (int b = 1; b <= 1024; b++) {
		int k = hy_nn_conv_bucket(b);
		assert_true(k >= b && k < 2 * b && (k & (k - 1)) == 0);
		if (!nseen || seen[nseen - 1] != (uint64_t)k)
			seen[nseen++] = (uint64_t)k;
	}
	assert_int_equal(nseen, 11);
	assert_int_equal(hy_nn_conv_bucket((1 << 21) - 1), 1 << 20);
	g.key = 0;
	assert_int_equal(hy_nn_conv_cache_put(&c, &g), -1);
	assert_null(hy_nn_conv_cache_find(&c, 0));
}

/* ------------------------------------------------------------ compact form */

static void test_half(void **state)
{
	(void)state;
	for (uint32_t h = 0; h < 0x10000; h++) {
		_Float16 f;
		uint16_t b = (uint16_t)h;
		memcpy(&f, &b, sizeof f);
		float want = (float)f, got = hy_nn_half_to_float(b);
		uint32_t wu, gu;
		memcpy(&wu, &want, 4), memcpy(&gu, &got, 4);
		if (isnan(want) ? !isnan(got) || ((wu ^ gu) & 0x807fffffu & ~0x00400000u) : wu != gu)
			fail_msg("binary16 0x%04x: got %a (0x%08x), want %a (0x%08x)", h, got, gu, want,
				wu);
	}
}

static void test_expand_obs(void **state)
{
	(void)state;
	enum { B = 5 };
	hy_rng r;
	hy_rng_seed(&r, SEED + 1);
	hy_sample *s = calloc(B, sizeof *s);
	assert_non_null(s);
	hy_nn_synth_samples(&r, s, B);
	/* every binary16 pattern but NaNs (which the model never sees, and
	 * whose comparison below would fail) somewhere in the planes */
	for (int i = 0, h = 0; i < B * HY_OBS_SIZE && h < 0x10000; i++, h += 13)
		if ((h & 0x7c00) != 0x7c00 || !(h & 0x3ff))
			s[i / HY_OBS_SIZE].obs[i % HY_OBS_SIZE] = (uint16_t)h;
	hy_nn_ctx c;
	hy_nn_ctx_init(&c, 1);
	hy_nn_model m;
	hy_nn_work w;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_nn_model_init(&m, (hy_nn_arch){0, 32, 0}, hy_nn_backend_cpu(), &c, &d),
		HY_OK);
	assert_int_equal(hy_nn_work_init(&w, &m, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_load(&w, &m, s, B, &d), HY_OK);
	uint16_t *obs = malloc((size_t)B * HY_OBS_SIZE * sizeof *obs);
	float *x = malloc((size_t)B * HY_NN_TP * HY_OBS_CHANNELS * sizeof *x);
	assert_non_null(obs);
	assert_non_null(x);
	hy_nn_obs_pack(s, B, obs);
	hy_nn_obs_expand_cpu(B, obs, x);
	assert_memory_equal(x, w.xin, (size_t)B * HY_NN_TP * HY_OBS_CHANNELS * sizeof *x);
	free(obs), free(x), free(s);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
}

/* ------------------------------------------------------------ checkpoints */

/* "Device" memory: each byte stored inverted, a size word in front. */
static void *inv_alloc(size_t bytes)
{
	unsigned char *p = malloc(bytes + 16);
	if (!p)
		return NULL;
	memcpy(p, &bytes, sizeof bytes);
	memset(p + 16, 0xff, bytes); /* zeroed, as the device sees it */
	return p + 16;
}

static void inv_free(void *p)
{
	if (p)
		free((unsigned char *)p - 16);
}

static void inv_copy(void *dst, const void *src, size_t bytes)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	for (size_t i = 0; i < bytes; i++)
		d[i] = (unsigned char)~s[i];
}

static void inv_zero(void *p, size_t bytes)
{
	memset(p, 0xff, bytes);
}

static void test_ckpt_device_memory(void **state)
{
	(void)state;
	hy_nn_backend inv = *hy_nn_backend_cpu();
	inv.name = "inverted";
	inv.alloc = inv_alloc, inv.free = inv_free, inv.to_dev = inv_copy;
	inv.to_host = inv_copy, inv.zero = inv_zero;
	hy_nn_ctx c;
	hy_nn_ctx_init(&c, 1);
	hy_nn_arch a = {2, 32, 0};
	hy_nn_model m0, md, m1;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_rng r;
	hy_rng_seed(&r, SEED + 2);
	assert_int_equal(hy_nn_model_init(&m0, a, hy_nn_backend_cpu(), &c, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&m0, &r, &d), HY_OK);
	size_t n = m0.table.total;
	for (int k = 0; k < m0.table.count; k++) /* moments as after some steps */
		for (size_t i = m0.table.t[k].offset; i < m0.table.t[k].offset + m0.table.t[k].size;
			i++) {
			m0.m[i] = (float)hy_rng_normal(&r);
			m0.v[i] = (float)fabs(hy_rng_normal(&r));
		}
	char f1[] = "/tmp/test-cuda-host-XXXXXX", f2[] = "/tmp/test-cuda-host-XXXXXX";
	int fd1 = mkstemp(f1), fd2 = mkstemp(f2);
	assert_true(fd1 >= 0 && fd2 >= 0);
	close(fd1), close(fd2);
	hy_nn_ckpt_meta meta, back;
	memset(&meta, 0, sizeof meta);
	memset(&back, 0, sizeof back); /* load leaves the save-only fields (extra) alone */
	hy_nn_optim_defaults(&meta.opt, 10);
	meta.step = 7;
	meta.seed = 42;
	meta.rng = r;
	assert_int_equal(hy_nn_ckpt_save(f1, &m0, &meta, &d), HY_OK);
	assert_int_equal(hy_nn_model_init(&md, a, &inv, &c, &d), HY_OK);
	assert_int_equal(hy_nn_ckpt_load(f1, &md, &back, 0, &d), HY_OK);
	/* in "device" memory the bytes are inverted: the load went through to_dev */
	float first;
	inv_copy(&first, md.w, sizeof first);
	assert_memory_equal(&first, m0.w, sizeof first);
	assert_int_equal(hy_nn_ckpt_save(f2, &md, &back, &d), HY_OK);
	assert_int_equal(hy_nn_model_init(&m1, a, hy_nn_backend_cpu(), &c, &d), HY_OK);
	assert_int_equal(hy_nn_ckpt_load(f2, &m1, &back, 0, &d), HY_OK);
	assert_int_equal(back.step, 7);
	assert_memory_equal(m0.w, m1.w, n * sizeof(float));
	assert_memory_equal(m0.m, m1.m, n * sizeof(float));
	assert_memory_equal(m0.v, m1.v, n * sizeof(float));
	/* weights only: moments zeroed through the backend */
	assert_int_equal(hy_nn_ckpt_load(f2, &md, NULL, 1, &d), HY_OK);
	float mom;
	inv_copy(&mom, md.m, sizeof mom);
	assert_true(mom == 0.0f);
	unlink(f1), unlink(f2);
	hy_nn_model_free(&m0), hy_nn_model_free(&md), hy_nn_model_free(&m1);
}

/* ------------------------------------------------------------ no GPU */

/* This test runs on machines without a GPU (CI, the build host): the
 * entry points must refuse with a reason, never crash. Where a GPU is
 * usable the check is skipped (tests/gpu/ covers that case). */
static void test_no_gpu(void **state)
{
	(void)state;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_cuda_info info;
	if (hy_nn_cuda_probe(0, &info, &d) == HY_OK)
		skip();
	assert_true(strlen(d.msg) > 0);
	hy_nn_ctx c;
	hy_nn_cuda_cfg cfg = {.device = 0, .precision = HY_NN_PREC_BF16, .arch = {2, 32, 0},
		.max_batch = 8};
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_nn_cuda_ctx_init(&c, &cfg, &d), HY_EUNSUP);
	assert_null(c.priv);
	hy_nn_cuda_ctx_free(&c);
	assert_int_equal(hy_nn_cuda_built(), hy_nn_backend_cuda() != NULL);
}

/* ------------------------------------------------------------ v2 mappings */

/* Every thread of a gn v2 block (map.h) for every width: the widths it
 * takes get each (row, vector column) of the 34 rows exactly once and no
 * thread holds more rows than its registers; the model widths are taken. */
static void test_gn2_mapping(void **state)
{
	(void)state;
	int taken = 0;
	for (int C = 1; C <= 4096; C++) {
		if (!hy_nn_gn2_fits(C))
			continue;
		taken++;
		assert_int_equal(C % 32, 0);
		assert_true(C <= 256);
		const int V = hy_nn_gn2_cols(C), G = hy_nn_gn2_groups(C);
		static int seen[HY_NN_MAP_ROWS][32];
		memset(seen, 0, sizeof seen);
		for (int i = 0; i < HY_NN_MAP_NT; i++) {
			const int v = i % V, g = i / V, nr = hy_nn_gn2_nrows(C, g);
			assert_true(nr >= 0 && nr <= HY_NN_MAP_MAXR);
			for (int j = 0; j < nr; j++) {
				const int t = g + j * G;
				assert_true(t < HY_NN_MAP_ROWS);
				seen[t][v]++;
			}
			/* the pad rows' writer: one thread (g = 0) per column */
			if (g == 0)
				assert_true(v < V);
		}
		for (int t = 0; t < HY_NN_MAP_ROWS; t++)
			for (int v = 0; v < V; v++)
				assert_int_equal(seen[t][v], 1);
	}
	/* the shared partials (finding 9): every (g, ch) its own float within
	 * HY_NN_GN2_PART; a warp's stores of one k in 32 banks; the totals'
	 * channel-order reads at most 2 in a bank */
	for (int C = 32; C <= HY_NN_GN2_MAXC; C += 32) {
		if (!hy_nn_gn2_fits(C))
			continue;
		const int V = hy_nn_gn2_cols(C), G = hy_nn_gn2_groups(C);
		static unsigned char seen[HY_NN_GN2_PART];
		memset(seen, 0, sizeof seen);
		for (int g = 0; g < G; g++)
			for (int ch = 0; ch < C; ch++) {
				int i = hy_nn_gn2_pix(g, C, ch);
				assert_true(i >= 0 && i < HY_NN_GN2_PART && !seen[i]);
				seen[i] = 1;
			}
		for (int w = 0; w < HY_NN_MAP_NT / 32; w++)
			for (int k = 0; k < HY_NN_MAP_VEC; k++) {
				int banks[32] = {0}, worst = 0;
				for (int l = 0; l < 32; l++) {
					const int t = w * 32 + l, v = t % V, g = t / V;
					if (g >= G)
						continue;
					int b = hy_nn_gn2_pix(g, C, v * HY_NN_MAP_VEC + k) % 32;
					if (++banks[b] > worst)
						worst = banks[b];
				}
				if (worst > 1)
					fail_msg("C %d warp %d k %d: %d stores in one bank", C, w, k, worst);
			}
		for (int g = 0; g < G; g++)
			for (int c0 = 0; c0 < C; c0 += 32) {
				int banks[32] = {0}, worst = 0;
				for (int l = 0; l < 32 && c0 + l < C; l++)
					if (++banks[hy_nn_gn2_pix(g, C, c0 + l) % 32] > worst)
						worst = banks[hy_nn_gn2_pix(g, C, c0 + l) % 32];
				assert_true(worst <= 2);
			}
	}
	assert_true(hy_nn_gn2_fits(32) && hy_nn_gn2_fits(64) && hy_nn_gn2_fits(128) &&
		hy_nn_gn2_fits(256));
	assert_false(hy_nn_gn2_fits(512));
	assert_false(hy_nn_gn2_fits(4096));
	assert_false(hy_nn_gn2_fits(48)); /* 48 channels: not 32 whole groups */
	assert_int_equal(taken, 8);      /* 32, 64, …, 256 */
}

/* The taps' source index (map.h) is the three shifted rows side by side:
 * element k·cols + i of row r is x(r0 + r + k)[i]; the K padding and the
 * chunk plan. */
static void test_taps2_and_chunks(void **state)
{
	(void)state;
	static const int cols_of[] = {85, 256, 32};
	for (int c = 0; c < 3; c++) {
		const int cols = cols_of[c];
		for (int r0 = 0; r0 < 40; r0 += 13)
			for (int r = 0; r < 5; r++)
				for (int k = 0; k < 3; k++)
					for (int i = 0; i < cols; i += 7)
						assert_int_equal(hy_nn_taps2_src(r0, cols, r, k * cols + i),
							(size_t)(r0 + r + k) * cols + i);
		/* vector form: a 16-byte vector never straddles a tap boundary */
		if (cols % HY_NN_MAP_VEC == 0)
			for (int j = 0; j < 3 * cols; j += HY_NN_MAP_VEC)
				assert_int_equal(j / cols, (j + HY_NN_MAP_VEC - 1) / cols);
	}
	assert_int_equal(hy_nn_kpad(255), 256);
	assert_int_equal(hy_nn_kpad(768), 768);
	assert_int_equal(hy_nn_kpad(1), 8);
	/* full at batch 2048 on a 50 MiB L2: 17,024 rows of 768 (25 MiB) */
	const size_t l2 = (size_t)50 << 20;
	const int rows = 2048 * 36 - 2;
	/* SMs unknown: tiles of 128 rows, 17,024 rows = 133 tiles */
	assert_int_equal(hy_nn_conv_chunk_rows(rows, 768, l2, 0), 17024);
	/* 132 SMs: whole waves, 16,896 rows = 132 tiles (issue 56, finding 5) */
	int n = hy_nn_conv_chunk_rows(rows, 768, l2, 132);
	assert_int_equal(n, 132 * HY_NN_CHUNK_ALIGN);
	assert_true((size_t)n * 768 * 2 <= l2 / 2);
	assert_int_equal(n % HY_NN_CHUNK_ALIGN, 0);
	/* for every SM count and L2 size: whole waves when one fits, within half the L2 */
	for (int sms = 1; sms <= 160; sms++)
		for (size_t l = (size_t)8 << 20; l <= (size_t)128 << 20; l += (size_t)8 << 20) {
			int m = hy_nn_conv_chunk_rows(rows, 768, l, sms);
			size_t wave = (size_t)sms * HY_NN_CHUNK_ALIGN;
			assert_true(m == rows || (size_t)m * 768 * 2 <= l / 2 || m == HY_NN_CHUNK_ALIGN);
			if (m < rows && l / 2 / (768 * 2) >= wave)
				assert_int_equal(m % wave, 0);
		}
	assert_int_equal(hy_nn_conv_chunk_rows(100, 768, l2, 132), 100); /* one chunk */
	assert_int_equal(hy_nn_conv_chunk_rows(rows, 768, 0, 132), rows); /* L2 unknown */
	assert_int_equal(hy_nn_conv_chunk_rows(rows, 768, 1024, 132), HY_NN_CHUNK_ALIGN);
	assert_int_equal(hy_nn_conv_chunk_rows(0, 768, l2, 132), 0);
	assert_int_equal(hy_nn_conv_chunk_rows(rows, 0, l2, 132), 0);
	/* the chunks cover the rows: ⌈rows / n⌉ of them, the last partial */
	int covered = 0, chunks = 0;
	for (int r0 = 0; r0 < rows; r0 += n, chunks++)
		covered += rows - r0 < n ? rows - r0 : n;
	assert_int_equal(covered, rows);
	assert_int_equal(chunks, (rows + n - 1) / n);
}

static void test_path_pick(void **state)
{
	(void)state;
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_DEFAULT, NULL), HY_NN_CUDA_PATH_V1);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_DEFAULT, ""), HY_NN_CUDA_PATH_V1);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_DEFAULT, "v2"), HY_NN_CUDA_PATH_V2);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_DEFAULT, "v1"), HY_NN_CUDA_PATH_V1);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_DEFAULT, "fast"), -1);
	/* an explicit path wins over the environment */
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_V1, "v2"), HY_NN_CUDA_PATH_V1);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_V2, NULL), HY_NN_CUDA_PATH_V2);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_DEFAULT, "v3"), HY_NN_CUDA_PATH_V3);
	assert_int_equal(hy_nn_cuda_path_pick(HY_NN_CUDA_PATH_V3, "v1"), HY_NN_CUDA_PATH_V3);
	assert_int_equal(hy_nn_cuda_path_pick(7, NULL), -1);
}

/* Path v3's geometry (v3/map3.h) at the batches training and self-play use:
 * every tile row of every sample is in exactly one (tile, slot) and each
 * slot's index is below HY_V3_SLOTS; each sample's tiles are the ones the
 * reductions read; the weight gradient's slices cover the rows once, in
 * whole steps; the partials' highest index fits the planned scratch. */
static void test_v3_geometry(void **state)
{
	(void)state;
	assert_true(hy_v3_takes(64) && hy_v3_takes(256) && hy_v3_takes(2048));
	assert_false(hy_v3_takes(32) || hy_v3_takes(96) || hy_v3_takes(4096) || hy_v3_takes(160));
	static const int Bs[] = {1, 3, 37, 257, 1024, 2048, 4096};
	for (size_t bi = 0; bi < sizeof Bs / sizeof Bs[0]; bi++) {
		const int B = Bs[bi], R = B * HY_V3_TP, mts = hy_v3_mtiles(R);
		unsigned char *seen = calloc((size_t)R, 1);
		assert_non_null(seen);
		int max_slot = 0;
		for (int mt = 0; mt < mts; mt++)
			for (int s = 0; s < HY_V3_SLOTS; s++) {
				const int b = hy_v3_first_sample(mt) + s;
				int lo, hi;
				hy_v3_slot_rows(mt, b, &lo, &hi);
				assert_true(lo >= 0 && lo <= hi && hi <= HY_V3_BM);
				for (int row = lo; row < hi; row++) {
					const int r = mt * HY_V3_BM + row;
					if (r >= R)
						continue;
					assert_int_equal(r / HY_V3_TP, b);
					seen[r]++;
					max_slot = s > max_slot ? s : max_slot;
				}
			}
		for (int r = 0; r < R; r++) {
			const int t = r % HY_V3_TP;
			assert_int_equal(seen[r], t >= 1 && t <= HY_V3_TP - 2);
		}
		for (int b = 0; b < B; b++) {
			int lo, hi, rows = 0;
			hy_v3_sample_tiles(b, &lo, &hi);
			assert_true(lo <= hi && hi <= lo + 1 && hi < mts);
			for (int mt = lo; mt <= hi; mt++) {
				const int s = b - hy_v3_first_sample(mt);
				assert_true(s >= 0 && s < HY_V3_SLOTS);
				int r0, r1;
				hy_v3_slot_rows(mt, b, &r0, &r1);
				rows += r1 - r0;
			}
			assert_int_equal(rows, HY_V3_TP - 2);
		}
		assert_true(max_slot < HY_V3_SLOTS);
		static const int Cs[] = {64, 256};
		for (int ci = 0; ci < 2; ci++) {
			const int C = Cs[ci];
			hy_v3_scratch sc;
			hy_v3_scratch_size(B, C, 132, &sc);
			/* the highest index each epilogue writes (v3/conv.cu) */
			const size_t st_top = (((size_t)(mts - 1) * HY_V3_SLOTS + HY_V3_SLOTS - 1) *
							  HY_V3_GROUPS + HY_V3_GROUPS - 1) * 2 + 1;
			const size_t pool_top =
				(((size_t)(mts - 1) * HY_V3_SLOTS + HY_V3_SLOTS - 1) * C + C - 1) * 3 + 2;
			assert_true(st_top < sc.part && pool_top < sc.part);
			assert_true(((size_t)(mts - 1) * C + C - 1) * 2 + 1 < sc.chan);
			assert_true(sc.split >= 1 && sc.wpart == (size_t)sc.split * C * 3 * C);
			/* the slices of the weight gradient, at the planned split and at
			 * a smaller batch run under it */
			int next = 0;
			for (int s = 0; s < sc.split; s++) {
				int k0, k1;
				hy_v3_wslice(R, sc.split, s, &k0, &k1);
				assert_int_equal(k0, next);
				assert_true(k0 % HY_V3_WK == 0 && k1 % HY_V3_WK == 0 && k1 >= k0);
				next = k1;
			}
			assert_true(next >= R && next - R < HY_V3_WK);
		}
		free(seen);
	}
}

/* ------------------------------------------------------------ graphs */

/* plan.c's graph index: a key's first forward is eager, its second
 * captured, then replays; a failed key stays eager; the 17th key evicts
 * the least recently used. */
static void test_graph_index(void **state)
{
	(void)state;
	hy_nn_graph_index g;
	memset(&g, 0, sizeof g);
	int dummy[HY_NN_GRAPH_CACHE + 1], ev;
	hy_nn_graph_key old, k0 = {&dummy[0], &dummy[1], 1};
	assert_int_equal(hy_nn_graph_find(&g, &k0), -1);
	int i = hy_nn_graph_add(&g, &k0, &ev, &old);
	assert_int_equal(ev, 0);
	assert_int_equal(hy_nn_graph_find(&g, &k0), i);
	assert_int_equal(hy_nn_graph_action(&g, i), HY_NN_GRAPH_CAPTURING);
	g.e[i].state = HY_NN_GRAPH_READY;
	assert_int_equal(hy_nn_graph_action(&g, i), HY_NN_GRAPH_REPLAYED);
	g.e[i].state = HY_NN_GRAPH_FAILED;
	assert_int_equal(hy_nn_graph_action(&g, i), HY_NN_GRAPH_EAGER);
	assert_int_equal(hy_nn_graph_action(&g, -1), HY_NN_GRAPH_EAGER);
	/* the batch and the workspace are part of the key */
	hy_nn_graph_key k1 = {&dummy[0], &dummy[1], 2}, k2 = {&dummy[0], &dummy[2], 1};
	assert_int_equal(hy_nn_graph_find(&g, &k1), -1);
	assert_int_equal(hy_nn_graph_find(&g, &k2), -1);
	/* fill the index; touch k0 so that key 1 is the oldest */
	hy_nn_graph_key keys[HY_NN_GRAPH_CACHE];
	for (int j = 1; j < HY_NN_GRAPH_CACHE; j++) {
		keys[j] = (hy_nn_graph_key){&dummy[0], &dummy[j], 7};
		(void)hy_nn_graph_add(&g, &keys[j], &ev, &old);
		assert_int_equal(ev, 0);
	}
	assert_int_equal(g.n, HY_NN_GRAPH_CACHE);
	(void)hy_nn_graph_find(&g, &k0);
	hy_nn_graph_key kn = {&dummy[0], &dummy[HY_NN_GRAPH_CACHE], 7};
	int slot = hy_nn_graph_add(&g, &kn, &ev, &old);
	assert_int_equal(ev, 1);
	assert_ptr_equal(old.work, keys[1].work);
	assert_int_equal(hy_nn_graph_find(&g, &keys[1]), -1);
	assert_int_equal(hy_nn_graph_find(&g, &kn), slot);
	assert_int_equal(hy_nn_graph_action(&g, slot), HY_NN_GRAPH_CAPTURING);
	assert_true(hy_nn_graph_find(&g, &k0) >= 0);
}

/* model.c's side of the graph hooks, on the CPU backend with scripted
 * hooks: a replay queues no op, a capture queues them once, a failed
 * capture queues them again, a training workspace never asks, and freeing
 * a workspace or a model resets the graphs. The outputs of every way are
 * the CPU's own. */
static int g_answer, g_end_fails, g_begins, g_ends, g_resets, g_convs;
static const hy_nn_backend *g_cpu;

static int fake_begin(const hy_nn_ctx *c, const void *model, const void *work, int B)
{
	g_begins++;
	return g_answer;
}

static int fake_end(const hy_nn_ctx *c)
{
	g_ends++;
	return g_end_fails;
}

static void fake_reset(const hy_nn_ctx *c)
{
	g_resets++;
}

static void count_conv3(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, hy_nn_act *y)
{
	g_convs++;
	g_cpu->conv3_fwd(c, B, cin, cout, x, w, y);
}

static void test_graph_hooks(void **state)
{
	(void)state;
	g_cpu = hy_nn_backend_cpu();
	hy_nn_backend be = *g_cpu;
	be.graph_begin = fake_begin;
	be.graph_end = fake_end;
	be.graph_reset = fake_reset;
	be.conv3_fwd = count_conv3;
	hy_nn_ctx c;
	hy_nn_ctx_init(&c, 1);
	hy_diag d;
	hy_diag_init(&d, NULL);
	const hy_nn_arch a = {2, 32, 0};
	const int B = 3, convs = 1 + 2 * a.blocks; /* the stem's and two a block */
	hy_nn_model m;
	hy_rng r;
	hy_rng_seed(&r, SEED);
	assert_int_equal(hy_nn_model_init(&m, a, &be, &c, &d), HY_OK);
	assert_int_equal(hy_nn_model_init_params(&m, &r, &d), HY_OK);
	hy_sample s[3];
	memset(s, 0, sizeof s);
	hy_nn_synth_samples(&r, s, B);
	hy_nn_work wi, wt;
	assert_int_equal(hy_nn_work_init_infer(&wi, &m, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_init(&wt, &m, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_load(&wi, &m, s, B, &d), HY_OK);
	assert_int_equal(hy_nn_work_load(&wt, &m, s, B, &d), HY_OK);
	float want[3 * HY_ACTIONS];
	hy_nn_forward(&m, &wt); /* training workspace: never asks */
	memcpy(want, wt.plog, sizeof want);
	assert_int_equal(g_begins, 0);
	assert_int_equal(g_convs, convs);
	/* eager */
	g_convs = 0, g_answer = HY_NN_GRAPH_EAGER;
	hy_nn_forward(&m, &wi);
	assert_int_equal(g_begins, 1);
	assert_int_equal(g_ends, 0);
	assert_int_equal(g_convs, convs);
	assert_memory_equal(wi.plog, want, sizeof want);
	/* capturing: the ops once, then graph_end */
	g_convs = 0, g_answer = HY_NN_GRAPH_CAPTURING, g_end_fails = 0;
	hy_nn_forward(&m, &wi);
	assert_int_equal(g_ends, 1);
	assert_int_equal(g_convs, convs);
	/* a failed capture: the ops again */
	g_convs = 0, g_end_fails = 1;
	memset(wi.plog, 0, sizeof want);
	hy_nn_forward(&m, &wi);
	assert_int_equal(g_ends, 2);
	assert_int_equal(g_convs, 2 * convs);
	assert_memory_equal(wi.plog, want, sizeof want);
	/* replayed: nothing queued here */
	g_convs = 0, g_answer = HY_NN_GRAPH_REPLAYED;
	hy_nn_forward(&m, &wi);
	assert_int_equal(g_convs, 0);
	assert_int_equal(g_ends, 2);
	/* the graphs die with their workspace and their model */
	assert_int_equal(g_resets, 0);
	hy_nn_work_free(&wi, &m);
	assert_int_equal(g_resets, 1);
	hy_nn_work_free(&wt, &m);
	hy_nn_model_free(&m);
	assert_int_equal(g_resets, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bf16_round),
		cmocka_unit_test(test_plan_matches_allocations),
		cmocka_unit_test(test_plan_scratch),
		cmocka_unit_test(test_plan_scratch_v2_chunks),
		cmocka_unit_test(test_max_batch),
		cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_conv_keys),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_expand_obs),
		cmocka_unit_test(test_ckpt_device_memory),
		cmocka_unit_test(test_no_gpu),
		cmocka_unit_test(test_gn2_mapping),
		cmocka_unit_test(test_taps2_and_chunks),
		cmocka_unit_test(test_path_pick),
		cmocka_unit_test(test_v3_geometry),
		cmocka_unit_test(test_graph_index),
		cmocka_unit_test(test_graph_hooks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
