/* The CPU backend on oneDNN (issue 54; the path is chosen in cpupath.h):
 * the reference's table (cpu.c) with its GEMM-shaped ops replaced —
 * the 3-tap convolution by oneDNN's direct 1-D convolution forward and
 * backward-data primitives and its weight gradient by three matmuls (one
 * a tap: oneDNN's direct backward-weights kernel for nwc ran at half the
 * GEMM rate on AVX2, bench/RESULTS.md), the 1×1 convolutions, linear
 * layers and the plain GEMM by matmul primitives. oneDNN picks the
 * CPU's best kernels itself at run time (jit:avx2 here, the avx512 and
 * brgemm kernels where the CPU has them).
 *
 * Layouts, so that no activation is ever reordered: an activation
 * [B][36][C] is oneDNN's nwc with N = B, W = 36 — the pad rows are part of
 * the width, the convolution pads one more zero on each side, and the two
 * rows it computes over the pads are zeroed afterwards (their inputs are
 * the zero pads, so rows 1..34 are exactly backend.h's). Weights
 * [Cout][3][Cin] are owi; the kernels want them blocked ("any"), so each
 * call reorders the weights (3·Cin·Cout floats, a fraction 1/(B·34) of
 * the convolution's work). Matmuls take the strided
 * row-major operands as they are (strides in the memory descriptors).
 *
 * bf16 (a context whose precision is HY_NN_PREC_BF16: inference by
 * default where the CPU has avx512_bf16 or AMX, training on request): the
 * GEMM-shaped ops of at least HY_NN_ONEDNN_BF16_MIN_MACS multiply-adds (smaller ones,
 * a decision at batch 1, stay fp32: there the conversions cost more than
 * they save; cpupath.h) read their activations and weights as bf16 and write
 * and accumulate in fp32 — each f32 operand is converted by a oneDNN
 * reorder into a per-thread buffer just before the primitive reads it
 * (the weights' conversion is the layout reorder they already take); the
 * master weights, the gradients and every other op stay fp32.
 *
 * Primitives are made once per shape and thread count and kept in a table
 * (a mutex around lookups; a full table makes, runs and frees). Each
 * thread has its own stream and scratchpad (user scratchpad mode: the
 * library's shared one is not safe for the concurrent forwards of
 * lib/play's game threads). oneDNN runs on OpenMP, as the reference does:
 * from the calling thread with c->threads threads, inside a parallel
 * region (a game thread) on that thread alone. A call oneDNN refuses is
 * reported once on stderr and that op runs on the reference instead, so a
 * result is never wrong or missing.
 *
 * oneDNN's JIT GEMM kernels (2.6 here; fixed upstream in March 2026, oneDNN
 * issue 4845) run with the stack pointer in a heap buffer: a signal handler that runs on a thread inside one writes
 * its frame over the heap. A program whose handler returns takes its
 * signals on a thread of their own (io/stopsig.h). */
#include "nn/cpupath.h"

#ifndef HY_HAVE_DNNL

const hy_nn_backend *hy_nn_backend_cpu_onednn(void)
{
	return 0;
}

const char *hy_nn_onednn_version(void)
{
	return 0;
}

const char *hy_nn_onednn_isa(int *bf16)
{
	if (bf16)
		*bf16 = 0;
	return 0;
}

int hy_nn_onednn_refusals(void)
{
	return 0;
}

#else

#include <dnnl.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const hy_nn_backend *ref; /* the reference's table */
static hy_nn_backend table;
static dnnl_engine_t eng;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int usable;

static int refusals;

/* the first refusal on stderr, then quiet (counted) */
static void report(const char *what, dnnl_status_t s, int line)
{
	static int said;
	__atomic_add_fetch(&refusals, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "hydra: oneDNN: %s failed (status %d, %s:%d); the op runs on "
		"OpenBLAS\n", what, (int)s, __FILE__, line);
}

