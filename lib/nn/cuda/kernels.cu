/* The small kernels of the CUDA backend, one per op of backend.h that is
 * not a GEMM, each the CUDA twin of the same op in lib/nn/cpu.c and using
 * the same per-element maths (nn/math.h). Every kernel states its thread
 * mapping and bounds. Reductions are fixed-order: a fixed grid with a fixed
 * assignment of elements to threads, then tree sums in shared memory, so a
 * result depends on the input and the size only, never on scheduling.
 *
 * One file, not one per op family: the kernels share the inline device
 * helpers and launch checks defined here, and the op families are about to
 * change together (issue 43 fuses GroupNorm+Mish, the SE gate and the tap
 * builder across today's families); the split follows that rework, along
 * its new boundaries, rather than today's.
 *
 * Fusions (each saves a pass over the activation in memory):
 * - GroupNorm + Mish forward: statistics, normalisation and Mish in one
 *   kernel per sample (the sample's 34×C values stay in L1/L2);
 * - GroupNorm + Mish backward: Mish' recomputed from z instead of a dz
 *   buffer, and the per-sample dγ/dβ partials written in the same pass;
 * - SE gate: σ(e_avg + e_max) computed where it is applied (out = x + y·s);
 *   SE backward writes dy and reduces Σ dout·y in one pass;
 * - losses: loss, gradient and the block partial of the sum in one pass. */
#include "nn/cuda/internal.h"

#include <cuda_bf16.h>
#include <math.h>

extern "C" {
#include "nn/math.h"
}

enum { NT = 256 }; /* threads per block of every kernel here */

/* Blocks for a grid-stride loop over n elements (at most 2^16 blocks);
 * internal.h, shared with fused.cu. */
unsigned blocks_for(size_t n)
{
	size_t b = (n + NT - 1) / NT;
	return b < 1 ? 1u : b > 65536 ? 65536u : (unsigned)b;
}

#define GRID_STRIDE(i, n)                                                                   \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                 \
		i += (size_t)gridDim.x * blockDim.x)

/* Σ of v over the block (blockDim.x == NT) in a fixed tree order; every
 * thread gets the sum. sh: NT doubles of shared memory. */
__device__ static double block_sum(double v, double *sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = NT / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	double r = sh[0];
	__syncthreads();
	return r;
}

/* ------------------------------------------------------------ activation storage */

/* Activation storage (backend.h hy_nn_act) is float in an fp32 context and
 * bf16 bits (uint16_t) in a bf16 one; the kernels that touch it are
 * templates over the element type T, with every load widened to fp32 and
 * every store rounded by the shared hy_nn_bf16_round (nn/math.h), so the
 * maths in between is the fp32 maths of cpu.c. act_bf16(x) picks the
 * instance at launch. */
__device__ static inline float ld(const float *p, size_t i)
{
	return p[i];
}

__device__ static inline float ld(const uint16_t *p, size_t i)
{
	return hy_nn_bf16_to_float(p[i]);
}

__device__ static inline void st(float *p, size_t i, float v)
{
	p[i] = v;
}

__device__ static inline void st(uint16_t *p, size_t i, float v)
{
	p[i] = hy_nn_bf16_round(v);
}

static int act_bf16(const cu_ctx *x)
{
	return x->precision == HY_NN_PREC_BF16;
}

/* Calls F<T>(args...) with T the context's activation element type. */
#define ACT_DISPATCH(x, F, ...)                                                             \
	do {                                                                                \
		if (act_bf16(x))                                                            \
			F<uint16_t>(__VA_ARGS__);                                           \
		else                                                                        \
			F<float>(__VA_ARGS__);                                              \
	} while (0)

/* ------------------------------------------------------------ conversions */

/* One thread per element of the packed rows×cols output (grid-stride over
 * rows·cols); reads row r at src + r·ld. */
__global__ static void to_bf16_kernel(int rows, int cols, const float *src, int ld,
	uint16_t *dst)
{
	GRID_STRIDE(i, (size_t)rows * cols)
	{
		size_t r = i / (size_t)cols, c = i % (size_t)cols;
		dst[i] = hy_nn_bf16_round(src[r * (size_t)ld + c]);
	}
}

void k_to_bf16(cu_ctx *x, int rows, int cols, const float *src, int ld, uint16_t *dst)
{
	size_t n = (size_t)rows * cols;
	if (!n)
		return;
	to_bf16_kernel<<<blocks_for(n), NT, 0, x->s>>>(rows, cols, src, ld, dst);
	CU_LAUNCH(x, "to_bf16_kernel");
}

/* One thread per element (grid-stride over n). */
__global__ static void bf16_to_f32_kernel(size_t n, const uint16_t *src, float *dst)
{
	GRID_STRIDE(i, n)
	dst[i] = hy_nn_bf16_to_float(src[i]);
}

void k_bf16_to_f32(cu_ctx *x, size_t n, const uint16_t *src, float *dst)
{
	if (!n)
		return;
	bf16_to_f32_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, src, dst);
	CU_LAUNCH(x, "bf16_to_f32_kernel");
}

/* One thread per pad value: i over B·2·C → sample i/(2C), pad row 0 or 35,
 * channel i%C. */
template <typename T> __global__ static void zero_pads_kernel(int B, int C, T *p)
{
	GRID_STRIDE(i, (size_t)B * 2 * C)
	{
		size_t b = i / (2 * (size_t)C), side = i / C % 2, ch = i % C;
		p[(b * HY_NN_TP + side * (HY_NN_TP - 1)) * C + ch] = 0; /* +0 in both types */
	}
}

template <typename T> static void zero_pads_launch(cu_ctx *x, int B, int C, void *p)
{
	size_t n = (size_t)B * 2 * C;
	if (!n)
		return;
	zero_pads_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(B, C, (T *)p);
	CU_LAUNCH(x, "zero_pads_kernel");
}

void k_zero_pads(cu_ctx *x, int B, int C, float *p)
{
	zero_pads_launch<float>(x, B, C, p);
}

void k_zero_pads_act(cu_ctx *x, int B, int C, void *p)
{
	ACT_DISPATCH(x, zero_pads_launch, x, B, C, p);
}

