/* Path v3's private declarations (lib/nn/cuda/v3/): the context's plan and
 * scratch, and the launch wrappers of its kernels. Each wrapper queues its
 * kernels on x->s and checks the launch (CU_LAUNCH); activations are bf16
 * (v3 runs in bf16 contexts only), statistics fp32. */
#ifndef HY_NN_CUDA_V3_H
#define HY_NN_CUDA_V3_H

#include "nn/cuda/internal.h"
#include "nn/cuda/v3/map3.h"

struct cu_v3 {
	int C;           /* the width planned for (x->arch.channels): v3 runs
			  * every width hy_v3_takes up to it                      */
	int sms;         /* the device's SMs (the weight gradient's split)      */
	hy_v3_scratch s; /* the plan of the buffers below (map3.h), at C and the
			  * context's batch: every smaller call fits in it      */
	uint16_t *wf, *wd; /* weights in bf16: forward [C][3][C], data gradient  */
	float *part, *chan, *wpart;
};

#ifdef __CUDACC__
/* Device helpers of v3's GEMM kernels (conv.cu, wgrad.cu). */
__device__ static inline uint32_t ld32(const uint16_t *p)
{
	return *(const uint32_t *)p; /* two bf16 at an even index */
}

__device__ static inline uint32_t pair(uint16_t lo, uint16_t hi)
{
	return (uint32_t)lo | ((uint32_t)hi << 16);
}

/* d += a·b: one m16n8k16 bf16 MMA with fp32 accumulators (map3.h has its
 * fragments' layout, test_v3_emul the ISA's). */
__device__ static inline void mma16816(float *d, const uint32_t *a, const uint32_t *b)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Row r of [B][36] rows holds a tile (not a pad row). */
__device__ static inline int v3_tile_row(int r)
{
	const int t = r % HY_V3_TP;
	return t >= 1 && t <= HY_V3_TP - 2;
}
#endif

/* The implicit-GEMM convolution's prologue (how the operand is made from
 * the input as it is loaded) and epilogue (what follows the accumulators). */
enum {
	V3_PRO_NONE = 0, /* the input as it is (the data gradient's dy)        */
	V3_PRO_GN = 1,   /* Mish(GroupNorm(input)) from mean, rstd, γ, β       */
};
enum {
	V3_EPI_STATS = 0,   /* store y; GroupNorm sums per (tile, slot, group) */
	V3_EPI_POOL = 1,    /* store y; the SE pools per (tile, slot, channel)  */
	V3_EPI_STORE = 2,   /* store y only                                     */
	V3_EPI_MISHGRAD = 3 /* dz = acc·Mish'(GN(x)): store dz; gs sums per
			     * (tile, slot, group), dγ/dβ sums per (tile, channel) */
};

typedef struct v3_conv_args {
	int R, C;               /* rows (B·36), channels in = out              */
	const uint16_t *in;     /* the input [R][C] (bf16)                      */
	const uint16_t *w;      /* packed weights [C][3][C] (bf16)              */
	uint16_t *out;          /* y or dz [R][C]                               */
	/* the prologue's GroupNorm (V3_PRO_GN) */
	const float *pmean, *prstd, *pgamma, *pbeta;
	/* the epilogue's GroupNorm of x (V3_EPI_MISHGRAD) */
	const uint16_t *ex;
	const float *emean, *erstd, *egamma, *ebeta;
	float *part, *chan;     /* the partials (map3.h hy_v3_scratch)          */
} v3_conv_args;

/* out = conv3(prologue(in)) with the epilogue epi (v3/conv.cu). */
void v3_conv(cu_ctx *x, int pro, int epi, const v3_conv_args *a);
/* wpart[s] = slice s of the weight gradient of the operand
 * Mish(GN(in)) and dy, then dw += Σ_s wpart[s] in slice order (v3/wgrad.cu). */
void v3_wgrad(cu_ctx *x, int R, int C, const uint16_t *in, const float *mean,
	const float *rstd, const float *gamma, const float *beta, const uint16_t *dy, float *dw);

/* v3/small.cu: the packed weights (forward: wf = bf16(w); data gradient:
 * wd[i][t][o] = w[o][2 − t][i]); mean, rstd [B][32] from sums st; the
 * reductions of the partials in a fixed order (GroupNorm sums into st;
 * pools into avg, max, arg; dγ += , dβ += ); st of an activation on its
 * own; the gate with the statistics of its output; GroupNorm's input
 * gradient from dz and gs. */
void v3_pack_w(cu_ctx *x, int C, const float *w, uint16_t *wf, uint16_t *wd);
void v3_stats_to_gn(cu_ctx *x, int B, int C, const float *st, float *mean, float *rstd);
void v3_reduce_sums(cu_ctx *x, int B, const float *part, float *st);
void v3_reduce_pools(cu_ctx *x, int B, int C, const float *part, float *avg, float *max,
	uint8_t *arg);
void v3_reduce_chan(cu_ctx *x, int R, int C, const float *chan, float *dgamma, float *dbeta);
void v3_gn_stats(cu_ctx *x, int B, int C, const uint16_t *in, float *st);
void v3_gn_bwd_apply(cu_ctx *x, int B, int C, const uint16_t *in, const float *gamma,
	const float *mean, const float *rstd, const uint16_t *dz, const float *gs, uint16_t *dx,
	int dx_acc);

#endif