#define DN(call)                                                                               \
	do {                                                                                   \
		dnnl_status_t s_ = (call);                                                     \
		if (s_ != dnnl_success) {                                                      \
			report(#call, s_, __LINE__);                                           \
			goto fail;                                                             \
		}                                                                              \
	} while (0)

/* ---------------------------------------------------------------- per thread */

typedef struct tls {
	dnnl_stream_t stream;
	void *scratch;  /* the primitives' scratchpad */
	size_t scratch_n;
	void *wbuf;     /* weights in the primitive's format */
	size_t wbuf_n;
	void *bf[2];    /* operands converted to bf16 */
	size_t bf_n[2];
} tls;

static _Thread_local tls T;

/* a buffer of at least n bytes, 64-aligned; NULL when out of memory */
static void *grow(void **p, size_t *have, size_t n)
{
	if (n <= *have && *p)
		return *p;
	free(*p);
	*have = 0;
	size_t m = (n + 63) / 64 * 64;
	*p = aligned_alloc(64, m ? m : 64);
	if (*p)
		*have = m;
	return *p;
}

static dnnl_stream_t stream(void)
{
	if (!T.stream && dnnl_stream_create(&T.stream, eng, dnnl_stream_default_flags) !=
		dnnl_success)
		T.stream = NULL;
	return T.stream;
}

/* The threads oneDNN will use from here, and the OpenMP setting for them. */
static int threads_here(const hy_nn_ctx *c)
{
	if (omp_in_parallel())
		return 1;
	if (omp_get_max_threads() != c->threads)
		omp_set_num_threads(c->threads);
	return c->threads;
}

/* ---------------------------------------------------------------- the table */

enum { K_MM = 1, K_CF, K_CD, K_BF, NKEY = 15, SLOTS = 2048 };

typedef struct prim {
	int key[NKEY];
	dnnl_primitive_t p;
	size_t scratch;         /* scratchpad bytes                              */
	dnnl_memory_desc_t wmd; /* the weights the convolution reads            */
	dnnl_primitive_t wre;   /* plain owi → those weights (or NULL)           */
	size_t wbytes, wre_scratch;
} prim;

static prim slots[SLOTS];
static int nslots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void prim_free(prim *e)
{
	if (e->p)
		dnnl_primitive_destroy(e->p);
	if (e->wre)
		dnnl_primitive_destroy(e->wre);
	memset(e, 0, sizeof *e);
}

static const prim *lookup(const int *key)
{
	const prim *hit = NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nslots && !hit; i++)
		if (!memcmp(slots[i].key, key, sizeof slots[i].key))
			hit = &slots[i];
	pthread_mutex_unlock(&lock);
	return hit;
}

/* Keeps e in the table (returns the kept copy), or NULL when full. */
static const prim *keep(const prim *e)
{
	const prim *kept = NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nslots && !kept; i++) /* made meanwhile by another thread */
		if (!memcmp(slots[i].key, e->key, sizeof e->key))
			kept = &slots[i];
	if (!kept && nslots < SLOTS) {
		slots[nslots] = *e;
		kept = &slots[nslots++];
		e = NULL;
	}
	pthread_mutex_unlock(&lock);
	if (kept && e) {
		prim dup = *e;
		prim_free(&dup);
	}
	return kept;
}

static dnnl_status_t scratch_of(dnnl_primitive_desc_t pd, size_t *n)
{
	const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
	*n = md ? dnnl_memory_desc_get_size(md) : 0;
	return dnnl_success;
}

static dnnl_status_t attr_new(dnnl_primitive_attr_t *a, float alpha, float beta)
{
	dnnl_status_t s = dnnl_primitive_attr_create(a);
	if (s == dnnl_success)
		s = dnnl_primitive_attr_set_scratchpad_mode(*a, dnnl_scratchpad_mode_user);
	if (s == dnnl_success && alpha != 1.0f)
		s = dnnl_primitive_attr_set_output_scales(*a, 1, 0, &alpha);
	if (s == dnnl_success && beta != 0.0f) {
		dnnl_post_ops_t po;
		s = dnnl_post_ops_create(&po);
		if (s == dnnl_success) {
			s = dnnl_post_ops_append_sum(po, beta);
			if (s == dnnl_success)
				s = dnnl_primitive_attr_set_post_ops(*a, po);
			dnnl_post_ops_destroy(po);
		}
	}
	return s;
}

