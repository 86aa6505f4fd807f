/* Path v3's weight gradient of a 3-tap convolution (issue 56):
 *
 *   dw[o][t][i] += Σ_r dy[r][o] · op(in)[r + t − 1][i]
 *
 * with op(in) = Mish(GN(in)) recomputed as it is loaded (v3 never stores
 * it), on bf16 warp MMA with fp32 accumulators. The R rows are split into
 * slices (map3.h hy_v3_wsplit) so that a (C/64)² grid of tiles fills the
 * GPU; each slice's block writes its own partial tile (no atomics) and a
 * second kernel adds the slices in order: bit-identical run to run. */
#include "nn/cuda/v3/v3.h"

#include <cuda_bf16.h>

extern "C" {
#include "nn/math.h"
}

enum {
	WT = HY_V3_WTILE, WK = HY_V3_WK, NT = HY_V3_NT,
	LDD = WK + 8,     /* dyᵀ rows: 32 rows of dy and the padding            */
	LDH = WK + 2 + 14, /* operandᵀ rows: 34 halo rows (r − 1 … r + 32) and padding */
};
static_assert(NT == 128 && WT == 64 && WK == 32, "the loaders' index maths");

/* One block (128 threads, 4 warps) per (output tile, input tile, slice):
 * grid ((C/64)², S); blockIdx.x = ot·(C/64) + it, o0 = 64·ot, i0 = 64·it;
 * blockIdx.y the slice s, rows [k0, k1) of hy_v3_wslice. A step of 32 rows
 * r = k … k + 31 stages dyᵀ[o][j] = dy[k + j][o0 + o] and the operand
 * opᵀ[i][h] = op(in)[k − 1 + h][i0 + i], h = 0 … 33 (16-byte vectors read,
 * bf16 scattered; rows outside [0, R) and pad rows zero). Warp w owns
 * outputs o0 + 16w … + 15 (one m16 fragment) × 64 inputs (eight n8) × 3
 * taps: 96 accumulators a thread; tap t's operand is opᵀ shifted by t, so
 * tap 1's pairs start on an odd element and are built from two halves
 * (the registers' elements: map3.h hy_v3_wg_a/b/c, which test_v3_emul
 * runs through this loop on the CPU).
 * Bounds: C a multiple of 64 (whole vectors and tiles). */