/* One thread per element (grid-stride over n): dst = bf16(src). */
__global__ static void f32_to_bf16_kernel(size_t n, const float *src, uint16_t *dst)
{
	GRID_STRIDE(i, n)
	dst[i] = hy_nn_bf16_round(src[i]);
}

void k_act_from_f32(cu_ctx *x, size_t n, const float *src, void *dst)
{
	if (!n)
		return;
	if (!act_bf16(x)) {
		CU_RT(x, cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, x->s));
		return;
	}
	f32_to_bf16_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, src, (uint16_t *)dst);
	CU_LAUNCH(x, "f32_to_bf16_kernel");
}

/* One thread per element of y[rows][n] (row stride ldy): y += b. */
__global__ static void add_bias_kernel(int rows, int n, const float *b, float *y, int ldy)
{
	GRID_STRIDE(i, (size_t)rows * n)
	{
		size_t r = i / n, o = i % n;
		y[r * ldy + o] += b[o];
	}
}

void k_add_bias(cu_ctx *x, int rows, int n, const float *b, float *y, int ldy)
{
	size_t e = (size_t)rows * n;
	if (!e || !b)
		return;
	add_bias_kernel<<<blocks_for(e), NT, 0, x->s>>>(rows, n, b, y, ldy);
	CU_LAUNCH(x, "add_bias_kernel");
}

/* One thread per element (grid-stride over n). */
__global__ static void fill_kernel(size_t n, float v, float *p)
{
	GRID_STRIDE(i, n)
	p[i] = v;
}

void k_fill(cu_ctx *x, size_t n, float v, float *p)
{
	if (!n)
		return;
	fill_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, v, p);
	CU_LAUNCH(x, "fill_kernel");
}

/* ------------------------------------------------------------ GroupNorm + Mish */

/* One block (NT threads) per sample b (grid B). Thread j owns channels
 * j, j + NT, … < C for the per-channel sums over the 34 tiles (coalesced:
 * consecutive threads read consecutive channels of a row); threads 0..31
 * fold the channels of group j into its statistics in channel order, in
 * double, as cpu.c does; then every thread normalises elements j, j + NT,
 * … of the sample's 34·C. Shared memory: 3·C floats (C ≤ 4096: 48 KiB). */
template <typename T>
__global__ static void gn_mish_fwd_kernel(int C, const T *in, const float *gamma,
	const float *beta, T *z, T *a, float *mean, float *rstd)
{
	extern __shared__ float sh[];
	float *cs = sh, *sc = sh + C, *sf = sh + 2 * C;
	__shared__ float gm[HY_NN_GROUPS], gr[HY_NN_GROUPS];
	const int b = blockIdx.x, cpg = C / HY_NN_GROUPS;
	const double n = (double)cpg * HY_NN_T;
	const size_t off = ((size_t)b * HY_NN_TP + 1) * C;
	const T *xb = in + off;
	for (int ch = threadIdx.x; ch < C; ch += NT) {
		float s = 0.0f;
		for (int t = 0; t < HY_NN_T; t++)
			s += ld(xb, (size_t)t * C + ch);
		cs[ch] = s;
	}
	__syncthreads();
	if (threadIdx.x < HY_NN_GROUPS) {
		int g = threadIdx.x;
		double s = 0;
		for (int j = 0; j < cpg; j++)
			s += cs[g * cpg + j];
		gm[g] = (float)(s / n);
		mean[b * HY_NN_GROUPS + g] = gm[g];
	}
	__syncthreads();
	for (int ch = threadIdx.x; ch < C; ch += NT) {
		float m = gm[ch / cpg], s = 0.0f;
		for (int t = 0; t < HY_NN_T; t++) {
			float dv = ld(xb, (size_t)t * C + ch) - m;
			s += dv * dv;
		}
		cs[ch] = s;
	}
	__syncthreads();
	if (threadIdx.x < HY_NN_GROUPS) {
		int g = threadIdx.x;
		double ss = 0;
		for (int j = 0; j < cpg; j++)
			ss += cs[g * cpg + j];
		gr[g] = (float)(1.0 / sqrt(ss / n + 1e-5));
		rstd[b * HY_NN_GROUPS + g] = gr[g];
	}
	__syncthreads();
	for (int ch = threadIdx.x; ch < C; ch += NT) {
		int g = ch / cpg;
		sc[ch] = gr[g] * gamma[ch];
		sf[ch] = beta[ch] - gm[g] * sc[ch];
	}
	__syncthreads();
	for (int i = threadIdx.x; i < HY_NN_T * C; i += NT) {
		int ch = i % C;
		float v = ld(xb, i) * sc[ch] + sf[ch];
		st(z, off + i, v);
		st(a, off + i, hy_nn_mish(v));
	}
	for (int ch = threadIdx.x; ch < C; ch += NT) { /* the two pad rows */
		st(z, off - C + ch, 0.0f), st(a, off - C + ch, 0.0f);
		st(z, off + (size_t)HY_NN_T * C + ch, 0.0f), st(a, off + (size_t)HY_NN_T * C + ch, 0.0f);
	}
}

template <typename T>
static void gn_mish_fwd_launch(cu_ctx *x, int B, int C, const void *in, const float *gamma,
	const float *beta, void *z, void *a, float *mean, float *rstd)
{
	gn_mish_fwd_kernel<T><<<B, NT, 3 * (size_t)C * sizeof(float), x->s>>>(C, (const T *)in,
		gamma, beta, (T *)z, (T *)a, mean, rstd);
	CU_LAUNCH(x, "gn_mish_fwd_kernel");
}

void cu_gn_mish_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const float *gamma,
	const float *beta, hy_nn_act *z, hy_nn_act *a, float *mean, float *rstd)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (B < 1)
		return;
	x->ops->gn_mish_fwd(x, B, C, in, gamma, beta, z, a, mean, rstd);
}

void k1_gn_mish_fwd(cu_ctx *x, int B, int C, const void *in, const float *gamma,
	const float *beta, void *z, void *a, float *mean, float *rstd)
{
	ACT_DISPATCH(x, gn_mish_fwd_launch, x, B, C, in, gamma, beta, z, a, mean, rstd);
}

