/* Issue 43's kernels, the "v2" path of a bf16 context (cfg.path =
 * HY_NN_CUDA_PATH_V2, cuda.h): each is the twin of a v1 kernel of
 * kernels.cu with the same maths, built for the memory bound instead of
 * one 2-byte scalar a thread:
 * - the taps of a chunk of rows (conv.cu conv_chunk), 16-byte vectors, 32-bit
 *   index maths, K padded with zeros to a multiple of 8;
 * - the bf16 copy of a weight matrix with its K padded the same way (the
 *   stem: 255 → 256);
 * - GroupNorm + Mish forward and backward with every value of a sample
 *   loaded once, in 16-byte vectors, into registers (lib/nn/cuda/map.h has
 *   the mapping, walked on the CPU by test_nn_cuda_host), the statistics
 *   reduced in a fixed order, and Mish and Mish' with the fast exponential
 *   and division (an error of a few fp32 ulp, far inside the bf16 output's
 *   rounding);
 * - the SE gate: σ once per (sample, channel), then out = x + y·s in
 *   16-byte vectors.
 * Reductions keep a fixed order (a result depends on the input and the
 * size, never on scheduling), so two runs are bit-identical; the order is
 * not v1's, so v2 and v1 agree to the bf16 tolerances of check_gpu, not
 * bit for bit. Every kernel states its thread mapping and bounds. */
#include "nn/cuda/internal.h"
#include "nn/cuda/map.h"
#include "nn/cuda/vec8.cuh"

#include <cuda_bf16.h>
#include <math.h>

extern "C" {
#include "nn/math.h"
}

enum { NT2 = HY_NN_MAP_NT, V8 = HY_NN_MAP_VEC, MAXR = HY_NN_MAP_MAXR };
static_assert(NT2 == 256, "blocks_for (kernels.cu) counts blocks of 256 threads");

/* Mish and Mish' as nn/math.h writes them, with __expf and __fdividef:
 * e^x ≈ n, w = n(n + 2), Mish = x·w/(w + 2); inputs above 20 saturate as
 * there. */
__device__ static inline float mish_fast(float x)
{
	float n = __expf(fminf(x, 20.0f)), w = n * (n + 2.0f);
	return x * __fdividef(w, w + 2.0f);
}

__device__ static inline float mish_grad_fast(float x)
{
	float n = __expf(fminf(x, 20.0f)), w = n * (n + 2.0f), q = __fdividef(1.0f, w + 2.0f);
	float d = w * q + 4.0f * x * n * (n + 1.0f) * q * q;
	return x > 20.0f ? 1.0f : d;
}

/* ------------------------------------------------------------ taps, padded weights */

/* Vector form (cols % 8 == 0, kp == 3·cols, src and dst 16-byte aligned):
 * one thread per 16-byte vector of dst [n][kp] (grid-stride over n·kp/8
 * < 2^31, checked by the launcher): row e / (kp/8), vector e % (kp/8),
 * map.h's source element. */
__global__ static void taps2_vec_kernel(int r0, int n, int cols, int kp, const uint16_t *src,
	uint16_t *dst)
{
	const unsigned kv = (unsigned)kp / V8, total = (unsigned)n * kv;
	for (unsigned e = blockIdx.x * blockDim.x + threadIdx.x; e < total;
		e += gridDim.x * blockDim.x) {
		const unsigned row = e / kv, vec = e % kv;
		const uint4 *s = (const uint4 *)(src + hy_nn_taps2_src(r0, cols, (int)row, (int)vec * V8));
		((uint4 *)dst)[e] = *s;
	}
}

/* Scalar form: one thread per element of dst [n][kp] (grid-stride over
 * n·kp < 2^31): the tap value for j < 3·cols, 0 in the padding. It serves
 * the stem, whose 85 channels are not 16-byte rows. */
__global__ static void taps2_scalar_kernel(int r0, int n, int cols, int kp, const uint16_t *src,
	uint16_t *dst)
{
	const unsigned total = (unsigned)n * (unsigned)kp, k3 = 3u * (unsigned)cols;
	for (unsigned e = blockIdx.x * blockDim.x + threadIdx.x; e < total;
		e += gridDim.x * blockDim.x) {
		const unsigned row = e / (unsigned)kp, j = e % (unsigned)kp;
		dst[e] = j < k3 ? src[hy_nn_taps2_src(r0, cols, (int)row, (int)j)] : (uint16_t)0;
	}
}

