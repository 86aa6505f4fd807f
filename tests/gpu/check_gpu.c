/* check-gpu: the CUDA backend against the CPU reference (make check-gpu,
 * tests/gpu.sh). Without a GPU (or a build without the CUDA backend) it
 * prints "check-gpu: skipped: no GPU" and exits 0.
 *
 * 1. the shared bf16 rounding against __float2bfloat16_rn on the device,
 *    all 2^32 patterns;
 * 2. every op of backend.h on random inputs of awkward sizes (batch 1, 3,
 *    257; channels 32 and 256; the stem's 85 input planes), in four GPU
 *    contexts: fp32 and bf16, each with the GEMM and the cuDNN
 *    convolution forced;
 *    and the widening of compact samples (expand_obs) against the CPU's;
 *    path v3's fused block ops (nn/ops.h) in a sixth context, bf16/v3,
 *    against their reference (nn/fuse.c), channels 64 and 256;
 * 3. the whole model forward and backward (losses and every gradient);
 * 4. 50 training steps of `small` from the same initialisation and data on
 *    both backends: the loss curves agree;
 * 5. a checkpoint CPU → GPU → CPU: weights and moments bit-identical;
 * 6. the same GPU run twice: losses and weights bit-identical;
 * 7. rows at the sizes of real runs: training in all four convolution
 *    modes, PPO (one minibatch's gradient, then updates), `full` for three
 *    steps, the batch-indexed ops at batch 4096, and inference at every
 *    batch 1…1024 with the number of convolution timings asserted.
 *
 * Comparisons: |gpu − cpu| ≤ atol + rtol·|cpu| element-wise, with atol a
 * fraction of the reference's RMS (so a tolerance means the same on any
 * scale); every tolerance is justified where it is defined. Random inputs
 * come from a seed printed at the start (CHECK_GPU_SEED overrides it).
 *
 * Past STYLE.md's 1,000 lines on purpose: one program whose cases all use
 * the same contexts, transfer helpers, tolerances and op table, kept as
 * file statics in one translation unit (the table's end-of-run check that
 * every op's comparison ran reads what every case marked). */
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "nn/cuda/compact.h"
#include "nn/cuda/cuda.h"
#include "nn/cuda/plan.h"
#include "nn/fuse.h"
#include "nn/math.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/prof.h"
#include "nn/synth.h"
#include "train/ppo.h"

#include "../unit/fixture_cmp.h"

/* ---------------------------------------------------------------- tolerances */

typedef struct tol {
	double rtol, atol; /* atol × RMS of the reference */
} tol;

/* fp32 against fp32: the same maths, different summation orders (cuBLAS
 * blocks K, the CPU splits rows) and FMA contraction on the GPU. For a sum
 * of K products the difference is a few K·2⁻²⁴ relative to the terms at
 * worst: K = 768 (3 × 256) gives ~5e-5; 2e-4 leaves room. */
static const tol FP32 = {2e-4, 2e-4};
/* cuDNN in fp32 may pick an FFT or Winograd algorithm (deterministic, but
 * transforming the data), whose rounding error reaches ~1e-4 of the RMS:
 * 1e-3 for the fp32 cuDNN convolutions. */
static const tol FP32_DNN = {1e-3, 1e-3};
/* Kernels that evaluate the same functions of math.h in the same order
 * (elementwise, and sums over at most 36 rows) differ only by nvcc's FMA
 * contraction and the device's expf/log1pf (≤ 2 ulp each): 1e-5 relative,
 * and 1e-5 of the RMS where a sum cancels to near 0 (36 terms of ~1 at
 * 6e-8 each is 2e-6). */
static const tol ELEM = {1e-5, 1e-5};
/* bf16 operands: each rounded to 8 significant bits (relative error
 * ≤ 2⁻⁹ ≈ 2e-3), products summed in fp32. The error of a sum of K
 * random-signed products is ~2e-3·√K·rms(term) against an output of
 * ~√K·rms(term): ~3e-3 of the output's RMS; cuDNN's bf16 output is rounded
 * once more (another 2e-3). 3e-2 is a wide margin over that and still
 * catches a wrong tap, transpose or offset (errors of order 1). */
static const tol BF16 = {3e-2, 3e-2};
/* An fp32 computation on identical inputs whose output is STORED in bf16
 * (activation storage, backend.h): rounding to 8 significant bits is an
 * error of at most half an ulp, 2⁻⁸ of the value; an fp32 difference at
 * a rounding boundary may flip it to a whole ulp, ≤ 2⁻⁷ ≈ 7.8e-3: 1e-2
 * relative, plus the fp32 tolerance of the RMS where values cancel. */
static const tol BF16_OUT = {1e-2, 2e-4};

static int failures, checks;
static uint64_t seed;

/* ---------------------------------------------------------------- the op table
 *
 * Every member of backend.h with what checks it here: `by` is the prefix of
 * the comparisons (compare's names) that must have run for it — each op is
 * compared on the CPU's results in fp32 and bf16, with the GEMM and the
 * cuDNN convolution, at the sizes and tolerances its check function states —
 * or NULL for the memory and queue members that every comparison uses and
 * that have no result of their own. The ops' rows come from nn/ops.h (its
 * check column), so an op added there is a case here; a member added to
 * backend.h outside the list without a row fails to compile (the assertion
 * below); a row whose comparisons did not run fails the check at the end.
 * `check_gpu --list` prints the table (no GPU needed). */
typedef struct op_row {
	const char *op, *by;
	size_t at; /* offsetof the member in hy_nn_backend */
} op_row;
#define MEMBER(name, by) {#name, by, offsetof(hy_nn_backend, name)}
static const op_row OPS[] = {
#define OP_ROW(kind, ret, name, params, args, check) MEMBER(name, check),
	HY_NN_OPS(OP_ROW)
#undef OP_ROW
	MEMBER(name, NULL), MEMBER(alloc, NULL), MEMBER(free, NULL), MEMBER(to_dev, NULL),
	MEMBER(to_host, NULL), MEMBER(zero, NULL), MEMBER(act_size, NULL),
	MEMBER(act_put, NULL), MEMBER(act_get, NULL), MEMBER(host_alloc, NULL),
	MEMBER(host_free, NULL), MEMBER(to_dev_async, "inference"),
	MEMBER(to_host_async, "copy fence"), MEMBER(copy_mark, "copy fence"),
	MEMBER(copy_wait, "copy fence"), MEMBER(copy_done, "copy fence"), MEMBER(sync, NULL),
	MEMBER(mark, "mark"), MEMBER(mark_ms, "mark"), MEMBER(graph_begin, "graph"),
	MEMBER(graph_end, "graph"), MEMBER(graph_reset, "graph"),
};
#undef MEMBER
enum { NOPS = sizeof OPS / sizeof OPS[0] };
_Static_assert(NOPS * sizeof(void *) == sizeof(hy_nn_backend),
	"a member of hy_nn_backend (backend.h) has no row in check_gpu's op table");
static int op_seen[NOPS];

/* --list: every op of nn/ops.h, whether the CPU's and the CUDA backend's
 * tables fill it, whether the profiler wraps it, and the comparisons that
 * check it here (tests/shell/t0056 reads it). */
static int list_ops(void)
{
	const hy_nn_backend *cpu = hy_nn_backend_cpu(), *cuda = hy_nn_backend_cuda();
	for (int i = 0; i < HY_NN_OPS_N; i++) {
		int prof = 0;
		for (int j = 0; hy_nn_prof_op_name(j); j++)
			prof |= !strcmp(hy_nn_prof_op_name(j), OPS[i].op);
#define FILLED(be) ((be) && *(void *const *)((const char *)(be) + OPS[i].at) ? "yes" : "no")
		printf("%-14s cpu=%-3s cuda=%-3s prof=%-3s check=%s\n", OPS[i].op, FILLED(cpu),
			cuda ? FILLED(cuda) : "-", prof ? "yes" : "no", OPS[i].by);
#undef FILLED
	}
	return 0;
}

static void covered(const char *what)
{
	for (int i = 0; i < NOPS; i++)
		if (OPS[i].by && !strncmp(what, OPS[i].by, strlen(OPS[i].by)))
			op_seen[i]++;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* Compares n values; got is host memory. */
static void compare(const char *what, const float *ref, const float *got, size_t n, tol t)
{
	double ss = 0, worst = 0;
	size_t bad = 0, at = 0;
	for (size_t i = 0; i < n; i++)
		ss += (double)ref[i] * ref[i];
	double rms = n ? sqrt(ss / (double)n) : 0, atol = t.atol * rms;
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)got[i] - ref[i]), lim = atol + t.rtol * fabs(ref[i]);
		if (!(e <= lim)) { /* NaN fails too */
			if (!bad)
				at = i;
			bad++;
		}
		if (e / (lim > 0 ? lim : 1) > worst || isnan(e))
			worst = isnan(e) ? INFINITY : e / (lim > 0 ? lim : 1);
	}
	checks++;
	covered(what);
	if (bad) {
		failures++;
		note("FAIL %s: %zu of %zu values out of tolerance; first [%zu] cpu %.9g gpu %.9g "
			"(rms %.3g; seed %llu)\n", what, bad, n, at, ref[at], got[at], rms,
			(unsigned long long)seed);
	} else {
		note("ok   %s (worst %.2f of the tolerance)\n", what, worst);
	}
}

static void compare_scalar(const char *what, double ref, double got, double rtol)
{
	checks++;
	covered(what);
	if (!(fabs(got - ref) <= rtol * fabs(ref) + 1e-12)) {
		failures++;
		note("FAIL %s: cpu %.12g gpu %.12g (seed %llu)\n", what, ref, got,
			(unsigned long long)seed);
	} else {
		note("ok   %s\n", what);
	}
}

static void require(int ok, const char *what)
{
	checks++;
	covered(what);
	if (!ok) {
		failures++;
		note("FAIL %s (seed %llu)\n", what, (unsigned long long)seed);
	} else {
		note("ok   %s\n", what);
	}
}

/* ---------------------------------------------------------------- setup */

/* GPU contexts: fp32/gemm, fp32/cudnn, bf16/gemm, bf16/cudnn with the v1
 * kernels, and bf16/v2: issue 43's kernels (cuda.h hy_nn_cuda_path: the
 * chunked taps, the in-place weight gradient, the padded stem, GroupNorm+Mish
 * and SE in vectors). Even k is a GEMM-convolution context, k < 2 fp32. */
enum { NG = 6, V3 = 5 };
static const char *gname[NG] = {"fp32/gemm", "fp32/cudnn", "bf16/gemm", "bf16/cudnn", "bf16/v2",
	"bf16/v3"};

/* bf16/v3: issue 56's fused block (lib/nn/cuda/v3/) beside v2's kernels. */
static int path_of(int k)
{
	return k == V3 ? HY_NN_CUDA_PATH_V3 : k == 4 ? HY_NN_CUDA_PATH_V2 : HY_NN_CUDA_PATH_V1;
}

/* The convolution mode of kind k: cuDNN in the odd v1 kinds. */
static int conv_of(int k)
{
	return k % 2 && k < 4 ? HY_NN_CONV_CUDNN : HY_NN_CONV_GEMM;
}

typedef struct env {
	hy_nn_ctx cpu, gpu[NG];
	const hy_nn_backend *cb, *gb;
	hy_rng r;
} env;

static int die(const char *what, const hy_diag *d)
{
	fprintf(stderr, "check-gpu: %s: %s\n", what, d->msg);
	return 1;
}

static float *host(size_t n)
{
	float *p = calloc(n ? n : 1, sizeof *p);
	if (!p) {
		fprintf(stderr, "check-gpu: out of memory\n");
		exit(1);
	}
	return p;
}

static float *randv(env *e, size_t n, double sd)
{
	float *v = host(n);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(sd * hy_rng_normal(&e->r));
	return v;
}