/* A reorder from md `from` to md `to`, or NULL when the two are the same
 * layout. */
static dnnl_status_t reorder_new(dnnl_primitive_t *r, size_t *scratch,
	const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to)
{
	*r = NULL;
	*scratch = 0;
	if (dnnl_memory_desc_equal(from, to))
		return dnnl_success;
	dnnl_primitive_attr_t a = NULL;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_status_t s = attr_new(&a, 1.0f, 0.0f);
	if (s == dnnl_success)
		s = dnnl_reorder_primitive_desc_create(&pd, from, eng, to, eng, a);
	if (s == dnnl_success)
		s = scratch_of(pd, scratch);
	if (s == dnnl_success)
		s = dnnl_primitive_create(r, pd);
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (a)
		dnnl_primitive_attr_destroy(a);
	return s;
}

/* ---------------------------------------------------------------- execution */

/* Runs p with n (arg, md, pointer) triples plus the scratchpad. */
typedef struct arg {
	int id;
	const dnnl_memory_desc_t *md;
	const void *ptr;
} arg;

static int run(dnnl_primitive_t p, size_t scratch, const arg *a, int n)
{
	dnnl_exec_arg_t ex[8];
	dnnl_memory_t mem[8];
	int made = 0, ok = 0;
	dnnl_stream_t s = stream();
	dnnl_memory_desc_t smd;
	dnnl_dims_t sdims = {(dnnl_dim_t)scratch};
	if (!s)
		return 0;
	if (scratch && !grow(&T.scratch, &T.scratch_n, scratch))
		return 0;
	for (int i = 0; i < n; i++) {
		DN(dnnl_memory_create(&mem[made], a[i].md, eng, (void *)a[i].ptr));
		ex[made].arg = a[i].id;
		ex[made].memory = mem[made];
		made++;
	}
	if (scratch) {
		DN(dnnl_memory_desc_init_by_tag(&smd, 1, sdims, dnnl_u8, dnnl_a));
		DN(dnnl_memory_create(&mem[made], &smd, eng, T.scratch));
		ex[made].arg = DNNL_ARG_SCRATCHPAD;
		ex[made].memory = mem[made];
		made++;
	}
	DN(dnnl_primitive_execute(p, s, made, ex));
	DN(dnnl_stream_wait(s));
	ok = 1;
fail:
	for (int i = 0; i < made; i++)
		dnnl_memory_destroy(mem[i]);
	return ok;
}

/* ---------------------------------------------------------------- matmul */

static void md2t(dnnl_memory_desc_t *md, int rows, int cols, int trans, int ld,
	dnnl_data_type_t dt)
{
	dnnl_dims_t d = {rows, cols};
	dnnl_dims_t st = {trans ? 1 : ld, trans ? ld : 1};
	dnnl_memory_desc_init_by_strides(md, 2, d, dt, st);
}

static void md2(dnnl_memory_desc_t *md, int rows, int cols, int trans, int ld)
{
	md2t(md, rows, cols, trans, ld, dnnl_f32);
}

/* bf16 for a product of macs multiply-adds in context c: a bf16 context,
 * and a product big enough that the conversions pay (at batch 1 the
 * per-call conversion of the weights cost more than the bf16 kernels
 * saved: bench/RESULTS.md) — 2^21 multiply-adds, a 3-tap convolution of
 * `small` from batch 5 */
static int bf16_for(const hy_nn_ctx *c, double macs)
{
	return c->precision == HY_NN_PREC_BF16 && macs >= HY_NN_ONEDNN_BF16_MIN_MACS;
}

static double conv_macs(int B, int cin, int cout)
{
	return (double)B * HY_NN_TP * 3 * cin * cout;
}

/* The f32 matrix of P rows and Q columns at row stride ld, converted to a
 * dense bf16 one (row stride Q) in this thread's buffer `slot`; NULL when
 * oneDNN refused or memory ran out. */