/* One block (NT threads) per sample b (grid B), the mapping of the forward:
 * per-channel partials pg = Σ_t dz·x̂, pb = Σ_t dz (dz = da·Mish'(z)) by the
 * channel's thread, written to scratch [2][B][C] for dγ/dβ; the group
 * folds by threads 0..31 in channel order (double); then dx element by
 * element. Shared memory: 2·C floats. */
template <typename T>
__global__ static void gn_mish_bwd_kernel(int B, int C, const T *in, const T *z,
	const float *gamma, const float *mean, const float *rstd, const T *da, T *dx, int dx_acc,
	float *scratch)
{
	extern __shared__ float sh[];
	float *pg = sh, *pb = sh + C;
	__shared__ float gm[HY_NN_GROUPS], gr[HY_NN_GROUPS], g1[HY_NN_GROUPS], g2[HY_NN_GROUPS];
	const int b = blockIdx.x, cpg = C / HY_NN_GROUPS;
	const double n = (double)cpg * HY_NN_T;
	const size_t off = ((size_t)b * HY_NN_TP + 1) * C;
	if (threadIdx.x < HY_NN_GROUPS) {
		gm[threadIdx.x] = mean[b * HY_NN_GROUPS + threadIdx.x];
		gr[threadIdx.x] = rstd[b * HY_NN_GROUPS + threadIdx.x];
	}
	__syncthreads();
	for (int ch = threadIdx.x; ch < C; ch += NT) {
		float m = gm[ch / cpg], r = gr[ch / cpg], sg = 0.0f, sb = 0.0f;
		for (int t = 0; t < HY_NN_T; t++) {
			size_t i = off + (size_t)t * C + ch;
			float d = ld(da, i) * hy_nn_mish_grad(ld(z, i));
			sg += d * (ld(in, i) - m) * r;
			sb += d;
		}
		pg[ch] = sg;
		pb[ch] = sb;
		scratch[(size_t)b * C + ch] = sg;
		scratch[((size_t)B + b) * C + ch] = sb;
	}
	__syncthreads();
	if (threadIdx.x < HY_NN_GROUPS) {
		int g = threadIdx.x;
		double s1 = 0, s2 = 0;
		for (int j = 0; j < cpg; j++) {
			int ch = g * cpg + j;
			s1 += (double)gamma[ch] * pb[ch];
			s2 += (double)gamma[ch] * pg[ch];
		}
		g1[g] = (float)(s1 / n);
		g2[g] = (float)(s2 / n);
	}
	__syncthreads();
	for (int i = threadIdx.x; i < HY_NN_T * C; i += NT) {
		int ch = i % C, g = ch / cpg;
		size_t k = off + i;
		float d = ld(da, k) * hy_nn_mish_grad(ld(z, k));
		float xh = (ld(in, k) - gm[g]) * gr[g];
		float v = gr[g] * (d * gamma[ch] - g1[g] - xh * g2[g]);
		st(dx, k, dx_acc ? ld(dx, k) + v : v);
	}
	if (!dx_acc)
		for (int ch = threadIdx.x; ch < C; ch += NT) {
			st(dx, off - C + ch, 0.0f);
			st(dx, off + (size_t)HY_NN_T * C + ch, 0.0f);
		}
}

/* dγ, dβ += Σ_b of the per-sample partials in scratch [2][B][C], in two
 * passes of a fixed order (so the sums are the same on every run and do not
 * depend on the launch): the samples fall in chunks of q = ⌈√B⌉.
 * Pass 1: one thread per (chunk j, channel) (grid-stride over the
 * ⌈B/q⌉·C pairs, the channel fastest: coalesced rows) sums its chunk's q
 * rows in order in double and leaves the sum in the chunk's first row,
 * which only this thread reads. Pass 2: one thread per channel (grid-stride
 * over C) adds the chunk sums in chunk order, in double. Both loops are
 * ~√B long where one pass over B in one block was B long (finding 8: at
 * C = 256 a single block summed all B partials serially). */
__global__ static void gn_param_chunks_kernel(int B, int C, int q, float *scratch)
{
	const int nchunks = (B + q - 1) / q;
	GRID_STRIDE(i, (size_t)nchunks * C)
	{
		const int ch = (int)(i % C), j = (int)(i / C);
		const int b0 = j * q, b1 = min(B, b0 + q);
		double sg = 0, sb = 0;
		for (int b = b0; b < b1; b++) {
			sg += scratch[(size_t)b * C + ch];
			sb += scratch[((size_t)B + b) * C + ch];
		}
		scratch[(size_t)b0 * C + ch] = (float)sg;
		scratch[((size_t)B + b0) * C + ch] = (float)sb;
	}
}

__global__ static void gn_param_grad_kernel(int B, int C, int q, const float *scratch,
	float *dgamma, float *dbeta)
{
	GRID_STRIDE(ch, (size_t)C)
	{
		double sg = 0, sb = 0;
		for (int b = 0; b < B; b += q) {
			sg += scratch[(size_t)b * C + ch];
			sb += scratch[((size_t)B + b) * C + ch];
		}
		dgamma[ch] += (float)sg;
		dbeta[ch] += (float)sb;
	}
}

template <typename T>
static void gn_mish_bwd_launch(cu_ctx *x, int B, int C, const void *in, const void *z,
	const float *gamma, const float *mean, const float *rstd, const void *da, void *dx,
	int dx_acc, float *scratch)
{
	gn_mish_bwd_kernel<T><<<B, NT, 2 * (size_t)C * sizeof(float), x->s>>>(B, C,
		(const T *)in, (const T *)z, gamma, mean, rstd, (const T *)da, (T *)dx, dx_acc,
		scratch);
	CU_LAUNCH(x, "gn_mish_bwd_kernel");
}

void cu_gn_mish_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const hy_nn_act *z,
	const float *gamma, const float *mean, const float *rstd, const hy_nn_act *da, hy_nn_act *dx,
	int dx_acc, float *dgamma, float *dbeta, float *scratch)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (B < 1)
		return;
	x->ops->gn_mish_bwd(x, B, C, in, z, gamma, mean, rstd, da, dx, dx_acc, scratch);
	k_gn_param_grads(x, B, C, scratch, dgamma, dbeta);
}