static float *randact(env *e, int B, int C)
{
	float *v = randv(e, (size_t)B * HY_NN_TP * C, 1.0);
	hy_nn_zero_pads_cpu(&e->cpu, B, C, v);
	return v;
}

/* n bytes of device memory (exits when there are none). */
static void *dalloc(env *e, size_t bytes)
{
	void *p = e->gb->alloc(bytes);
	if (!p) {
		fprintf(stderr, "check-gpu: out of device memory\n");
		exit(1);
	}
	return p;
}

/* Waits for context g's queued work (exits on a failure). */
static void drain(env *e, const hy_nn_ctx *g)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (e->gb->sync(g, &d)) {
		fprintf(stderr, "check-gpu: %s\n", d.msg);
		exit(1);
	}
}

/* A device copy of n bytes of host memory. */
static void *up(env *e, const void *h, size_t bytes)
{
	void *p = dalloc(e, bytes);
	e->gb->to_dev(p, h, bytes);
	return p;
}

/* Host copy of n floats of device memory, after the queued work. */
static float *down(env *e, const hy_nn_ctx *g, const void *dptr, size_t n)
{
	drain(e, g);
	float *h = host(n);
	e->gb->to_host(h, dptr, n * sizeof(float));
	return h;
}

#define NAME(...) (snprintf(nm, sizeof nm, __VA_ARGS__), nm)

/* Activation storage of context g (backend.h hy_nn_act: fp32, or bf16 in
 * the bf16 contexts): a device copy of n host floats, and n floats back. */
static hy_nn_act *upact(env *e, const hy_nn_ctx *g, const float *h, size_t n)
{
	hy_nn_act *p = dalloc(e, n * hy_nn_act_size(e->gb, g));
	hy_nn_act_put(e->gb, g, n, h, p);
	return p;
}

static float *downact(env *e, const hy_nn_ctx *g, const hy_nn_act *dptr, size_t n)
{
	drain(e, g);
	float *h = host(n);
	hy_nn_act_get(e->gb, g, n, dptr, h);
	return h;
}

/* A copy of n floats, rounded to bf16 when bf16 (the values a bf16
 * context stores), so that the CPU reference sees the GPU's inputs. */
static float *stored(const float *v, size_t n, int bf16)
{
	float *r = host(n);
	for (size_t i = 0; i < n; i++)
		r[i] = bf16 ? hy_nn_bf16_to_float(hy_nn_bf16_round(v[i])) : v[i];
	return r;
}

static int is_bf16(const hy_nn_ctx *g)
{
	return g->precision == HY_NN_PREC_BF16;
}

/* The CPU stores activations in fp32 (backend.h): its ops take host floats. */
#define CACT(p) ((hy_nn_act *)(p))


/* ---------------------------------------------------------------- ops */

/* conv3 forward and both gradients (dW accumulates onto a random start).
 * In the bf16 contexts x and dy are activation storage: the CPU reference
 * is given the same bf16-rounded values, and y, dx come back rounded
 * (within the BF16 tolerance, which covers a rounding of the output). */
static void check_conv(env *e, int B, int cin, int cout)
{
	char nm[160];
	const size_t nx = (size_t)B * HY_NN_TP * cin, ny = (size_t)B * HY_NN_TP * cout;
	const size_t nw = (size_t)cout * 3 * cin;
	float *x0 = randact(e, B, cin), *w = randv(e, nw, 1.0 / sqrt(3.0 * cin));
	float *dy0 = randact(e, B, cout), *dw0 = randv(e, nw, 1.0);
	float *gw = up(e, w, nw * 4), *gdw = up(e, dw0, nw * 4);
	for (int k = 0; k < NG; k++) {
		const hy_nn_ctx *g = &e->gpu[k];
		const int bf = is_bf16(g);
		tol t = k == 0 ? FP32 : k == 1 ? FP32_DNN : BF16;
		float *x = stored(x0, nx, bf), *dy = stored(dy0, ny, bf);
		float *y = host(ny), *dx = host(nx), *dw = host(nw);
		memcpy(dw, dw0, nw * sizeof *dw);
		e->cb->conv3_fwd(&e->cpu, B, cin, cout, CACT(x), w, CACT(y));
		e->cb->conv3_bwd(&e->cpu, B, cin, cout, CACT(x), w, CACT(dy), CACT(dx), dw);
		hy_nn_act *gx = upact(e, g, x, nx), *gdy = upact(e, g, dy, ny);
		hy_nn_act *gy = upact(e, g, y, ny), *gdx = upact(e, g, dx, nx);
		e->gb->to_dev(gdw, dw0, nw * 4);
		e->gb->conv3_fwd(g, B, cin, cout, gx, gw, gy);
		e->gb->conv3_bwd(g, B, cin, cout, gx, gw, gdy, gdx, gdw);
		float *hy = downact(e, g, gy, ny), *hdx = downact(e, g, gdx, nx);
		float *hdw = down(e, g, gdw, nw);
		compare(NAME("conv3_fwd B=%d %d->%d %s", B, cin, cout, gname[k]), y, hy, ny, t);
		compare(NAME("conv3_bwd dx B=%d %d->%d %s", B, cin, cout, gname[k]), dx, hdx, nx, t);
		compare(NAME("conv3_bwd dw B=%d %d->%d %s", B, cin, cout, gname[k]), dw, hdw, nw, t);
		e->gb->free(gx), e->gb->free(gdy), e->gb->free(gy), e->gb->free(gdx);
		free(hy), free(hdx), free(hdw), free(x), free(dy), free(y), free(dx), free(dw);
	}
	e->gb->free(gw), e->gb->free(gdw);
	free(x0), free(w), free(dy0), free(dw0);
}

/* The 1×1 convolutions of the heads: activation storage in (x) and, in
 * backward, out (dx, both modes); fp32 y, dy, weights. */
static void check_conv1(env *e, int B, int cin, int cout)
{
	char nm[160];
	const size_t nx = (size_t)B * HY_NN_TP * cin, ny = (size_t)B * HY_NN_TP * cout;
	const size_t nw = (size_t)cout * cin;
	float *x0 = randact(e, B, cin), *w = randv(e, nw, 1.0 / sqrt(cin)), *b = randv(e, cout, 1.0);
	float *dy = randact(e, B, cout), *dx00 = randact(e, B, cin), *dw0 = randv(e, nw, 1.0);
	float *db0 = randv(e, cout, 1.0);
	float *gw = up(e, w, nw * 4), *gb_ = up(e, b, (size_t)cout * 4), *gdy = up(e, dy, ny * 4);
	float *gy = up(e, dy, ny * 4), *gdw = up(e, dw0, nw * 4), *gdb = up(e, db0, (size_t)cout * 4);
	for (int k = 0; k < NG; k += 2) /* GEMMs only: the gemm contexts */
		for (int acc = 0; acc < 2; acc++) {
			const hy_nn_ctx *g = &e->gpu[k];
			const int bf = is_bf16(g);
			tol t = bf ? BF16 : FP32;
			float *x = stored(x0, nx, bf), *dx0 = stored(dx00, nx, bf);
			float *y = host(ny), *dx = host(nx), *dw = host(nw), *db = host(cout);
			memcpy(dx, dx0, nx * 4), memcpy(dw, dw0, nw * 4), memcpy(db, db0, (size_t)cout * 4);
			e->cb->conv1_fwd(&e->cpu, B, cin, cout, CACT(x), w, b, y);
			e->cb->conv1_bwd(&e->cpu, B, cin, cout, CACT(x), w, dy, CACT(dx), acc, dw, db);
			hy_nn_act *gx = upact(e, g, x, nx), *gdx = upact(e, g, dx0, nx);
			e->gb->to_dev(gdw, dw0, nw * 4), e->gb->to_dev(gdb, db0, (size_t)cout * 4);
			e->gb->conv1_fwd(g, B, cin, cout, gx, gw, gb_, gy);
			e->gb->conv1_bwd(g, B, cin, cout, gx, gw, gdy, gdx, acc, gdw, gdb);
			float *hy = down(e, g, gy, ny), *hdx = downact(e, g, gdx, nx);
			float *hdw = down(e, g, gdw, nw), *hdb = down(e, g, gdb, cout);
			compare(NAME("conv1_fwd B=%d %d->%d %s", B, cin, cout, gname[k]), y, hy, ny, t);
			compare(NAME("conv1_bwd dx%s B=%d %d->%d %s", acc ? "+=" : "=", B, cin, cout,
					gname[k]), dx, hdx, nx, t);
			compare(NAME("conv1_bwd dw B=%d %d->%d %s", B, cin, cout, gname[k]), dw, hdw, nw, t);
			/* db is an fp32 sum of fp32 dy in both precisions */
			compare(NAME("conv1_bwd db B=%d %d->%d %s", B, cin, cout, gname[k]), db, hdb, cout,
				FP32);
			e->gb->free(gx), e->gb->free(gdx);
			free(hy), free(hdx), free(hdw), free(hdb), free(x), free(dx0), free(y), free(dx);
			free(dw), free(db);
		}
	void *dev[] = {gw, gb_, gdy, gy, gdw, gdb};
	for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
		e->gb->free(dev[i]);
	free(x0), free(w), free(b), free(dy), free(dx00), free(dw0), free(db0);
}

/* linear forward/backward on rows × in (row stride ldx) → out. */
static void check_linear(env *e, const char *tag, int rows, int in, int ldx, int out,
	int pad_B, int dx_acc)
{
	char nm[160];
	const size_t nx = (size_t)rows * ldx, ny = (size_t)rows * out, nw = (size_t)out * in;
	float *x = randv(e, nx, 1.0), *w = randv(e, nw, 1.0 / sqrt(in)), *b = randv(e, out, 1.0);
	float *dy = randv(e, ny, 1.0), *dx0 = randv(e, nx, 1.0), *dw0 = randv(e, nw, 1.0);
	float *db0 = randv(e, out, 1.0);
	if (pad_B) {
		hy_nn_zero_pads_cpu(&e->cpu, pad_B, out, dy);
		hy_nn_zero_pads_cpu(&e->cpu, pad_B, ldx, x);
	}
	float *y = host(ny), *dx = host(nx), *dw = host(nw), *db = host(out);
	memcpy(dx, dx0, nx * 4), memcpy(dw, dw0, nw * 4), memcpy(db, db0, (size_t)out * 4);
	e->cb->linear_fwd(&e->cpu, rows, in, out, x, ldx, w, b, y, out, pad_B);
	e->cb->linear_bwd(&e->cpu, rows, in, out, x, ldx, w, dy, out, dx, dx_acc, dw, db);
	float *gx = up(e, x, nx * 4), *gw = up(e, w, nw * 4), *gb_ = up(e, b, (size_t)out * 4);
	float *gdy = up(e, dy, ny * 4), *gy = up(e, y, ny * 4), *gdx = up(e, dx0, nx * 4);
	float *gdw = up(e, dw0, nw * 4), *gdb = up(e, db0, (size_t)out * 4);
	for (int k = 0; k < NG; k += 2) { /* no convolution here: gemm contexts only */
		const hy_nn_ctx *g = &e->gpu[k];
		tol t = k < 2 ? FP32 : BF16;
		e->gb->to_dev(gdx, dx0, nx * 4), e->gb->to_dev(gdw, dw0, nw * 4);
		e->gb->to_dev(gdb, db0, (size_t)out * 4);
		e->gb->linear_fwd(g, rows, in, out, gx, ldx, gw, gb_, gy, out, pad_B);
		e->gb->linear_bwd(g, rows, in, out, gx, ldx, gw, gdy, out, gdx, dx_acc, gdw, gdb);
		float *hy = down(e, g, gy, ny), *hdx = down(e, g, gdx, nx);
		float *hdw = down(e, g, gdw, nw), *hdb = down(e, g, gdb, out);
		compare(NAME("linear_fwd %s %s", tag, gname[k]), y, hy, ny, t);
		/* dx only on the columns the op writes (ldx may exceed in) */
		compare(NAME("linear_bwd dx %s %s", tag, gname[k]), dx, hdx, nx, t);
		compare(NAME("linear_bwd dw %s %s", tag, gname[k]), dw, hdw, nw, t);
		/* db is an fp32 sum in both precisions */
		compare(NAME("linear_bwd db %s %s", tag, gname[k]), db, hdb, out, FP32);
		free(hy), free(hdx), free(hdw), free(hdb);
	}
	void *dev[] = {gx, gw, gb_, gdy, gy, gdx, gdw, gdb};
	for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
		e->gb->free(dev[i]);
	free(x), free(w), free(b), free(dy), free(dx0), free(dw0), free(db0), free(y), free(dx);
	free(dw), free(db);
}

