/* CPU backend: OpenBLAS for GEMM-shaped work (the 3-tap convolution as
 * three shifted GEMMs over the padded [B][36][C] layout, see backend.h),
 * OpenMP loops over samples or channels elsewhere. Reductions that cross
 * samples are done as per-sample partials summed in a fixed order, so the
 * results do not depend on thread scheduling. */
#include "nn/backend.h"
#include "nn/math.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NT(c) num_threads((c)->threads)

static void *cpu_alloc(size_t bytes)
{
	if (bytes == 0)
		bytes = 64;
	size_t n = (bytes + 63) / 64 * 64;
	void *p = aligned_alloc(64, n);
	if (p)
		memset(p, 0, n);
	return p;
}

static void cpu_free(void *p)
{
	free(p);
}

static void cpu_copy(void *dst, const void *src, size_t bytes)
{
	if (bytes)
		memcpy(dst, src, bytes);
}

static void cpu_zero(void *p, size_t bytes)
{
	if (bytes)
		memset(p, 0, bytes);
}

/* One thread pool: OpenMP, sized by the context. Every GEMM is split over
 * rows of C by pgemm below, each part a single-threaded OpenBLAS call, so
 * OpenBLAS is set to one thread (its own pool would spin against
 * OpenMP's on a small machine). A row of C is always computed by one call
 * with the full K, so results do not depend on the thread count. */
void hy_nn_ctx_init(hy_nn_ctx *c, int threads)
{
	memset(c, 0, sizeof *c);
	c->threads = threads < 1 ? 1 : threads;
	openblas_set_num_threads(1);
}

static void pgemm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	const enum CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans;
	const enum CBLAS_TRANSPOSE TB = tb ? CblasTrans : CblasNoTrans;
	int parts = c->threads;
	if ((double)M * N * K < 2e5 || M < 16)
		parts = 1;
	if (parts == 1) {
		cblas_sgemm(CblasRowMajor, TA, TB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
		return;
	}
	int chunk = (M + parts - 1) / parts;
	chunk = (chunk + 7) / 8 * 8;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
	for (int p = 0; p < parts; p++) {
		int m0 = p * chunk, m1 = m0 + chunk < M ? m0 + chunk : M;
		if (m0 >= m1)
			continue;
		const float *Ap = ta ? A + m0 : A + (size_t)m0 * lda;
		cblas_sgemm(CblasRowMajor, TA, TB, m1 - m0, N, K, alpha, Ap, lda, B, ldb, beta,
			C + (size_t)m0 * ldc, ldc);
	}
}

static void cpu_gemm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	pgemm(c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void hy_nn_zero_pads_cpu(const hy_nn_ctx *c, int B, int C, float *x)
{
	for (int b = 0; b < B; b++) {
		memset(x + (size_t)b * HY_NN_TP * C, 0, (size_t)C * sizeof *x);
		memset(x + ((size_t)b * HY_NN_TP + HY_NN_TP - 1) * C, 0, (size_t)C * sizeof *x);
	}
	(void)c;
}

/* y(row r+1) = Σ_k x(row r+k)·W_kᵀ for r in [0, B·36−2): rows r that
 * straddle two samples land on pad rows, which are zeroed afterwards. */
static void cpu_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const float *x,
	const float *w, float *y)
{
	int rows = B * HY_NN_TP - 2;
	for (int k = 0; k < 3; k++)
		pgemm(c, 0, 1, rows, cout, cin, 1.0f,
			x + (size_t)k * cin, cin, w + (size_t)k * cin, 3 * cin, k ? 1.0f : 0.0f,
			y + cout, cout);
	hy_nn_zero_pads_cpu(c, B, cout, y);
}

/* dx(row r+1) = Σ_j dy(row r+j)·W_{2−j}; dW_k += Σ_r dy(row r+1)ᵀ x(row r+k)
 * (straddling rows r meet dy pad rows, which are zero). */