static const void *to_bf16(const hy_nn_ctx *c, int slot, int P, int Q, int ld, const float *x)
{
	dnnl_memory_desc_t from, to;
	md2t(&from, P, Q, 0, ld, dnnl_f32);
	md2t(&to, P, Q, 0, Q, dnnl_bf16);
	int key[NKEY] = {K_BF, threads_here(c), P, Q, ld};
	const prim *k = lookup(key);
	prim e = {0};
	if (!k) {
		memcpy(e.key, key, sizeof key);
		DN(reorder_new(&e.p, &e.scratch, &from, &to));
		k = keep(&e);
	}
	const prim *use = k ? k : &e;
	void *buf = grow(&T.bf[slot], &T.bf_n[slot], (size_t)P * Q * 2);
	arg a[2] = {{DNNL_ARG_FROM, &from, x}, {DNNL_ARG_TO, &to, buf}};
	int ok = buf && run(use->p, use->scratch, a, 2);
	if (!k)
		prim_free(&e);
	return ok ? buf : NULL;
fail:
	prim_free(&e);
	return NULL;
}

/* C[M][N] = alpha·op(A)·op(B) + beta·C (+ bias[N] on every row), C and
 * bias f32, A and B of type dt (f32, or bf16 already converted); 0 when
 * oneDNN refused (the caller runs the reference). */
static int mm_t(const hy_nn_ctx *c, dnnl_data_type_t dt, int ta, int tb, int M, int N, int K,
	float alpha, const void *A, int lda, const void *B, int ldb, float beta, float *C, int ldc,
	const float *bias)
{
	dnnl_memory_desc_t a, b, d, bm;
	md2t(&a, M, K, ta, lda, dt);
	md2t(&b, K, N, tb, ldb, dt);
	md2(&d, M, N, 0, ldc);
	md2(&bm, 1, N, 0, N);
	int th = threads_here(c);
	union {
		float f;
		int i;
	} al = {alpha}, be = {beta};
	int key[NKEY] = {K_MM, th, ta, tb, M, N, K, lda, ldb, ldc, al.i, be.i, bias != NULL,
		(int)dt};
	prim e = {0};
	const prim *k = lookup(key);
	dnnl_primitive_desc_t pd = NULL;
	dnnl_primitive_attr_t at = NULL;
	if (!k) {
		dnnl_matmul_desc_t mdesc;
		memcpy(e.key, key, sizeof key);
		DN(dnnl_matmul_desc_init(&mdesc, &a, &b, bias ? &bm : NULL, &d));
		DN(attr_new(&at, alpha, beta));
		DN(dnnl_primitive_desc_create(&pd, &mdesc, at, eng, NULL));
		DN(scratch_of(pd, &e.scratch));
		DN(dnnl_primitive_create(&e.p, pd));
		k = keep(&e);
	}
	const prim *use = k ? k : &e;
	arg args[4] = {{DNNL_ARG_SRC, &a, A}, {DNNL_ARG_WEIGHTS, &b, B}, {DNNL_ARG_DST, &d, C},
		{DNNL_ARG_BIAS, &bm, bias}};
	int ok = run(use->p, use->scratch, args, bias ? 4 : 3);
	if (!k)
		prim_free(&e);
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (at)
		dnnl_primitive_attr_destroy(at);
	return ok;
fail:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (at)
		dnnl_primitive_attr_destroy(at);
	prim_free(&e);
	return 0;
}

/* An f32 operand (P rows, Q columns, row stride ld in memory) as a
 * product reads it: x itself (*ld_out = ld), or when bf converted into
 * this thread's buffer `slot` (*ld_out = Q); NULL when that failed. */
static const void *operand(const hy_nn_ctx *c, int bf, int slot, int P, int Q, int ld,
	const float *x, int *ld_out)
{
	*ld_out = bf ? Q : ld;
	return bf ? to_bf16(c, slot, P, Q, ld, x) : x;
}

/* mm_t on f32 operands: in a bf16 context A and B are converted first
 * (each as the matrix it is in memory: op(A) transposed or not). */