/* GroupNorm + Mish forward and backward (both dx modes) in the fp32 and
 * bf16 gemm contexts (the kernels do not depend on the convolution
 * choice), then Mish/ReLU (fp32 head tensors). bf16: the CPU is given the
 * stored (rounded) inputs, z included, so the two compute on the same
 * values and differ by the rounding of the stored outputs (BF16_OUT);
 * statistics and parameter gradients are fp32 on both (FP32). */
static void check_gn(env *e, int B, int C)
{
	char nm[160];
	const size_t n = (size_t)B * HY_NN_TP * C, ns = (size_t)B * HY_NN_GROUPS;
	float *x0 = randact(e, B, C), *ga = randv(e, C, 1.0), *be = randv(e, C, 1.0);
	float *da0 = randact(e, B, C), *dx00 = randact(e, B, C);
	for (int c = 0; c < C; c++)
		ga[c] += 1.0f;
	float *z = host(n), *a = host(n), *mean = host(ns), *rstd = host(ns), *dx = host(n);
	float *dga = randv(e, C, 1.0), *dbe = randv(e, C, 1.0), *scr = host(2 * (size_t)B * C);
	float *dga0 = host(C), *dbe0 = host(C);
	memcpy(dga0, dga, (size_t)C * 4), memcpy(dbe0, dbe, (size_t)C * 4);
	for (int k = 0; k < NG; k += 2)
		for (int acc = 0; acc < 2; acc++) {
			const hy_nn_ctx *g = &e->gpu[k];
			const int bf = is_bf16(g);
			const tol to = bf ? BF16_OUT : FP32;
			float *x = stored(x0, n, bf), *da = stored(da0, n, bf), *dx0 = stored(dx00, n, bf);
			memcpy(dx, dx0, n * 4);
			memcpy(dga, dga0, (size_t)C * 4), memcpy(dbe, dbe0, (size_t)C * 4);
			e->cb->gn_mish_fwd(&e->cpu, B, C, CACT(x), ga, be, CACT(z), CACT(a), mean, rstd);
			float *zs = stored(z, n, bf); /* the z the GPU's backward reads */
			e->cb->gn_mish_bwd(&e->cpu, B, C, CACT(x), CACT(zs), ga, mean, rstd, CACT(da),
				CACT(dx), acc, dga, dbe, scr);
			hy_nn_act *gx = upact(e, g, x, n), *gda = upact(e, g, da, n);
			hy_nn_act *gdx = upact(e, g, dx0, n), *gz = upact(e, g, z, n);
			hy_nn_act *ga_ = upact(e, g, a, n);
			float *gga = up(e, ga, (size_t)C * 4), *gbe = up(e, be, (size_t)C * 4);
			float *gdga = up(e, dga0, (size_t)C * 4), *gdbe = up(e, dbe0, (size_t)C * 4);
			float *gm = up(e, mean, ns * 4), *gr = up(e, rstd, ns * 4);
			float *gscr = up(e, scr, 2 * (size_t)B * C * 4);
			e->gb->gn_mish_fwd(g, B, C, gx, gga, gbe, gz, ga_, gm, gr);
			/* the backward on the CPU's forward results (z as stored, mean,
			 * rstd), not the GPU's: a z that rounds to the other bf16
			 * neighbour on the GPU (fp32 summation order) would be an error
			 * of the forward counted against the backward */
			hy_nn_act *gzb = upact(e, g, zs, n);
			float *gmb = up(e, mean, ns * 4), *grb = up(e, rstd, ns * 4);
			e->gb->gn_mish_bwd(g, B, C, gx, gzb, gga, gmb, grb, gda, gdx, acc, gdga, gdbe,
				gscr);
			float *hz = downact(e, g, gz, n), *ha = downact(e, g, ga_, n);
			float *hm = down(e, g, gm, ns), *hr = down(e, g, gr, ns);
			float *hdx = downact(e, g, gdx, n);
			float *hdga = down(e, g, gdga, C), *hdbe = down(e, g, gdbe, C);
			if (!acc) {
				compare(NAME("gn_mish_fwd z B=%d C=%d %s", B, C, gname[k]), z, hz, n, to);
				compare(NAME("gn_mish_fwd a B=%d C=%d %s", B, C, gname[k]), a, ha, n, to);
				compare(NAME("gn_mish_fwd mean B=%d C=%d %s", B, C, gname[k]), mean, hm, ns,
					FP32);
				compare(NAME("gn_mish_fwd rstd B=%d C=%d %s", B, C, gname[k]), rstd, hr, ns,
					FP32);
			}
			compare(NAME("gn_mish_bwd dx%s B=%d C=%d %s", acc ? "+=" : "=", B, C, gname[k]),
				dx, hdx, n, to);
			compare(NAME("gn_mish_bwd dgamma B=%d C=%d %s", B, C, gname[k]), dga, hdga, C,
				FP32);
			compare(NAME("gn_mish_bwd dbeta B=%d C=%d %s", B, C, gname[k]), dbe, hdbe, C,
				FP32);
			void *dev[] = {gx, gga, gbe, gda, gdx, gdga, gdbe, gz, ga_, gm, gr, gscr, gzb,
				gmb, grb};
			for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
				e->gb->free(dev[i]);
			free(hz), free(ha), free(hm), free(hr), free(hdx), free(hdga), free(hdbe);
			free(x), free(da), free(dx0), free(zs);
		}
	/* elementwise: Mish, Mish', ReLU, ReLU' on the same sizes (fp32) */
	const hy_nn_ctx *g = &e->gpu[0];
	float *x = x0, *da = da0;
	float *m1 = host(n), *m2 = host(n), *h = host(n), *dh = host(n);
	e->cb->mish_fwd(&e->cpu, n, x, m1);
	e->cb->mish_bwd(&e->cpu, n, x, da, m2);
	memcpy(h, x, n * 4), memcpy(dh, da, n * 4);
	e->cb->relu_fwd(&e->cpu, n, h);
	e->cb->relu_bwd(&e->cpu, n, h, dh);
	float *gx = up(e, x, n * 4), *gda = up(e, da, n * 4), *g1 = up(e, m1, n * 4);
	float *g2 = up(e, m2, n * 4), *gh = up(e, x, n * 4), *gdh = up(e, da, n * 4);
	e->gb->mish_fwd(g, n, gx, g1);
	e->gb->mish_bwd(g, n, gx, gda, g2);
	e->gb->relu_fwd(g, n, gh);
	e->gb->relu_bwd(g, n, gh, gdh);
	float *h1 = down(e, g, g1, n), *h2 = down(e, g, g2, n), *hh = down(e, g, gh, n);
	float *hdh = down(e, g, gdh, n);
	compare(NAME("mish_fwd n=%zu", n), m1, h1, n, ELEM);
	compare(NAME("mish_bwd n=%zu", n), m2, h2, n, ELEM);
	compare(NAME("relu_fwd n=%zu", n), h, hh, n, ELEM);
	compare(NAME("relu_bwd n=%zu", n), dh, hdh, n, ELEM);
	void *dev[] = {gx, gda, g1, g2, gh, gdh};
	for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
		e->gb->free(dev[i]);
	free(h1), free(h2), free(hh), free(hdh), free(m1), free(m2), free(h), free(dh);
	free(x0), free(ga), free(be), free(da0), free(dx00), free(z), free(a), free(mean);
	free(rstd), free(dx), free(dga), free(dbe), free(scr), free(dga0), free(dbe0);
}

/* Pools (with and without max) and the SE gate, in the fp32 and bf16 gemm
 * contexts; bf16 as check_gn: the same stored inputs on both, stored
 * outputs within BF16_OUT, fp32 outputs (pooled features, gates, de2)
 * within ELEM — except that pool_bwd adds to a stored dx (BF16_OUT). */
static void check_pool_se(env *e, int B, int C)
{
	char nm[160];
	const size_t n = (size_t)B * HY_NN_TP * C, bc = (size_t)B * C;
	float *x0 = randact(e, B, C), *y0 = randact(e, B, C), *dout0 = randact(e, B, C);
	float *e2 = randv(e, 2 * bc, 1.0), *dp = randv(e, 2 * bc, 1.0), *dx00 = randact(e, B, C);
	float *P = host(2 * bc), *S = host(bc), *out = host(n), *dy = host(n), *de2 = host(2 * bc);
	float *dx = host(n);
	uint8_t *arg = calloc(bc, 1), *harg = malloc(bc);
	for (int k = 0; k < NG; k += 2) {
		const hy_nn_ctx *g = &e->gpu[k];
		const int bf = is_bf16(g);
		const tol to = bf ? BF16_OUT : ELEM;
		float *x = stored(x0, n, bf), *y = stored(y0, n, bf), *dout = stored(dout0, n, bf);
		float *dx0 = stored(dx00, n, bf);
		memcpy(dx, dx0, n * 4);
		e->cb->pool_fwd(&e->cpu, B, C, CACT(x), P, P + bc, arg, C);
		e->cb->pool_bwd(&e->cpu, B, C, dp, dp + bc, arg, C, CACT(dx));
		e->cb->se_fwd(&e->cpu, B, C, CACT(x), CACT(y), e2, S, CACT(out));
		e->cb->se_bwd(&e->cpu, B, C, CACT(y), S, CACT(dout), CACT(dy), de2);
		hy_nn_act *gx = upact(e, g, x, n), *gy = upact(e, g, y, n), *gdo = upact(e, g, dout, n);
		hy_nn_act *gdx = upact(e, g, dx0, n), *go = upact(e, g, out, n);
		hy_nn_act *gdy = upact(e, g, dy, n);
		float *ge2 = up(e, e2, 2 * bc * 4), *gdp = up(e, dp, 2 * bc * 4);
		float *gP = up(e, P, 2 * bc * 4), *gS = up(e, S, bc * 4), *gde = up(e, de2, 2 * bc * 4);
		uint8_t *garg = up(e, arg, bc);
		e->gb->pool_fwd(g, B, C, gx, gP, gP + bc, garg, C);
		e->gb->pool_bwd(g, B, C, gdp, gdp + bc, garg, C, gdx);
		e->gb->se_fwd(g, B, C, gx, gy, ge2, gS, go);
		e->gb->se_bwd(g, B, C, gy, gS, gdo, gdy, gde);
		float *hP = down(e, g, gP, 2 * bc), *hdx = downact(e, g, gdx, n);
		float *hS = down(e, g, gS, bc), *ho = downact(e, g, go, n), *hdy = downact(e, g, gdy, n);
		float *hde = down(e, g, gde, 2 * bc);
		e->gb->to_host(harg, garg, bc);
		compare(NAME("pool_fwd avg/max B=%d C=%d %s", B, C, gname[k]), P, hP, 2 * bc, ELEM);
		require(memcmp(arg, harg, bc) == 0, NAME("pool_fwd argmax B=%d C=%d %s", B, C,
							  gname[k]));
		compare(NAME("pool_bwd B=%d C=%d %s", B, C, gname[k]), dx, hdx, n, to);
		compare(NAME("se_fwd s B=%d C=%d %s", B, C, gname[k]), S, hS, bc, ELEM);
		compare(NAME("se_fwd out B=%d C=%d %s", B, C, gname[k]), out, ho, n, to);
		compare(NAME("se_bwd dy B=%d C=%d %s", B, C, gname[k]), dy, hdy, n, to);
		/* Σ over 36 rows in the same order on both: elementwise tolerance */
		compare(NAME("se_bwd de2 B=%d C=%d %s", B, C, gname[k]), de2, hde, 2 * bc, ELEM);
		/* average pool only */
		e->cb->pool_fwd(&e->cpu, B, C, CACT(y), P, NULL, NULL, C);
		e->gb->pool_fwd(g, B, C, gy, gP, NULL, NULL, C);
		float *hP2 = down(e, g, gP, bc);
		compare(NAME("pool_fwd avg-only B=%d C=%d %s", B, C, gname[k]), P, hP2, bc, ELEM);
		void *dev[] = {gx, gy, gdo, ge2, gdp, gdx, gP, gS, go, gdy, gde, garg};
		for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
			e->gb->free(dev[i]);
		free(hP), free(hdx), free(hS), free(ho), free(hdy), free(hde), free(hP2);
		free(x), free(y), free(dout), free(dx0);
	}
	free(x0), free(y0), free(dout0), free(e2), free(dp), free(dx00), free(P), free(S);
	free(out), free(dy), free(de2), free(dx), free(arg), free(harg);
}