void k1_gn_mish_bwd(cu_ctx *x, int B, int C, const void *in, const void *z, const float *gamma,
	const float *mean, const float *rstd, const void *da, void *dx, int dx_acc, float *scratch)
{
	ACT_DISPATCH(x, gn_mish_bwd_launch, x, B, C, in, z, gamma, mean, rstd, da, dx, dx_acc,
		scratch);
}

void k_gn_param_grads(cu_ctx *x, int B, int C, float *scratch, float *dgamma, float *dbeta)
{
	if (x->err)
		return;
	int q = (int)ceil(sqrt((double)B));
	size_t pairs = (size_t)((B + q - 1) / q) * C;
	gn_param_chunks_kernel<<<blocks_for(pairs), NT, 0, x->s>>>(B, C, q, scratch);
	if (CU_LAUNCH(x, "gn_param_chunks_kernel"))
		return;
	gn_param_grad_kernel<<<blocks_for((size_t)C), NT, 0, x->s>>>(B, C, q, scratch, dgamma,
		dbeta);
	CU_LAUNCH(x, "gn_param_grad_kernel");
}

/* The GroupNorm kernels keep per-channel partials in dynamic shared memory,
 * 3·C floats forward and 2·C backward: past 48 KiB (with the static part,
 * C = 4096 forward) a launch fails unless the kernel opts in to more
 * (finding 5). Opts in all four instances for C up to max_c, once per
 * context; the channels a model may have are bounded by hydra-fit's
 * --channels (≤ 4096: 48 KiB + 256 bytes, within every sm_80+ limit). */
int k_setup(cu_ctx *x, int max_c)
{
	const int fwd = 3 * max_c * (int)sizeof(float), bwd = 2 * max_c * (int)sizeof(float);
	return CU_RT(x, cudaFuncSetAttribute(gn_mish_fwd_kernel<float>,
			      cudaFuncAttributeMaxDynamicSharedMemorySize, fwd)) ||
		CU_RT(x, cudaFuncSetAttribute(gn_mish_fwd_kernel<uint16_t>,
			      cudaFuncAttributeMaxDynamicSharedMemorySize, fwd)) ||
		CU_RT(x, cudaFuncSetAttribute(gn_mish_bwd_kernel<float>,
			      cudaFuncAttributeMaxDynamicSharedMemorySize, bwd)) ||
		CU_RT(x, cudaFuncSetAttribute(gn_mish_bwd_kernel<uint16_t>,
			      cudaFuncAttributeMaxDynamicSharedMemorySize, bwd));
}

/* ------------------------------------------------------------ elementwise */

/* One thread per element (grid-stride over n) for the four below. */
__global__ static void mish_fwd_kernel(size_t n, const float *z, float *a)
{
	GRID_STRIDE(i, n)
	a[i] = hy_nn_mish(z[i]);
}

__global__ static void mish_bwd_kernel(size_t n, const float *z, const float *da, float *dz)
{
	GRID_STRIDE(i, n)
	dz[i] = da[i] * hy_nn_mish_grad(z[i]);
}

__global__ static void relu_fwd_kernel(size_t n, float *h)
{
	GRID_STRIDE(i, n)
	h[i] = h[i] > 0.0f ? h[i] : 0.0f;
}

__global__ static void relu_bwd_kernel(size_t n, const float *h, float *dh)
{
	GRID_STRIDE(i, n)
	if (!(h[i] > 0.0f))
		dh[i] = 0.0f;
}

void cu_mish_fwd(const hy_nn_ctx *c, size_t n, const float *z, float *a)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (!n)
		return;
	mish_fwd_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, z, a);
	CU_LAUNCH(x, "mish_fwd_kernel");
}

void cu_mish_bwd(const hy_nn_ctx *c, size_t n, const float *z, const float *da, float *dz)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (!n)
		return;
	mish_bwd_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, z, da, dz);
	CU_LAUNCH(x, "mish_bwd_kernel");
}

void cu_relu_fwd(const hy_nn_ctx *c, size_t n, float *h)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (!n)
		return;
	relu_fwd_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, h);
	CU_LAUNCH(x, "relu_fwd_kernel");
}

void cu_relu_bwd(const hy_nn_ctx *c, size_t n, const float *h, float *dh)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (!n)
		return;
	relu_bwd_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, h, dh);
	CU_LAUNCH(x, "relu_bwd_kernel");
}

/* ------------------------------------------------------------ pooling, SE */

/* One thread per (sample, channel) (grid-stride over B·C; consecutive
 * threads take consecutive channels of a row: coalesced), looping over the
 * 34 tiles: the mean, and the max with the first tile that reaches it. */
template <typename T>
__global__ static void pool_fwd_kernel(int B, int C, const T *in, float *avg, float *max,
	uint8_t *arg, int ldp)
{
	GRID_STRIDE(i, (size_t)B * C)
	{
		size_t b = i / C, ch = i % C;
		const T *xb = in + (b * HY_NN_TP + 1) * C + ch;
		float av = 0.0f, mx = ld(xb, 0);
		int am = 0;
		for (int t = 0; t < HY_NN_T; t++) {
			float v = ld(xb, (size_t)t * C);
			av += v;
			if (v > mx) {
				mx = v;
				am = t;
			}
		}
		avg[b * ldp + ch] = av * (1.0f / HY_NN_T);
		if (max) {
			max[b * ldp + ch] = mx;
			arg[b * C + ch] = (uint8_t)am;
		}
	}
}

/* One thread per (sample, channel), as the forward: dx += davg/34 on the
 * 34 tiles, then + dmax at the argmax (the order of cpu.c). At the argmax
 * both terms are added in fp32 before the one store: a store in between
 * would round a bf16 dx twice (found by check_gpu on an H200). */
template <typename T>
__global__ static void pool_bwd_kernel(int B, int C, const float *davg, const float *dmax,
	const uint8_t *arg, int ldp, T *dx)
{
	GRID_STRIDE(i, (size_t)B * C)
	{
		size_t b = i / C, ch = i % C;
		T *xb = dx + (b * HY_NN_TP + 1) * C + ch;
		float da = davg[b * ldp + ch];
		int am = dmax ? arg[b * C + ch] : -1;
		for (int t = 0; t < HY_NN_T; t++) {
			size_t k = (size_t)t * C;
			float v = ld(xb, k) + da * (1.0f / HY_NN_T);
			if (t == am)
				v += dmax[b * ldp + ch];
			st(xb, k, v);
		}
	}
}