static int mm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc,
	const float *bias)
{
	const int bf = bf16_for(c, (double)M * N * K);
	int la, lb;
	const void *a = operand(c, bf, 0, ta ? K : M, ta ? M : K, lda, A, &la);
	const void *b = a ? operand(c, bf, 1, tb ? N : K, tb ? K : N, ldb, B, &lb) : NULL;
	return b && mm_t(c, bf ? dnnl_bf16 : dnnl_f32, ta, tb, M, N, K, alpha, a, la, b, lb, beta,
			    C, ldc, bias);
}

static int mm_ok(int M, int N, int K)
{
	return usable && M > 0 && N > 0 && K > 0;
}

static void dn_gemm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	if (!mm_ok(M, N, K) ||
		!mm(c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, NULL))
		ref->gemm(c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

static void dn_linear_fwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *b, float *y, int ldy, int pad_B)
{
	if (!mm_ok(rows, out, in) ||
		!mm(c, 0, 1, rows, out, in, 1.0f, x, ldx, w, in, 0.0f, y, ldy, b)) {
		ref->linear_fwd(c, rows, in, out, x, ldx, w, b, y, ldy, pad_B);
		return;
	}
	if (pad_B)
		hy_nn_zero_pads_cpu(c, pad_B, ldy, y);
}

/* dW += dyᵀx, dx = (or +=) dy·w, db += Σ_r dy (the reference's column
 * sums). dW first: when it fails nothing was added and the reference does
 * it all; when dx fails after it, the reference does dx alone (its dW into
 * a scratch copy). */
static void dn_linear_bwd(const hy_nn_ctx *c, int rows, int in, int out, const float *x,
	int ldx, const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw,
	float *db)
{
	/* dy is an operand of both products: converted once (slot 0) in bf16 */
	const int bf = bf16_for(c, (double)rows * in * out);
	const dnnl_data_type_t dt = bf ? dnnl_bf16 : dnnl_f32;
	int l16, lx, lw;
	const void *dy_in = mm_ok(rows, in, out) ? operand(c, bf, 0, rows, out, ldy, dy, &l16) : NULL;
	const void *x_in = dy_in ? operand(c, bf, 1, rows, in, ldx, x, &lx) : NULL;
	if (!x_in || !mm_t(c, dt, 1, 0, out, in, rows, 1.0f, dy_in, l16, x_in, lx, 1.0f, dw, in,
			     NULL)) {
		ref->linear_bwd(c, rows, in, out, x, ldx, w, dy, ldy, dx, dx_acc, dw, db);
		return;
	}
	const void *w_in = dx ? operand(c, bf, 1, out, in, in, w, &lw) : NULL;
	if (dx && (!w_in || !mm_t(c, dt, 0, 0, rows, in, out, 1.0f, dy_in, l16, w_in, lw,
				    dx_acc ? 1.0f : 0.0f, dx, ldx, NULL))) {
		float *scratch = calloc((size_t)out * in, sizeof *scratch);
		if (scratch)
			ref->linear_bwd(c, rows, in, out, x, ldx, w, dy, ldy, dx, dx_acc, scratch,
				NULL);
		free(scratch);
	}
	if (db)
		hy_nn_colsum_cpu(c, rows, out, dy, ldy, db);
}

#define XF(p) ((float *)(p))
#define CXF(p) ((const float *)(p))

static void dn_conv1_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *b, float *y)
{
	dn_linear_fwd(c, B * HY_NN_TP, cin, cout, CXF(x), cin, w, b, y, cout, B);
}

static void dn_conv1_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *dy, hy_nn_act *dx, int dx_acc, float *dw, float *db)
{
	dn_linear_bwd(c, B * HY_NN_TP, cin, cout, CXF(x), cin, w, dy, cout, XF(dx), dx_acc, dw,
		db);
}

/* ---------------------------------------------------------------- 3-tap convolution */

typedef struct cmds {
	dnnl_memory_desc_t src, dst, wplain, wany;
} cmds;