/* Path v3's fused block ops (nn/ops.h) in the bf16/v3 context against
 * their CPU reference (nn/fuse.c), each from the same stored inputs: the
 * statistics, the convolution with GroupNorm+Mish in its prologue and the
 * sums or pools in its epilogue, the gate with the sums of its output,
 * the backward to GroupNorm's output (the weight gradient accumulated onto
 * a random start) and GroupNorm's input gradient (= and +=). Outputs in
 * bf16 storage and sums over them within BF16 (a convolution of bf16
 * operands; the GPU's sums are of its stored, rounded outputs); mean and
 * rstd from the same sums within FP32; an argmax is right when it points
 * at a value within BF16_OUT of the reference's maximum. */
static void check_v3(env *e, int B, int C)
{
	char nm[160];
	const hy_nn_ctx *g = &e->gpu[V3];
	if (!e->gb->fused_block(g, C)) {
		require(0, NAME("v3 fused_block C=%d: the bf16/v3 context runs no v3 block", C));
		return;
	}
	require(e->gb->fused_block(g, C) && !e->gb->fused_block(g, 32) &&
			!e->gb->fused_block(&e->gpu[4], C),
		NAME("v3 fused_block C=%d: on, off at 32 channels and in the v2 context", C));
	hy_nn_backend ref;
	hy_nn_fused_ref_table(&ref);
	const size_t n = (size_t)B * HY_NN_TP * C, bc = (size_t)B * C, ns = 2 * (size_t)B * 32;
	const size_t nw = (size_t)C * 3 * C, nm_ = (size_t)B * 32;
	float *x = randact(e, B, C), *dy = randact(e, B, C), *dx0 = randact(e, B, C);
	float *w = randv(e, nw, 1.0 / sqrt(3.0 * C));
	float *in[] = {x, dy, dx0};
	for (int i = 0; i < 3; i++) /* the values bf16 storage holds, on both sides */
		for (size_t j = 0; j < n; j++)
			in[i][j] = hy_nn_bf16_to_float(hy_nn_bf16_round(in[i][j]));
	float *ga = randv(e, C, 0.2), *be = randv(e, C, 0.2), *dw0 = randv(e, nw, 0.1);
	float *e2 = randv(e, 2 * bc, 1.0), *dg0 = randv(e, C, 1.0), *db0 = randv(e, C, 1.0);
	for (int c = 0; c < C; c++)
		ga[c] += 1.0f;
	float *st = host(ns), *mean = host(nm_), *rstd = host(nm_), *y = host(n), *y2 = host(n);
	float *st2 = host(ns), *P = host(2 * bc), *tmp = host(n), *S = host(bc), *o = host(n);
	float *st3 = host(ns), *dz = host(n), *dw = host(nw), *dg = host(C), *db = host(C);
	float *gs = host(ns), *dx[2] = {host(n), host(n)};
	uint8_t *arg = calloc(bc, 1), *harg = malloc(bc);
	memcpy(dw, dw0, nw * 4), memcpy(dg, dg0, C * 4), memcpy(db, db0, C * 4);
	ref.gn_stats(&e->cpu, B, C, CACT(x), st);
	ref.gn_conv3_fwd(&e->cpu, B, C, CACT(x), st, ga, be, w, mean, rstd, CACT(y), st2, NULL,
		NULL, NULL, CACT(tmp));
	ref.gn_conv3_fwd(&e->cpu, B, C, CACT(x), st, ga, be, w, mean, rstd, CACT(y2), NULL, P,
		P + bc, arg, CACT(tmp));
	float *ys = stored(y, n, 1); /* the gate's y as the GPU holds it */
	ref.se_fwd_stats(&e->cpu, B, C, CACT(x), CACT(ys), e2, S, CACT(o), st3);
	ref.gn_conv3_bwd(&e->cpu, B, C, CACT(x), ga, be, mean, rstd, w, CACT(dy), CACT(dz), dw, dg,
		db, gs, CACT(tmp));
	float *dzs = stored(dz, n, 1); /* the dz the GPU's gn_bwd_apply reads */
	for (int acc = 0; acc < 2; acc++) {
		memcpy(dx[acc], dx0, n * 4);
		ref.gn_bwd_apply(&e->cpu, B, C, CACT(x), ga, mean, rstd, CACT(dzs), gs,
			CACT(dx[acc]), acc);
	}
	hy_nn_act *gx = upact(e, g, x, n), *gdy = upact(e, g, dy, n), *gy = upact(e, g, y, n);
	hy_nn_act *gy2 = upact(e, g, y, n), *gt = upact(e, g, tmp, n), *go = upact(e, g, o, n);
	hy_nn_act *gdz = upact(e, g, dz, n), *gdzs = upact(e, g, dzs, n), *gys = upact(e, g, ys, n);
	hy_nn_act *gdx[2] = {upact(e, g, dx0, n), upact(e, g, dx0, n)};
	float *gst = up(e, st, ns * 4), *gw = up(e, w, nw * 4), *gga = up(e, ga, C * 4);
	float *gbe = up(e, be, C * 4), *gm = up(e, mean, nm_ * 4), *gr = up(e, rstd, nm_ * 4);
	float *gst2 = up(e, st2, ns * 4), *gP = up(e, P, 2 * bc * 4), *ge2 = up(e, e2, 2 * bc * 4);
	float *gS = up(e, S, bc * 4), *gst3 = up(e, st3, ns * 4), *gdw = up(e, dw0, nw * 4);
	float *gdg = up(e, dg0, C * 4), *gdb = up(e, db0, C * 4), *ggs = up(e, gs, ns * 4);
	float *gmr = up(e, mean, nm_ * 4), *grr = up(e, rstd, nm_ * 4), *gsr = up(e, gs, ns * 4);
	uint8_t *garg = up(e, arg, bc);
	e->gb->gn_stats(g, B, C, gx, gst);
	float *hst = down(e, g, gst, ns);
	compare(NAME("v3 gn_stats B=%d C=%d", B, C), st, hst, ns, FP32);
	e->gb->to_dev(gst, st, ns * 4); /* every later op from the reference's inputs */
	e->gb->gn_conv3_fwd(g, B, C, gx, gst, gga, gbe, gw, gm, gr, gy, gst2, NULL, NULL, NULL, gt);
	e->gb->gn_conv3_fwd(g, B, C, gx, gst, gga, gbe, gw, gm, gr, gy2, NULL, gP, gP + bc, garg,
		gt);
	e->gb->se_fwd_stats(g, B, C, gx, gys, ge2, gS, go, gst3);
	e->gb->gn_conv3_bwd(g, B, C, gx, gga, gbe, gmr, grr, gw, gdy, gdz, gdw, gdg, gdb, ggs, gt);
	for (int acc = 0; acc < 2; acc++)
		e->gb->gn_bwd_apply(g, B, C, gx, gga, gmr, grr, gdzs, gsr, gdx[acc], acc);
	float *hm = down(e, g, gm, nm_), *hr = down(e, g, gr, nm_), *hy = downact(e, g, gy, n);
	float *hst2 = down(e, g, gst2, ns), *hy2 = downact(e, g, gy2, n), *hP = down(e, g, gP, 2 * bc);
	float *hS = down(e, g, gS, bc), *ho = downact(e, g, go, n), *hst3 = down(e, g, gst3, ns);
	float *hdz = downact(e, g, gdz, n), *hdw = down(e, g, gdw, nw), *hdg = down(e, g, gdg, C);
	float *hdb = down(e, g, gdb, C), *hgs = down(e, g, ggs, ns);
	float *hdx[2] = {downact(e, g, gdx[0], n), downact(e, g, gdx[1], n)};
	e->gb->to_host(harg, garg, bc);
	compare(NAME("v3 gn_conv3_fwd mean B=%d C=%d", B, C), mean, hm, nm_, FP32);
	compare(NAME("v3 gn_conv3_fwd rstd B=%d C=%d", B, C), rstd, hr, nm_, FP32);
	compare(NAME("v3 gn_conv3_fwd y B=%d C=%d", B, C), y, hy, n, BF16);
	compare(NAME("v3 gn_conv3_fwd st_out B=%d C=%d", B, C), st2, hst2, ns, BF16);
	compare(NAME("v3 gn_conv3_fwd y (pools) B=%d C=%d", B, C), y2, hy2, n, BF16);
	compare(NAME("v3 gn_conv3_fwd pools B=%d C=%d", B, C), P, hP, 2 * bc, BF16);
	size_t wrong = 0;
	for (size_t i = 0; i < bc; i++) {
		const size_t b = i / C, ch = i % C;
		const float at = y2[((b * HY_NN_TP) + 1 + harg[i]) * C + ch];
		wrong += !(harg[i] < HY_NN_T && at >= P[bc + i] - 1e-2f * (fabsf(P[bc + i]) + 1.0f));
	}
	require(wrong == 0, NAME("v3 gn_conv3_fwd argmax B=%d C=%d (%zu of %zu not at a maximum)", B,
				    C, wrong, bc));
	compare(NAME("v3 se_fwd_stats s B=%d C=%d", B, C), S, hS, bc, ELEM);
	compare(NAME("v3 se_fwd_stats out B=%d C=%d", B, C), o, ho, n, BF16);
	compare(NAME("v3 se_fwd_stats st_out B=%d C=%d", B, C), st3, hst3, ns, BF16);
	compare(NAME("v3 gn_conv3_bwd dz B=%d C=%d", B, C), dz, hdz, n, BF16);
	compare(NAME("v3 gn_conv3_bwd dw B=%d C=%d", B, C), dw, hdw, nw, BF16);
	compare(NAME("v3 gn_conv3_bwd dgamma B=%d C=%d", B, C), dg, hdg, C, BF16);
	compare(NAME("v3 gn_conv3_bwd dbeta B=%d C=%d", B, C), db, hdb, C, BF16);
	compare(NAME("v3 gn_conv3_bwd gs B=%d C=%d", B, C), gs, hgs, ns, BF16);
	for (int acc = 0; acc < 2; acc++)
		compare(NAME("v3 gn_bwd_apply dx%s B=%d C=%d", acc ? "+=" : "=", B, C), dx[acc],
			hdx[acc], n, BF16_OUT);
	void *dev[] = {gx, gdy, gy, gy2, gt, go, gdz, gdzs, gys, gdx[0], gdx[1], gst, gw, gga, gbe, gm,
		gr, gst2, gP, ge2, gS, gst3, gdw, gdg, gdb, ggs, gmr, grr, gsr, garg};
	for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
		e->gb->free(dev[i]);
	float *hosts[] = {x, dy, dx0, w, ga, be, dw0, e2, dg0, db0, st, mean, rstd, y, y2, st2, P,
		tmp, S, o, st3, dz, dw, dg, db, gs, dx[0], dx[1], dzs, ys, hst, hm, hr, hy, hst2, hy2, hP,
		hS, ho, hst3, hdz, hdw, hdg, hdb, hgs, hdx[0], hdx[1]};
	for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++)
		free(hosts[i]);
	free(arg), free(harg);
}