__global__ void __launch_bounds__(NT) v3_wgrad_kernel(int R, int C, int S,
	const uint16_t *__restrict__ in, const float *__restrict__ mean,
	const float *__restrict__ rstd, const float *__restrict__ gamma,
	const float *__restrict__ beta, const uint16_t *__restrict__ dy, float *__restrict__ wpart)
{
	__shared__ __align__(16) uint16_t dT[WT][LDD];
	__shared__ __align__(16) uint16_t aT[WT][LDH];
	const int nt = C / WT, o0 = blockIdx.x / nt * WT, i0 = blockIdx.x % nt * WT;
	const int s = blockIdx.y, cpg = C / HY_V3_GROUPS;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	int k0, k1;
	hy_v3_wslice(R, S, s, &k0, &k1);
	float acc[3][8][4];
	for (int t = 0; t < 3; t++)
		for (int n = 0; n < 8; n++)
			for (int e = 0; e < 4; e++)
				acc[t][n][e] = 0.0f;
	for (int k = k0; k < k1; k += WK) {
		for (int idx = threadIdx.x; idx < WK * 8; idx += NT) {
			const int j = idx >> 3, c8 = idx & 7, r = k + j;
			uint4 v = make_uint4(0, 0, 0, 0);
			if (r < R && v3_tile_row(r))
				v = *(const uint4 *)(dy + (size_t)r * C + o0 + c8 * 8);
			const uint32_t w[4] = {v.x, v.y, v.z, v.w};
			for (int e = 0; e < 8; e++)
				dT[c8 * 8 + e][j] = (uint16_t)(w[e >> 1] >> (16 * (e & 1)));
		}
		for (int idx = threadIdx.x; idx < (WK + 2) * 8; idx += NT) {
			const int h = idx >> 3, c8 = idx & 7, r = k - 1 + h;
			uint4 v = make_uint4(0, 0, 0, 0);
			if (r >= 0 && r < R && v3_tile_row(r))
				v = *(const uint4 *)(in + (size_t)r * C + i0 + c8 * 8);
			const uint32_t w[4] = {v.x, v.y, v.z, v.w};
			const int kb = r / HY_V3_TP * HY_V3_GROUPS;
			for (int e = 0; e < 8; e++) {
				uint16_t u = 0;
				if (r >= 0 && r < R && v3_tile_row(r)) {
					const int ch = i0 + c8 * 8 + e, kk = kb + ch / cpg;
					const float f = hy_nn_bf16_to_float((uint16_t)(w[e >> 1] >> (16 * (e & 1))));
					u = hy_nn_bf16_round(hy_nn_mish(
						(f - mean[kk]) * rstd[kk] * gamma[ch] + beta[ch]));
				}
				aT[c8 * 8 + e][h] = u;
			}
		}
		__syncthreads();
#pragma unroll
		for (int ks = 0; ks < WK; ks += 16) {
			uint32_t af[4];
			for (int j = 0; j < 4; j++) {
				int o, kk;
				hy_v3_wg_a(warp, ks, lane, j, &o, &kk);
				af[j] = ld32(&dT[o][kk]);
			}
#pragma unroll
			for (int t = 0; t < 3; t++)
				for (int n = 0; n < 8; n++) {
					uint32_t bf[2];
					for (int j = 0; j < 2; j++) {
						int i, h;
						hy_v3_wg_b(t, n, ks, lane, j, &i, &h);
						/* tap 1's pairs start on an odd element */
						bf[j] = t == 1 ? pair(aT[i][h], aT[i][h + 1]) : ld32(&aT[i][h]);
					}
					mma16816(acc[t][n], af, bf);
				}
		}
		__syncthreads();
	}
	float *out = wpart + (size_t)s * C * 3 * C;
	for (int t = 0; t < 3; t++)
		for (int n = 0; n < 8; n++)
			for (int e = 0; e < 4; e++) {
				int o, i;
				hy_v3_wg_c(warp, n, lane, e, &o, &i);
				out[(size_t)(o0 + o) * 3 * C + t * C + i0 + i] = acc[t][n][e];
			}
}

/* dw[e] += Σ_s wpart[s][e], s in order: a grid-stride loop of 256-thread
 * blocks over the C·3C elements (blocks_for). */
__global__ void v3_wsum_kernel(size_t n, int S, const float *__restrict__ wpart,
	float *__restrict__ dw)
{
	for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n;
		e += (size_t)gridDim.x * blockDim.x) {
		float v = 0.0f;
		for (int s = 0; s < S; s++)
			v += wpart[(size_t)s * n + e];
		dw[e] += v;
	}
}

void v3_wgrad(cu_ctx *x, int R, int C, const uint16_t *in, const float *mean,
	const float *rstd, const float *gamma, const float *beta, const uint16_t *dy, float *dw)
{
	/* the split for this call's rows and width, within the planned slices */
	const size_t per = (size_t)C * 3 * C, cap = x->v3->s.wpart / per;
	const int want = hy_v3_wsplit(R, C, x->v3->sms), tiles = (C / WT) * (C / WT);
	const int S = (size_t)want < cap ? want : (int)cap;
	v3_wgrad_kernel<<<dim3(tiles, S), NT, 0, x->s>>>(R, C, S, in, mean, rstd, gamma, beta, dy,
		x->v3->wpart);
	if (CU_LAUNCH(x, "v3_wgrad_kernel"))
		return;
	const size_t n = per;
	v3_wsum_kernel<<<blocks_for(n), 256, 0, x->s>>>(n, S, x->v3->wpart, dw);
	(void)CU_LAUNCH(x, "v3_wsum_kernel");
}