void k2_taps(cu_ctx *x, int r0, int n, int cols, int kp, const void *src, uint16_t *dst)
{
	if (n < 1 || cols < 1)
		return;
	if ((size_t)n * kp >= ((size_t)1 << 31) || kp < 3 * cols || kp % V8) {
		cu_fail(x, HY_EUSAGE, "k2_taps", "chunk too large or K not padded to 8", __FILE__,
			__LINE__);
		return;
	}
	const uint16_t *s = (const uint16_t *)src;
	if (cols % V8 == 0 && kp == 3 * cols && (uintptr_t)s % 16 == 0 && (uintptr_t)dst % 16 == 0) {
		taps2_vec_kernel<<<blocks_for((size_t)n * kp / V8), NT2, 0, x->s>>>(r0, n, cols, kp, s,
			dst);
		CU_LAUNCH(x, "taps2_vec_kernel");
	} else {
		taps2_scalar_kernel<<<blocks_for((size_t)n * kp), NT2, 0, x->s>>>(r0, n, cols, kp, s, dst);
		CU_LAUNCH(x, "taps2_scalar_kernel");
	}
}

/* One thread per element of dst [rows][kp] (grid-stride): bf16 of src
 * (row stride ld) for j < cols, 0 for cols ≤ j < kp. */
__global__ static void pad_bf16_kernel(int rows, int cols, int kp, const float *src, int ld,
	uint16_t *dst)
{
	const size_t total = (size_t)rows * kp;
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
		e += (size_t)gridDim.x * blockDim.x) {
		const size_t r = e / kp, j = e % kp;
		dst[e] = j < (size_t)cols ? hy_nn_bf16_round(src[r * ld + j]) : (uint16_t)0;
	}
}

void k2_pad_bf16(cu_ctx *x, int rows, int cols, int kp, const float *src, int ld, uint16_t *dst)
{
	if (rows < 1 || cols < 1)
		return;
	pad_bf16_kernel<<<blocks_for((size_t)rows * kp), NT2, 0, x->s>>>(rows, cols, kp, src, ld, dst);
	CU_LAUNCH(x, "pad_bf16_kernel");
}

/* ------------------------------------------------------------ GroupNorm + Mish v2 */

/* 1 when a v2 GroupNorm kernel takes the call (the context is a v2 bf16
 * one: cu_path_set chose these kernels): a width of map.h's, 16-byte
 * aligned activations (rows of C % 8 == 0 values then stay aligned).
 * Otherwise v1's kernel runs. */
static int v2_takes(int C, const void *p, const void *q, const void *r)
{
	return hy_nn_gn2_fits(C) && (uintptr_t)p % 16 == 0 && (uintptr_t)q % 16 == 0 &&
		(uintptr_t)r % 16 == 0;
}

/* The partials' layout (map.h hy_nn_gn2_pix: no bank conflicts). */
enum { PART = HY_NN_GN2_PART };
#define pix hy_nn_gn2_pix

/* Channel totals of the row groups' partials: part [G][C] (shared, pix's
 * layout), one thread per channel (ch += NT2), the groups added in order
 * 0..G−1. */
__device__ static inline void totals(const float *part, int G, int C, float *tot)
{
	for (int ch = threadIdx.x; ch < C; ch += NT2) {
		float s = 0.0f;
		for (int g = 0; g < G; g++)
			s += part[pix(g, C, ch)];
		tot[ch] = s;
	}
}

/* The 32 group sums of per-thread channel partials s[8] (thread (g, v) of
 * map.h's mapping): the partials into part [G][C], the channel totals in
 * row-group order (totals), then each group's channels added in channel
 * order in double by threads 0..31 into gsum. Every thread of the block
 * calls it (it holds the barriers); gsum is ready when it returns. */
__device__ static void group_sums(const float *s, int g, int G, int v, int C, float *part,
	float *tot, double *gsum)
{
	const int cpg = C / HY_NN_GROUPS;
	if (g < G)
		for (int k = 0; k < V8; k++)
			part[pix(g, C, v * V8 + k)] = s[k];
	__syncthreads();
	totals(part, G, C, tot);
	__syncthreads();
	if (threadIdx.x < HY_NN_GROUPS) {
		const int q = threadIdx.x;
		double acc = 0;
		for (int j = 0; j < cpg; j++)
			acc += tot[q * cpg + j];
		gsum[q] = acc;
	}
	__syncthreads();
}

