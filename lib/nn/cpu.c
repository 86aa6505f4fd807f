/* CPU backend: OpenBLAS for GEMM-shaped work (the 3-tap convolution as
 * three shifted GEMMs over the padded [B][36][C] layout, see backend.h),
 * OpenMP loops over samples or channels elsewhere. Reductions that cross
 * samples are done as per-sample partials summed in a fixed order, so the
 * results do not depend on thread scheduling. */
#include "nn/backend.h"
#include "nn/cpupath.h"
#include "nn/math.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A parallel loop over n items: at most one thread per item, items handed
 * out in dynamic chunks (see hy_nn_ctx_init below). */
#define PFOR(c, n) num_threads(team((c), (n))) schedule(dynamic, dyn_chunk((c), (n)))

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

/* One thread pool: OpenMP, sized by the context; OpenBLAS is set to one
 * thread (its own pool would spin against OpenMP's on a small machine).
 * Work inside a parallel region is handed out dynamically (the first free
 * thread takes the next part), never tied to a thread number: a thread that
 * is slow to wake, or shares its core with another process, then costs the
 * region little, and which thread computes a part never changes the
 * result. Independent GEMMs of one op (the three taps of a convolution,
 * dx and dW of a backward pass) share one region: one wake-up and one join
 * instead of several; sets of GEMMs too small to pay for a wake-up run
 * on the calling thread. Idle threads wait passively where the program
 * called hy_nn_threads_init (nn/threads.h: spinning threads hold cores
 * that a loaded machine needs). */
void hy_nn_ctx_init(hy_nn_ctx *c, int threads)
{
	memset(c, 0, sizeof *c);
	c->threads = threads < 1 ? 1 : threads;
	openblas_set_num_threads(1);
}

/* Threads for a region of n work items: no more than there are items. */
static int team(const hy_nn_ctx *c, long n)
{
	return n < c->threads ? (n < 1 ? 1 : (int)n) : c->threads;
}

/* Items per dynamic chunk of a loop over n items: about four chunks per
 * thread, so that a late or slow thread is made up for by the others. */
static int dyn_chunk(const hy_nn_ctx *c, long n)
{
	long k = n / (4L * c->threads);
	return k < 1 ? 1 : k > (1 << 20) ? 1 << 20 : (int)k;
}

/* Row-major C[M][N] = alpha·op(A)·op(B) + beta·C (+ bias on every row),
 * split over rows of C into parts, each part a single-threaded OpenBLAS
 * call with the full K. OpenBLAS's result for a row depends on the M of
 * the call, so the split is a function of the shape and c->threads only;
 * which thread runs a part, or when, does not matter. */
typedef struct gemm_op {
	int ta, tb, M, N, K, lda, ldb, ldc;
	float alpha, beta;
	const float *A, *B, *bias;
	float *C;
	int chunk, parts;
} gemm_op;

static gemm_op gemm_plan(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	gemm_op g = {.ta = ta, .tb = tb, .M = M, .N = N, .K = K, .lda = lda, .ldb = ldb,
		.ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C};
	int parts = c->threads;
	if ((double)M * N * K < 2e5 || M < 16)
		parts = 1;
	g.chunk = ((M + parts - 1) / parts + 7) / 8 * 8;
	g.parts = M > 0 ? (M + g.chunk - 1) / g.chunk : 0;
	return g;
}

static void gemm_part(const gemm_op *g, int p)
{
	int m0 = p * g->chunk, m1 = m0 + g->chunk < g->M ? m0 + g->chunk : g->M;
	const float *Ap = g->ta ? g->A + m0 : g->A + (size_t)m0 * g->lda;
	float *Cp = g->C + (size_t)m0 * g->ldc;
	cblas_sgemm(CblasRowMajor, g->ta ? CblasTrans : CblasNoTrans,
		g->tb ? CblasTrans : CblasNoTrans, m1 - m0, g->N, g->K, g->alpha, Ap, g->lda, g->B,
		g->ldb, g->beta, Cp, g->ldc);
	if (g->bias)
		for (int r = 0; r < m1 - m0; r++) {
			float *yr = Cp + (size_t)r * g->ldc;
			for (int o = 0; o < g->N; o++)
				yr[o] += g->bias[o];
		}
}