/* Losses: values (double sums: 1e-9 relative is summation order only)
 * and gradients. */
static void check_losses(env *e, int B)
{
	char nm[160];
	const hy_nn_ctx *g = &e->gpu[0];
	static const int ns[2] = {HY_ACTIONS, HY_GRP_CLASSES};
	for (int k = 0; k < 2; k++) {
		int n = ns[k];
		size_t nn = (size_t)B * n;
		float *l = randv(e, nn, 3.0), *dl = host(nn);
		uint64_t *mask = malloc((size_t)B * 8);
		uint8_t *lab = malloc((size_t)B);
		for (int b = 0; b < B; b++) {
			mask[b] = hy_rng_u64(&e->r) & ((1ull << n) - 1);
			lab[b] = (uint8_t)hy_rng_below(&e->r, (uint64_t)n);
		}
		int c1 = 0, c2 = 0;
		double lc, lg = NAN;
		e->cb->softmax_ce(&e->cpu, B, n, l, k ? NULL : mask, lab, 0.37f, dl, &lc, &c1);
		float *gl = up(e, l, nn * 4), *gdl = up(e, dl, nn * 4);
		uint64_t *gm = up(e, mask, (size_t)B * 8);
		uint8_t *glab = up(e, lab, (size_t)B);
		e->gb->softmax_ce(g, B, n, gl, k ? NULL : gm, glab, 0.37f, gdl, &lg, &c2);
		float *hdl = down(e, g, gdl, nn); /* the sync delivers lg and c2 */
		compare_scalar(NAME("softmax_ce loss B=%d n=%d%s", B, n, k ? "" : " masked"), lc, lg,
			1e-9);
		require(c1 == c2, NAME("softmax_ce top-1 B=%d n=%d", B, n));
		compare(NAME("softmax_ce dlogits B=%d n=%d", B, n), dl, hdl, nn, ELEM);
		e->gb->free(gl), e->gb->free(gdl), e->gb->free(gm), e->gb->free(glab);
		free(l), free(dl), free(mask), free(lab), free(hdl);
	}
	size_t n = (size_t)B * HY_NN_TP * 3;
	float *x = randv(e, n, 2.0), *t = host(n), *w = host(n), *d = host(n);
	for (size_t i = 0; i < n; i++) {
		t[i] = (float)(hy_rng_below(&e->r, 2));
		w[i] = (float)(hy_rng_below(&e->r, 3) != 0); /* a third weighted 0 */
	}
	float *gx = up(e, x, n * 4), *gt = up(e, t, n * 4), *gw = up(e, w, n * 4);
	float *gd = up(e, d, n * 4);
	double bc, bg = NAN;
	e->cb->bce(&e->cpu, n, x, t, w, 0.5f, d, &bc);
	e->gb->bce(g, n, gx, gt, gw, 0.5f, gd, &bg);
	float *hd = down(e, g, gd, n);
	compare_scalar(NAME("bce loss n=%zu", n), bc, bg, 1e-6); /* expf/log1pf: ≤ 2 ulp each */
	compare(NAME("bce dlogits n=%zu", n), d, hd, n, ELEM);
	free(hd);
	double mc, mg = NAN;
	e->cb->mse(&e->cpu, n, x, t, 0.25f, d, &mc);
	e->gb->mse(g, n, gx, gt, 0.25f, gd, &mg);
	hd = down(e, g, gd, n);
	compare_scalar(NAME("mse loss n=%zu", n), mc, mg, 1e-9);
	compare(NAME("mse dpred n=%zu", n), d, hd, n, ELEM);
	/* more losses queued than result pairs before one sync: each sum
	 * reaches its own address, in order */
	enum { QN = 2 * HY_NN_CUDA_RESULTS + 1 };
	double qc[QN], qg[QN];
	for (int i = 0; i < QN; i++) {
		e->cb->mse(&e->cpu, n - (size_t)i, x, t, 0.25f, d, &qc[i]);
		qg[i] = NAN;
		e->gb->mse(g, n - (size_t)i, gx, gt, 0.25f, gd, &qg[i]);
	}
	drain(e, g);
	for (int i = 0; i < QN; i++)
		compare_scalar(NAME("mse loss %d of %d queued before a sync", i + 1, QN), qc[i],
			qg[i], 1e-9);
	e->gb->free(gx), e->gb->free(gt), e->gb->free(gw), e->gb->free(gd);
	free(x), free(t), free(w), free(d), free(hd);
}

/* Σg², scale, AdamW per tensor and over a whole table. */
static void check_optim(env *e)
{
	char nm[160];
	const hy_nn_ctx *g = &e->gpu[0];
	hy_nn_model m;
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_nn_model_init(&m, (hy_nn_arch){2, 32, 0}, e->cb, &e->cpu, &d)) {
		die("model", &d);
		exit(1);
	}
	const size_t n = m.table.total;
	float *p = randv(e, n, 1.0), *gr = randv(e, n, 0.1), *mo = randv(e, n, 0.01);
	float *v = host(n);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)fabs(0.001 * hy_rng_normal(&e->r));
	float *p1 = host(n), *m1 = host(n), *v1 = host(n);
	memcpy(p1, p, n * 4), memcpy(m1, mo, n * 4), memcpy(v1, v, n * 4);
	for (int i = 0; i < m.table.count; i++) {
		const hy_nn_tensor *t = &m.table.t[i];
		e->cb->adamw(&e->cpu, t->size, p1 + t->offset, gr + t->offset, m1 + t->offset,
			v1 + t->offset, 1e-3f, 0.9f, 0.999f, 1e-8f, t->decay ? 0.01f : 0.0f, 0.1f, 0.03f);
	}
	double sc = e->cb->sumsq(&e->cpu, n, gr);
	float *gp = up(e, p, n * 4), *gg = up(e, gr, n * 4), *gm = up(e, mo, n * 4);
	float *gv = up(e, v, n * 4);
	double sg = e->gb->sumsq(g, n, gg);
	compare_scalar(NAME("sumsq n=%zu", n), sc, sg, 1e-12);
	e->gb->adamw_tensors(g, m.table.t, m.table.count, gp, gg, gm, gv, 1e-3f, 0.9f, 0.999f,
		1e-8f, 0.01f, 0.1f, 0.03f);
	float *hp = down(e, g, gp, n), *hm = down(e, g, gm, n), *hv = down(e, g, gv, n);
	/* padding between tensors: untouched by both */
	compare(NAME("adamw_tensors p (%d tensors)", m.table.count), p1, hp, n, ELEM);
	compare(NAME("adamw_tensors m"), m1, hm, n, ELEM);
	compare(NAME("adamw_tensors v"), v1, hv, n, ELEM);
	free(hp), free(hm), free(hv);
	/* the per-tensor op over the whole block without decay, and scale */
	memcpy(p1, p, n * 4), memcpy(m1, mo, n * 4), memcpy(v1, v, n * 4);
	e->cb->adamw(&e->cpu, n, p1, gr, m1, v1, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 0.1f, 0.03f);
	e->cb->scale(&e->cpu, n, p1, 0.75f);
	e->gb->to_dev(gp, p, n * 4), e->gb->to_dev(gm, mo, n * 4), e->gb->to_dev(gv, v, n * 4);
	e->gb->adamw(g, n, gp, gg, gm, gv, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 0.1f, 0.03f);
	e->gb->scale(g, n, gp, 0.75f);
	hp = down(e, g, gp, n);
	compare(NAME("adamw + scale n=%zu", n), p1, hp, n, ELEM);
	e->gb->free(gp), e->gb->free(gg), e->gb->free(gm), e->gb->free(gv);
	free(hp), free(p), free(gr), free(mo), free(v), free(p1), free(m1), free(v1);
	hy_nn_model_free(&m);
}

/* Compact samples widened on the device: bit-identical to the CPU (a pure
 * conversion), every binary16 pattern but NaNs included; in a bf16
 * context the stored values are the CPU's widened ones rounded by the
 * shared hy_nn_bf16_round, bit for bit too. */
static void check_expand(env *e, int B)
{
	char nm[160];
	const size_t no = (size_t)B * HY_OBS_SIZE, nx = (size_t)B * HY_NN_TP * HY_OBS_CHANNELS;
	uint16_t *obs = malloc(no * sizeof *obs);
	float *x = host(nx);
	for (size_t i = 0; i < no; i++) {
		uint16_t h = (uint16_t)(i * 7919u);
		obs[i] = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) ? 0 : h;
	}
	hy_nn_obs_expand_cpu(B, obs, x);
	uint16_t *go = up(e, obs, no * 2);
	for (int k = 0; k < NG; k += 2) {
		const hy_nn_ctx *g = &e->gpu[k];
		float *want = stored(x, nx, is_bf16(g));
		hy_nn_act *gx = upact(e, g, x, nx);
		e->gb->zero(gx, nx * hy_nn_act_size(e->gb, g));
		e->gb->expand_obs(g, B, go, gx);
		float *hx = downact(e, g, gx, nx);
		require(memcmp(want, hx, nx * 4) == 0, NAME("expand_obs B=%d %s: bit-identical", B,
							 gname[k]));
		e->gb->free(gx);
		free(want), free(hx);
	}
	e->gb->free(go);
	free(obs), free(x);
}

/* ---------------------------------------------------------------- model */

typedef struct pair {
	hy_nn_model c, g;
	hy_nn_work wc, wg;
} pair;

static int pair_init(env *e, pair *p, hy_nn_arch a, const hy_nn_ctx *g, int B, uint64_t s)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_rng r;
	hy_rng_seed(&r, s);
	if (hy_nn_model_init(&p->c, a, e->cb, &e->cpu, &d) || hy_nn_model_init_params(&p->c, &r, &d) ||
		hy_nn_model_init(&p->g, a, e->gb, g, &d) || hy_nn_work_init(&p->wc, &p->c, B, &d) ||
		hy_nn_work_init(&p->wg, &p->g, B, &d))
		return die("model", &d);
	/* the same initial weights (and zero moments) on the GPU */
	e->gb->to_dev(p->g.w, p->c.w, p->c.table.total * sizeof(float));
	return 0;
}

static void pair_free(pair *p)
{
	hy_nn_work_free(&p->wc, &p->c);
	hy_nn_work_free(&p->wg, &p->g);
	hy_nn_model_free(&p->c);
	hy_nn_model_free(&p->g);
}

/* The whole model's loss (relative) and gradient vector (relative L2)
 * against the CPU's, per context kind (gname). fp32: a few layers of
 * 1e-5-level differences stay well under 1e-3 (×3 with cuDNN's
 * FFT/Winograd errors, see FP32_DNN); bf16: every activation, activation
 * gradient and GEMM operand rounded. The CPU emulation of exactly these
 * roundings (tests/unit/test_nn_bf16_emul.c, which asserts half of these
 * bounds) gives 5e-5 on the loss and 1.3e-2 on the gradient vector for
 * the model check's case: 5e-3 and 5e-2. */
static const double MODEL_LOSS_TOL[NG] = {1e-3, 3e-3, 5e-3, 5e-3, 5e-3, 5e-3};
static const double MODEL_GRAD_TOL[NG] = {2e-3, 1e-2, 5e-2, 5e-2, 5e-2, 5e-2};

