/* Path v3's small kernels (issue 56): the packed bf16 weights, GroupNorm's
 * mean and rstd from carried sums, the fixed-order reductions of the
 * convolutions' partials (v3/conv.cu), an activation's GroupNorm sums on
 * their own (the stem's output, the gate's), and GroupNorm's input
 * gradient. Every kernel is a grid-stride loop of 256-thread blocks
 * (blocks_for) with one element, or one (sample, group) or (sample,
 * channel) pair, a thread; each sum is one thread's serial loop in a fixed
 * order, so two runs are bit-identical. */
#include "nn/cuda/v3/v3.h"

extern "C" {
#include "nn/math.h"
}

#define GRID_STRIDE(i, n)                                                                    \
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);             \
		i += (size_t)gridDim.x * blockDim.x)

enum { NT = 256, G = HY_V3_GROUPS, T = HY_V3_TP - 2 };

/* e over C·3C: wf[e] = bf16(w[e]); e = (i, t, o) → wd[e] = bf16(w[o][2 − t][i]). */
__global__ void v3_pack_kernel(int C, const float *__restrict__ w, uint16_t *__restrict__ wf,
	uint16_t *__restrict__ wd)
{
	const size_t n = (size_t)C * 3 * C;
	GRID_STRIDE(e, n)
	{
		if (wf)
			wf[e] = hy_nn_bf16_round(w[e]);
		if (wd)
			wd[e] = hy_nn_bf16_round(w[hy_v3_wd_src(e, C)]);
	}
}

/* k over B·32: mean[k], rstd[k] from st[k] (34·C/32 values a group). */
__global__ void v3_gn_from_kernel(int B, int C, const float *__restrict__ st,
	float *__restrict__ mean, float *__restrict__ rstd)
{
	GRID_STRIDE(k, (size_t)B * G)
	hy_nn_gn_from_sums(st[2 * k], st[2 * k + 1], (float)(T * (C / G)), &mean[k], &rstd[k]);
}

/* k = (b, g) over B·32: st[k] = Σ of the partials of the ≤ 2 tiles that
 * hold sample b (map3.h), in tile order. */
__global__ void v3_sums_kernel(int B, const float *__restrict__ part, float *__restrict__ st)
{
	GRID_STRIDE(k, (size_t)B * G)
	hy_v3_sums_of(part, (int)(k / G), (int)(k % G), &st[2 * k], &st[2 * k + 1]);
}

/* k = (b, ch) over B·C: the pools from the tiles' (sum, max, first argmax);
 * a later tile's max replaces an earlier one only when greater (the first
 * maximum, as pool_fwd). */
__global__ void v3_pools_kernel(int B, int C, const float *__restrict__ part,
	float *__restrict__ avg, float *__restrict__ max, uint8_t *__restrict__ arg)
{
	GRID_STRIDE(k, (size_t)B * C)
	{
		float sum, mx;
		int am;
		hy_v3_pool_of(part, C, (int)(k / C), (int)(k % C), &sum, &mx, &am);
		avg[k] = sum * (1.0f / T);
		if (max)
			max[k] = mx;
		if (arg)
			arg[k] = (uint8_t)am;
	}
}

/* ch over C: dγ[ch] += Σ_mt chan[mt][ch][0], dβ[ch] += Σ_mt chan[mt][ch][1]. */
__global__ void v3_chan_kernel(int mts, int C, const float *__restrict__ chan,
	float *__restrict__ dgamma, float *__restrict__ dbeta)
{
	GRID_STRIDE(ch, (size_t)C)
	{
		float pg = 0.0f, pb = 0.0f;
		for (int mt = 0; mt < mts; mt++) {
			pg += chan[hy_v3_part_chan(mt, C, (int)ch)];
			pb += chan[hy_v3_part_chan(mt, C, (int)ch) + 1];
		}
		dgamma[ch] += pg;
		dbeta[ch] += pb;
	}
}