template <typename T>
static void pool_fwd_launch(cu_ctx *x, int B, int C, const void *in, float *avg, float *max,
	uint8_t *arg, int ldp)
{
	size_t n = (size_t)B * C;
	pool_fwd_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(B, C, (const T *)in, avg, max, arg, ldp);
	CU_LAUNCH(x, "pool_fwd_kernel");
}

void cu_pool_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, float *avg, float *max,
	uint8_t *arg, int ldp)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (B > 0 && C > 0)
		ACT_DISPATCH(x, pool_fwd_launch, x, B, C, in, avg, max, arg, ldp);
}

template <typename T>
static void pool_bwd_launch(cu_ctx *x, int B, int C, const float *davg, const float *dmax,
	const uint8_t *arg, int ldp, void *dx)
{
	size_t n = (size_t)B * C;
	pool_bwd_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(B, C, davg, dmax, arg, ldp, (T *)dx);
	CU_LAUNCH(x, "pool_bwd_kernel");
}

void cu_pool_bwd(const hy_nn_ctx *c, int B, int C, const float *davg, const float *dmax,
	const uint8_t *arg, int ldp, hy_nn_act *dx)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (B > 0 && C > 0)
		ACT_DISPATCH(x, pool_bwd_launch, x, B, C, davg, dmax, arg, ldp, dx);
}

/* One thread per element of [B][36][C] (grid-stride; pads included: x and
 * y have zero pads, so out does): the gate s = σ(e_avg + e_max) of the
 * element's (sample, channel), out = x + y·s; row 0 stores s. */
template <typename T>
__global__ static void se_fwd_kernel(int B, int C, const T *in, const T *y, const float *e2,
	float *s, T *out)
{
	GRID_STRIDE(i, (size_t)B * HY_NN_TP * C)
	{
		size_t b = i / ((size_t)HY_NN_TP * C), t = i / C % HY_NN_TP, ch = i % C;
		float sv = hy_nn_sigmoid(e2[b * C + ch] + e2[((size_t)B + b) * C + ch]);
		st(out, i, ld(in, i) + ld(y, i) * sv);
		if (t == 0)
			s[b * C + ch] = sv;
	}
}

/* One thread per (sample, channel) (grid-stride over B·C, coalesced over
 * channels), looping over the 36 rows: dy = dout·s, and Σ dout·y. */
template <typename T>
__global__ static void se_bwd_kernel(int B, int C, const T *y, const float *s, const T *dout,
	T *dy, float *de2)
{
	GRID_STRIDE(k, (size_t)B * C)
	{
		size_t b = k / C, ch = k % C;
		float sv = s[k], acc = 0.0f;
		for (int t = 0; t < HY_NN_TP; t++) {
			size_t i = (b * HY_NN_TP + t) * C + ch;
			float g = ld(dout, i);
			acc += g * ld(y, i);
			st(dy, i, g * sv);
		}
		float de = acc * sv * (1.0f - sv);
		de2[k] = de;
		de2[((size_t)B + b) * C + ch] = de;
	}
}

template <typename T>
static void se_fwd_launch(cu_ctx *x, int B, int C, const void *in, const void *y,
	const float *e2, float *s, void *out)
{
	size_t n = (size_t)B * HY_NN_TP * C;
	se_fwd_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(B, C, (const T *)in, (const T *)y, e2, s,
		(T *)out);
	CU_LAUNCH(x, "se_fwd_kernel");
}

void cu_se_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const hy_nn_act *y, const float *e2,
	float *s, hy_nn_act *out)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (B > 0 && C > 0)
		x->ops->se_fwd(x, B, C, in, y, e2, s, out);
}

void k1_se_fwd(cu_ctx *x, int B, int C, const void *in, const void *y, const float *e2, float *s,
	void *out)
{
	ACT_DISPATCH(x, se_fwd_launch, x, B, C, in, y, e2, s, out);
}

template <typename T>
static void se_bwd_launch(cu_ctx *x, int B, int C, const void *y, const float *s,
	const void *dout, void *dy, float *de2)
{
	size_t n = (size_t)B * C;
	se_bwd_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(B, C, (const T *)y, s, (const T *)dout,
		(T *)dy, de2);
	CU_LAUNCH(x, "se_bwd_kernel");
}

void cu_se_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *y, const float *s, const hy_nn_act *dout,
	hy_nn_act *dy, float *de2)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (B > 0 && C > 0)
		ACT_DISPATCH(x, se_bwd_launch, x, B, C, y, s, dout, dy, de2);
}

/* ------------------------------------------------------------ losses, sums */

/* The result pairs: part[NP + 2k] a sum, part[NP + 2k + 1] a count's
 * bits. Pair RES_NOW is read back at once (sumsq); the others hold the
 * losses queued since the last sync, one pair each. */
enum { RES_NOW = HY_NN_CUDA_RESULTS - 1 };

static double *result(cu_ctx *x, int k)
{
	return x->part + HY_NN_CUDA_PARTIALS + 2 * k;
}

/* Reads back the sum of pair RES_NOW (sumsq: the one result read at once). */
static double fetch_result(cu_ctx *x)
{
	double r = 0;
	if (CU_RT(x, cudaMemcpyAsync(&r, result(x, RES_NOW), sizeof r, cudaMemcpyDeviceToHost,
			   x->s)) ||
		CU_RT(x, cudaStreamSynchronize(x->s)))
		return NAN;
	return r;
}

/* A free pair for a loss about to be queued (all taken: the stream is
 * waited for and the queued sums delivered first). */
static int claim_result(cu_ctx *x)
{
	if (x->npend == RES_NOW) {
		int ok = !CU_RT(x, cudaStreamSynchronize(x->s));
		k_losses_deliver(x, ok);
	}
	return x->npend;
}

/* The loss whose kernels wrote pair k: its copy to page-locked memory is
 * queued behind them, its host addresses kept until the next sync. */