static void cpu_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const float *x,
	const float *w, const float *dy, float *dx, float *dw)
{
	int rows = B * HY_NN_TP - 2;
	if (dx) {
		for (int j = 0; j < 3; j++)
			pgemm(c, 0, 0, rows, cin, cout, 1.0f,
				dy + (size_t)j * cout, cout, w + (size_t)(2 - j) * cin, 3 * cin,
				j ? 1.0f : 0.0f, dx + cin, cin);
		hy_nn_zero_pads_cpu(c, B, cin, dx);
	}
	for (int k = 0; k < 3; k++)
		pgemm(c, 1, 0, cout, cin, rows, 1.0f, dy + cout,
			cout, x + (size_t)k * cin, cin, 1.0f, dw + (size_t)k * cin, 3 * cin);
}

static void cpu_linear_fwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *b, float *y, int ldy, int pad_B)
{
	pgemm(c, 0, 1, rows, out, in, 1.0f, x, ldx, w, in,
		0.0f, y, ldy);
	if (b) {
#pragma omp parallel for NT(c) schedule(static) if (rows >= 256)
		for (int r = 0; r < rows; r++) {
			float *yr = y + (size_t)r * ldy;
			for (int o = 0; o < out; o++)
				yr[o] += b[o];
		}
	}
	if (pad_B)
		hy_nn_zero_pads_cpu(c, pad_B, ldy, y);
}

/* db += Σ_r dy[r]: columns split in fixed blocks, rows summed in order. */
static void colsum_acc(const hy_nn_ctx *c, int rows, int n, const float *dy, int ldy, float *db)
{
	int nblk = (n + 63) / 64;
#pragma omp parallel for NT(c) schedule(static) if (rows * n >= 65536)
	for (int blk = 0; blk < nblk; blk++) {
		double acc[64] = {0};
		int c0 = blk * 64, c1 = c0 + 64 < n ? c0 + 64 : n;
		for (int r = 0; r < rows; r++) {
			const float *d = dy + (size_t)r * ldy;
			for (int j = c0; j < c1; j++)
				acc[j - c0] += d[j];
		}
		for (int j = c0; j < c1; j++)
			db[j] += (float)acc[j - c0];
	}
}

static void cpu_linear_bwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw,
	float *db)
{
	if (dx)
		pgemm(c, 0, 0, rows, in, out, 1.0f, dy, ldy, w,
			in, dx_acc ? 1.0f : 0.0f, dx, ldx);
	pgemm(c, 1, 0, out, in, rows, 1.0f, dy, ldy, x, ldx,
		1.0f, dw, in);
	if (db)
		colsum_acc(c, rows, out, dy, ldy, db);
}

/* The elementwise per-sample kernels are compiled for AVX-512, AVX2 and
 * the baseline, picked at load time (GCC function multiversioning), since
 * the build targets baseline x86-64. The OpenMP loops call them per
 * sample: the outlined loop bodies themselves would not be cloned. Every
 * clone does the same operations in the same order (no FMA contraction
 * under -std=c11, no reduction across vector lanes), so every clone gives
 * the same results. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__ELF__)
#define HY_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HY_CLONES
#endif

/* One sample of GroupNorm + Mish: per-channel sums in the inner loops
 * (vectorisable), folded into groups. */
HY_CLONES static void gn_fwd_sample(int C, const float *xb, const float *gamma,
	const float *beta, float *zb, float *ab, float *mean, float *rstd)
{
	const int G = HY_NN_GROUPS, cpg = C / G;
	const double n = (double)cpg * HY_NN_T;
	float cs[C], mc[C], sc[C], sh[C];
#pragma omp simd
	for (int ch = 0; ch < C; ch++)
		cs[ch] = 0.0f;
	for (int t = 0; t < HY_NN_T; t++)
#pragma omp simd
		for (int ch = 0; ch < C; ch++)
			cs[ch] += xb[(size_t)t * C + ch];
	for (int g = 0; g < G; g++) {
		double s = 0;
		for (int j = 0; j < cpg; j++)
			s += cs[g * cpg + j];
		mean[g] = (float)(s / n);
		for (int j = 0; j < cpg; j++)
			mc[g * cpg + j] = mean[g];
	}
#pragma omp simd
	for (int ch = 0; ch < C; ch++)
		cs[ch] = 0.0f;
	for (int t = 0; t < HY_NN_T; t++)
#pragma omp simd
		for (int ch = 0; ch < C; ch++) {
			float dv = xb[(size_t)t * C + ch] - mc[ch];
			cs[ch] += dv * dv;
		}
	for (int g = 0; g < G; g++) {
		double ss = 0;
		for (int j = 0; j < cpg; j++)
			ss += cs[g * cpg + j];
		float r = (float)(1.0 / sqrt(ss / n + 1e-5));
		rstd[g] = r;
		for (int j = 0; j < cpg; j++) {
			int ch = g * cpg + j;
			sc[ch] = r * gamma[ch];
			sh[ch] = beta[ch] - mc[ch] * sc[ch];
		}
	}
	for (int t = 0; t < HY_NN_T; t++)
#pragma omp simd
		for (int ch = 0; ch < C; ch++) {
			size_t i = (size_t)t * C + ch;
			float v = xb[i] * sc[ch] + sh[ch];
			zb[i] = v;
			ab[i] = hy_nn_mish(v);
		}
}