/* One forward, loss and backward on both backends from the same weights. */
static void check_model(env *e, int k, hy_nn_arch a, int B)
{
	char nm[160];
	pair p;
	if (pair_init(e, &p, a, &e->gpu[k], B, seed + 7))
		exit(1);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	hy_rng r;
	hy_rng_seed(&r, seed + 8);
	hy_nn_synth_samples(&r, s, B);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_losses lc, lg;
	if (hy_nn_work_load(&p.wc, &p.c, s, B, &d) || hy_nn_work_load(&p.wg, &p.g, s, B, &d))
		exit(die("load", &d));
	hy_nn_forward(&p.c, &p.wc);
	hy_nn_loss(&p.c, &p.wc, &lc);
	hy_nn_backward(&p.c, &p.wc);
	hy_nn_forward(&p.g, &p.wg);
	hy_nn_loss(&p.g, &p.wg, &lg);
	hy_nn_backward(&p.g, &p.wg);
	size_t n = p.c.table.total;
	float *hg = down(e, &e->gpu[k], p.g.g, n);
	double tl = MODEL_LOSS_TOL[k], tg = MODEL_GRAD_TOL[k];
	compare_scalar(NAME("model %dx%d B=%d %s loss", a.blocks, a.channels, B, gname[k]),
		lc.total, lg.total, tl);
	compare_scalar(NAME("model %dx%d B=%d %s policy loss", a.blocks, a.channels, B, gname[k]),
		lc.policy, lg.policy, tl);
	double rg = rel_l2(p.c.g, hg, n);
	checks++;
	if (!(rg <= tg)) {
		failures++;
		note("FAIL model %dx%d B=%d %s gradients: relative L2 difference %.3g > %.3g (seed "
			"%llu)\n", a.blocks, a.channels, B, gname[k], rg, tg, (unsigned long long)seed);
	} else {
		note("ok   model %dx%d B=%d %s gradients (relative L2 difference %.3g)\n", a.blocks,
			a.channels, B, gname[k], rg);
	}
	free(hg);
	free(s);
	pair_free(&p);
}

/* A batch moved the feed's way — packed (fp32 or compact) in page-locked
 * memory, to_dev_async on the copy stream into a device staging buffer,
 * put on_dev into workspace wi — then forward and loss: the policy logits
 * (host copy) and the losses. */
static float *staged_forward(env *e, const hy_nn_ctx *g, const hy_nn_model *m, hy_nn_work *wi,
	const hy_sample *s, int B, int compact, hy_nn_losses *l)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	size_t bytes = hy_nn_batch_bytes_as(B, compact);
	void *h = e->gb->host_alloc(bytes), *stage = e->gb->alloc(bytes);
	hy_nn_batch_info bi;
	if (!h || !stage || hy_nn_batch_pack_as(h, s, B, compact, &bi, &d))
		exit(die("feed buffers", &d));
	e->gb->zero(wi->xin, (size_t)B * HY_NN_TP * HY_NN_IN * hy_nn_act_size(e->gb, g));
	e->gb->to_dev_async(g, stage, h, bytes);
	if (hy_nn_work_put(wi, m, stage, &bi, 1, &d))
		exit(die("work_put on_dev", &d));
	hy_nn_forward(m, wi);
	hy_nn_loss(m, wi, l);
	if (e->gb->sync(g, &d))
		exit(die("feed copies", &d));
	float *out = down(e, g, wi->plog, (size_t)B * HY_ACTIONS);
	e->gb->host_free(h);
	e->gb->free(stage);
	return out;
}

/* On the GPU: an inference workspace's forward gives the training
 * workspace's outputs bit for bit (the same ops on the same values), and a
 * batch moved the feed's way (packed in page-locked memory, to_dev_async
 * on the copy stream into a device staging buffer, dev_copy into the
 * workspace) gives the outputs of hy_nn_work_load bit for bit. */
static void check_infer_feed(env *e, int k, hy_nn_arch a, int B)
{
	char nm[160];
	pair p;
	if (pair_init(e, &p, a, &e->gpu[k], B, seed + 9))
		exit(1);
	const hy_nn_ctx *g = &e->gpu[k];
	hy_sample *s = calloc((size_t)B, sizeof *s);
	hy_rng r;
	hy_rng_seed(&r, seed + 10);
	hy_nn_synth_samples(&r, s, B);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_work wi;
	hy_nn_losses lt, li;
	if (hy_nn_work_init_infer(&wi, &p.g, B, &d) || hy_nn_work_load(&p.wg, &p.g, s, B, &d) ||
		hy_nn_work_load(&wi, &p.g, s, B, &d))
		exit(die("inference workspace", &d));
	hy_nn_forward(&p.g, &p.wg);
	hy_nn_loss(&p.g, &p.wg, &lt);
	hy_nn_forward(&p.g, &wi);
	hy_nn_loss(&p.g, &wi, &li);
	size_t np = (size_t)B * HY_ACTIONS;
	float *a1 = down(e, g, p.wg.plog, np), *a2 = down(e, g, wi.plog, np);
	require(memcmp(a1, a2, np * 4) == 0 && lt.total == li.total,
		NAME("inference workspace %dx%d B=%d %s: bit-identical", a.blocks, a.channels, B,
			gname[k]));
	/* the feed's staged copies, of the fp32 and of the compact batch
	 * (binary16 planes, widened on the device) */
	static const char *layout[2] = {"feed copies (copy stream, staging)",
		"compact batch widened on the device"};
	for (int compact = 0; compact < 2; compact++) {
		hy_nn_losses lf;
		float *af = staged_forward(e, g, &p.g, &wi, s, B, compact, &lf);
		require(memcmp(a1, af, np * 4) == 0 && lt.total == lf.total,
			NAME("%s %dx%d B=%d %s: bit-identical", layout[compact], a.blocks, a.channels,
				B, gname[k]));
		free(af);
	}
	free(a1), free(a2);
	hy_nn_work_free(&wi, &p.g);
	free(s);
	pair_free(&p);
}

/* Graphs of inference forwards (graph.cu; on in the v2 context, k = 4):
 * forwards of an inference workspace over four sets of samples — the
 * first eager, the second captured, the third and fourth replays (the
 * fourth the first set again) — each bit-identical to the eager forward of
 * the same samples in a training workspace, so that a replay reads the
 * inputs of its own call, not the captured call's; the counts say a graph
 * was made and replayed; a new workspace after hy_nn_work_free starts
 * eager again (graph_reset), and gives the same bits. */
static void check_graphs(env *e, hy_nn_arch a, int B)
{
	char nm[160];
	const int k = 4;
	pair p;
	if (pair_init(e, &p, a, &e->gpu[k], B, seed + 21))
		exit(1);
	const hy_nn_ctx *g = &e->gpu[k];
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_sample *s[3];
	hy_rng r;
	hy_rng_seed(&r, seed + 22);
	for (int i = 0; i < 3; i++) {
		s[i] = calloc((size_t)B, sizeof *s[i]);
		hy_nn_synth_samples(&r, s[i], B);
	}
	const size_t np = (size_t)B * HY_ACTIONS;
	float *want[3];
	for (int i = 0; i < 3; i++) {
		if (hy_nn_work_load(&p.wg, &p.g, s[i], B, &d))
			exit(die("graphs: load", &d));
		hy_nn_forward(&p.g, &p.wg);
		want[i] = down(e, g, p.wg.plog, np);
	}
	int c0, r0, f0, c1, r1, f1;
	hy_nn_cuda_graph_counts(g, &c0, &r0, &f0);
	for (int round = 0; round < 2; round++) {
		hy_nn_work wi;
		if (hy_nn_work_init_infer(&wi, &p.g, B, &d))
			exit(die("graphs: inference workspace", &d));
		static const int order[4] = {0, 1, 2, 0};
		static const char *const what[4] = {"eager", "captured", "replayed", "replayed again"};
		for (int j = 0; j < 4; j++) {
			if (hy_nn_work_load(&wi, &p.g, s[order[j]], B, &d))
				exit(die("graphs: load", &d));
			hy_nn_forward(&p.g, &wi);
			float *got = down(e, g, wi.plog, np);
			require(memcmp(got, want[order[j]], np * 4) == 0,
				NAME("graph %dx%d B=%d workspace %d, forward %d (%s): bit-identical to "
					"the eager forward of its samples", a.blocks, a.channels, B, round + 1,
					j + 1, what[j]));
			free(got);
		}
		hy_nn_work_free(&wi, &p.g);
	}
	hy_nn_cuda_graph_counts(g, &c1, &r1, &f1);
	require(c1 - c0 == 2 && r1 - r0 == 4 && f1 == f0,
		NAME("graph %dx%d B=%d: 2 captured, 4 replayed, 0 failed (got %d, %d, %d)", a.blocks,
			a.channels, B, c1 - c0, r1 - r0, f1 - f0));
	for (int i = 0; i < 3; i++)
		free(want[i]), free(s[i]);
	pair_free(&p);
}

/* Two loss curves of n steps, CPU (lc) and GPU (lg) of context kind k,
 * from the same start: each step's loss within 2% (fp32) or 5% (bf16) of
 * the CPU's. Adam amplifies tiny gradient differences where |g| ≈ 0 (a
 * sign flips a full-size update), so the curves separate slowly; a wrong
 * op (changes of tens of percent) does not meet these, and smaller errors
 * are the gradient checks' business (the CPU emulation of bf16,
 * tests/unit/test_nn_bf16_emul.c, stays within 0.1% over 50 steps). */
static void curves(const char *what, int k, const double *lc, const double *lg, int n)
{
	char nm[320];
	double t = k < 2 ? 2e-2 : 5e-2, worst = 0;
	int bad = -1;
	for (int i = 0; i < n; i++) {
		double r = fabs(lg[i] - lc[i]) / fabs(lc[i]);
		worst = r > worst ? r : worst;
		if (!(r <= t) && bad < 0)
			bad = i;
	}
	if (bad < 0)
		snprintf(nm, sizeof nm, "%s %s: losses %.4f -> %.4f (cpu %.4f -> %.4f), worst relative "
			"difference %.2g", what, gname[k], lg[0], lg[n - 1], lc[0], lc[n - 1], worst);
	else
		snprintf(nm, sizeof nm, "%s %s: step %d loss cpu %.6f gpu %.6f, bound %.0f%%", what,
			gname[k], bad + 1, lc[bad], lg[bad], 100 * t);
	require(bad < 0, nm);
}

/* steps of training on a backend; losses[steps]. */
static void train(env *e, hy_nn_model *m, hy_nn_work *w, int B, int steps, double *losses)
{
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, steps);
	int64_t step = 0;
	hy_rng r;
	hy_rng_seed(&r, seed + 9);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (int i = 0; i < steps; i++) {
		hy_nn_synth_samples(&r, s, B);
		if (hy_nn_work_load(w, m, s, B, &d))
			exit(die("load", &d));
		hy_nn_losses l;
		hy_nn_forward(m, w);
		hy_nn_loss(m, w, &l);
		hy_nn_backward(m, w);
		hy_nn_optim_step(m, &oc, &step, NULL);
		losses[i] = l.total;
	}
	if (m->be->sync && m->be->sync(m->ctx, &d))
		exit(die("training", &d));
	free(s);
}

/* 50 steps of small on both backends from the same start. */
static void check_training(env *e, int k)
{
	enum { STEPS = 50, B = 64 };
	pair p;
	if (pair_init(e, &p, (hy_nn_arch){6, 64, 0}, &e->gpu[k], B, seed + 10))
		exit(1);
	double lc[STEPS], lg[STEPS];
	train(e, &p.c, &p.wc, B, STEPS, lc);
	train(e, &p.g, &p.wg, B, STEPS, lg);
	curves("50 steps of small", k, lc, lg, STEPS);
	pair_free(&p);
}