/* Up to two sequences of GEMMs with independent outputs; the GEMMs of a
 * sequence have the same M and are run in order on each part (the taps of
 * a convolution accumulate into the same rows). */
typedef struct gemm_set {
	gemm_op op[2][3];
	int n[2];
} gemm_set;

static int gemm_set_parts(const gemm_set *s)
{
	return (s->n[0] ? s->op[0][0].parts : 0) + (s->n[1] ? s->op[1][0].parts : 0);
}

/* Parts of the set to hand out to threads; 1 (all run on the calling
 * thread) when its GEMMs together are too small to pay for waking a thread
 * (10-30 µs with passive waiting, threads.h): the same calls either way. */
static int gemm_items(const gemm_set *s)
{
	double work = 0;
	for (int q = 0; q < 2; q++)
		for (int k = 0; k < s->n[q]; k++)
			work += (double)s->op[q][k].M * s->op[q][k].N * s->op[q][k].K;
	return work < 5e5 ? 1 : gemm_set_parts(s);
}

static void gemm_set_part(const gemm_set *s, int i)
{
	int p0 = s->n[0] ? s->op[0][0].parts : 0;
	int q = i < p0 ? 0 : 1, p = i < p0 ? i : i - p0;
	for (int k = 0; k < s->n[q]; k++)
		gemm_part(&s->op[q][k], p);
}

/* The serial path never meets a worksharing construct: a caller may be a
 * thread of its own parallel region (lib/play runs games in one). */
static void gemm_set_run(const hy_nn_ctx *c, const gemm_set *s)
{
	int items = gemm_items(s), total = gemm_set_parts(s);
	if (items <= 1) {
		for (int i = 0; i < total; i++)
			gemm_set_part(s, i);
		return;
	}
#pragma omp parallel for num_threads(team(c, items)) schedule(dynamic, 1)
	for (int i = 0; i < total; i++)
		gemm_set_part(s, i);
}

static void cpu_gemm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	gemm_set s = {.n = {1, 0}};
	s.op[0][0] = gemm_plan(c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	gemm_set_run(c, &s);
}

static void zero_pads_sample(int C, float *xb)
{
	memset(xb, 0, (size_t)C * sizeof *xb);
	memset(xb + (size_t)(HY_NN_TP - 1) * C, 0, (size_t)C * sizeof *xb);
}

void hy_nn_zero_pads_cpu(const hy_nn_ctx *c, int B, int C, float *x)
{
	for (int b = 0; b < B; b++)
		zero_pads_sample(C, x + (size_t)b * HY_NN_TP * C);
	(void)c;
}

/* y(row r+1) = Σ_k x(row r+k)·W_kᵀ for r in [0, B·36−2): rows r that
 * straddle two samples land on pad rows, which are zeroed afterwards. */
static void f32_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const float *x,
	const float *w, float *y)
{
	int rows = B * HY_NN_TP - 2;
	gemm_set s = {.n = {3, 0}};
	for (int k = 0; k < 3; k++)
		s.op[0][k] = gemm_plan(c, 0, 1, rows, cout, cin, 1.0f, x + (size_t)k * cin, cin,
			w + (size_t)k * cin, 3 * cin, k ? 1.0f : 0.0f, y + cout, cout);
	gemm_set_run(c, &s);
	hy_nn_zero_pads_cpu(c, B, cout, y);
}

/* dx(row r+1) = Σ_j dy(row r+j)·W_{2−j}; dW_k += Σ_r dy(row r+1)ᵀ x(row r+k)
 * (straddling rows r meet dy pad rows, which are zero). dx and dW are
 * computed in the same region. */