static void cpu_gn_mish_fwd(const hy_nn_ctx *c, int B, int C, const float *x,
	const float *gamma, const float *beta, float *z, float *a, float *mean, float *rstd)
{
	const int G = HY_NN_GROUPS;
#pragma omp parallel for NT(c) schedule(static)
	for (int b = 0; b < B; b++) {
		size_t off = ((size_t)b * HY_NN_TP + 1) * C;
		gn_fwd_sample(C, x + off, gamma, beta, z + off, a + off, mean + b * G, rstd + b * G);
	}
	hy_nn_zero_pads_cpu(c, B, C, z);
	hy_nn_zero_pads_cpu(c, B, C, a);
}

/* One sample of the GroupNorm + Mish backward; pgb/pbb: this sample's
 * dgamma/dbeta partials. */
HY_CLONES static void gn_bwd_sample(int C, const float *xb, const float *zb,
	const float *gamma, const float *mean, const float *rstd, const float *dab, float *dxb,
	int dx_acc, float *pgb, float *pbb)
{
	const int G = HY_NN_GROUPS, cpg = C / G;
	const double n = (double)cpg * HY_NN_T;
	float dz[HY_NN_T * C], mc[C], rc[C], m1[C], m2[C];
	for (int ch = 0; ch < C; ch++) {
		pgb[ch] = pbb[ch] = 0.0f;
		mc[ch] = mean[ch / cpg];
		rc[ch] = rstd[ch / cpg];
	}
	for (int t = 0; t < HY_NN_T; t++)
#pragma omp simd
		for (int ch = 0; ch < C; ch++) {
			size_t i = (size_t)t * C + ch;
			float d = dab[i] * hy_nn_mish_grad(zb[i]);
			dz[i] = d;
			pgb[ch] += d * (xb[i] - mc[ch]) * rc[ch];
			pbb[ch] += d;
		}
	/* Σ dx̂ = Σ_c γ_c·Σ dz, Σ dx̂·x̂ = Σ_c γ_c·Σ dz·x̂ over the group */
	for (int g = 0; g < HY_NN_GROUPS; g++) {
		double s1 = 0, s2 = 0;
		for (int j = 0; j < cpg; j++) {
			int ch = g * cpg + j;
			s1 += (double)gamma[ch] * pbb[ch];
			s2 += (double)gamma[ch] * pgb[ch];
		}
		for (int j = 0; j < cpg; j++) {
			m1[g * cpg + j] = (float)(s1 / n);
			m2[g * cpg + j] = (float)(s2 / n);
		}
	}
	if (dx_acc) {
		for (int t = 0; t < HY_NN_T; t++)
#pragma omp simd
			for (int ch = 0; ch < C; ch++) {
				size_t i = (size_t)t * C + ch;
				float xh = (xb[i] - mc[ch]) * rc[ch];
				dxb[i] += rc[ch] * (dz[i] * gamma[ch] - m1[ch] - xh * m2[ch]);
			}
	} else {
		for (int t = 0; t < HY_NN_T; t++)
#pragma omp simd
			for (int ch = 0; ch < C; ch++) {
				size_t i = (size_t)t * C + ch;
				float xh = (xb[i] - mc[ch]) * rc[ch];
				dxb[i] = rc[ch] * (dz[i] * gamma[ch] - m1[ch] - xh * m2[ch]);
			}
	}
}