/* The same GPU run twice: bit-identical losses and weights. */
static void check_determinism(env *e, int k)
{
	enum { STEPS = 10, B = 257 };
	char nm[160];
	double l1[STEPS], l2[STEPS];
	float *w[2] = {NULL, NULL};
	for (int run = 0; run < 2; run++) {
		pair p;
		if (pair_init(e, &p, (hy_nn_arch){6, 64, 0}, &e->gpu[k], B, seed + 11))
			exit(1);
		train(e, &p.g, &p.wg, B, STEPS, run ? l2 : l1);
		w[run] = down(e, &e->gpu[k], p.g.w, p.g.table.total);
		size_t n = p.g.table.total;
		pair_free(&p);
		if (run)
			require(memcmp(l1, l2, sizeof l1) == 0 && memcmp(w[0], w[1], n * 4) == 0,
				NAME("determinism: %d steps of small at batch %d twice, %s: bit-identical",
					STEPS, B, gname[k]));
	}
	free(w[0]), free(w[1]);
}

/* CPU → checkpoint → GPU → checkpoint → CPU. */
static void check_ckpt(env *e, int k)
{
	hy_nn_arch a = {6, 64, 0};
	pair p;
	if (pair_init(e, &p, a, &e->gpu[k], 16, seed + 12))
		exit(1);
	double l[3];
	train(e, &p.c, &p.wc, 16, 3, l); /* moments nonzero */
	char f1[] = "/tmp/check-gpu-XXXXXX", f2[] = "/tmp/check-gpu-XXXXXX";
	int fd1 = mkstemp(f1), fd2 = mkstemp(f2);
	if (fd1 < 0 || fd2 < 0) {
		perror("check-gpu: mkstemp");
		exit(1);
	}
	close(fd1), close(fd2);
	hy_nn_ckpt_meta meta, back;
	memset(&meta, 0, sizeof meta);
	hy_nn_optim_defaults(&meta.opt, 3);
	meta.step = 3;
	meta.seed = seed;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_model c2;
	hy_status st = hy_nn_ckpt_save(f1, &p.c, &meta, &d);
	if (!st)
		st = hy_nn_ckpt_load(f1, &p.g, &back, 0, &d);
	if (!st)
		st = hy_nn_ckpt_save(f2, &p.g, &back, &d);
	if (!st)
		st = hy_nn_model_init(&c2, a, e->cb, &e->cpu, &d);
	if (!st && (st = hy_nn_ckpt_load(f2, &c2, &back, 0, &d)))
		hy_nn_model_free(&c2);
	unlink(f1), unlink(f2);
	if (st)
		exit(die("checkpoint", &d));
	size_t n = p.c.table.total * 4;
	require(back.step == 3 && !memcmp(p.c.w, c2.w, n) && !memcmp(p.c.m, c2.m, n) &&
			!memcmp(p.c.v, c2.v, n),
		"checkpoint CPU -> GPU -> CPU: step, weights and moments bit-identical");
	hy_nn_model_free(&c2);
	pair_free(&p);
}

/* ---------------------------------------------------------------- rows at
 * the sizes of real runs */

/* A context of kind k (gname) for model a and batches up to max_batch. */
static void ctx_of(hy_nn_ctx *c, int k, hy_nn_arch a, int max_batch, int fast, int infer)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_cuda_cfg cfg = {.device = 0, .precision = k < 2 ? HY_NN_PREC_FP32 : HY_NN_PREC_BF16,
		.fast = fast, .conv = fast ? HY_NN_CONV_AUTO : conv_of(k),
		.arch = a, .max_batch = max_batch, .infer = infer, .path = path_of(k)};
	if (hy_nn_cuda_ctx_init(c, &cfg, &d))
		exit(die("context", &d));
}

/* The ops whose launches grow with the batch (their grids and the
 * convolutions' GEMM and cuDNN shapes) at batch 4096, in the four kinds of
 * context, made for that batch. */
static void check_big_batch(env *e)
{
	enum { B = 4096 };
	hy_nn_ctx keep[NG]; /* the usual contexts, back at the end */
	memcpy(keep, e->gpu, sizeof keep);
	for (int k = 0; k < NG; k++)
		ctx_of(&e->gpu[k], k, (hy_nn_arch){1, 256, 0}, B, 0, 0);
	check_conv(e, B, HY_NN_IN, 32);
	check_conv(e, B, 32, 32);
	check_gn(e, B, 64);
	check_pool_se(e, B, 64);
	check_losses(e, B);
	for (int k = 0; k < NG; k++)
		hy_nn_cuda_ctx_free(&e->gpu[k]);
	memcpy(e->gpu, keep, sizeof keep);
}

/* Inference as self-play and the arena run it (play/policies/model.c): one context
 * in --fast mode (the convolution chosen by time), forwards at every batch
 * 1…1024 in turn, twice. The choice is timed once per power-of-two bucket
 * and shape (11 buckets × the stem's and the blocks' convolution = 22),
 * never again on the second sweep, and the outputs at odd batches match the
 * CPU's (the bucket's choice is valid for the smaller batch). */
static void check_infer_buckets(env *e)
{
	enum { MAXB = 1024, BUCKETS = 11, SHAPES = 2 };
	char nm[160];
	hy_nn_arch a = {3, 64, 0};
	hy_nn_ctx g;
	ctx_of(&g, 2, a, MAXB, 1, 1);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_rng r;
	hy_rng_seed(&r, seed + 13);
	hy_nn_model mc, mg;
	hy_nn_work wc, wg;
	if (hy_nn_model_init(&mc, a, e->cb, &e->cpu, &d) || hy_nn_model_init_params(&mc, &r, &d) ||
		hy_nn_model_init(&mg, a, e->gb, &g, &d) || hy_nn_work_init_infer(&wc, &mc, MAXB, &d) ||
		hy_nn_work_init_infer(&wg, &mg, MAXB, &d))
		exit(die("inference model", &d));
	e->gb->to_dev(mg.w, mc.w, mc.table.total * sizeof(float));
	hy_sample *s = calloc(MAXB, sizeof *s);
	hy_nn_synth_samples(&r, s, MAXB);
	int after_first = 0;
	for (int sweep = 0; sweep < 2; sweep++) {
		for (int B = 1; B <= MAXB; B++) {
			if (hy_nn_work_load(&wg, &mg, s, B, &d))
				exit(die("inference load", &d));
			hy_nn_forward(&mg, &wg);
			if (sweep || (B != 1 && B != 37 && B != 513 && B != 1000))
				continue;
			float *hg = down(e, &g, wg.plog, (size_t)B * HY_ACTIONS);
			if (hy_nn_work_load(&wc, &mc, s, B, &d))
				exit(die("inference load", &d));
			hy_nn_forward(&mc, &wc);
			/* bf16 through 3 blocks: the model check's gradient bound */
			double rl = rel_l2(wc.plog, hg, (size_t)B * HY_ACTIONS);
			require(rl <= 5e-2, NAME("inference B=%d of the sweep (bucket %d) bf16 fast: "
				"policy logits relative L2 %.3g of the CPU's", B, hy_nn_conv_bucket(B), rl));
			free(hg);
		}
		drain(e, &g);
		if (!sweep)
			after_first = hy_nn_cuda_conv_timings(&g);
	}
	int timed = hy_nn_cuda_conv_timings(&g);
	require(after_first == BUCKETS * SHAPES && timed == after_first,
		NAME("inference at batches 1...%d twice, fast: %d convolution timings in the first "
			"sweep (want %d), %d in the second (want 0)", MAXB, after_first,
			BUCKETS * SHAPES, timed - after_first));
	free(s);
	hy_nn_work_free(&wc, &mc), hy_nn_work_free(&wg, &mg);
	hy_nn_model_free(&mc), hy_nn_model_free(&mg);
	hy_nn_cuda_ctx_free(&g);
}

/* PPO (train/ppo.h) on both backends from the same weights and rollout:
 * the gradient of one minibatch (the policy and value outputs copied to the
 * host, the PPO loss there, its output gradients back, backward), then
 * STEPS updates of one optimiser step each, whose losses follow the CPU's
 * (the tolerances of check_model and check_training). */
static void check_ppo(env *e, int k)
{
	enum { B = 64, STEPS = 8 };
	char nm[160];
	pair p;
	if (pair_init(e, &p, (hy_nn_arch){6, 64, 0}, &e->gpu[k], B, seed + 14))
		exit(1);
	hy_sample *s = calloc(B, sizeof *s);
	hy_rng r;
	hy_rng_seed(&r, seed + 15);
	hy_nn_synth_samples(&r, s, B);
	for (int b = 0; b < B; b++) { /* a uniform behaviour policy's rollout */
		s[b].logp = -logf((float)__builtin_popcountll(s[b].mask | 1ull << s[b].action));
		s[b].adv = (float)hy_rng_normal(&r);
		s[b].ret = (float)(0.5 * hy_rng_normal(&r));
	}
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_train_ppo_cfg pc;
	hy_train_ppo_defaults(&pc);
	pc.epochs = 1;
	pc.minibatch = B;
	hy_train_ppo *pp[2];
	hy_nn_model *m[2] = {&p.c, &p.g};
	hy_nn_work *w[2] = {&p.wc, &p.wg};
	hy_nn_losses l[2];
	hy_nn_ppo_stats ps[2];
	for (int i = 0; i < 2; i++) {
		memset(&ps[i], 0, sizeof ps[i]);
		if (hy_train_ppo_init(&pp[i], &pc, B, "check-gpu", &d) ||
			hy_train_ppo_start(pp[i], m[i], 0, STEPS, &d) ||
			hy_train_ppo_grad(pp[i], m[i], w[i], s, B, &l[i], &ps[i], &d))
			exit(die("ppo", &d));
	}
	size_t n = p.c.table.total;
	float *hg = down(e, &e->gpu[k], p.g.g, n);
	double tl = MODEL_LOSS_TOL[k], tg = MODEL_GRAD_TOL[k];
	compare_scalar(NAME("ppo loss B=%d %s", B, gname[k]), l[0].total, l[1].total, tl);
	compare_scalar(NAME("ppo entropy B=%d %s", B, gname[k]), ps[0].entropy, ps[1].entropy, tl);
	double rg = rel_l2(p.c.g, hg, n);
	require(rg <= tg, NAME("ppo gradients B=%d %s (relative L2 difference %.3g, bound %.3g)", B,
		gname[k], rg, tg));
	free(hg);
	/* the update: STEPS rollouts of one step each */
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, STEPS);
	double lc[STEPS], lg[STEPS];
	for (int i = 0; i < 2; i++) {
		int64_t step = 0;
		for (int t = 0; t < STEPS; t++) {
			hy_nn_losses lu;
			hy_nn_step_info info;
			if (hy_train_ppo_update(pp[i], m[i], w[i], &oc, &step, 0, seed, s, B, &lu, &info,
				    &d))
				exit(die("ppo update", &d));
			(i ? lg : lc)[t] = lu.total;
		}
	}
	curves(NAME("ppo %d updates B=%d", STEPS, B), k, lc, lg, STEPS);
	for (int i = 0; i < 2; i++)
		hy_train_ppo_free(pp[i]);
	free(s);
	pair_free(&p);
}

/* `full` (40×256) for a few training steps on both backends, in a context
 * made for it: the losses follow the CPU's (check_training's bounds). */
static void check_full(env *e, int k)
{
	enum { B = 4, STEPS = 3 };
	char nm[160];
	hy_nn_arch a = {40, 256, 0};
	hy_nn_ctx g;
	ctx_of(&g, k, a, B, 0, 0);
	pair p;
	if (pair_init(e, &p, a, &g, B, seed + 16))
		exit(1);
	double lc[STEPS], lg[STEPS];
	train(e, &p.c, &p.wc, B, STEPS, lc);
	train(e, &p.g, &p.wg, B, STEPS, lg);
	curves(NAME("%d steps of full (40x256) B=%d", STEPS, B), k, lc, lg, STEPS);
	pair_free(&p);
	hy_nn_cuda_ctx_free(&g);
}

/* ---------------------------------------------------------------- main */

/* gemm on its own (the model reaches it through the linear layers' and
 * convolutions' own paths): C = αop(A)op(B) + βC for the four transposes,
 * in every context (bf16 contexts round A and B to bf16: BF16 tolerance). */