static void f32_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const float *x,
	const float *w, const float *dy, float *dx, float *dw)
{
	int rows = B * HY_NN_TP - 2;
	gemm_set s = {.n = {3, dx ? 3 : 0}};
	for (int k = 0; k < 3; k++)
		s.op[0][k] = gemm_plan(c, 1, 0, cout, cin, rows, 1.0f, dy + cout, cout,
			x + (size_t)k * cin, cin, 1.0f, dw + (size_t)k * cin, 3 * cin);
	if (dx)
		for (int j = 0; j < 3; j++)
			s.op[1][j] = gemm_plan(c, 0, 0, rows, cin, cout, 1.0f, dy + (size_t)j * cout,
				cout, w + (size_t)(2 - j) * cin, 3 * cin, j ? 1.0f : 0.0f, dx + cin, cin);
	gemm_set_run(c, &s);
	if (dx)
		hy_nn_zero_pads_cpu(c, B, cin, dx);
}

static void cpu_linear_fwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *b, float *y, int ldy, int pad_B)
{
	gemm_set s = {.n = {1, 0}};
	s.op[0][0] = gemm_plan(c, 0, 1, rows, out, in, 1.0f, x, ldx, w, in, 0.0f, y, ldy);
	s.op[0][0].bias = b;
	gemm_set_run(c, &s);
	if (pad_B)
		hy_nn_zero_pads_cpu(c, pad_B, ldy, y);
}

