/* Path v3's entries of the op table (nn/ops.h, the rows from fused_block to
 * gn_bwd_apply) and its per-context plan: which kernels of v3/ each op
 * queues, in what order, on the scratch cu_v3_init reserved. The CPU's
 * reference of every op is nn/fuse.c; check_gpu compares the two. */
#include "nn/cuda/v3/v3.h"

#include <stdlib.h>

int v3_conv_setup(cu_ctx *x);

int cu_v3_init(cu_ctx *x)
{
	const int C = x->arch.channels;
	int major = 0, sms = 0;
	if (CU_RT(x, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, x->device)) ||
		CU_RT(x, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, x->device)))
		return 1;
	if (major < 8 || !hy_v3_takes(C))
		return 0; /* the block runs v2's ops (cu_fused_block answers 0) */
	struct cu_v3 *v = (struct cu_v3 *)calloc(1, sizeof *v);
	if (!v)
		return cu_fail(x, HY_ENOMEM, "cu_v3_init", "out of host memory", __FILE__, __LINE__);
	x->v3 = v;
	v->C = C;
	v->sms = sms;
	hy_v3_scratch_size(x->max_batch, C, sms, &v->s);
	/* the report's memory counts v3's scratch with the rest (the plan's
	 * check of the device's free memory was made before: v3's is under
	 * 1% of a full context's) */
	const size_t bytes = (2 * v->s.w16) * 2 + (v->s.part + v->s.chan + v->s.wpart) * 4;
	x->plan.scratch += bytes;
	x->plan.total += bytes;
	return CU_RT(x, cudaMalloc((void **)&v->wf, v->s.w16 * 2)) ||
	       CU_RT(x, cudaMalloc((void **)&v->wd, v->s.w16 * 2)) ||
	       CU_RT(x, cudaMalloc((void **)&v->part, v->s.part * 4)) ||
	       CU_RT(x, cudaMalloc((void **)&v->chan, v->s.chan * 4)) ||
	       CU_RT(x, cudaMalloc((void **)&v->wpart, v->s.wpart * 4)) || v3_conv_setup(x);
}

void cu_v3_free(cu_ctx *x)
{
	struct cu_v3 *v = x->v3;
	if (!v)
		return;
	void *p[] = {v->wf, v->wd, v->part, v->chan, v->wpart};
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		if (p[i])
			(void)cudaFree(p[i]);
	free(v);
	x->v3 = NULL;
}

int cu_fused_block(const hy_nn_ctx *c, int C)
{
	const cu_ctx *x = cu_of(c);
	return x->v3 && hy_v3_takes(C) && C <= x->v3->C;
}

/* The context of a v3 op, or NULL (a failure kept) when it cannot run one:
 * not a v3 context at this width, or more rows than it was made for. */
static cu_ctx *v3_enter(const hy_nn_ctx *c, int B, int C, const char *op)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || B < 1)
		return NULL;
	if (!cu_fused_block(c, C)) {
		(void)cu_fail(x, HY_EUSAGE, op, "a v3 op on a context that runs no v3 block of this width",
			__FILE__, __LINE__);
		return NULL;
	}
	return too_big(x, B, x->max_batch, op) ? NULL : x;
}

void cu_gn_stats(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, float *st)
{
	cu_ctx *x = v3_enter(c, B, C, "gn_stats");
	if (x)
		v3_gn_stats(x, B, C, (const uint16_t *)in, st);
}

void cu_gn_conv3_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const float *st,
	const float *gamma, const float *beta, const float *w, float *mean, float *rstd,
	hy_nn_act *y, float *st_out, float *avg, float *max, uint8_t *arg, hy_nn_act *tmp)
{
	cu_ctx *x = v3_enter(c, B, C, "gn_conv3_fwd");
	if (!x)
		return;
	if (st_out && avg) {
		(void)cu_fail(x, HY_EUSAGE, "gn_conv3_fwd", "statistics and pools of one output",
			__FILE__, __LINE__);
		return;
	}
	struct cu_v3 *v = x->v3;
	v3_stats_to_gn(x, B, C, st, mean, rstd);
	v3_pack_w(x, C, w, v->wf, NULL);
	v3_conv_args a = {};
	a.R = B * HY_V3_TP, a.C = C, a.in = (const uint16_t *)in, a.w = v->wf;
	a.out = (uint16_t *)y;
	a.pmean = mean, a.prstd = rstd, a.pgamma = gamma, a.pbeta = beta;
	a.part = v->part, a.chan = v->chan;
	const int epi = st_out ? V3_EPI_STATS : avg ? V3_EPI_POOL : V3_EPI_STORE;
	v3_conv(x, V3_PRO_GN, epi, &a);
	if (st_out)
		v3_reduce_sums(x, B, v->part, st_out);
	if (avg)
		v3_reduce_pools(x, B, C, v->part, avg, max, arg);
}

void cu_se_fwd_stats(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const hy_nn_act *y,
	const float *e2, float *s, hy_nn_act *out, float *st_out)
{
	cu_ctx *x = v3_enter(c, B, C, "se_fwd_stats");
	if (!x)
		return;
	x->ops->se_fwd(x, B, C, in, y, e2, s, out);
	if (st_out)
		v3_gn_stats(x, B, C, (const uint16_t *)out, st_out);
}

void cu_gn_conv3_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const float *gamma,
	const float *beta, const float *mean, const float *rstd, const float *w,
	const hy_nn_act *dy, hy_nn_act *dz, float *dw, float *dgamma, float *dbeta, float *gs,
	hy_nn_act *tmp)
{
	cu_ctx *x = v3_enter(c, B, C, "gn_conv3_bwd");
	if (!x)
		return;
	struct cu_v3 *v = x->v3;
	const int R = B * HY_V3_TP;
	v3_wgrad(x, R, C, (const uint16_t *)in, mean, rstd, gamma, beta, (const uint16_t *)dy, dw);
	v3_pack_w(x, C, w, NULL, v->wd);
	v3_conv_args a = {};
	a.R = R, a.C = C, a.in = (const uint16_t *)dy, a.w = v->wd, a.out = (uint16_t *)dz;
	a.ex = (const uint16_t *)in, a.emean = mean, a.erstd = rstd, a.egamma = gamma;
	a.ebeta = beta, a.part = v->part, a.chan = v->chan;
	v3_conv(x, V3_PRO_NONE, V3_EPI_MISHGRAD, &a);
	v3_reduce_sums(x, B, v->part, gs);
	v3_reduce_chan(x, R, C, v->chan, dgamma, dbeta);
}

void cu_gn_bwd_apply(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, const float *gamma,
	const float *mean, const float *rstd, const hy_nn_act *dz, const float *gs, hy_nn_act *dx,
	int dx_acc)
{
	cu_ctx *x = v3_enter(c, B, C, "gn_bwd_apply");
	if (x)
		v3_gn_bwd_apply(x, B, C, (const uint16_t *)in, gamma, mean, rstd,
			(const uint16_t *)dz, gs, (uint16_t *)dx, dx_acc);
}