/* The descriptors of kind (K_CF, K_CD) for this shape: in bf16 the
 * tensor read (src forward, diff_dst backward) and the weights are bf16,
 * the one written f32. */
static void conv_mds(cmds *m, int kind, int bf, int B, int cin, int cout)
{
	dnnl_dims_t sd = {B, cin, HY_NN_TP}, dd = {B, cout, HY_NN_TP}, wd = {cout, cin, 3};
	const dnnl_data_type_t r = bf ? dnnl_bf16 : dnnl_f32;
	dnnl_memory_desc_init_by_tag(&m->src, 3, sd, kind == K_CF ? r : dnnl_f32, dnnl_nwc);
	dnnl_memory_desc_init_by_tag(&m->dst, 3, dd, kind == K_CF ? dnnl_f32 : r, dnnl_nwc);
	dnnl_memory_desc_init_by_tag(&m->wplain, 3, wd, dnnl_f32, dnnl_owi);
	dnnl_memory_desc_init_by_tag(&m->wany, 3, wd, r, dnnl_format_tag_any);
}

static const dnnl_dims_t one = {1}, pad = {1};

static dnnl_status_t fwd_pd(dnnl_primitive_desc_t *pd, cmds *m, dnnl_primitive_attr_t at)
{
	dnnl_convolution_desc_t cd;
	dnnl_status_t s = dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training,
		dnnl_convolution_direct, &m->src, &m->wany, NULL, &m->dst, one, pad, pad);
	return s == dnnl_success ? dnnl_primitive_desc_create(pd, &cd, at, eng, NULL) : s;
}

/* The primitive of kind (K_CF forward, K_CD backward-data) for this shape; NULL when oneDNN refused. *tmp is set
 * when the table was full (the caller frees it after use). */
static const prim *conv_prim(const hy_nn_ctx *c, int kind, int B, int cin, int cout, prim *tmp)
{
	const int bf = bf16_for(c, conv_macs(B, cin, cout));
	int key[NKEY] = {kind, threads_here(c), B, cin, cout, bf};
	const prim *k = lookup(key);
	if (k)
		return k;
	cmds m;
	conv_mds(&m, kind, bf, B, cin, cout);
	prim e = {0};
	memcpy(e.key, key, sizeof key);
	dnnl_primitive_attr_t at = NULL;
	dnnl_primitive_desc_t fpd = NULL, pd = NULL;
	dnnl_convolution_desc_t cd;
	DN(attr_new(&at, 1.0f, 0.0f));
	if (kind == K_CF) {
		DN(fwd_pd(&pd, &m, at));
	} else { /* the forward hint: in a bf16 context bf16 in and out */
		cmds h;
		conv_mds(&h, K_CF, bf, B, cin, cout);
		if (bf)
			h.dst.data_type = dnnl_bf16;
		DN(fwd_pd(&fpd, &h, at));
		DN(dnnl_convolution_backward_data_desc_init(&cd, dnnl_convolution_direct, &m.src,
			&m.wany, &m.dst, one, pad, pad));
		DN(dnnl_primitive_desc_create(&pd, &cd, at, eng, fpd));
	}
	DN(scratch_of(pd, &e.scratch));
	DN(dnnl_primitive_create(&e.p, pd));
	e.wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	e.wbytes = dnnl_memory_desc_get_size(&e.wmd);
	DN(reorder_new(&e.wre, &e.wre_scratch, &m.wplain, &e.wmd));
	dnnl_primitive_desc_destroy(pd);
	if (fpd)
		dnnl_primitive_desc_destroy(fpd);
	dnnl_primitive_attr_destroy(at);
	k = keep(&e);
	if (!k)
		*tmp = e;
	return k ? k : tmp;
fail:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (fpd)
		dnnl_primitive_desc_destroy(fpd);
	if (at)
		dnnl_primitive_attr_destroy(at);
	prim_free(&e);
	return NULL;
}

/* The weights in the format primitive e reads: w itself, or reordered
 * into this thread's buffer. */