/* db[c0..c0+64) += Σ_r dy[r] for block blk: rows summed in order. */
static void colsum_block(int rows, int n, const float *dy, int ldy, float *db, int blk)
{
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

void hy_nn_colsum_cpu(const hy_nn_ctx *c, int rows, int n, const float *dy, int ldy, float *db)
{
	int nblk = (n + 63) / 64;
	if ((long)rows * n < 65536 || nblk < 2) {
		for (int b = 0; b < nblk; b++)
			colsum_block(rows, n, dy, ldy, db, b);
		return;
	}
#pragma omp parallel for num_threads(team(c, nblk)) schedule(dynamic, 1)
	for (int b = 0; b < nblk; b++)
		colsum_block(rows, n, dy, ldy, db, b);
}

/* dx, dW and db in one region: GEMM parts, then column blocks of db. */
static void cpu_linear_bwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw,
	float *db)
{
	gemm_set s = {.n = {1, dx ? 1 : 0}};
	s.op[0][0] = gemm_plan(c, 1, 0, out, in, rows, 1.0f, dy, ldy, x, ldx, 1.0f, dw, in);
	if (dx)
		s.op[1][0] = gemm_plan(c, 0, 0, rows, in, out, 1.0f, dy, ldy, w, in,
			dx_acc ? 1.0f : 0.0f, dx, ldx);
	int parts = gemm_set_parts(&s), nblk = db ? (out + 63) / 64 : 0;
	int items = gemm_items(&s) + ((long)rows * out >= 65536 ? nblk : 0);
	if (items <= 1) {
		for (int i = 0; i < parts; i++)
			gemm_set_part(&s, i);
		for (int b = 0; b < nblk; b++)
			colsum_block(rows, out, dy, ldy, db, b);
		return;
	}
#pragma omp parallel for num_threads(team(c, items)) schedule(dynamic, 1)
	for (int i = 0; i < parts + nblk; i++) {
		if (i < parts)
			gemm_set_part(&s, i);
		else
			colsum_block(rows, out, dy, ldy, db, i - parts);
	}
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

static void f32_gn_mish_fwd(const hy_nn_ctx *c, int B, int C, const float *x,
	const float *gamma, const float *beta, float *z, float *a, float *mean, float *rstd)
{
	const int G = HY_NN_GROUPS;
#pragma omp parallel for PFOR(c, B)
	for (int b = 0; b < B; b++) {
		size_t off = ((size_t)b * HY_NN_TP + 1) * C;
		gn_fwd_sample(C, x + off, gamma, beta, z + off, a + off, mean + b * G, rstd + b * G);
		zero_pads_sample(C, z + off - C);
		zero_pads_sample(C, a + off - C);
	}
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

static void f32_gn_mish_bwd(const hy_nn_ctx *c, int B, int C, const float *x, const float *z,
	const float *gamma, const float *mean, const float *rstd, const float *da, float *dx,
	int dx_acc, float *dgamma, float *dbeta, float *scratch)
{
	const int G = HY_NN_GROUPS;
	float *pg = scratch, *pb = scratch + (size_t)B * C;
#pragma omp parallel num_threads(team(c, B))
	{
#pragma omp for schedule(dynamic, dyn_chunk(c, B))
		for (int b = 0; b < B; b++) {
			size_t off = ((size_t)b * HY_NN_TP + 1) * C;
			gn_bwd_sample(C, x + off, z + off, gamma, mean + b * G, rstd + b * G,
				da + off, dx + off, dx_acc, pg + (size_t)b * C, pb + (size_t)b * C);
			if (!dx_acc)
				zero_pads_sample(C, dx + off - C);
		}
		/* after the loop's barrier: every partial is in */
#pragma omp for schedule(dynamic, dyn_chunk(c, C)) nowait
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
}

static void cpu_mish_fwd(const hy_nn_ctx *c, size_t n, const float *z, float *a)
{
#pragma omp parallel for simd PFOR(c, (long)n) if (n >= 16384)
	for (size_t i = 0; i < n; i++)
		a[i] = hy_nn_mish(z[i]);
}

static void cpu_mish_bwd(const hy_nn_ctx *c, size_t n, const float *z, const float *da,
	float *dz)
{
#pragma omp parallel for simd PFOR(c, (long)n) if (n >= 16384)
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

static void f32_pool_fwd(const hy_nn_ctx *c, int B, int C, const float *x, float *avg,
	float *max, uint8_t *arg, int ldp)
{
#pragma omp parallel for PFOR(c, B) if (B * C >= 4096)
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

static void f32_pool_bwd(const hy_nn_ctx *c, int B, int C, const float *davg,
	const float *dmax, const uint8_t *arg, int ldp, float *dx)
{
#pragma omp parallel for PFOR(c, B) if (B * C >= 4096)
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

static void f32_se_fwd(const hy_nn_ctx *c, int B, int C, const float *x, const float *y,
	const float *e2, float *s, float *out)
{
#pragma omp parallel for PFOR(c, B)
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

static void f32_se_bwd(const hy_nn_ctx *c, int B, int C, const float *y, const float *s,
	const float *dout, float *dy, float *de2)
{
#pragma omp parallel for PFOR(c, B)
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

static void cpu_softmax_ce(const hy_nn_ctx *c, int B, int n, const float *logits,
	const uint64_t *mask, const uint8_t *label, float scale, float *dlogits, double *sum,
	int *correct)
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
	*sum = total;
}

static void cpu_bce(const hy_nn_ctx *c, size_t n, const float *logits, const float *target,
	const float *w, float scale, float *dlogits, double *sum)
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
	*sum = total;
}

static void cpu_mse(const hy_nn_ctx *c, size_t n, const float *pred, const float *target,
	float scale, float *dpred, double *sum)
{
	(void)c;
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		float d = pred[i] - target[i];
		total += (double)d * d;
		dpred[i] = scale * 2.0f * d;
	}
	*sum = total;
}

/* 64 fixed chunks, whatever the thread count: bit-identical sums. */
static double cpu_sumsq(const hy_nn_ctx *c, size_t n, const float *g)
{
	enum { CH = 64 };
	double part[CH];
	size_t step = (n + CH - 1) / CH;
#pragma omp parallel for PFOR(c, CH) if (n >= 65536)
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
#pragma omp parallel for PFOR(c, (long)n) if (n >= 65536)
	for (size_t i = 0; i < n; i++)
		g[i] *= s;
}

static void cpu_adamw(const hy_nn_ctx *c, size_t n, float *p, const float *g, float *m,
	float *v, float lr, float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2)
{
#pragma omp parallel for PFOR(c, (long)n) if (n >= 65536)
	for (size_t i = 0; i < n; i++)
		hy_nn_adamw_elem(p + i, g[i], m + i, v + i, lr, b1, b2, eps, wd, bc1, sqrt_bc2);
}

/* ------------------------------------------------------------ activation storage */

/* The CPU stores activations in fp32 (backend.h hy_nn_act): the ops on
 * them are the fp32 functions above, behind the opaque pointer type. */
#define XF(p) ((float *)(p))
#define CXF(p) ((const float *)(p))

static void cpu_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, hy_nn_act *y)
{
	f32_conv3_fwd(c, B, cin, cout, CXF(x), w, XF(y));
}

static void cpu_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw)
{
	f32_conv3_bwd(c, B, cin, cout, CXF(x), w, CXF(dy), XF(dx), dw);
}

/* 1×1 convolutions are linear layers over the B·36 rows (pads zeroed). */
static void cpu_conv1_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *b, float *y)
{
	cpu_linear_fwd(c, B * HY_NN_TP, cin, cout, CXF(x), cin, w, b, y, cout, B);
}

static void cpu_conv1_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *dy, hy_nn_act *dx, int dx_acc, float *dw, float *db)
{
	cpu_linear_bwd(c, B * HY_NN_TP, cin, cout, CXF(x), cin, w, dy, cout, XF(dx), dx_acc, dw,
		db);
}

static void cpu_gn_mish_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const float *gamma, const float *beta, hy_nn_act *z, hy_nn_act *a, float *mean,
	float *rstd)
{
	f32_gn_mish_fwd(c, B, C, CXF(x), gamma, beta, XF(z), XF(a), mean, rstd);
}