static void queue_result(cu_ctx *x, int k, double *sum, int *correct)
{
	if (CU_RT(x, cudaMemcpyAsync(x->hres + 2 * k, result(x, k), 2 * sizeof(double),
			cudaMemcpyDeviceToHost, x->s))) {
		*sum = NAN;
		return;
	}
	x->pend[k].sum = sum;
	x->pend[k].correct = correct;
	x->npend = k + 1;
}

void k_losses_deliver(cu_ctx *x, int ok)
{
	for (int k = 0; k < x->npend; k++) {
		*x->pend[k].sum = ok ? x->hres[2 * k] : NAN;
		if (ok && x->pend[k].correct) {
			int n;
			memcpy(&n, &x->hres[2 * k + 1], sizeof n);
			*x->pend[k].correct += n;
		}
	}
	x->npend = 0;
}

/* One block (NT threads): res[0] = Σ part[0..NP) in a fixed tree. */
__global__ static void finish_kernel(const double *part, double *res)
{
	__shared__ double sh[NT];
	double v = 0;
	for (int k = threadIdx.x; k < HY_NN_CUDA_PARTIALS; k += NT)
		v += part[k];
	v = block_sum(v, sh);
	if (threadIdx.x == 0)
		res[0] = v;
}

/* One warp per row b (8 rows per block, grid ⌈B/8⌉); n ≤ 64 classes, lane
 * l holds classes l and l + 32. The max and argmax (first index on ties,
 * as cpu.c), Σ exp in double, the log-sum-exp; every lane writes its two
 * gradients; lane 0 the row's loss and top-1 flag. */
__global__ static void softmax_ce_kernel(int B, int n, const float *logits,
	const uint64_t *mask, const uint8_t *label, float scale, float *dlogits, double *rowloss,
	int *rowok)
{
	const int lane = threadIdx.x & 31, b = blockIdx.x * (NT / 32) + threadIdx.x / 32;
	if (b >= B)
		return;
	const float *l = logits + (size_t)b * n;
	float *d = dlogits + (size_t)b * n;
	const int lab = label[b];
	const uint64_t m = mask ? mask[b] | 1ull << lab : ~0ull;
	const int i0 = lane, i1 = lane + 32;
	const int ok0 = i0 < n && (m >> i0 & 1), ok1 = i1 < n && (m >> i1 & 1);
	float bv = ok0 ? l[i0] : -INFINITY;
	int bi = ok0 ? i0 : 64;
	if (ok1 && l[i1] > bv) {
		bv = l[i1];
		bi = i1;
	}
	for (int o = 16; o > 0; o >>= 1) {
		float ov = __shfl_xor_sync(0xffffffffu, bv, o);
		int oi = __shfl_xor_sync(0xffffffffu, bi, o);
		if (ov > bv || (ov == bv && oi < bi)) {
			bv = ov;
			bi = oi;
		}
	}
	const double mx = bv;
	double se = (ok0 ? exp((double)l[i0] - mx) : 0.0) + (ok1 ? exp((double)l[i1] - mx) : 0.0);
	for (int o = 16; o > 0; o >>= 1)
		se += __shfl_down_sync(0xffffffffu, se, o);
	se = __shfl_sync(0xffffffffu, se, 0);
	const double lse = mx + log(se);
	if (i0 < n)
		d[i0] = (float)(scale * ((ok0 ? exp((double)l[i0] - lse) : 0.0) - (i0 == lab)));
	if (i1 < n)
		d[i1] = (float)(scale * ((ok1 ? exp((double)l[i1] - lse) : 0.0) - (i1 == lab)));
	if (lane == 0) {
		rowloss[b] = lse - l[lab];
		rowok[b] = bi == lab;
	}
}

/* One block (NT threads): Σ rowloss and Σ rowok over b in [0, B), thread j
 * taking rows j, j + NT, … then a tree; into res[0] and res[1]'s bits. */
__global__ static void rows_finish_kernel(int B, const double *rowloss, const int *rowok,
	double *res)
{
	__shared__ double sh[NT];
	double v = 0, k = 0;
	for (int b = threadIdx.x; b < B; b += NT) {
		v += rowloss[b];
		k += rowok[b];
	}
	v = block_sum(v, sh);
	k = block_sum(k, sh);
	if (threadIdx.x == 0) {
		res[0] = v;
		int ki = (int)k;
		memcpy(&res[1], &ki, sizeof ki);
	}
}

void cu_softmax_ce(const hy_nn_ctx *c, int B, int n, const float *logits, const uint64_t *mask,
	const uint8_t *label, float scale, float *dlogits, double *sum, int *correct)
{
	cu_ctx *x = cu_enter(c);
	*sum = NAN;
	if (x->err || too_big(x, B, x->max_batch, "softmax_ce"))
		return;
	if (B < 1) {
		*sum = 0.0;
		return;
	}
	if (n < 1 || n > 64) {
		cu_fail(x, HY_EUSAGE, "softmax_ce", "more than 64 classes", __FILE__, __LINE__);
		return;
	}
	const int k = claim_result(x);
	softmax_ce_kernel<<<(B + NT / 32 - 1) / (NT / 32), NT, 0, x->s>>>(B, n, logits, mask,
		label, scale, dlogits, x->rowloss, x->rowok);
	if (CU_LAUNCH(x, "softmax_ce_kernel"))
		return;
	rows_finish_kernel<<<1, NT, 0, x->s>>>(B, x->rowloss, x->rowok, result(x, k));
	if (CU_LAUNCH(x, "rows_finish_kernel"))
		return;
	queue_result(x, k, sum, correct);
}

/* Fixed grid of NP blocks × NT threads; thread (k, j) takes the elements
 * i ≡ k·NT + j (mod NP·NT) in order, its block sums them in a tree into
 * part[k]; finish_kernel adds the NP partials. For the three below. */
