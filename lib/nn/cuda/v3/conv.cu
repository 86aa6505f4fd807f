/* Path v3's convolution (issue 56; ARCHITECTURE.md "Path v3"): the 3-tap
 * convolution over a block's [R][C] rows as an implicit GEMM on bf16 warp
 * MMA (mma.sync m16n8k16, fp32 accumulators; sm_80 and later), with the
 * GroupNorm+Mish of its operand computed as the operand is loaded and the
 * next op's reductions in its epilogue, so that neither is a pass over the
 * activation of its own:
 *
 *   out[r][n] = Σ_t Σ_k op(in)[r + t − 1][k] · w[n][t][k]   (t = 0, 1, 2)
 *
 * with op = identity or Mish(GN(·)) (v3.h V3_PRO_*), pad rows of the
 * operand read as zero and pad rows of out written as zero; the data
 * gradient is the same form on dy with the flipped weights (v3/small.cu
 * v3_pack_w). Partial sums leave the tile per (tile, slot) or (tile,
 * channel) (map3.h) and are reduced in a fixed order (v3/small.cu), so two
 * runs are bit-identical. This first build of v3 keeps the GEMM core plain
 * (operands through registers into padded shared memory, one stage, no
 * ldmatrix or wgmma): the GPU run compares it with v1 and v2 op by op and
 * times it; the Hopper core (wgmma, TMA, a producer warpgroup) is the step
 * after. */
#include "nn/cuda/v3/v3.h"
#include "nn/cuda/vec8.cuh"

#include <cuda_bf16.h>

extern "C" {
#include "nn/math.h"
}

enum {
	BM = HY_V3_BM, BN = HY_V3_BN, BK = HY_V3_BK, NT = HY_V3_NT,
	LDS = BK + 8,  /* bf16 a shared row: 20 words, so the 8 rows × 4 words
			* of a fragment load fall in 32 different banks */
	HALO = BM + 2, /* the tile's rows and the two the taps reach past it   */
	LDC = BN + 4,  /* floats a row of the staged accumulators              */
	SM_MAIN = (HALO * LDS + 3 * BN * LDS) * 2,
	SM_STAGE = BM * LDC * 4,
	SM_BASE = SM_MAIN > SM_STAGE ? SM_MAIN : SM_STAGE,
};
static_assert(NT == 128 && BM == 4 * 32, "four warps of 32 rows");
static_assert(BK == 32 && BN == 64, "the loaders' index maths");

/* The operand's 130 halo rows r0 − 1 … r0 + 128, channels kc … kc + 31, as
 * bf16 in As: 130 × 4 vectors of 8, vector idx = tid + 128j (h = idx / 4,
 * c8 = idx mod 4); rows outside [0, R) and pad rows are zeros. */
template <int PRO>
__device__ static void load_a(const v3_conv_args &a, int r0, int kc, uint16_t (*As)[LDS])
{
	const int cpg = a.C / HY_V3_GROUPS;
	for (int idx = threadIdx.x; idx < HALO * (BK / 8); idx += NT) {
		const int h = idx >> 2, c8 = idx & 3, q = r0 - 1 + h, ch0 = kc + c8 * 8;
		uint4 v = make_uint4(0, 0, 0, 0);
		if (q >= 0 && q < a.R && v3_tile_row(q)) {
			v = *(const uint4 *)(a.in + (size_t)q * a.C + ch0);
			if (PRO == V3_PRO_GN) {
				float f[8];
				unpack8(v, f);
				const int k0 = q / HY_V3_TP * HY_V3_GROUPS;
				for (int j = 0; j < 8; j++) {
					const int ch = ch0 + j, k = k0 + ch / cpg;
					f[j] = hy_nn_mish((f[j] - a.pmean[k]) * a.prstd[k] * a.pgamma[ch] +
							  a.pbeta[ch]);
				}
				v = pack8(f);
			}
		}
		*(uint4 *)&As[h][c8 * 8] = v;
	}
}

/* The weights of the tile's 64 outputs n0 … n0 + 63, channels kc … kc + 31,
 * of the three taps: 3 × 64 × 4 vectors, idx = tid + 128j (t = idx / 256,
 * n = idx / 4 mod 64, c8 = idx mod 4). */