static void cpu_gn_mish_bwd(const hy_nn_ctx *c, int B, int C, const float *x, const float *z,
	const float *gamma, const float *mean, const float *rstd, const float *da, float *dx,
	int dx_acc, float *dgamma, float *dbeta, float *scratch)
{
	const int G = HY_NN_GROUPS;
	float *pg = scratch, *pb = scratch + (size_t)B * C;
#pragma omp parallel for NT(c) schedule(static)
	for (int b = 0; b < B; b++) {
		size_t off = ((size_t)b * HY_NN_TP + 1) * C;
		gn_bwd_sample(C, x + off, z + off, gamma, mean + b * G, rstd + b * G, da + off,
			dx + off, dx_acc, pg + (size_t)b * C, pb + (size_t)b * C);
	}
	if (!dx_acc)
		hy_nn_zero_pads_cpu(c, B, C, dx);
#pragma omp parallel for NT(c) schedule(static) if (B * C >= 4096)
	for (int ch = 0; ch < C; ch++) {
		double sg = 0, sb = 0;
		for (int b = 0; b < B; b++) {
			sg += pg[(size_t)b * C + ch];
			sb += pb[(size_t)b * C + ch];
		}
		dgamma[ch] += (float)sg;
		dbeta[ch] += (float)sb;
	}
}

static void cpu_mish_fwd(const hy_nn_ctx *c, size_t n, const float *z, float *a)
{
#pragma omp parallel for simd NT(c) schedule(static) if (n >= 16384)
	for (size_t i = 0; i < n; i++)
		a[i] = hy_nn_mish(z[i]);
}

static void cpu_mish_bwd(const hy_nn_ctx *c, size_t n, const float *z, const float *da,
	float *dz)
{
#pragma omp parallel for simd NT(c) schedule(static) if (n >= 16384)
	for (size_t i = 0; i < n; i++)
		dz[i] = da[i] * hy_nn_mish_grad(z[i]);
}

static void cpu_relu_fwd(const hy_nn_ctx *c, size_t n, float *h)
{
	(void)c;
	for (size_t i = 0; i < n; i++)
		h[i] = h[i] > 0.0f ? h[i] : 0.0f;
}

static void cpu_relu_bwd(const hy_nn_ctx *c, size_t n, const float *h, float *dh)
{
	(void)c;
	for (size_t i = 0; i < n; i++)
		if (!(h[i] > 0.0f))
			dh[i] = 0.0f;
}

HY_CLONES static void pool_fwd_sample(int C, const float *xb, float *av, float *mx,
	uint8_t *ag)
{
	int am[C];
#pragma omp simd
	for (int ch = 0; ch < C; ch++)
		av[ch] = 0.0f;
	if (mx)
		for (int ch = 0; ch < C; ch++) {
			mx[ch] = xb[ch];
			am[ch] = 0;
		}
	for (int t = 0; t < HY_NN_T; t++) {
		const float *xr = xb + (size_t)t * C;
#pragma omp simd
		for (int ch = 0; ch < C; ch++)
			av[ch] += xr[ch];
		if (mx)
#pragma omp simd
			for (int ch = 0; ch < C; ch++) {
				int gt = xr[ch] > mx[ch];
				mx[ch] = gt ? xr[ch] : mx[ch];
				am[ch] = gt ? t : am[ch];
			}
	}
#pragma omp simd
	for (int ch = 0; ch < C; ch++)
		av[ch] *= 1.0f / HY_NN_T;
	if (mx)
		for (int ch = 0; ch < C; ch++)
			ag[ch] = (uint8_t)am[ch];
}

static void cpu_pool_fwd(const hy_nn_ctx *c, int B, int C, const float *x, float *avg,
	float *max, uint8_t *arg, int ldp)
{
#pragma omp parallel for NT(c) schedule(static) if (B * C >= 4096)
	for (int b = 0; b < B; b++)
		pool_fwd_sample(C, x + ((size_t)b * HY_NN_TP + 1) * C, avg + (size_t)b * ldp,
			max ? max + (size_t)b * ldp : NULL, arg ? arg + (size_t)b * C : NULL);
}