static void check_gemm(env *e, int M, int N, int K)
{
	char nm[160];
	for (int k = 0; k < NG; k += 2)
		for (int t = 0; t < 4; t++) {
			const hy_nn_ctx *g = &e->gpu[k];
			int ta = t & 1, tb = t >> 1;
			float *A = randv(e, (size_t)M * K, 1.0), *B = randv(e, (size_t)K * N, 1.0);
			float *C = randv(e, (size_t)M * N, 1.0), *C0 = host((size_t)M * N);
			memcpy(C0, C, (size_t)M * N * 4);
			int lda = ta ? M : K, ldb = tb ? K : N;
			float *gA = up(e, A, (size_t)M * K * 4), *gB = up(e, B, (size_t)K * N * 4);
			float *gC = up(e, C, (size_t)M * N * 4);
			e->cb->gemm(&e->cpu, ta, tb, M, N, K, 0.5f, A, lda, B, ldb, 0.25f, C, N);
			e->gb->gemm(g, ta, tb, M, N, K, 0.5f, gA, lda, gB, ldb, 0.25f, gC, N);
			float *hC = down(e, g, gC, (size_t)M * N);
			compare(NAME("gemm %dx%dx%d ta=%d tb=%d %s", M, N, K, ta, tb, gname[k]), C, hC,
				(size_t)M * N, is_bf16(g) ? BF16 : FP32);
			e->gb->free(gA), e->gb->free(gB), e->gb->free(gC);
			free(A), free(B), free(C), free(C0), free(hC);
		}
}

/* act_from_f32: fp32 values in device memory into activation storage, as
 * the CPU would store them (stored(): bf16 rounding in a bf16 context). */
static void check_act_from_f32(env *e, size_t n)
{
	char nm[160];
	for (int k = 0; k < NG; k += 2) {
		const hy_nn_ctx *g = &e->gpu[k];
		float *v = randv(e, n, 3.0), *want = stored(v, n, is_bf16(g));
		float *gv = up(e, v, n * 4);
		hy_nn_act *ga = (hy_nn_act *)dalloc(e, n * hy_nn_act_size(e->gb, g));
		hy_nn_act_from_f32(e->gb, g, n, gv, ga);
		float *got = downact(e, g, ga, n);
		compare(NAME("act_from_f32 n=%zu %s", n, gname[k]), want, got, n, ELEM);
		e->gb->free(gv), e->gb->free(ga);
		free(v), free(want), free(got);
	}
}

/* The profiling timers: two marks around queued work give a non-negative
 * time, and a slot out of range is refused (mark_ms < 0), not a crash. */
static void check_marks(env *e)
{
	char nm[160];
	const hy_nn_ctx *g = &e->gpu[0];
	const size_t n = 1 << 22;
	float *gv = (float *)dalloc(e, n * 4);
	e->gb->mark(g, 0);
	e->gb->scale(g, n, gv, 0.5f);
	e->gb->mark(g, HY_NN_MARKS - 1);
	double ms = e->gb->mark_ms(g, 0, HY_NN_MARKS - 1);
	require(ms >= 0 && ms < 1e4, NAME("mark/mark_ms around a scale of %zu floats: %.4f ms", n,
		ms));
	require(e->gb->mark_ms(g, 0, HY_NN_MARKS) < 0, NAME("mark_ms of a slot out of range"));
	e->gb->free(gv);
}

/* The upload fences (the feed's slots): a page-locked buffer overwritten
 * right after copy_wait of the fence recorded behind its upload leaves the
 * device with the values uploaded (64 MiB: the copy takes milliseconds, so
 * an overwrite without the wait would race it), and a fence never recorded
 * does not block. */
static void check_copy_fence(env *e)
{
	char nm[160];
	const hy_nn_ctx *g = &e->gpu[0];
	const size_t n = (size_t)16 << 20, bytes = n * sizeof(float);
	float *h = e->gb->host_alloc(bytes);
	float *gv = (float *)dalloc(e, bytes);
	if (!h) {
		fprintf(stderr, "check-gpu: out of page-locked memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		h[i] = 1.0f;
	e->gb->copy_wait(g, 1); /* never recorded: passes at once */
	e->gb->to_dev_async(g, gv, h, bytes);
	e->gb->copy_mark(g, 0);
	e->gb->copy_wait(g, 0);
	for (size_t i = 0; i < n; i++)
		h[i] = 2.0f;
	float *got = down(e, g, gv, n);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += got[i] != 1.0f;
	require(bad == 0, NAME("copy fence: the upload read its buffer before copy_wait returned "
		"(%zu of %zu values overwritten)", bad, n));
	free(got);
	/* a download queued behind an op sees the op's values once its fence
	 * has passed (copy_done polled, then waited for) */
	e->gb->scale(g, n, gv, 3.0f);
	for (size_t i = 0; i < n; i++)
		h[i] = 0.0f;
	e->gb->to_host_async(g, h, gv, bytes);
	e->gb->copy_mark(g, HY_NN_FENCE_GRAD);
	long polls = 0;
	while (!e->gb->copy_done(g, HY_NN_FENCE_GRAD) && polls < 100000000L)
		polls++;
	e->gb->copy_wait(g, HY_NN_FENCE_GRAD);
	require(e->gb->copy_done(g, HY_NN_FENCE_GRAD), NAME("copy fence: copy_done after copy_wait"));
	bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += h[i] != 3.0f;
	require(bad == 0, NAME("copy fence: to_host_async behind a scale (%zu of %zu values wrong, "
		"%ld polls)", bad, n, polls));
	drain(e, g);
	e->gb->host_free(h);
	e->gb->free(gv);
}

int main(int argc, char **argv)
{
	/* --probe: only say whether a GPU is usable (gpu-acceptance asks) */
	const int probe_only = argc > 1 && !strcmp(argv[1], "--probe");
	if (argc > 1 && !strcmp(argv[1], "--list"))
		return list_ops();
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_cuda_info info;
	if (!hy_nn_cuda_built() || hy_nn_cuda_probe(0, &info, &d) != HY_OK) {
		printf("check-gpu: skipped: no GPU (%s)\n",
			hy_nn_cuda_built() ? d.msg : "this build has no CUDA backend");
		return 0;
	}
	if (probe_only) {
		printf("check-gpu: %s (compute %d.%d)\n", info.name, info.major, info.minor);
		return 0;
	}
	const char *s = getenv("CHECK_GPU_SEED");
	seed = s ? strtoull(s, NULL, 10) : 20261124;
	note("check-gpu: %s (compute %d.%d), seed %llu\n", info.name, info.major, info.minor,
		(unsigned long long)seed);
	env e;
	memset(&e, 0, sizeof e);
	hy_rng_seed(&e.r, seed);
	hy_nn_ctx_init(&e.cpu, 4);
	e.cb = hy_nn_backend_cpu();
	e.gb = hy_nn_backend_cuda();
	for (int k = 0; k < NG; k++) {
		hy_nn_cuda_cfg cfg = {.device = 0,
			.precision = k < 2 ? HY_NN_PREC_FP32 : HY_NN_PREC_BF16,
			.conv = conv_of(k),
			.arch = {1, 256}, .max_batch = 257, .path = path_of(k)};
		if (hy_nn_cuda_ctx_init(&e.gpu[k], &cfg, &d))
			return die(gname[k], &d);
	}

	/* a batch that cannot fit is refused with one that does */
	hy_nn_ctx big;
	hy_nn_cuda_cfg bc = {.device = 0, .precision = HY_NN_PREC_BF16, .arch = {40, 256},
		.max_batch = 1 << 20};
	char nm[160];
	hy_status bst = hy_nn_cuda_ctx_init(&big, &bc, &d);
	require(bst == HY_EUSAGE && strstr(d.msg, "the largest batch that fits is"),
		NAME("batch 2^20 of full refused: %.100s", d.msg));
	if (!bst)
		hy_nn_cuda_ctx_free(&big);
	check_marks(&e);
	check_copy_fence(&e);
	unsigned long long mism;
	unsigned int first;
	if (hy_nn_cuda_check_bf16(&e.gpu[0], &mism, &first, &d))
		return die("bf16 check", &d);
	require(mism == 0, NAME("bf16 rounding = __float2bfloat16_rn on all 2^32 patterns (%llu "
		"differ, first 0x%08x)", mism, first));

	static const int Bs[] = {1, 3, 257}, Cs[] = {32, 256, 64};
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++) {
			int B = Bs[i], C = Cs[j];
			check_conv(&e, B, HY_NN_IN, C);
			check_conv(&e, B, C, C);
			snprintf(nm, sizeof nm, "se-fc1 rows=%d %d->%d", 2 * B, C, C / 16);
			check_linear(&e, nm, 2 * B, C, C, C / 16, 0, 0);
			snprintf(nm, sizeof nm, "1x1 rows=%d %d->64 pads", B * HY_NN_TP, C);
			check_linear(&e, nm, B * HY_NN_TP, C, C, HY_NN_POL_CH, B, 1);
			check_conv1(&e, B, C, HY_NN_POL_CH);
			check_conv1(&e, B, C, HY_NN_OPP);
			check_gn(&e, B, C);
			check_pool_se(&e, B, C);
			if (C >= 64)
				check_v3(&e, B, C);
		}
	for (size_t i = 0; i < 3; i++) {
		snprintf(nm, sizeof nm, "policy-fc B=%d strided", Bs[i]);
		check_linear(&e, nm, Bs[i], HY_NN_T * HY_NN_POL_CH, HY_NN_TP * HY_NN_POL_CH,
			HY_ACTIONS, 0, 0);
		check_losses(&e, Bs[i]);
	}
	/* 4096 channels: the GroupNorm kernels' shared memory past 48 KiB
	 * (the opt-in of k_setup) */
	check_gn(&e, 3, 4096);
	check_optim(&e);
	check_gemm(&e, 37, 29, 70);
	check_gemm(&e, 256, 46, 2176);
	check_act_from_f32(&e, 3 * 257 * HY_NN_TP);
	check_marks(&e);
	check_expand(&e, 1);
	check_expand(&e, 257);
	for (int k = 0; k < NG; k++) {
		check_model(&e, k, (hy_nn_arch){2, 32, 0}, 3);
		check_model(&e, k, (hy_nn_arch){6, 64, 0}, 64);
		check_infer_feed(&e, k, (hy_nn_arch){3, 64, 0}, 257);
	}
	check_graphs(&e, (hy_nn_arch){3, 64, 0}, 1);
	check_graphs(&e, (hy_nn_arch){3, 64, 0}, 37);
	for (int k = 0; k < NG; k++) /* every convolution mode */
		check_training(&e, k);
	for (int k = 0; k < NG; k++)
		check_ppo(&e, k);
	check_full(&e, 0);
	check_full(&e, 3);
	check_full(&e, 4);
	check_full(&e, V3);
	check_big_batch(&e);
	check_infer_buckets(&e);
	check_ckpt(&e, 2);
	check_determinism(&e, 2);
	check_determinism(&e, 3);
	check_determinism(&e, 4);
	check_determinism(&e, V3);

	char rep[4096];
	hy_nn_cuda_report(&e.gpu[2], rep, sizeof rep);
	note("%s", rep);
	hy_nn_cuda_report(&e.gpu[4], rep, sizeof rep);
	note("%s", rep);
	hy_nn_cuda_report(&e.gpu[V3], rep, sizeof rep);
	note("%s", rep);
	for (int k = 0; k < NG; k++)
		hy_nn_cuda_ctx_free(&e.gpu[k]);
	/* the op table: every op with a result was compared */
	for (int i = 0; i < NOPS; i++)
		if (OPS[i].by && !op_seen[i]) {
			failures++;
			note("FAIL op table: %s: no comparison '%s...' ran\n", OPS[i].op, OPS[i].by);
		}
	printf("check-gpu: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