static const void *weights_for(const prim *e, const cmds *m, const float *w)
{
	if (!e->wre)
		return w;
	if (!grow(&T.wbuf, &T.wbuf_n, e->wbytes))
		return NULL;
	arg a[2] = {{DNNL_ARG_FROM, &m->wplain, w}, {DNNL_ARG_TO, &e->wmd, T.wbuf}};
	return run(e->wre, e->wre_scratch, a, 2) ? T.wbuf : NULL;
}

/* Runs the forward (K_CF: src → dst) or backward-data (K_CD: diff_dst →
 * diff_src) convolution of this shape on w: `from` the activation read
 * (nwc of cin channels for the forward, cout for backward-data; bf16 in a
 * bf16 context, see act_in), `to` the one written (f32). */
static int conv_run(const hy_nn_ctx *c, int kind, int B, int cin, int cout, const float *w,
	const void *from, float *to)
{
	prim tmp = {0};
	const prim *e = conv_prim(c, kind, B, cin, cout, &tmp);
	cmds m;
	conv_mds(&m, kind, bf16_for(c, conv_macs(B, cin, cout)), B, cin, cout);
	const void *wk = e ? weights_for(e, &m, w) : NULL;
	const int fwd = kind == K_CF;
	int ok = 0;
	if (wk) {
		arg a[3] = {{fwd ? DNNL_ARG_SRC : DNNL_ARG_DIFF_DST, fwd ? &m.src : &m.dst, from},
			{DNNL_ARG_WEIGHTS, &e->wmd, wk},
			{fwd ? DNNL_ARG_DST : DNNL_ARG_DIFF_SRC, fwd ? &m.dst : &m.src, to}};
		ok = run(e->p, e->scratch, a, 3);
	}
	prim_free(&tmp);
	return ok;
}

/* dw_k += Σ_r dy(row r+1)ᵀ x(row r+k), k = 0..2: three matmuls of K = the
 * rows (the reference's decomposition) — on AVX2 oneDNN's direct
 * backward-weights kernel for nwc ran at half the GEMM rate (bench/RESULTS.md),
 * the matmuls at the GEMM's. */
/* The activation [B][36][ch] as the convolution of cin → cout channels
 * reads it: x itself, or where that convolution runs in bf16 converted
 * into this thread's buffer `slot`. */
static const void *act_in(const hy_nn_ctx *c, int slot, int B, int cin, int cout, int ch,
	const float *x)
{
	int ld;
	return operand(c, bf16_for(c, conv_macs(B, cin, cout)), slot, B * HY_NN_TP, ch, ch, x, &ld);
}

/* x and dy as act_in gives them (bf16 in slots 0 and 1 in a bf16
 * context). */
static int conv_bwd_weights(const hy_nn_ctx *c, int B, int cin, int cout, const void *x,
	const void *dy, float *dw)
{
	const int rows = B * HY_NN_TP - 2;
	const int bf = bf16_for(c, conv_macs(B, cin, cout));
	const dnnl_data_type_t dt = bf ? dnnl_bf16 : dnnl_f32;
	const size_t es = bf ? 2 : 4;
	for (int k = 0; k < 3; k++)
		if (!mm_t(c, dt, 1, 0, cout, cin, rows, 1.0f, (const char *)dy + cout * es, cout,
			    (const char *)x + (size_t)k * cin * es, cin, 1.0f, dw + (size_t)k * cin,
			    3 * cin, NULL))
			return k;
	return 3; /* the taps added */
}

static void dn_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, hy_nn_act *y)
{
	const void *in = usable && B > 0 ? act_in(c, 0, B, cin, cout, cin, CXF(x)) : NULL;
	if (!in || !conv_run(c, K_CF, B, cin, cout, w, in, XF(y))) {
		ref->conv3_fwd(c, B, cin, cout, x, w, y);
		return;
	}
	hy_nn_zero_pads_cpu(c, B, cout, XF(y));
}

/* dW first: when it fails, nothing was added and the reference does both;
 * when dx fails after it, the reference does dx alone. */