__device__ static void load_b(const v3_conv_args &a, int n0, int kc, uint16_t (*Bs)[BN][LDS])
{
	for (int idx = threadIdx.x; idx < 3 * BN * (BK / 8); idx += NT) {
		const int t = idx / (BN * 4), n = (idx >> 2) % BN, c8 = idx & 3;
		*(uint4 *)&Bs[t][n][c8 * 8] =
			*(const uint4 *)(a.w + ((size_t)(n0 + n) * 3 + t) * a.C + kc + c8 * 8);
	}
}

/* The epilogue's reductions of a staged tile (Cs: the stored values, Xs:
 * x̂ for MISHGRAD), each partial one thread's serial sum (map3.h's
 * hy_v3_tile_*, which test_v3_emul runs on the CPU with the reductions'
 * readers): (slot, group) pairs for the GroupNorm sums, (slot, channel)
 * for the pools, channels for dγ/dβ. */
template <int EPI>
__device__ static void reduce_tile(const v3_conv_args &a, int mt, int n0, float (*Cs)[LDC],
	float (*Xs)[LDC])
{
	const int cpg = a.C / HY_V3_GROUPS, ng = BN / cpg;
	if (EPI == V3_EPI_STATS || EPI == V3_EPI_MISHGRAD)
		for (int p = threadIdx.x; p < HY_V3_SLOTS * ng; p += NT) {
			const int s = p / ng, gl = p % ng;
			float *o = a.part + hy_v3_part_st(mt, s, n0 / cpg + gl);
			hy_v3_tile_sums(&Cs[0][0], &Xs[0][0], LDC, mt, cpg,
				EPI == V3_EPI_MISHGRAD ? a.egamma + n0 : NULL, s, gl, &o[0], &o[1]);
		}
	if (EPI == V3_EPI_POOL)
		for (int p = threadIdx.x; p < HY_V3_SLOTS * BN; p += NT) {
			const int s = p / BN, col = p % BN;
			float *o = a.part + hy_v3_part_pool(mt, s, a.C, n0 + col);
			int am;
			hy_v3_tile_pool(&Cs[0][0], LDC, mt, s, col, &o[0], &o[1], &am);
			o[2] = (float)am;
		}
	if (EPI == V3_EPI_MISHGRAD)
		for (int col = threadIdx.x; col < BN; col += NT) {
			float *o = a.chan + hy_v3_part_chan(mt, a.C, n0 + col);
			hy_v3_tile_chan(&Cs[0][0], &Xs[0][0], LDC, col, &o[0], &o[1]);
		}
}

/* One block (128 threads, 4 warps) per 128-row × 64-channel tile: grid
 * (C/64, ceil(R/128)), blockIdx.x the output channels n0 = 64·x, blockIdx.y
 * the rows r0 = 128·y. Warp w owns tile rows 32w … 32w + 31 as two m16
 * fragments and all 64 outputs as eight n8 fragments (64 accumulators a
 * thread); which element of shared memory each lane's registers read and
 * which tile element each accumulator is, is map3.h's hy_v3_conv_a/b/c
 * (test_v3_emul runs the kernel's loops through them on the CPU). Bounds: rows ≥ R
 * are neither loaded nor stored; C a multiple of 64 (hy_v3_takes), so every
 * 16-byte vector is whole and aligned. Dynamic shared memory: SM_BASE
 * bytes (the operand and weight tiles, then the staged accumulators), and
 * SM_STAGE more for MISHGRAD's x̂. */
