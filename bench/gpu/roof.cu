/* The ceilings of a GPU and the convolution GEMMs bare (issue 43, step 1;
 * roof.h hy_nn_cuda_roof): every figure of gpu_bench's "roof" mode, taken
 * in one run on one stream, so that each speed can be read as a ratio to
 * what the same device did minutes apart.
 *
 *  - copy: cudaMemcpyAsync device to device of 1 GiB, GB/s counting the
 *    bytes read and written (2 × size): the memory ceiling;
 *  - gemm 8192³: bf16 A and B, fp32 accumulation, bf16 D, through
 *    cuBLASLt; every algorithm of the heuristic's first HY_ROOF_ALGOS timed,
 *    the best kept: the compute ceiling;
 *  - the three GEMMs of a 3-tap convolution of C → C channels at batch B as
 *    conv.cu's bf16 path calls them (rows = 36·B − 2; its row-major calls
 *    written here column-major): forward m = C, n = rows, k = 3C (A = W
 *    transposed); the input gradient m = C, n = rows, k = 3C (A = the
 *    rearranged weights); the weight gradient m = 3C, n = C, k = rows (B
 *    = dy transposed, β = 1); each timed twice: cublasGemmEx with its
 *    default algorithm (what conv.cu runs today) and the best of the
 *    cuBLASLt heuristic's first HY_ROOF_ALGOS, with the heuristic's own
 *    first choice named — the split-K question of the weight gradient;
 *  - the stem's forward GEMM (85 planes, K = 255: a 510-byte leading
 *    dimension, not 16-byte aligned) beside the same GEMM padded to 256;
 *  - the taps kernel, GroupNorm+Mish forward and SE forward alone, on a
 *    backend context (bf16 storage) at each batch, in GB/s on their
 *    minimal bytes and as a share of the copy rate (kernel_rows).
 *
 * Times: one warm-up call, then REPS calls between two events; the median
 * of 3 such windows. Operands are filled with a small constant (the speed
 * of a GEMM does not depend on its values; no NaN can slow it). Every
 * CUDA, cuBLAS and cuBLASLt status is checked; a failure stops the
 * measurement with a message naming the call. */
#include "nn/cuda/internal.h"
#include "nn/cuda/map.h"
#include "roof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cublasLt.h>

enum { HY_ROOF_ALGOS = 8, REPS = 10, WINDOWS = 3 };

typedef struct roof {
	cudaStream_t s;
	cudaEvent_t e0, e1;
	cublasHandle_t blas;
	cublasLtHandle_t lt;
	void *ws;
	size_t ws_bytes;
	char err[256];
	FILE *out;
} roof;

#define R_RT(r, call) roof_rt((r), (call), #call)
#define R_BLAS(r, call) roof_blas((r), (int)(call), #call)

static int roof_rt(roof *r, cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return 0;
	if (!r->err[0])
		snprintf(r->err, sizeof r->err, "%.150s: %.80s", what, cudaGetErrorString(e));
	return -1;
}

static int roof_blas(roof *r, int st, const char *what)
{
	if (st == 0) /* CUBLAS_STATUS_SUCCESS */
		return 0;
	if (!r->err[0])
		snprintf(r->err, sizeof r->err, "%.150s: cuBLAS status %d", what, st);
	return -1;
}

static void say(roof *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	fflush(r->out);
}

/* Thread mapping: one thread per 2-byte element, grid-stride; bounds: i < n.
 * Fills a buffer of n bf16 values with v's bits. */
/* Pseudo-random operands (issue 56, finding 3: on Hopper a GEMM on zeros
 * or constants runs 10-13% faster than on random data, so every ceiling
 * read high). Thread t of a grid-stride loop (1024 blocks of 256) writes
 * elements t, t + stride, ... below n; element i gets a value in [-1, 1)
 * from a hash of (seed, i): the same operands every run. */