HY_CLONES static void pool_bwd_sample(int C, const float *da, const float *dm,
	const uint8_t *ag, float *xb)
{
	for (int t = 0; t < HY_NN_T; t++) {
		float *xr = xb + (size_t)t * C;
#pragma omp simd
		for (int ch = 0; ch < C; ch++)
			xr[ch] += da[ch] * (1.0f / HY_NN_T);
	}
	if (dm)
		for (int ch = 0; ch < C; ch++)
			xb[(size_t)ag[ch] * C + ch] += dm[ch];
}

static void cpu_pool_bwd(const hy_nn_ctx *c, int B, int C, const float *davg,
	const float *dmax, const uint8_t *arg, int ldp, float *dx)
{
#pragma omp parallel for NT(c) schedule(static) if (B * C >= 4096)
	for (int b = 0; b < B; b++)
		pool_bwd_sample(C, davg + (size_t)b * ldp, dmax ? dmax + (size_t)b * ldp : NULL,
			dmax ? arg + (size_t)b * C : NULL, dx + ((size_t)b * HY_NN_TP + 1) * C);
}

HY_CLONES static void se_fwd_sample(int C, const float *x, const float *y, const float *sb,
	float *out)
{
	for (int t = 0; t < HY_NN_TP; t++)
#pragma omp simd
		for (int ch = 0; ch < C; ch++) {
			size_t i = (size_t)t * C + ch;
			out[i] = x[i] + y[i] * sb[ch];
		}
}

static void cpu_se_fwd(const hy_nn_ctx *c, int B, int C, const float *x, const float *y,
	const float *e2, float *s, float *out)
{
#pragma omp parallel for NT(c) schedule(static)
	for (int b = 0; b < B; b++) {
		float *sb = s + (size_t)b * C;
		for (int ch = 0; ch < C; ch++)
			sb[ch] = hy_nn_sigmoid(e2[(size_t)b * C + ch] + e2[((size_t)B + b) * C + ch]);
		size_t off = (size_t)b * HY_NN_TP * C;
		se_fwd_sample(C, x + off, y + off, sb, out + off);
	}
}

HY_CLONES static void se_bwd_sample(int C, const float *y, const float *sb, const float *dout,
	float *dy, float *acc)
{
#pragma omp simd
	for (int ch = 0; ch < C; ch++)
		acc[ch] = 0.0f;
	for (int t = 0; t < HY_NN_TP; t++)
#pragma omp simd
		for (int ch = 0; ch < C; ch++) {
			size_t i = (size_t)t * C + ch;
			acc[ch] += dout[i] * y[i];
			dy[i] = dout[i] * sb[ch];
		}
}

static void cpu_se_bwd(const hy_nn_ctx *c, int B, int C, const float *y, const float *s,
	const float *dout, float *dy, float *de2)
{
#pragma omp parallel for NT(c) schedule(static)
	for (int b = 0; b < B; b++) {
		const float *sb = s + (size_t)b * C;
		float acc[C];
		size_t off = (size_t)b * HY_NN_TP * C;
		se_bwd_sample(C, y + off, sb, dout + off, dy + off, acc);
		for (int ch = 0; ch < C; ch++) {
			float de = acc[ch] * sb[ch] * (1.0f - sb[ch]);
			de2[(size_t)b * C + ch] = de;
			de2[((size_t)B + b) * C + ch] = de;
		}
	}
}

static double cpu_softmax_ce(const hy_nn_ctx *c, int B, int n, const float *logits,
	const uint64_t *mask, const uint8_t *label, float scale, float *dlogits, int *correct)
{
	(void)c;
	double total = 0;
	int ok = 0;
	for (int b = 0; b < B; b++) {
		const float *l = logits + (size_t)b * n;
		float *d = dlogits + (size_t)b * n;
		uint64_t m = mask ? mask[b] | (1ull << label[b]) : ~0ull;
		double mx = -INFINITY;
		int best = -1;
		for (int i = 0; i < n; i++)
			if (m >> i & 1 && l[i] > mx) {
				mx = l[i];
				best = i;
			}
		double se = 0;
		for (int i = 0; i < n; i++)
			if (m >> i & 1)
				se += exp(l[i] - mx);
		double lse = mx + log(se);
		total += lse - l[label[b]];
		ok += best == label[b];
		for (int i = 0; i < n; i++) {
			double p = m >> i & 1 ? exp(l[i] - lse) : 0.0;
			d[i] = (float)(scale * (p - (i == label[b])));
		}
	}
	if (correct)
		*correct += ok;
	return total;
}