__global__ static void bce_kernel(size_t n, const float *logits, const float *target,
	const float *w, float scale, float *dlogits, double *part)
{
	__shared__ double sh[NT];
	double acc = 0;
	GRID_STRIDE(i, n)
	{
		float wi = w ? w[i] : 1.0f;
		if (wi == 0.0f) {
			dlogits[i] = 0.0f;
			continue;
		}
		acc += wi * hy_nn_bce_logits(logits[i], target[i]);
		dlogits[i] = scale * wi * (hy_nn_sigmoid(logits[i]) - target[i]);
	}
	acc = block_sum(acc, sh);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

__global__ static void mse_kernel(size_t n, const float *pred, const float *target,
	float scale, float *dpred, double *part)
{
	__shared__ double sh[NT];
	double acc = 0;
	GRID_STRIDE(i, n)
	{
		float d = pred[i] - target[i];
		acc += (double)d * d;
		dpred[i] = scale * 2.0f * d;
	}
	acc = block_sum(acc, sh);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

__global__ static void sumsq_kernel(size_t n, const float *g, double *part)
{
	__shared__ double sh[NT];
	double acc = 0;
	GRID_STRIDE(i, n)
	acc += (double)g[i] * g[i];
	acc = block_sum(acc, sh);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

/* The NP partials summed into pair k (finish_kernel). */
static int finish(cu_ctx *x, int k)
{
	finish_kernel<<<1, NT, 0, x->s>>>(x->part, result(x, k));
	return CU_LAUNCH(x, "finish_kernel");
}

/* A queued loss of n elements: its partials by launch(), its sum into a
 * pair read at the next sync. */
#define QUEUED_LOSS(name, launch)                                                  \
	cu_ctx *x = cu_enter(c);                                                   \
	*sum = NAN;                                                                \
	if (x->err)                                                                \
		return;                                                            \
	if (!n) {                                                                  \
		*sum = 0.0;                                                        \
		return;                                                            \
	}                                                                          \
	const int k = claim_result(x);                                             \
	launch;                                                                    \
	if (!CU_LAUNCH(x, name) && !finish(x, k))                                  \
		queue_result(x, k, sum, NULL);

void cu_bce(const hy_nn_ctx *c, size_t n, const float *logits, const float *target, const float *w,
	float scale, float *dlogits, double *sum)
{
	QUEUED_LOSS("bce_kernel", (bce_kernel<<<HY_NN_CUDA_PARTIALS, NT, 0, x->s>>>(n, logits,
		target, w, scale, dlogits, x->part)))
}

void cu_mse(const hy_nn_ctx *c, size_t n, const float *pred, const float *target, float scale,
	float *dpred, double *sum)
{
	QUEUED_LOSS("mse_kernel", (mse_kernel<<<HY_NN_CUDA_PARTIALS, NT, 0, x->s>>>(n, pred,
		target, scale, dpred, x->part)))
}

/* Read at once: the optimiser's clipping needs the norm on the host. */
double cu_sumsq(const hy_nn_ctx *c, size_t n, const float *g)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return NAN;
	if (!n)
		return 0.0;
	sumsq_kernel<<<HY_NN_CUDA_PARTIALS, NT, 0, x->s>>>(n, g, x->part);
	if (CU_LAUNCH(x, "sumsq_kernel") || finish(x, RES_NOW))
		return NAN;
	return fetch_result(x);
}

/* ------------------------------------------------------------ optimiser */

/* One thread per element (grid-stride over n). */
__global__ static void scale_kernel(size_t n, float *g, float s)
{
	GRID_STRIDE(i, n)
	g[i] *= s;
}

void cu_scale(const hy_nn_ctx *c, size_t n, float *g, float s)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (!n)
		return;
	scale_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, g, s);
	CU_LAUNCH(x, "scale_kernel");
}

/* One thread per element (grid-stride over n). */
__global__ static void adamw_kernel(size_t n, float *p, const float *g, float *m, float *v,
	float lr, float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2)
{
	GRID_STRIDE(i, n)
	hy_nn_adamw_elem(p + i, g[i], m + i, v + i, lr, b1, b2, eps, wd, bc1, sqrt_bc2);
}

void cu_adamw(const hy_nn_ctx *c, size_t n, float *p, const float *g, float *m, float *v, float lr,
	float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2)
{
	cu_ctx *x = cu_enter(c);
	if (x->err)
		return;
	if (!n)
		return;
	adamw_kernel<<<blocks_for(n), NT, 0, x->s>>>(n, p, g, m, v, lr, b1, b2, eps, wd, bc1,
		sqrt_bc2);
	CU_LAUNCH(x, "adamw_kernel");
}

/* All tensors in one launch: one thread per element of [0, end) (grid-
 * stride); the tensor of element i is found by bisection over the spans
 * (sorted by offset); elements in the alignment gaps between tensors are
 * left alone. */
__global__ static void adamw_spans_kernel(const cu_span *spans, int count, size_t end,
	float *p, const float *g, float *m, float *v, float lr, float b1, float b2, float eps,
	float wd, float bc1, float sqrt_bc2)
{
	GRID_STRIDE(i, end)
	{
		int lo = 0, hi = count - 1;
		while (lo < hi) { /* last span with offset ≤ i */
			int mid = (lo + hi + 1) / 2;
			if (spans[mid].offset <= i)
				lo = mid;
			else
				hi = mid - 1;
		}
		const cu_span sp = spans[lo];
		if (i < sp.offset || i >= sp.offset + sp.size)
			continue;
		hy_nn_adamw_elem(p + i, g[i], m + i, v + i, lr, b1, b2, eps, sp.decay ? wd : 0.0f,
			bc1, sqrt_bc2);
	}
}

void k_adamw_spans(cu_ctx *x, const cu_span *spans, int count, size_t end, float *p,
	const float *g, float *m, float *v, float lr, float b1, float b2, float eps, float wd,
	float bc1, float sqrt_bc2)
{
	if (!end || count < 1)
		return;
	adamw_spans_kernel<<<blocks_for(end), NT, 0, x->s>>>(spans, count, end, p, g, m, v, lr,
		b1, b2, eps, wd, bc1, sqrt_bc2);
	CU_LAUNCH(x, "adamw_spans_kernel");
}

/* ------------------------------------------------------------ self-check */

/* One thread per fp32 bit pattern (grid-stride over all 2^32): the shared
 * rounding (nn/math.h) against CUDA's own __float2bfloat16_rn (NaN only
 * has to give a NaN); counts the
 * mismatches (an integer sum: the order of the atomics does not matter)
 * and keeps the smallest pattern that differs. */