static __device__ float hash_unit(size_t i, uint32_t seed)
{
	uint32_t h = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32) ^ seed * 0x9E3779B9u;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	h *= 3266489917u;
	h ^= h >> 16;
	return (float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

__global__ static void k_rand16(uint16_t *p, size_t n, uint32_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = (uint16_t)(__float_as_uint(hash_unit(i, seed)) >> 16);
}

__global__ static void k_randf(float *p, size_t n, uint32_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = hash_unit(i, seed);
}

static int rand16(roof *r, void *p, size_t n, uint32_t seed)
{
	k_rand16<<<1024, 256, 0, r->s>>>((uint16_t *)p, n, seed);
	return R_RT(r, cudaGetLastError());
}

static int randf(roof *r, float *p, size_t n, uint32_t seed)
{
	k_randf<<<1024, 256, 0, r->s>>>(p, n, seed);
	return R_RT(r, cudaGetLastError());
}

/* Median over WINDOWS of the ms per call of fn(ctx) run REPS times. */
typedef int (*call_fn)(roof *r, void *ctx);
static int time_ms(roof *r, call_fn fn, void *ctx, double *ms)
{
	double w[WINDOWS];
	if (fn(r, ctx) || R_RT(r, cudaStreamSynchronize(r->s)))
		return -1;
	for (int i = 0; i < WINDOWS; i++) {
		if (R_RT(r, cudaEventRecord(r->e0, r->s)))
			return -1;
		for (int k = 0; k < REPS; k++)
			if (fn(r, ctx))
				return -1;
		float t = 0;
		if (R_RT(r, cudaEventRecord(r->e1, r->s)) || R_RT(r, cudaEventSynchronize(r->e1)) ||
			R_RT(r, cudaEventElapsedTime(&t, r->e0, r->e1)))
			return -1;
		w[i] = t / REPS;
	}
	for (int i = 1; i < WINDOWS; i++) /* insertion sort of 3 */
		for (int j = i; j > 0 && w[j] < w[j - 1]; j--) {
			double x = w[j];
			w[j] = w[j - 1];
			w[j - 1] = x;
		}
	*ms = w[WINDOWS / 2];
	return 0;
}

typedef struct copy_ctx {
	void *dst;
	const void *src;
	size_t n;
} copy_ctx;

static int do_copy(roof *r, void *c)
{
	copy_ctx *x = (copy_ctx *)c;
	return R_RT(r, cudaMemcpyAsync(x->dst, x->src, x->n, cudaMemcpyDeviceToDevice, r->s));
}

/* One GEMM, column-major: D (m × n, ldc) = α op(A) op(B) + β D. */
typedef struct gemm {
	int m, n, k, ta, tb, lda, ldb, ldc;
	float beta;
	cudaDataType_t dt; /* D's type: CUDA_R_16BF or CUDA_R_32F */
	const void *A, *B;
	void *D;
	/* cuBLASLt */
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc;
	const cublasLtMatmulAlgo_t *algo;
} gemm;

static int do_gemmex(roof *r, void *c)
{
	gemm *g = (gemm *)c;
	const float one = 1.0f;
	return R_BLAS(r, cublasGemmEx(r->blas, g->ta ? CUBLAS_OP_T : CUBLAS_OP_N,
		g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, g->m, g->n, g->k, &one, g->A, CUDA_R_16BF, g->lda,
		g->B, CUDA_R_16BF, g->ldb, &g->beta, g->D, g->dt, g->ldc, CUBLAS_COMPUTE_32F,
		CUBLAS_GEMM_DEFAULT));
}

static int do_lt(roof *r, void *c)
{
	gemm *g = (gemm *)c;
	const float one = 1.0f;
	return R_BLAS(r, cublasLtMatmul(r->lt, g->desc, &one, g->A, g->la, g->B, g->lb, &g->beta,
		g->D, g->lc, g->D, g->lc, g->algo, r->ws, r->ws_bytes, r->s));
}

static void lt_release(gemm *g)
{
	if (g->la)
		(void)cublasLtMatrixLayoutDestroy(g->la);
	if (g->lb)
		(void)cublasLtMatrixLayoutDestroy(g->lb);
	if (g->lc)
		(void)cublasLtMatrixLayoutDestroy(g->lc);
	if (g->desc)
		(void)cublasLtMatmulDescDestroy(g->desc);
	g->la = g->lb = g->lc = NULL;
	g->desc = NULL;
}

/* The best of the heuristic's first HY_ROOF_ALGOS algorithms for g: *best
 * ms (and *first, the heuristic's own first choice, ms), *tried. */
static int lt_best(roof *r, gemm *g, double *best, double *first, int *tried)
{
	cublasOperation_t ta = g->ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res[HY_ROOF_ALGOS];
	int n = 0, rc = -1;
	*best = *first = -1;
	*tried = 0;
	if (R_BLAS(r, cublasLtMatmulDescCreate(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
		R_BLAS(r, cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
			sizeof ta)) ||
		R_BLAS(r, cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
			sizeof tb)) ||
		R_BLAS(r, cublasLtMatrixLayoutCreate(&g->la, CUDA_R_16BF, g->ta ? g->k : g->m,
			g->ta ? g->m : g->k, g->lda)) ||
		R_BLAS(r, cublasLtMatrixLayoutCreate(&g->lb, CUDA_R_16BF, g->tb ? g->n : g->k,
			g->tb ? g->k : g->n, g->ldb)) ||
		R_BLAS(r, cublasLtMatrixLayoutCreate(&g->lc, g->dt, g->m, g->n, g->ldc)) ||
		R_BLAS(r, cublasLtMatmulPreferenceCreate(&pref)) ||
		R_BLAS(r, cublasLtMatmulPreferenceSetAttribute(pref,
			CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &r->ws_bytes, sizeof r->ws_bytes)))
		goto done;
	/* no algorithm for a shape (an unaligned leading dimension may have
	 * none) is a finding, not a failure: *tried stays 0 */
	if (cublasLtMatmulAlgoGetHeuristic(r->lt, g->desc, g->la, g->lb, g->lc, g->lc, pref,
		HY_ROOF_ALGOS, res, &n) != CUBLAS_STATUS_SUCCESS)
		n = 0;
	for (int i = 0; i < n; i++) {
		if (res[i].state != 0) /* CUBLAS_STATUS_SUCCESS */
			continue;
		double ms;
		g->algo = &res[i].algo;
		if (time_ms(r, do_lt, g, &ms))
			goto done;
		(*tried)++;
		if (i == 0)
			*first = ms;
		if (*best < 0 || ms < *best)
			*best = ms;
	}
	rc = 0;
done:
	g->algo = NULL;
	if (pref)
		(void)cublasLtMatmulPreferenceDestroy(pref);
	lt_release(g);
	return rc;
}

static double tflops(const gemm *g, double ms)
{
	return ms > 0 ? 2.0 * g->m * (double)g->n * g->k / (ms * 1e-3) / 1e12 : 0;
}

/* One GEMM timed both ways and printed as a share of ceil_tf TFLOP/s. */
static int gemm_row(roof *r, const char *what, gemm *g, double ceil_tf)
{
	double ex = -1, best, first;
	int tried;
	if (time_ms(r, do_gemmex, g, &ex)) { /* said, and the others still measured */
		say(r, "roof %s: cublasGemmEx failed: %s\n", what, r->err);
		r->err[0] = 0;
		(void)cudaGetLastError();
		ex = -1;
	}
	if (lt_best(r, g, &best, &first, &tried))
		return -1;
	say(r, "roof %s m %d n %d k %d: cublasGemmEx %.3f ms %.1f TFLOP/s (%.0f%% of the "
		"ceiling); cuBLASLt best of %d %.3f ms %.1f TFLOP/s (%.0f%%), its first choice "
		"%.3f ms\n",
		what, g->m, g->n, g->k, ex, tflops(g, ex), 100 * tflops(g, ex) / ceil_tf, tried, best,
		tflops(g, best), 100 * tflops(g, best) / ceil_tf, first);
	return 0;
}

/* v2's weight gradient as conv.cu issues it (issue 56, finding 4): one
 * cublasGemmStridedBatchedEx of batch 3 (the taps), m = n = C, k = the
 * rows, bf16 operands, fp32 outputs accumulated in place: three C × C
 * outputs over a long K, a shape the single-GEMM rows above never time. */
typedef struct dwb {
	int C, rows;
	const void *in, *dy;
	void *out;
} dwb;

static int do_dw_batched(roof *r, void *c)
{
	dwb *g = (dwb *)c;
	const float one = 1.0f;
	return R_BLAS(r, cublasGemmStridedBatchedEx(r->blas, CUBLAS_OP_N, CUBLAS_OP_T, g->C, g->C,
		g->rows, &one, g->in, CUDA_R_16BF, g->C, (long long)g->C,
		(const uint16_t *)g->dy + g->C, CUDA_R_16BF, g->C, 0LL, &one, g->out, CUDA_R_32F,
		3 * g->C, (long long)g->C, 3, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

static int dw_batched_row(roof *r, int B, int C, double ceil_tf, void *A, void *Bm, void *D)
{
	dwb g = {C, 36 * B - 2, A, Bm, D};
	double ms = -1;
	if (time_ms(r, do_dw_batched, &g, &ms)) {
		say(r, "roof conv C %d batch %d weight grad, batched as v2: failed: %s\n", C, B, r->err);
		r->err[0] = 0;
		(void)cudaGetLastError();
		return 0;
	}
	const double tf = 2.0 * 3 * C * (double)C * g.rows / (ms * 1e-3) / 1e12;
	say(r, "roof conv C %d batch %d weight grad, batched as v2 (3 x m %d n %d k %d): "
		"cublasGemmStridedBatchedEx %.3f ms %.1f TFLOP/s (%.0f%% of the ceiling)\n", C, B, C,
		C, g.rows, ms, tf, 100 * tf / ceil_tf);
	return 0;
}

/* The conv GEMMs of C channels at batch B, as ratios to ceil_tf TFLOP/s;
 * then the stem's forward GEMM (85 input planes: K = 255, a 510-byte
 * leading dimension) beside the same GEMM padded to K = 256. */
static int conv_gemms(roof *r, int B, int C, double ceil_tf, void *A, void *Bm, void *D)
{
	const int rows = 36 * B - 2;
	struct {
		const char *name;
		gemm g;
	} cs[3] = {
		/* bf16 outputs as conv.cu writes them (issue 56, finding 2); the
		 * weight gradient accumulates in fp32 there too */
		{"forward  ", {C, rows, 3 * C, 1, 0, 3 * C, 3 * C, C, 0.0f, CUDA_R_16BF}},
		{"input grad", {C, rows, 3 * C, 0, 0, C, 3 * C, C, 0.0f, CUDA_R_16BF}},
		{"weight grad", {3 * C, C, rows, 0, 1, 3 * C, C, 3 * C, 1.0f, CUDA_R_32F}},
	};
	char what[96];
	for (int i = 0; i < 3; i++) {
		gemm *g = &cs[i].g;
		g->A = A;
		g->B = Bm;
		g->D = D;
		snprintf(what, sizeof what, "conv C %d batch %d %s", C, B, cs[i].name);
		if (gemm_row(r, what, g, ceil_tf))
			return -1;
	}
	for (int k = 255; k <= 256; k++) {
		gemm g = {C, rows, k, 1, 0, k, k, C, 0.0f, CUDA_R_16BF};
		g.A = A;
		g.B = Bm;
		g.D = D;
		snprintf(what, sizeof what, "stem C %d batch %d, K %d%s", C, B, k,
			 k == 255 ? " (as today)" : " (padded)");
		if (gemm_row(r, what, &g, ceil_tf))
			return -1;
	}
	return dw_batched_row(r, B, C, ceil_tf, A, Bm, D);
}

/* The kernels alone, on a backend context of `full`'s width at batch B
 * (bf16 activation storage, 2 bytes an element), with the v1 kernels and
 * then with issue 43's v2 (cuda.h hy_nn_cuda_path; the context's path is
 * switched between the two, nothing else changes):
 * - the taps: v1 writes the whole batch's (reads rows × C, writes 3 ×
 *   rows × C); v2 the same bytes in chunks of the L2 plan (fused.cu), the
 *   way conv.cu's v2 builds them;
 * - GroupNorm+Mish forward (the bytes it moves: read x, write z and a;
 *   issue 56 finding 9) and backward (read x, z, da, write dx), SE forward (read x and y, write out) and backward (read y
 *   and dout, write dy): GB/s on those bytes and as a share of copy_gbs;
 * - the whole 3-tap convolution of C → C, forward and backward (dx and
 *   dW), as the op table runs it: TFLOP/s (2·rows·3C·C a GEMM) and the
 *   share of the GEMM ceiling ceil_tf. */
typedef struct kern_ctx {
	hy_nn_ctx *c;
	cu_ctx *x;
	int B, C, which;
	void *in, *y, *z, *a, *dst;
	float *gamma, *beta, *stat1, *stat2, *scr, *w, *dw;
} kern_ctx;

enum { K_TAPS, K_GN_FWD, K_GN_BWD, K_SE_FWD, K_SE_BWD, K_CONV_FWD, K_CONV_BWD, K_COUNT };

static int do_kernel(roof *r, void *p)
{
	kern_ctx *k = (kern_ctx *)p;
	(void)r;
	const int rows = k->B * HY_NN_TP - 2;
	const hy_nn_act *in = (const hy_nn_act *)k->in, *y = (const hy_nn_act *)k->y;
	switch (k->which) {
	case K_TAPS:
		if (k->x->path == HY_NN_CUDA_PATH_V2) {
			const int n = hy_nn_conv_chunk_rows(rows, 3 * k->C, k->x->l2_bytes, k->x->sms);
			for (int r0 = 0; r0 < rows; r0 += n)
				k2_taps(k->x, r0, rows - r0 < n ? rows - r0 : n, k->C, 3 * k->C, k->in,
					(uint16_t *)k->dst);
		} else {
			k_taps_bf16(k->x, rows, k->C, k->in, (uint16_t *)k->dst);
		}
		break;
	case K_GN_FWD:
		cu_gn_mish_fwd(k->c, k->B, k->C, in, k->gamma, k->beta, (hy_nn_act *)k->z,
			(hy_nn_act *)k->a, k->stat1, k->stat2);
		break;
	case K_GN_BWD:
		cu_gn_mish_bwd(k->c, k->B, k->C, in, (const hy_nn_act *)k->z, k->gamma, k->stat1,
			k->stat2, y, (hy_nn_act *)k->a, 0, k->gamma + k->C, k->beta + k->C, k->scr);
		break;
	case K_SE_FWD:
		cu_se_fwd(k->c, k->B, k->C, in, y, k->stat1, k->stat2, (hy_nn_act *)k->a);
		break;
	case K_SE_BWD:
		cu_se_bwd(k->c, k->B, k->C, y, k->stat2, in, (hy_nn_act *)k->a, k->stat1);
		break;
	case K_CONV_FWD:
		cu_conv3_fwd(k->c, k->B, k->C, k->C, in, k->w, (hy_nn_act *)k->a);
		break;
	default:
		cu_conv3_bwd(k->c, k->B, k->C, k->C, in, k->w, y, (hy_nn_act *)k->a, k->dw);
		break;
	}
	return k->x->err != HY_OK;
}

static int kernel_rows(roof *r, int device, int B, int C, double copy_gbs, double ceil_tf,
	hy_diag *d)
{
	hy_nn_ctx c;
	/* two blocks: the kernels need the width and the batch, not full's depth,
	 * and the context reserves memory for the depth it is given */
	hy_nn_cuda_cfg cfg = {device, HY_NN_PREC_BF16, 0, HY_NN_CONV_GEMM, {2, C}, B, 0,
		HY_NN_CUDA_PATH_V1};
	if (hy_nn_cuda_ctx_init(&c, &cfg, d) != HY_OK) {
		snprintf(r->err, sizeof r->err, "backend context: %.200s", d->msg);
		return -1;
	}
	kern_ctx k = {&c, cu_of(&c), B, C, 0};
	const size_t act = (size_t)B * HY_NN_TP * C * 2, rows = (size_t)B * HY_NN_TP - 2;
	const size_t taps_bytes = rows * C * 2 * 4, stat = 2 * (size_t)B * C * sizeof(float);
	const size_t wbytes = (size_t)3 * C * C * sizeof(float);
	static const char *const names[K_COUNT] = {"taps", "gn_mish forward", "gn_mish backward",
		"SE forward", "SE backward", "conv3 forward (the op)", "conv3 backward, dx and dW (the op)"};
	/* the bytes each kernel moves as written: GroupNorm+Mish forward reads x
	 * and writes z and a (issue 56, finding 9: counting 2·act capped it at
	 * 67% of the copy rate) */
	const double bytes[K_COUNT] = {(double)taps_bytes, 3.0 * act, 4.0 * act, 3.0 * act,
		3.0 * act, 0, 0};
	const double gemm_flop = 2.0 * rows * 3.0 * C * C;
	int rc = -1;
	cudaStream_t keep = r->s;
	if (R_RT(r, cudaMalloc(&k.in, act)) || R_RT(r, cudaMalloc(&k.y, act)) ||
		R_RT(r, cudaMalloc(&k.z, act)) || R_RT(r, cudaMalloc(&k.a, act)) ||
		R_RT(r, cudaMalloc(&k.dst, 3 * rows * C * 2)) ||
		R_RT(r, cudaMalloc((void **)&k.gamma, 2 * C * sizeof(float))) ||
		R_RT(r, cudaMalloc((void **)&k.beta, 2 * C * sizeof(float))) ||
		R_RT(r, cudaMalloc((void **)&k.stat1, stat)) || R_RT(r, cudaMalloc((void **)&k.stat2, stat)) ||
		R_RT(r, cudaMalloc((void **)&k.scr, stat)) || R_RT(r, cudaMalloc((void **)&k.w, wbytes)) ||
		R_RT(r, cudaMalloc((void **)&k.dw, wbytes)) ||
		rand16(r, k.in, act / 2, 3) || rand16(r, k.y, act / 2, 4) ||
		rand16(r, k.z, act / 2, 5) || randf(r, k.w, wbytes / sizeof(float), 6) ||
		R_RT(r, cudaMemset(k.dw, 0, wbytes)) ||
		randf(r, k.gamma, 2 * C, 7) || randf(r, k.beta, 2 * C, 8) ||
		R_RT(r, cudaMemset(k.stat1, 0, stat)) || R_RT(r, cudaMemset(k.stat2, 0, stat)) ||
		R_RT(r, cudaDeviceSynchronize()))
		goto done;
	r->s = k.x->s; /* the kernels run on the context's stream: time them there */
	for (int path = HY_NN_CUDA_PATH_V1; path <= HY_NN_CUDA_PATH_V2; path++) {
		cu_path_set(k.x, path);
		const char *pn = path == HY_NN_CUDA_PATH_V2 ? "v2" : "v1";
		for (k.which = 0; k.which < K_COUNT; k.which++) {
			double ms;
			if (time_ms(r, do_kernel, &k, &ms)) {
				if (k.x->err != HY_OK && !r->err[0])
					snprintf(r->err, sizeof r->err, "%s %s: %.200s", pn,
						names[k.which], k.x->msg);
				goto done;
			}
			if (bytes[k.which] > 0) {
				double gbs = bytes[k.which] / (ms * 1e-3) / 1e9;
				/* a working set inside the L2 is not a DRAM rate (finding 10);
				 * v2 has no SE backward kernel: that row is v1's */
				const int in_l2 = k.x->l2_bytes && bytes[k.which] < (double)k.x->l2_bytes;
				say(r, "roof kernel %s C %d batch %d %s: %.3f ms, %.1f GB/s on its "
					"bytes (%.0f%% of the copy)%s%s\n", pn, C, B, names[k.which], ms, gbs,
					100 * gbs / copy_gbs,
					in_l2 ? " (fits the L2: not comparable with the copy)" : "",
					path == HY_NN_CUDA_PATH_V2 && k.which == K_SE_BWD
						? " (v1's kernel: v2 has no SE backward of its own)" : "");
			} else {
				double fl = gemm_flop * (k.which == K_CONV_FWD ? 1 : 2);
				double tf = fl / (ms * 1e-3) / 1e12;
				say(r, "roof kernel %s C %d batch %d %s: %.3f ms, %.1f TFLOP/s (%.0f%% of the "
					"GEMM ceiling)\n", pn, C, B, names[k.which], ms, tf, 100 * tf / ceil_tf);
			}
		}
		if (path == HY_NN_CUDA_PATH_V2)
			say(r, "roof kernel v2 C %d batch %d: taps chunks of %d rows (L2 %.0f MiB)\n", C,
				B, hy_nn_conv_chunk_rows((int)rows, 3 * C, k.x->l2_bytes, k.x->sms),
				k.x->l2_bytes / 1048576.0);
	}
	rc = 0;
done:
	r->s = keep;
	cudaFree(k.in);
	cudaFree(k.y);
	cudaFree(k.z);
	cudaFree(k.a);
	cudaFree(k.dst);
	cudaFree(k.gamma);
	cudaFree(k.beta);
	cudaFree(k.stat1);
	cudaFree(k.stat2);
	cudaFree(k.scr);
	cudaFree(k.w);
	cudaFree(k.dw);
	hy_nn_cuda_ctx_free(&c);
	return rc;
}

/* Path v3's fused block ops alone (issue 56; lib/nn/cuda/v3/), on a v3
 * context of width C at batch B, random operands: the convolution with
 * GroupNorm+Mish in its operand load and the sums (conv1) or pools (conv2)
 * in its epilogue, and the backward to GroupNorm's output (weight gradient
 * on the recomputed operand, data gradient with Mish' and the sums in its
 * epilogue), each in TFLOP/s of its GEMMs and as a share of the ceiling;
 * the statistics and GroupNorm's input gradient in GB/s on their bytes
 * (read x; read x and dz, write dx). Nothing is printed where the GPU takes
 * no v3 (no bf16 warp MMA): the line says so. */
typedef struct v3_ctx {
	hy_nn_ctx *c;
	int B, C, which;
	void *x, *y, *dz;
	float *st, *mean, *rstd, *gamma, *beta, *w, *dw, *P, *gs;
	uint8_t *arg;
} v3_ctx;

enum { V_FWD_STATS, V_FWD_POOL, V_BWD, V_STATS, V_APPLY, V_COUNT };

static int do_v3(roof *r, void *p)
{
	v3_ctx *v = (v3_ctx *)p;
	(void)r;
	const int B = v->B, C = v->C;
	const hy_nn_act *x = (const hy_nn_act *)v->x;
	switch (v->which) {
	case V_FWD_STATS:
	case V_FWD_POOL: {
		const int pool = v->which == V_FWD_POOL;
		cu_gn_conv3_fwd(v->c, B, C, x, v->st, v->gamma, v->beta, v->w, v->mean, v->rstd,
			(hy_nn_act *)v->y, pool ? NULL : v->gs, pool ? v->P : NULL,
			pool ? v->P + (size_t)B * C : NULL, pool ? v->arg : NULL, NULL);
		break;
	}
	case V_BWD:
		cu_gn_conv3_bwd(v->c, B, C, x, v->gamma, v->beta, v->mean, v->rstd, v->w,
			(const hy_nn_act *)v->y, (hy_nn_act *)v->dz, v->dw, v->gamma + C, v->beta + C,
			v->gs, NULL);
		break;
	case V_STATS:
		cu_gn_stats(v->c, B, C, x, v->st);
		break;
	default:
		cu_gn_bwd_apply(v->c, B, C, x, v->gamma, v->mean, v->rstd, (const hy_nn_act *)v->dz,
			v->gs, (hy_nn_act *)v->y, 0);
		break;
	}
	return cu_of(v->c)->err != HY_OK;
}

static int v3_rows(roof *r, int device, int B, int C, double copy_gbs, double ceil_tf,
	hy_diag *d)
{
	hy_nn_ctx c;
	hy_nn_cuda_cfg cfg = {device, HY_NN_PREC_BF16, 0, HY_NN_CONV_GEMM, {2, C}, B, 0,
		HY_NN_CUDA_PATH_V3};
	if (hy_nn_cuda_ctx_init(&c, &cfg, d) != HY_OK) {
		snprintf(r->err, sizeof r->err, "v3 context: %.200s", d->msg);
		return -1;
	}
	if (!cu_fused_block(&c, C)) {
		say(r, "roof v3 C %d batch %d: not run: this GPU or width runs no v3 block\n", C, B);
		hy_nn_cuda_ctx_free(&c);
		return 0;
	}
	v3_ctx v = {&c, B, C, 0};
	const size_t act = (size_t)B * HY_NN_TP * C * 2, ns = (size_t)B * 64 * sizeof(float);
	const size_t wbytes = (size_t)3 * C * C * sizeof(float), pb = 2 * (size_t)B * C * sizeof(float);
	static const char *const names[V_COUNT] = {
		"gn_conv3_fwd, GroupNorm sums in the epilogue (conv1)",
		"gn_conv3_fwd, SE pools in the epilogue (conv2)",
		"gn_conv3_bwd, dW on the recomputed operand and dx with Mish' and the sums",
		"gn_stats", "gn_bwd_apply"};
	const double gemm_flop = 2.0 * ((double)B * HY_NN_TP - 2) * 3.0 * C * C;
	const double bytes[V_COUNT] = {0, 0, 0, (double)act, 3.0 * act};
	int rc = -1;
	cudaStream_t keep = r->s;
	if (R_RT(r, cudaMalloc(&v.x, act)) || R_RT(r, cudaMalloc(&v.y, act)) ||
		R_RT(r, cudaMalloc(&v.dz, act)) || R_RT(r, cudaMalloc((void **)&v.st, ns)) ||
		R_RT(r, cudaMalloc((void **)&v.gs, ns)) || R_RT(r, cudaMalloc((void **)&v.mean, ns)) ||
		R_RT(r, cudaMalloc((void **)&v.rstd, ns)) ||
		R_RT(r, cudaMalloc((void **)&v.gamma, 2 * C * sizeof(float))) ||
		R_RT(r, cudaMalloc((void **)&v.beta, 2 * C * sizeof(float))) ||
		R_RT(r, cudaMalloc((void **)&v.w, wbytes)) || R_RT(r, cudaMalloc((void **)&v.dw, wbytes)) ||
		R_RT(r, cudaMalloc((void **)&v.P, pb)) || R_RT(r, cudaMalloc((void **)&v.arg, pb / 8)) ||
		rand16(r, v.x, act / 2, 13) || rand16(r, v.y, act / 2, 14) || rand16(r, v.dz, act / 2, 15) ||
		randf(r, v.w, wbytes / sizeof(float), 16) || randf(r, v.gamma, 2 * C, 17) ||
		randf(r, v.beta, 2 * C, 18) || R_RT(r, cudaMemset(v.dw, 0, wbytes)) ||
		R_RT(r, cudaDeviceSynchronize()))
		goto done;
	r->s = cu_of(&c)->s;
	/* sums of the random input, so that mean and rstd are a real input's */
	cu_gn_stats(&c, B, C, (const hy_nn_act *)v.x, v.st);
	for (v.which = 0; v.which < V_COUNT; v.which++) {
		double ms;
		if (time_ms(r, do_v3, &v, &ms)) {
			if (cu_of(&c)->err != HY_OK && !r->err[0])
				snprintf(r->err, sizeof r->err, "v3 %s: %.200s", names[v.which],
					cu_of(&c)->msg);
			goto done;
		}
		if (bytes[v.which] > 0) {
			double gbs = bytes[v.which] / (ms * 1e-3) / 1e9;
			say(r, "roof kernel v3 C %d batch %d %s: %.3f ms, %.1f GB/s on its bytes (%.0f%% "
				"of the copy)\n", C, B, names[v.which], ms, gbs, 100 * gbs / copy_gbs);
		} else {
			double tf = gemm_flop * (v.which == V_BWD ? 2 : 1) / (ms * 1e-3) / 1e12;
			say(r, "roof kernel v3 C %d batch %d %s: %.3f ms, %.1f TFLOP/s (%.0f%% of the "
				"GEMM ceiling)\n", C, B, names[v.which], ms, tf, 100 * tf / ceil_tf);
		}
	}
	rc = 0;
done:
	r->s = keep;
	void *bufs[] = {v.x, v.y, v.dz, v.st, v.gs, v.mean, v.rstd, v.gamma, v.beta, v.w, v.dw, v.P,
		v.arg};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		cudaFree(bufs[i]);
	hy_nn_cuda_ctx_free(&c);
	return rc;
}

hy_status hy_nn_cuda_roof(int device, int channels, const int *batches, int nbatches,
	FILE *out, hy_diag *d)
{
	hy_status st = hy_nn_cuda_probe(device, NULL, d);
	if (st)
		return st;
	if (channels < 16 || channels > 1024 || nbatches < 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "roof: bad channels %d", channels);
	roof r;
	memset(&r, 0, sizeof r);
	r.out = out;
	r.ws_bytes = 64u << 20;
	const size_t copy_bytes = (size_t)1 << 30, big = 8192;
	int maxB = 0;
	for (int i = 0; i < nbatches; i++)
		maxB = batches[i] > maxB ? batches[i] : maxB;
	/* operands big enough for the 8192³ GEMM and every conv GEMM */
	size_t rows = 36 * (size_t)maxB, conv_elems = rows * 3 * (size_t)channels;
	size_t elems = big * big > conv_elems ? big * big : conv_elems;
	void *A = NULL, *Bm = NULL, *D = NULL, *src = NULL, *dst = NULL;
	double ceil_tf = 0, copy_gbs = 0;
	if (R_RT(&r, cudaSetDevice(device)) || R_RT(&r, cudaStreamCreate(&r.s)) ||
		R_RT(&r, cudaEventCreate(&r.e0)) || R_RT(&r, cudaEventCreate(&r.e1)) ||
		R_BLAS(&r, cublasCreate(&r.blas)) || R_BLAS(&r, cublasSetStream(r.blas, r.s)) ||
		R_BLAS(&r, cublasLtCreate(&r.lt)) || R_RT(&r, cudaMalloc(&r.ws, r.ws_bytes)) ||
		/* the workspace conv.cu's handle has (finding 10: other split-K without) */
		R_BLAS(&r, cublasSetWorkspace(r.blas, r.ws, r.ws_bytes)) ||
		R_RT(&r, cudaMalloc(&A, elems * 2)) || R_RT(&r, cudaMalloc(&Bm, elems * 2)) ||
		R_RT(&r, cudaMalloc(&D, elems * 4)) || R_RT(&r, cudaMalloc(&src, copy_bytes)) ||
		R_RT(&r, cudaMalloc(&dst, copy_bytes)) || rand16(&r, A, elems, 1) || rand16(&r, Bm, elems, 2) ||
		R_RT(&r, cudaMemsetAsync(D, 0, elems * 4, r.s)) ||
		R_RT(&r, cudaMemsetAsync(src, 0, copy_bytes, r.s)))
		goto done;
	{
		copy_ctx c = {dst, src, copy_bytes};
		double ms;
		if (time_ms(&r, do_copy, &c, &ms))
			goto done;
		copy_gbs = 2.0 * copy_bytes / (ms * 1e-3) / 1e9;
		say(&r, "roof copy: %.0f MiB device to device in %.3f ms: %.1f GB/s (read + write)\n",
			copy_bytes / 1048576.0, ms, copy_gbs);
	}
	{
		gemm g = {(int)big, (int)big, (int)big, 0, 0, (int)big, (int)big, (int)big, 0.0f,
			  CUDA_R_16BF};
		g.A = A;
		g.B = Bm;
		g.D = D;
		double ex, best, first;
		int tried;
		if (time_ms(&r, do_gemmex, &g, &ex) || lt_best(&r, &g, &best, &first, &tried))
			goto done;
		ceil_tf = tflops(&g, best < ex && best > 0 ? best : ex);
		say(&r, "roof gemm 8192^3 bf16: cublasGemmEx %.3f ms %.1f TFLOP/s; cuBLASLt best of %d "
			"%.3f ms %.1f TFLOP/s: the ceiling %.1f TFLOP/s\n",
			ex, tflops(&g, ex), tried, best, tflops(&g, best), ceil_tf);
	}
	for (int i = 0; i < nbatches; i++)
		if (conv_gemms(&r, batches[i], channels, ceil_tf, A, Bm, D))
			goto done;
	/* the elementwise kernels on a context of their own: the GEMMs'
	 * buffers go first (a full context at the largest batch is big) */
	cudaFree(A);
	cudaFree(Bm);
	cudaFree(D);
	cudaFree(src);
	cudaFree(dst);
	A = Bm = D = src = dst = NULL;
	for (int i = 0; i < nbatches; i++)
		if (kernel_rows(&r, device, batches[i], channels, copy_gbs, ceil_tf, d) ||
			v3_rows(&r, device, batches[i], channels, copy_gbs, ceil_tf, d))
			goto done;
done:
	if (r.err[0])
		st = hy_diag_set(d, HY_EIO, 0, "roof: %s", r.err);
	/* teardown: a failure here changes nothing measured */
	(void)cudaStreamSynchronize(r.s);
	cudaFree(A);
	cudaFree(Bm);
	cudaFree(D);
	cudaFree(src);
	cudaFree(dst);
	cudaFree(r.ws);
	if (r.lt)
		(void)cublasLtDestroy(r.lt);
	if (r.blas)
		(void)cublasDestroy(r.blas);
	if (r.e0)
		(void)cudaEventDestroy(r.e0);
	if (r.e1)
		(void)cudaEventDestroy(r.e1);
	if (r.s)
		(void)cudaStreamDestroy(r.s);
	return st;
}
