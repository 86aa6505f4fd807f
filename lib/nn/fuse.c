/* The CPU reference of path v3's fused block ops (see nn/fuse.h): the
 * convolutions, pools and gate are the CPU's core ops; the GroupNorm pieces
 * that v3 splits differently from gn_mish_fwd/bwd (statistics carried as
 * sums, the input gradient from gs) are loops here, in the same arithmetic
 * as nn/math.h's. */
#include "nn/fuse.h"

#include "nn/math.h"

#include <stdlib.h>
#include <string.h>

enum { G = HY_NN_GROUPS };

/* A row of a sample that holds a tile (not one of the two pad rows). */
static int tile_row(int t)
{
	return t >= 1 && t <= HY_NN_T;
}

void hy_nn_gn_stats_ref(int B, int C, const float *x, float *st)
{
	const int cpg = C / G;
	for (int b = 0; b < B; b++)
		for (int g = 0; g < G; g++) {
			double s = 0, s2 = 0;
			for (int t = 1; t <= HY_NN_T; t++)
				for (int j = 0; j < cpg; j++) {
					double v = x[((size_t)b * HY_NN_TP + t) * C + g * cpg + j];
					s += v;
					s2 += v * v;
				}
			st[(b * G + g) * 2] = (float)s;
			st[(b * G + g) * 2 + 1] = (float)s2;
		}
}

static int ref_fused_block(const hy_nn_ctx *c, int C)
{
	return C >= G && C % G == 0;
}

static void ref_gn_stats(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, float *st)
{
	hy_nn_gn_stats_ref(B, C, (const float *)x, st);
}

/* a ← Mish(GN(x)) with the given mean and rstd, zero pad rows: the
 * convolutions' operand, computed in the forward from the carried sums and
 * recomputed in the backward from the saved statistics. */
static void gn_operand(int B, int C, const float *x, const float *gamma, const float *beta,
	const float *mean, const float *rstd, float *a)
{
	const int cpg = C / G;
	for (int b = 0; b < B; b++)
		for (int t = 0; t < HY_NN_TP; t++)
			for (int ch = 0; ch < C; ch++) {
				size_t i = ((size_t)b * HY_NN_TP + t) * C + ch;
				int k = b * G + ch / cpg;
				a[i] = tile_row(t) ? hy_nn_mish((x[i] - mean[k]) * rstd[k] * gamma[ch] +
							     beta[ch])
						   : 0.0f;
			}
}

static void ref_gn_conv3_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const float *st, const float *gamma, const float *beta, const float *w, float *mean,
	float *rstd, hy_nn_act *y, float *st_out, float *avg, float *max, uint8_t *arg,
	hy_nn_act *tmp)
{
	const hy_nn_backend *cpu = hy_nn_backend_cpu();
	const float n = (float)(C / G * HY_NN_T);
	for (int i = 0; i < B * G; i++)
		hy_nn_gn_from_sums(st[2 * i], st[2 * i + 1], n, &mean[i], &rstd[i]);
	gn_operand(B, C, (const float *)x, gamma, beta, mean, rstd, (float *)tmp);
	cpu->conv3_fwd(c, B, C, C, tmp, w, y);
	if (st_out)
		hy_nn_gn_stats_ref(B, C, (const float *)y, st_out);
	if (avg)
		cpu->pool_fwd(c, B, C, y, avg, max, arg, C);
}

static void ref_se_fwd_stats(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const hy_nn_act *y, const float *e2, float *s, hy_nn_act *out, float *st_out)
{
	hy_nn_backend_cpu()->se_fwd(c, B, C, x, y, e2, s, out);
	if (st_out)
		hy_nn_gn_stats_ref(B, C, (const float *)out, st_out);
}

static void ref_gn_conv3_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const float *gamma, const float *beta, const float *mean, const float *rstd,
	const float *w, const hy_nn_act *dy, hy_nn_act *dz, float *dw, float *dgamma,
	float *dbeta, float *gs, hy_nn_act *tmp)
{
	const float *xf = (const float *)x;
	float *d = (float *)dz;
	const int cpg = C / G;
	gn_operand(B, C, xf, gamma, beta, mean, rstd, (float *)tmp);
	hy_nn_backend_cpu()->conv3_bwd(c, B, C, C, tmp, w, dy, dz, dw); /* dz = ∂L/∂a */
	double *pg = calloc(2 * (size_t)C, sizeof *pg);
	if (!pg)
		abort(); /* a reference for tests: a few KiB */
	for (int b = 0; b < B; b++)
		for (int g = 0; g < G; g++) {
			double s1 = 0, s2 = 0;
			const int k = b * G + g;
			for (int t = 1; t <= HY_NN_T; t++)
				for (int j = 0; j < cpg; j++) {
					const int ch = g * cpg + j;
					size_t i = ((size_t)b * HY_NN_TP + t) * C + ch;
					float xh = (xf[i] - mean[k]) * rstd[k];
					float v = d[i] * hy_nn_mish_grad(xh * gamma[ch] + beta[ch]);
					d[i] = v;
					s1 += (double)gamma[ch] * v;
					s2 += (double)gamma[ch] * v * xh;
					pg[ch] += (double)v * xh;
					pg[C + ch] += v;
				}
			gs[2 * k] = (float)s1;
			gs[2 * k + 1] = (float)s2;
		}
	for (int ch = 0; ch < C; ch++) {
		dgamma[ch] += (float)pg[ch];
		dbeta[ch] += (float)pg[C + ch];
	}
	free(pg);
}

static void ref_gn_bwd_apply(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const float *gamma, const float *mean, const float *rstd, const hy_nn_act *dz,
	const float *gs, hy_nn_act *dx, int dx_acc)
{
	const float *xf = (const float *)x, *d = (const float *)dz;
	float *o = (float *)dx;
	const int cpg = C / G;
	const float n = (float)(cpg * HY_NN_T);
	for (int b = 0; b < B; b++)
		for (int t = 0; t < HY_NN_TP; t++)
			for (int ch = 0; ch < C; ch++) {
				size_t i = ((size_t)b * HY_NN_TP + t) * C + ch;
				const int k = b * G + ch / cpg;
				float v = 0.0f;
				if (tile_row(t)) {
					float xh = (xf[i] - mean[k]) * rstd[k];
					v = rstd[k] *
					    (gamma[ch] * d[i] - gs[2 * k] / n - xh * gs[2 * k + 1] / n);
				}
				o[i] = dx_acc ? o[i] + v : v;
			}
}

void hy_nn_fused_ref_table(hy_nn_backend *out)
{
	*out = *hy_nn_backend_cpu();
	out->fused_block = ref_fused_block;
	out->gn_stats = ref_gn_stats;
	out->gn_conv3_fwd = ref_gn_conv3_fwd;
	out->se_fwd_stats = ref_se_fwd_stats;
	out->gn_conv3_bwd = ref_gn_conv3_bwd;
	out->gn_bwd_apply = ref_gn_bwd_apply;
}