/* One block of NT2 threads per sample b (grid B), map.h's mapping: thread
 * (g, v) loads its rows of vector column v into registers once; the
 * per-channel sums go through shared memory (row groups in order), the 32
 * group statistics are folded in channel order in double by threads
 * 0..31, as v1; then z and a are written from the registers, 16 bytes at a
 * time, and thread g = 0 zeroes the two pad rows of its column. C: a width
 * hy_nn_gn2_fits takes (≤ HY_NN_GN2_MAXC, the shared arrays below).
 * Bounded for 4 blocks an SM (issue 56, finding 9: 80 registers held it to 3;
 * ptxas for sm_90 now gives 64 and 36 bytes of spills a thread, to L1). */
__global__ static void __launch_bounds__(NT2, 4) gn2_fwd_kernel(int C, const uint16_t *in, const float *gamma,
	const float *beta, uint16_t *z, uint16_t *a, float *mean, float *rstd)
{
	__shared__ float part[PART], tot[HY_NN_GN2_MAXC], sc[HY_NN_GN2_MAXC], sf[HY_NN_GN2_MAXC];
	__shared__ float gm[HY_NN_GROUPS], gr[HY_NN_GROUPS];
	__shared__ double gsum[HY_NN_GROUPS];
	const int b = blockIdx.x, V = hy_nn_gn2_cols(C), G = hy_nn_gn2_groups(C);
	const int v = threadIdx.x % V, g = threadIdx.x / V, nr = hy_nn_gn2_nrows(C, g);
	const int cpg = C / HY_NN_GROUPS;
	const double cnt = (double)cpg * HY_NN_T;
	const size_t off = ((size_t)b * HY_NN_TP + 1) * C;
	float xv[MAXR][V8];
	float s[V8];
	for (int k = 0; k < V8; k++)
		s[k] = 0.0f;
#pragma unroll
	for (int j = 0; j < MAXR; j++)
		if (j < nr) {
			const int t = g + j * G;
			unpack8(*(const uint4 *)(in + off + (size_t)t * C + v * V8), xv[j]);
			for (int k = 0; k < V8; k++)
				s[k] += xv[j][k];
		}
	group_sums(s, g, G, v, C, part, tot, gsum);
	if (threadIdx.x < HY_NN_GROUPS) {
		gm[threadIdx.x] = (float)(gsum[threadIdx.x] / cnt);
		mean[b * HY_NN_GROUPS + threadIdx.x] = gm[threadIdx.x];
	}
	__syncthreads();
	for (int k = 0; k < V8; k++)
		s[k] = 0.0f;
#pragma unroll
	for (int j = 0; j < MAXR; j++)
		if (j < nr)
			for (int k = 0; k < V8; k++) {
				const float dv = xv[j][k] - gm[(v * V8 + k) / cpg];
				s[k] += dv * dv;
			}
	group_sums(s, g, G, v, C, part, tot, gsum);
	if (threadIdx.x < HY_NN_GROUPS) {
		gr[threadIdx.x] = (float)(1.0 / sqrt(gsum[threadIdx.x] / cnt + 1e-5));
		rstd[b * HY_NN_GROUPS + threadIdx.x] = gr[threadIdx.x];
	}
	__syncthreads();
	for (int ch = threadIdx.x; ch < C; ch += NT2) {
		const int q = ch / cpg;
		sc[ch] = gr[q] * gamma[ch];
		sf[ch] = beta[ch] - gm[q] * sc[ch];
	}
	__syncthreads();
#pragma unroll
	for (int j = 0; j < MAXR; j++)
		if (j < nr) {
			const size_t at = off + (size_t)(g + j * G) * C + v * V8;
			float zv[V8], av[V8];
			for (int k = 0; k < V8; k++) {
				const int ch = v * V8 + k;
				zv[k] = xv[j][k] * sc[ch] + sf[ch];
				av[k] = mish_fast(zv[k]);
			}
			*(uint4 *)(z + at) = pack8(zv);
			*(uint4 *)(a + at) = pack8(av);
		}
	if (g == 0) {
		const uint4 zero = make_uint4(0, 0, 0, 0);
		const size_t top = off - C + v * V8, bottom = off + (size_t)HY_NN_T * C + v * V8;
		*(uint4 *)(z + top) = zero, *(uint4 *)(a + top) = zero;
		*(uint4 *)(z + bottom) = zero, *(uint4 *)(a + bottom) = zero;
	}
}