static double cpu_bce(const hy_nn_ctx *c, size_t n, const float *logits, const float *target,
	const float *w, float scale, float *dlogits)
{
	(void)c;
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		float wi = w ? w[i] : 1.0f;
		if (wi == 0.0f) {
			dlogits[i] = 0.0f;
			continue;
		}
		total += wi * hy_nn_bce_logits(logits[i], target[i]);
		dlogits[i] = scale * wi * (hy_nn_sigmoid(logits[i]) - target[i]);
	}
	return total;
}

static double cpu_mse(const hy_nn_ctx *c, size_t n, const float *pred, const float *target,
	float scale, float *dpred)
{
	(void)c;
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		float d = pred[i] - target[i];
		total += (double)d * d;
		dpred[i] = scale * 2.0f * d;
	}
	return total;
}

/* 64 fixed chunks, whatever the thread count: bit-identical sums. */
static double cpu_sumsq(const hy_nn_ctx *c, size_t n, const float *g)
{
	enum { CH = 64 };
	double part[CH];
	size_t step = (n + CH - 1) / CH;
#pragma omp parallel for NT(c) schedule(static) if (n >= 65536)
	for (int k = 0; k < CH; k++) {
		size_t i0 = (size_t)k * step, i1 = i0 + step < n ? i0 + step : n;
		double s = 0;
		for (size_t i = i0; i < i1; i++)
			s += (double)g[i] * g[i];
		part[k] = s;
	}
	double s = 0;
	for (int k = 0; k < CH; k++)
		s += part[k];
	return s;
}

static void cpu_scale(const hy_nn_ctx *c, size_t n, float *g, float s)
{
#pragma omp parallel for NT(c) schedule(static) if (n >= 65536)
	for (size_t i = 0; i < n; i++)
		g[i] *= s;
}

static void cpu_adamw(const hy_nn_ctx *c, size_t n, float *p, const float *g, float *m,
	float *v, float lr, float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2)
{
#pragma omp parallel for NT(c) schedule(static) if (n >= 65536)
	for (size_t i = 0; i < n; i++)
		hy_nn_adamw_elem(p + i, g[i], m + i, v + i, lr, b1, b2, eps, wd, bc1, sqrt_bc2);
}

static const hy_nn_backend cpu_backend = {
	.name = "cpu",
	.alloc = cpu_alloc,
	.free = cpu_free,
	.to_dev = cpu_copy,
	.to_host = cpu_copy,
	.zero = cpu_zero,
	.gemm = cpu_gemm,
	.conv3_fwd = cpu_conv3_fwd,
	.conv3_bwd = cpu_conv3_bwd,
	.linear_fwd = cpu_linear_fwd,
	.linear_bwd = cpu_linear_bwd,
	.gn_mish_fwd = cpu_gn_mish_fwd,
	.gn_mish_bwd = cpu_gn_mish_bwd,
	.mish_fwd = cpu_mish_fwd,
	.mish_bwd = cpu_mish_bwd,
	.relu_fwd = cpu_relu_fwd,
	.relu_bwd = cpu_relu_bwd,
	.pool_fwd = cpu_pool_fwd,
	.pool_bwd = cpu_pool_bwd,
	.se_fwd = cpu_se_fwd,
	.se_bwd = cpu_se_bwd,
	.softmax_ce = cpu_softmax_ce,
	.bce = cpu_bce,
	.mse = cpu_mse,
	.sumsq = cpu_sumsq,
	.scale = cpu_scale,
	.adamw = cpu_adamw,
};

const hy_nn_backend *hy_nn_backend_cpu(void)
{
	return &cpu_backend;
}