__global__ static void bf16_check_kernel(unsigned long long *count, unsigned int *first)
{
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
		i < (1ull << 32); i += (unsigned long long)gridDim.x * blockDim.x) {
		unsigned int u = (unsigned int)i;
		float f = __uint_as_float(u);
		unsigned short want = __bfloat16_as_ushort(__float2bfloat16_rn(f));
		unsigned short got = hy_nn_bf16_round(f);
		/* a NaN must stay a NaN; its payload is not part of the contract */
		int same = (u & 0x7fffffffu) > 0x7f800000u ? (want & 0x7fffu) > 0x7f80u : got == want;
		if (!same) {
			atomicAdd(count, 1ull);
			atomicMin(first, u);
		}
	}
}

hy_status hy_nn_cuda_check_bf16(const hy_nn_ctx *c, unsigned long long *mismatches,
	unsigned int *first, hy_diag *d)
{
	cu_ctx *x = cu_of(c);
	unsigned long long *dc = NULL;
	unsigned int *df = NULL, init = 0xffffffffu;
	*mismatches = 0;
	*first = init;
	if (!CU_RT(x, cudaMalloc(&dc, sizeof *dc)) && !CU_RT(x, cudaMalloc(&df, sizeof *df)) &&
		!CU_RT(x, cudaMemsetAsync(dc, 0, sizeof *dc, x->s)) &&
		!CU_RT(x, cudaMemcpyAsync(df, &init, sizeof init, cudaMemcpyHostToDevice, x->s))) {
		bf16_check_kernel<<<4096, NT, 0, x->s>>>(dc, df);
		if (!CU_LAUNCH(x, "bf16_check_kernel") &&
			!CU_RT(x, cudaMemcpyAsync(mismatches, dc, sizeof *dc, cudaMemcpyDeviceToHost,
				x->s)) &&
			!CU_RT(x, cudaMemcpyAsync(first, df, sizeof *df, cudaMemcpyDeviceToHost, x->s)))
			CU_RT(x, cudaStreamSynchronize(x->s));
	}
	if (dc)
		CU_RT(x, cudaFree(dc));
	if (df)
		CU_RT(x, cudaFree(df));
	return x->err ? hy_diag_set(d, x->err, 0, "CUDA: %s", x->msg) : HY_OK;
}

/* ------------------------------------------------------------ compact input */

/* One thread per element of x [B][36][85] (grid-stride; consecutive
 * threads write consecutive channels of a row, and gather from the
 * sample's channel-major planes, which stay in L1/L2): pad rows 0. */
template <typename T> __global__ static void expand_obs_kernel(int B, const uint16_t *obs, T *x)
{
	GRID_STRIDE(i, (size_t)B * HY_NN_TP * HY_OBS_CHANNELS)
	{
		size_t b = i / ((size_t)HY_NN_TP * HY_OBS_CHANNELS);
		int r = (int)(i / HY_OBS_CHANNELS % HY_NN_TP), c = (int)(i % HY_OBS_CHANNELS);
		st(x, i, r == 0 || r == HY_NN_TP - 1
				? 0.0f
				: hy_nn_half_to_float(obs[b * HY_OBS_SIZE + (size_t)c * HY_NN_T + (r - 1)]));
	}
}

template <typename T> static void expand_obs_launch(cu_ctx *x, int B, const uint16_t *obs, void *out)
{
	size_t n = (size_t)B * HY_NN_TP * HY_OBS_CHANNELS;
	expand_obs_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(B, obs, (T *)out);
	CU_LAUNCH(x, "expand_obs_kernel");
}

void k_expand_obs(cu_ctx *x, int B, const uint16_t *obs, void *out)
{
	if (B > 0)
		ACT_DISPATCH(x, expand_obs_launch, x, B, obs, out);
}

/* ------------------------------------------------------------ bf16 taps */

/* One thread per element of dst [rows][3·cols] (grid-stride): row r holds
 * the three taps x(r), x(r+1), x(r+2) side by side, rounded to bf16. As
 * (r + k)·cols + i = r·cols + (k·cols + i), row r of dst is the 3·cols
 * values of src from row r on: the overlapping view of src made dense, so
 * that a 3-tap convolution is one GEMM with K = 3·cols. */
template <typename T>
__global__ static void taps_bf16_kernel(int rows, int cols, const T *src, uint16_t *dst)
{
	const size_t w = 3 * (size_t)cols;
	GRID_STRIDE(e, (size_t)rows * w)
	dst[e] = hy_nn_bf16_round(ld(src, e / w * (size_t)cols + e % w));
}

/* src is activation storage: bf16 in a bf16 context (the taps are then a
 * plain copy: the round trip through fp32 is exact), else fp32. */
template <typename T>
static void taps_launch(cu_ctx *x, int rows, int cols, const void *src, uint16_t *dst)
{
	size_t n = (size_t)rows * 3 * cols;
	taps_bf16_kernel<T><<<blocks_for(n), NT, 0, x->s>>>(rows, cols, (const T *)src, dst);
	CU_LAUNCH(x, "taps_bf16_kernel");
}

void k_taps_bf16(cu_ctx *x, int rows, int cols, const void *src, uint16_t *dst)
{
	if (rows > 0 && cols > 0)
		ACT_DISPATCH(x, taps_launch, x, rows, cols, src, dst);
}

/* One thread per element of dst [3·cout][cin] (grid-stride): the weights
 * of the data gradient, dst[j·cout + o][i] = W[o][2 − j][i] in bf16, so
 * that dx(r+1) = Σ_j dy(r+j)·W_{2−j} is one GEMM of the dy taps by dst. */
__global__ static void wflip_bf16_kernel(int cout, int cin, const float *w, uint16_t *dst)
{
	GRID_STRIDE(e, (size_t)3 * cout * cin)
	{
		size_t i = e % cin, jo = e / cin, o = jo % cout, j = jo / cout;
		dst[e] = hy_nn_bf16_round(w[(o * 3 + (2 - j)) * cin + i]);
	}
}

void k_wflip_bf16(cu_ctx *x, int cout, int cin, const float *w, uint16_t *dst)
{
	size_t n = (size_t)3 * cout * cin;
	if (!n)
		return;
	wflip_bf16_kernel<<<blocks_for(n), NT, 0, x->s>>>(cout, cin, w, dst);
	CU_LAUNCH(x, "wflip_bf16_kernel");
}