template <int PRO, int EPI>
__global__ void __launch_bounds__(NT) v3_conv_kernel(const v3_conv_args a)
{
	extern __shared__ __align__(16) unsigned char smem[];
	uint16_t(*As)[LDS] = (uint16_t(*)[LDS])smem;
	uint16_t(*Bs)[BN][LDS] = (uint16_t(*)[BN][LDS])(smem + HALO * LDS * 2);
	const int n0 = blockIdx.x * BN, mt = blockIdx.y, r0 = mt * BM;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	float acc[2][8][4];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 8; j++)
			for (int k = 0; k < 4; k++)
				acc[i][j][k] = 0.0f;
	for (int kc = 0; kc < a.C; kc += BK) {
		load_a<PRO>(a, r0, kc, As);
		load_b(a, n0, kc, Bs);
		__syncthreads();
#pragma unroll
		for (int t = 0; t < 3; t++)
#pragma unroll
			for (int ks = 0; ks < BK; ks += 16) {
				uint32_t af[2][4], bf[8][2];
				for (int m = 0; m < 2; m++)
					for (int j = 0; j < 4; j++) {
						int h, k;
						hy_v3_conv_a(warp, m, t, ks, lane, j, &h, &k);
						af[m][j] = ld32(&As[h][k]);
					}
				for (int n = 0; n < 8; n++)
					for (int j = 0; j < 2; j++) {
						int o, k;
						hy_v3_conv_b(n, ks, lane, j, &o, &k);
						bf[n][j] = ld32(&Bs[t][o][k]);
					}
				for (int m = 0; m < 2; m++)
					for (int n = 0; n < 8; n++)
						mma16816(acc[m][n], af[m], bf[n]);
			}
		__syncthreads();
	}
	/* stage the accumulators (the operand tiles are dead) */
	float(*Cs)[LDC] = (float(*)[LDC])smem;
	float(*Xs)[LDC] = (float(*)[LDC])(smem + SM_BASE);
	for (int m = 0; m < 2; m++)
		for (int n = 0; n < 8; n++)
			for (int i = 0; i < 4; i++) {
				int row, col;
				hy_v3_conv_c(warp, m, n, lane, i, &row, &col);
				Cs[row][col] = acc[m][n][i];
			}
	__syncthreads();
	/* store, a warp 32 consecutive channels of a row; Cs ← the stored value */
	const int cpg = a.C / HY_V3_GROUPS;
	for (int e = threadIdx.x; e < BM * BN; e += NT) {
		const int row = e / BN, col = e % BN, r = r0 + row, n = n0 + col;
		float v = 0.0f, xh = 0.0f;
		if (r < a.R && v3_tile_row(r)) {
			v = Cs[row][col];
			if (EPI == V3_EPI_MISHGRAD) {
				const int k = r / HY_V3_TP * HY_V3_GROUPS + n / cpg;
				xh = (hy_nn_bf16_to_float(a.ex[(size_t)r * a.C + n]) - a.emean[k]) *
				     a.erstd[k];
				v *= hy_nn_mish_grad(xh * a.egamma[n] + a.ebeta[n]);
			}
		}
		const uint16_t hv = hy_nn_bf16_round(v);
		if (r < a.R)
			a.out[(size_t)r * a.C + n] = hv;
		Cs[row][col] = hy_nn_bf16_to_float(hv);
		if (EPI == V3_EPI_MISHGRAD)
			Xs[row][col] = xh;
	}
	__syncthreads();
	if (EPI != V3_EPI_STORE)
		reduce_tile<EPI>(a, mt, n0, Cs, Xs);
}

template <int PRO, int EPI>
static void launch(cu_ctx *x, const v3_conv_args *a)
{
	const dim3 grid(a->C / BN, hy_v3_mtiles(a->R));
	const size_t sm = SM_BASE + (EPI == V3_EPI_MISHGRAD ? SM_STAGE : 0);
	v3_conv_kernel<PRO, EPI><<<grid, NT, sm, x->s>>>(*a);
	(void)CU_LAUNCH(x, "v3_conv_kernel");
}

void v3_conv(cu_ctx *x, int pro, int epi, const v3_conv_args *a)
{
	if (pro == V3_PRO_GN && epi == V3_EPI_STATS)
		launch<V3_PRO_GN, V3_EPI_STATS>(x, a);
	else if (pro == V3_PRO_GN && epi == V3_EPI_POOL)
		launch<V3_PRO_GN, V3_EPI_POOL>(x, a);
	else if (pro == V3_PRO_GN && epi == V3_EPI_STORE)
		launch<V3_PRO_GN, V3_EPI_STORE>(x, a);
	else if (pro == V3_PRO_NONE && epi == V3_EPI_MISHGRAD)
		launch<V3_PRO_NONE, V3_EPI_MISHGRAD>(x, a);
	else
		(void)cu_fail(x, HY_EUSAGE, "v3_conv", "a prologue and epilogue v3 does not pair",
			__FILE__, __LINE__);
}

/* MISHGRAD's shared memory is past the 48 KiB a launch gets unasked. */
int v3_conv_setup(cu_ctx *x)
{
	return CU_RT(x, cudaFuncSetAttribute(v3_conv_kernel<V3_PRO_NONE, V3_EPI_MISHGRAD>,
				cudaFuncAttributeMaxDynamicSharedMemorySize, SM_BASE + SM_STAGE));
}