static void dn_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw)
{
	const void *x_in = usable && B > 0 ? act_in(c, 0, B, cin, cout, cin, CXF(x)) : NULL;
	const void *dy_in = x_in ? act_in(c, 1, B, cin, cout, cout, CXF(dy)) : NULL;
	int added = dy_in ? conv_bwd_weights(c, B, cin, cout, x_in, dy_in, dw) : 0;
	if (added == 0) { /* nothing added: the reference does it all */
		ref->conv3_bwd(c, B, cin, cout, x, w, dy, dx, dw);
		return;
	}
	if (added < 3) { /* the reference's dW into a scratch copy, its missing taps added */
		size_t nw = (size_t)cout * 3 * cin;
		float *scratch = calloc(nw, sizeof *scratch);
		if (scratch) {
			ref->conv3_bwd(c, B, cin, cout, x, w, dy, dx, scratch);
			for (int o = 0; o < cout; o++)
				for (size_t i = (size_t)added * cin; i < (size_t)3 * cin; i++)
					dw[(size_t)o * 3 * cin + i] += scratch[(size_t)o * 3 * cin + i];
			free(scratch);
		}
		return;
	}
	if (!dx)
		return;
	if (!conv_run(c, K_CD, B, cin, cout, w, dy_in, XF(dx))) {
		/* the reference's dx with its dW going to a scratch copy */
		size_t nw = (size_t)cout * 3 * cin;
		float *scratch = calloc(nw, sizeof *scratch);
		if (scratch) {
			ref->conv3_bwd(c, B, cin, cout, x, w, dy, dx, scratch);
			free(scratch);
			return;
		}
	}
	hy_nn_zero_pads_cpu(c, B, cin, XF(dx));
}

/* ---------------------------------------------------------------- setup */

static void setup(void)
{
	ref = hy_nn_backend_cpu_openblas();
	table = *ref;
	table.name = "cpu-onednn";
	table.gemm = dn_gemm;
	table.conv3_fwd = dn_conv3_fwd;
	table.conv3_bwd = dn_conv3_bwd;
	table.conv1_fwd = dn_conv1_fwd;
	table.conv1_bwd = dn_conv1_bwd;
	table.linear_fwd = dn_linear_fwd;
	table.linear_bwd = dn_linear_bwd;
	dnnl_status_t s = dnnl_engine_create(&eng, dnnl_cpu, 0);
	if (s != dnnl_success)
		report("dnnl_engine_create", s, __LINE__);
	usable = s == dnnl_success;
}

const hy_nn_backend *hy_nn_backend_cpu_onednn(void)
{
	pthread_once(&once, setup);
	return &table;
}

int hy_nn_onednn_refusals(void)
{
	return __atomic_load_n(&refusals, __ATOMIC_RELAXED);
}

const char *hy_nn_onednn_isa(int *bf16)
{
	/* dnnl_cpu_isa_t values are bit sets: each ISA includes those below */
	static const struct {
		int bits;
		const char *name;
	} isas[] = {{dnnl_cpu_isa_avx512_core_amx, "avx512_core_amx"},
		{dnnl_cpu_isa_avx512_core_bf16, "avx512_core_bf16"},
		{dnnl_cpu_isa_avx512_core_vnni, "avx512_core_vnni"},
		{dnnl_cpu_isa_avx512_core, "avx512_core"}, {dnnl_cpu_isa_avx2_vnni, "avx2_vnni"},
		{dnnl_cpu_isa_avx2, "avx2"}, {dnnl_cpu_isa_avx, "avx"},
		{dnnl_cpu_isa_sse41, "sse41"}};
	const int isa = (int)dnnl_get_effective_cpu_isa();
	if (bf16)
		*bf16 = (isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16;
	for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
		if ((isa & isas[i].bits) == isas[i].bits)
			return isas[i].name;
	return "no simd";
}

const char *hy_nn_onednn_version(void)
{
	static char buf[32];
	const dnnl_version_t *v = dnnl_version();
	snprintf(buf, sizeof buf, "%d.%d.%d", v->major, v->minor, v->patch);
	return buf;
}

#endif