static void cpu_gn_mish_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const hy_nn_act *z, const float *gamma, const float *mean, const float *rstd,
	const hy_nn_act *da, hy_nn_act *dx, int dx_acc, float *dgamma, float *dbeta,
	float *scratch)
{
	f32_gn_mish_bwd(c, B, C, CXF(x), CXF(z), gamma, mean, rstd, CXF(da), XF(dx), dx_acc,
		dgamma, dbeta, scratch);
}

static void cpu_pool_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, float *avg,
	float *max, uint8_t *arg, int ldp)
{
	f32_pool_fwd(c, B, C, CXF(x), avg, max, arg, ldp);
}

static void cpu_pool_bwd(const hy_nn_ctx *c, int B, int C, const float *davg,
	const float *dmax, const uint8_t *arg, int ldp, hy_nn_act *dx)
{
	f32_pool_bwd(c, B, C, davg, dmax, arg, ldp, XF(dx));
}

static void cpu_se_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x,
	const hy_nn_act *y, const float *e2, float *s, hy_nn_act *out)
{
	f32_se_fwd(c, B, C, CXF(x), CXF(y), e2, s, XF(out));
}

static void cpu_se_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *y, const float *s,
	const hy_nn_act *dout, hy_nn_act *dy, float *de2)
{
	f32_se_bwd(c, B, C, CXF(y), s, CXF(dout), XF(dy), de2);
}

static const hy_nn_backend cpu_backend = {
	.name = "cpu",
	.alloc = cpu_alloc,
	.free = cpu_free,
	.to_dev = cpu_copy,
	.to_host = cpu_copy,
	.zero = cpu_zero,
/* every core op of nn/ops.h as cpu_NAME above; the device ops stay NULL */
#define CPU_ENTRY(kind, ret, name, params, args, check) .name = cpu_##name,
	HY_NN_OPS_CORE(CPU_ENTRY)
#undef CPU_ENTRY
};

const hy_nn_backend *hy_nn_backend_cpu_openblas(void)
{
	return &cpu_backend;
}