/* k = (b, g) over B·32: Σ, Σ² of the group's 34 rows × C/32 channels. */
__global__ void v3_stats_kernel(int B, int C, const uint16_t *__restrict__ in,
	float *__restrict__ st)
{
	GRID_STRIDE(k, (size_t)B * G)
	{
		const int b = (int)(k / G), g = (int)(k % G), cpg = C / G;
		float s1 = 0.0f, s2 = 0.0f;
		for (int t = 1; t <= T; t++)
			for (int j = 0; j < cpg; j++) {
				const float v = hy_nn_bf16_to_float(
					in[((size_t)b * HY_V3_TP + t) * C + g * cpg + j]);
				s1 += v;
				s2 += v * v;
			}
		st[2 * k] = s1;
		st[2 * k + 1] = s2;
	}
}

/* e over B·36·C: dx (= or +=) rstd·(γ·dz − gs₀/n − x̂·gs₁/n) at tile rows;
 * pad rows: 0 (=) or kept (+=). */
__global__ void v3_gn_apply_kernel(int B, int C, const uint16_t *__restrict__ in,
	const float *__restrict__ gamma, const float *__restrict__ mean,
	const float *__restrict__ rstd, const uint16_t *__restrict__ dz,
	const float *__restrict__ gs, uint16_t *__restrict__ dx, int dx_acc)
{
	const float n = (float)(T * (C / G));
	GRID_STRIDE(e, (size_t)B * HY_V3_TP * C)
	{
		const size_t r = e / C;
		const int ch = (int)(e % C), t = (int)(r % HY_V3_TP);
		float v = 0.0f;
		if (t >= 1 && t <= T) {
			const size_t k = r / HY_V3_TP * G + ch / (C / G);
			const float xh = (hy_nn_bf16_to_float(in[e]) - mean[k]) * rstd[k];
			v = rstd[k] * (gamma[ch] * hy_nn_bf16_to_float(dz[e]) - gs[2 * k] / n -
					      xh * gs[2 * k + 1] / n);
		}
		if (dx_acc)
			v += hy_nn_bf16_to_float(dx[e]);
		dx[e] = hy_nn_bf16_round(v);
	}
}

void v3_pack_w(cu_ctx *x, int C, const float *w, uint16_t *wf, uint16_t *wd)
{
	v3_pack_kernel<<<blocks_for((size_t)C * 3 * C), NT, 0, x->s>>>(C, w, wf, wd);
	(void)CU_LAUNCH(x, "v3_pack_kernel");
}

void v3_stats_to_gn(cu_ctx *x, int B, int C, const float *st, float *mean, float *rstd)
{
	v3_gn_from_kernel<<<blocks_for((size_t)B * G), NT, 0, x->s>>>(B, C, st, mean, rstd);
	(void)CU_LAUNCH(x, "v3_gn_from_kernel");
}

void v3_reduce_sums(cu_ctx *x, int B, const float *part, float *st)
{
	v3_sums_kernel<<<blocks_for((size_t)B * G), NT, 0, x->s>>>(B, part, st);
	(void)CU_LAUNCH(x, "v3_sums_kernel");
}

void v3_reduce_pools(cu_ctx *x, int B, int C, const float *part, float *avg, float *max,
	uint8_t *arg)
{
	v3_pools_kernel<<<blocks_for((size_t)B * C), NT, 0, x->s>>>(B, C, part, avg, max, arg);
	(void)CU_LAUNCH(x, "v3_pools_kernel");
}

void v3_reduce_chan(cu_ctx *x, int R, int C, const float *chan, float *dgamma, float *dbeta)
{
	v3_chan_kernel<<<blocks_for((size_t)C), NT, 0, x->s>>>(hy_v3_mtiles(R), C, chan, dgamma,
		dbeta);
	(void)CU_LAUNCH(x, "v3_chan_kernel");
}

void v3_gn_stats(cu_ctx *x, int B, int C, const uint16_t *in, float *st)
{
	v3_stats_kernel<<<blocks_for((size_t)B * G), NT, 0, x->s>>>(B, C, in, st);
	(void)CU_LAUNCH(x, "v3_stats_kernel");
}

void v3_gn_bwd_apply(cu_ctx *x, int B, int C, const uint16_t *in, const float *gamma,
	const float *mean, const float *rstd, const uint16_t *dz, const float *gs, uint16_t *dx,
	int dx_acc)
{
	v3_gn_apply_kernel<<<blocks_for((size_t)B * HY_V3_TP * C), NT, 0, x->s>>>(B, C, in, gamma,
		mean, rstd, dz, gs, dx, dx_acc);
	(void)CU_LAUNCH(x, "v3_gn_apply_kernel");
}