void k2_gn_mish_fwd(cu_ctx *x, int B, int C, const void *in, const float *gamma,
	const float *beta, void *z, void *a, float *mean, float *rstd)
{
	if (!v2_takes(C, in, z, a)) {
		k1_gn_mish_fwd(x, B, C, in, gamma, beta, z, a, mean, rstd);
		return;
	}
	gn2_fwd_kernel<<<B, NT2, 0, x->s>>>(C, (const uint16_t *)in, gamma, beta, (uint16_t *)z,
		(uint16_t *)a, mean, rstd);
	CU_LAUNCH(x, "gn2_fwd_kernel");
}

/* One block of NT2 threads per sample b (grid B), the forward's mapping:
 * thread (g, v) keeps x and d = da·Mish'(z) of its rows in registers; the
 * per-channel partials pg = Σ d·x̂, pb = Σ d go through shared memory (row
 * groups in order) to scratch [2][B][C] for dγ/dβ (kernels.cu
 * k_gn_param_grads); the group folds by threads 0..31 in channel order in
 * double, as v1; then dx from the registers, 16 bytes at a time
 * (accumulated onto dx when dx_acc), and the pad rows zeroed by g = 0
 * unless dx_acc. Bounded for 3 blocks an SM (finding 9: 128 registers held
 * it to 2; ptxas for sm_90 now gives 80 and 124 bytes of spills a thread). */
__global__ static void __launch_bounds__(NT2, 3) gn2_bwd_kernel(int B, int C, const uint16_t *in, const uint16_t *z,
	const float *gamma, const float *mean, const float *rstd, const uint16_t *da, uint16_t *dx,
	int dx_acc, float *scratch)
{
	__shared__ float pgp[PART], pbp[PART], tg[HY_NN_GN2_MAXC], tb[HY_NN_GN2_MAXC];
	__shared__ float gm[HY_NN_GROUPS], gr[HY_NN_GROUPS], g1[HY_NN_GROUPS], g2[HY_NN_GROUPS];
	const int b = blockIdx.x, V = hy_nn_gn2_cols(C), G = hy_nn_gn2_groups(C);
	const int v = threadIdx.x % V, g = threadIdx.x / V, nr = hy_nn_gn2_nrows(C, g);
	const int cpg = C / HY_NN_GROUPS;
	const double cnt = (double)cpg * HY_NN_T;
	const size_t off = ((size_t)b * HY_NN_TP + 1) * C;
	if (threadIdx.x < HY_NN_GROUPS) {
		gm[threadIdx.x] = mean[b * HY_NN_GROUPS + threadIdx.x];
		gr[threadIdx.x] = rstd[b * HY_NN_GROUPS + threadIdx.x];
	}
	__syncthreads();
	float xh[MAXR][V8], dv[MAXR][V8], sg[V8], sb[V8];
	for (int k = 0; k < V8; k++)
		sg[k] = sb[k] = 0.0f;
#pragma unroll
	for (int j = 0; j < MAXR; j++)
		if (j < nr) {
			const size_t at = off + (size_t)(g + j * G) * C + v * V8;
			float zv[V8], dav[V8];
			unpack8(*(const uint4 *)(in + at), xh[j]);
			unpack8(*(const uint4 *)(z + at), zv);
			unpack8(*(const uint4 *)(da + at), dav);
			for (int k = 0; k < V8; k++) {
				const int q = (v * V8 + k) / cpg;
				xh[j][k] = (xh[j][k] - gm[q]) * gr[q];
				dv[j][k] = dav[k] * mish_grad_fast(zv[k]);
				sg[k] += dv[j][k] * xh[j][k];
				sb[k] += dv[j][k];
			}
		}
	if (g < G)
		for (int k = 0; k < V8; k++) {
			pgp[pix(g, C, v * V8 + k)] = sg[k];
			pbp[pix(g, C, v * V8 + k)] = sb[k];
		}
	__syncthreads();
	totals(pgp, G, C, tg);
	totals(pbp, G, C, tb);
	__syncthreads();
	for (int ch = threadIdx.x; ch < C; ch += NT2) {
		scratch[(size_t)b * C + ch] = tg[ch];
		scratch[((size_t)B + b) * C + ch] = tb[ch];
	}
	if (threadIdx.x < HY_NN_GROUPS) {
		const int q = threadIdx.x;
		double s1 = 0, s2 = 0;
		for (int j = 0; j < cpg; j++) {
			const int ch = q * cpg + j;
			s1 += (double)gamma[ch] * tb[ch];
			s2 += (double)gamma[ch] * tg[ch];
		}
		g1[q] = (float)(s1 / cnt);
		g2[q] = (float)(s2 / cnt);
	}
	__syncthreads();
#pragma unroll
	for (int j = 0; j < MAXR; j++)
		if (j < nr) {
			const size_t at = off + (size_t)(g + j * G) * C + v * V8;
			float o[V8], old[V8];
			if (dx_acc)
				unpack8(*(const uint4 *)(dx + at), old);
			for (int k = 0; k < V8; k++) {
				const int ch = v * V8 + k, q = ch / cpg;
				const float r = gr[q] * (dv[j][k] * gamma[ch] - g1[q] - xh[j][k] * g2[q]);
				o[k] = dx_acc ? old[k] + r : r;
			}
			*(uint4 *)(dx + at) = pack8(o);
		}
	if (g == 0 && !dx_acc) {
		const uint4 zero = make_uint4(0, 0, 0, 0);
		*(uint4 *)(dx + off - C + v * V8) = zero;
		*(uint4 *)(dx + off + (size_t)HY_NN_T * C + v * V8) = zero;
	}
}

void k2_gn_mish_bwd(cu_ctx *x, int B, int C, const void *in, const void *z, const float *gamma,
	const float *mean, const float *rstd, const void *da, void *dx, int dx_acc, float *scratch)
{
	if (!v2_takes(C, in, z, da) || ((uintptr_t)dx % 16)) {
		k1_gn_mish_bwd(x, B, C, in, z, gamma, mean, rstd, da, dx, dx_acc, scratch);
		return;
	}
	gn2_bwd_kernel<<<B, NT2, 0, x->s>>>(B, C, (const uint16_t *)in, (const uint16_t *)z, gamma,
		mean, rstd, (const uint16_t *)da, (uint16_t *)dx, dx_acc, scratch);
	CU_LAUNCH(x, "gn2_bwd_kernel");
}

/* ------------------------------------------------------------ SE gate v2 */

/* One thread per (sample, channel) (grid-stride over B·C): s = σ(e_avg +
 * e_max), nn/math.h's sigmoid as v1. */
__global__ static void se2_gate_kernel(int B, int C, const float *e2, float *s)
{
	const size_t n = (size_t)B * C;
	for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
		k += (size_t)gridDim.x * blockDim.x) {
		const size_t b = k / C, ch = k % C;
		s[k] = hy_nn_sigmoid(e2[k] + e2[((size_t)B + b) * C + ch]);
	}
}

/* One thread per 16-byte vector of [B][36][C] (grid-stride over B·36·C/8,
 * pads included: x and y have zero pads, so out does): out = x + y·s with
 * the 8 gates of the vector's sample and channels read from s (L2-resident:
 * B·C floats). C % 8 == 0. */
__global__ static void se2_apply_kernel(int B, int C, const uint16_t *in, const uint16_t *y,
	const float *s, uint16_t *out)
{
	const size_t V = (size_t)C / V8, n = (size_t)B * HY_NN_TP * V;
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
		e += (size_t)gridDim.x * blockDim.x) {
		const size_t b = e / ((size_t)HY_NN_TP * V), v = e % V;
		float xv[V8], yv[V8], o[V8];
		unpack8(((const uint4 *)in)[e], xv);
		unpack8(((const uint4 *)y)[e], yv);
		const float *sv = s + b * C + v * V8;
		for (int k = 0; k < V8; k++)
			o[k] = xv[k] + yv[k] * sv[k];
		((uint4 *)out)[e] = pack8(o);
	}
}

void k2_se_fwd(cu_ctx *x, int B, int C, const void *in, const void *y, const float *e2, float *s,
	void *out)
{
	if (C % V8 || (uintptr_t)in % 16 || (uintptr_t)y % 16 || (uintptr_t)out % 16) {
		k1_se_fwd(x, B, C, in, y, e2, s, out);
		return;
	}
	se2_gate_kernel<<<blocks_for((size_t)B * C), NT2, 0, x->s>>>(B, C, e2, s);
	if (CU_LAUNCH(x, "se2_gate_kernel"))
		return;
	se2_apply_kernel<<<blocks_for((size_t)B * HY_NN_TP * C / V8), NT2, 0, x->s>>>(B, C,
		(const uint16_t *)in, (const uint16_t *)y, s, (uint16_t *)out);
	CU_LAUNCH(x, "se2_apply_kernel");
}
