/* The oneDNN CPU path (lib/nn/onednn.c) against the OpenBLAS reference
 * (lib/nn/cpu.c), op by op, in the manner of ggml's test-backend-ops:
 * the same random inputs through both tables, every output compared
 * elementwise (fp32 sums in another order: a relative tolerance of 1e-4 of
 * the output's scale), pad rows exactly zero, gradients accumulated into
 * non-zero buffers; the shapes the models use (the 85-channel stem, batch
 * 1, batches that are not multiples of a vector) and strided linears; the
 * convolutions also from the threads of a parallel region (lib/play's
 * game threads). The same cases again in a bf16 context: oneDNN reads the
 * operands as bf16 and accumulates in fp32, so its outputs must match the
 * reference run on the same operands rounded to bf16 (to nearest, ties to
 * even) at the fp32 tolerance where the product is over the path's bf16
 * threshold, and the fp32 reference itself below it — a path that ignored
 * the precision or the threshold, or rounded differently, fails — while
 * the rounding moves the reference's outputs. In a build without oneDNN only the path's refusal of
 * "onednn" is checked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/backend.h"
#include "nn/cpupath.h"
#include "nn/rng.h"

#define ACT(p) ((hy_nn_act *)(p))

static hy_nn_ctx ctx;
static const hy_nn_backend *ref, *dn;
static hy_rng rng;
static int bf; /* the cases in a bf16 context (ctx.precision) */
static double max_rounding; /* bf16: the largest output change rounding made */

static float *randv(size_t n)
{
	float *v = calloc(n ? n : 1, sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)hy_rng_normal(&rng);
	return v;
}

static float *dup(const float *v, size_t n)
{
	float *d = malloc((n ? n : 1) * sizeof *d);
	assert_non_null(d);
	memcpy(d, v, n * sizeof *d);
	return d;
}

/* 1 when a product of macs multiply-adds runs in bf16: a bf16 case big
 * enough for the path's threshold (nn/cpupath.h) */
static int on(double macs)
{
	return bf && macs >= HY_NN_ONEDNN_BF16_MIN_MACS;
}

/* v rounded to bf16 (to nearest, ties to even) when `round`, else a copy:
 * the reference's operands */
static float *rnd(const float *v, size_t n, int round)
{
	float *d = dup(v, n);
	for (size_t i = 0; round && i < n; i++) {
		uint32_t u;
		memcpy(&u, &d[i], 4);
		u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
		memcpy(&d[i], &u, 4);
	}
	return d;
}

static float *randact(int B, int C)
{
	float *v = randv((size_t)B * HY_NN_TP * C);
	hy_nn_zero_pads_cpu(&ctx, B, C, v);
	return v;
}

/* a and b agree to 1e-4 of b's largest magnitude (and at least 1e-5) */
static void close_to(const char *what, const float *a, const float *b, size_t n)
{
	double scale = 0, worst = 0;
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		scale = fmax(scale, fabs(b[i]));
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)a[i] - b[i]);
		if (e > worst) {
			worst = e;
			at = i;
		}
	}
	if (worst > fmax(1e-4 * scale, 1e-5)) {
		print_error("%s: element %zu: onednn %g, openblas %g (scale %g)\n", what, at,
			(double)a[at], (double)b[at], scale);
		fail();
	}
}

/* bf16: how far the rounded reference moved from the fp32 one (the
 * rounding was real, so a test that passed would have failed on fp32) */
static void moved(const float *rounded, const float *exact, size_t n)
{
	for (size_t i = 0; bf && i < n; i++)
		max_rounding = fmax(max_rounding, fabs((double)rounded[i] - exact[i]));
}

static void pads_zero(const char *what, const float *x, int B, int C)
{
	for (int b = 0; b < B; b++)
		for (int c = 0; c < C; c++) {
			const float *s = x + (size_t)b * HY_NN_TP * C;
			if (s[c] != 0.0f || s[(size_t)(HY_NN_TP - 1) * C + c] != 0.0f) {
				print_error("%s: sample %d channel %d: a pad row is not zero\n", what, b, c);
				fail();
			}
		}
}

static int have(void)
{
	if (dn)
		return 1;
	hy_diag d;
	hy_diag_init(&d, NULL);
	int p;
	assert_int_equal(hy_nn_cpu_path_parse("onednn", &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "libdnnl-dev"));
	return 0;
}

static void conv3_case(int B, int cin, int cout, int want_dx)
{
	size_t nx = (size_t)B * HY_NN_TP * cin, ny = (size_t)B * HY_NN_TP * cout;
	size_t nw = (size_t)cout * 3 * cin;
	float *x = randact(B, cin), *w = randv(nw), *dy = randact(B, cout);
	const int r = on((double)B * HY_NN_TP * 3 * cin * cout);
	float *rx = rnd(x, nx, r), *rw = rnd(w, nw, r), *rdy = rnd(dy, ny, r);
	float *y1 = randv(ny), *y2 = randv(ny), *y3 = randv(ny); /* overwritten */
	dn->conv3_fwd(&ctx, B, cin, cout, ACT(x), w, ACT(y1));
	ref->conv3_fwd(&ctx, B, cin, cout, ACT(rx), rw, ACT(y2));
	close_to("conv3_fwd", y1, y2, ny);
	pads_zero("conv3_fwd", y1, B, cout);
	ref->conv3_fwd(&ctx, B, cin, cout, ACT(x), w, ACT(y3));
	moved(y2, y3, ny);
	float *dw1 = randv(nw), *dw2 = dup(dw1, nw); /* accumulated */
	float *dx1 = want_dx ? randv(nx) : NULL, *dx2 = want_dx ? randv(nx) : NULL;
	dn->conv3_bwd(&ctx, B, cin, cout, ACT(x), w, ACT(dy), ACT(dx1), dw1);
	ref->conv3_bwd(&ctx, B, cin, cout, ACT(rx), rw, ACT(rdy), ACT(dx2), dw2);
	close_to("conv3_bwd dw", dw1, dw2, nw);
	if (want_dx) {
		close_to("conv3_bwd dx", dx1, dx2, nx);
		pads_zero("conv3_bwd dx", dx1, B, cin);
	}
	free(x), free(w), free(dy), free(y1), free(y2), free(y3), free(dw1), free(dw2), free(dx1);
	free(dx2), free(rx), free(rw), free(rdy);
}

static void test_conv3(void **state)
{
	(void)state;
	if (!have())
		skip();
	static const int shapes[][3] = {{1, 85, 64}, {1, 64, 64}, {3, 64, 64}, {7, 32, 96},
		{17, 85, 32}, {64, 64, 64}, {5, 128, 128}};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		conv3_case(shapes[i][0], shapes[i][1], shapes[i][2], 1);
	conv3_case(4, 64, 32, 0); /* dx not wanted */
	/* the same shape again: the kept primitive */
	conv3_case(3, 64, 64, 1);
}

static void linear_case(int rows, int in, int out, int ldx, int ldy, int bias, int pad_B,
	int dx_acc)
{
	size_t nx = (size_t)rows * ldx, ny = (size_t)rows * ldy, nw = (size_t)out * in;
	float *x = randv(nx), *w = randv(nw), *b = bias ? randv(out) : NULL;
	const int r = on((double)rows * in * out);
	float *rx = rnd(x, nx, r), *rw = rnd(w, nw, r);
	float *y1 = randv(ny), *y2 = dup(y1, ny);
	dn->linear_fwd(&ctx, rows, in, out, x, ldx, w, b, y1, ldy, pad_B);
	ref->linear_fwd(&ctx, rows, in, out, rx, ldx, rw, b, y2, ldy, pad_B);
	close_to("linear_fwd", y1, y2, ny);
	float *dy = randv(ny), *rdy = rnd(dy, ny, r), *dx1 = randv(nx), *dx2 = dup(dx1, nx);
	float *dw1 = randv(nw), *dw2 = dup(dw1, nw), *db1 = randv(out), *db2 = dup(db1, out);
	dn->linear_bwd(&ctx, rows, in, out, x, ldx, w, dy, ldy, dx1, dx_acc, dw1, db1);
	/* the bias gradient sums dy itself, unrounded, in both paths */
	ref->linear_bwd(&ctx, rows, in, out, rx, ldx, rw, rdy, ldy, dx2, dx_acc, dw2, NULL);
	hy_nn_colsum_cpu(&ctx, rows, out, dy, ldy, db2);
	close_to("linear_bwd dx", dx1, dx2, nx);
	close_to("linear_bwd dw", dw1, dw2, nw);
	close_to("linear_bwd db", db1, db2, out);
	free(x), free(w), free(b), free(y1), free(y2), free(dy), free(dx1), free(dx2);
	free(dw1), free(dw2), free(db1), free(db2), free(rx), free(rw), free(rdy);
}

static void test_linear(void **state)
{
	(void)state;
	if (!have())
		skip();
	linear_case(1, 64, 46, 64, 46, 1, 0, 0);
	linear_case(37, 256, 64, 300, 70, 1, 0, 1);
	linear_case(2 * HY_NN_TP, 64, 32, 64, 32, 1, 2, 0);
	linear_case(5, 7, 3, 9, 4, 0, 0, 1);
	linear_case(600, 256, 64, 260, 64, 1, 0, 1); /* over the bf16 threshold */
}

static void conv1_case(int B, int cin, int cout)
{
	size_t nx = (size_t)B * HY_NN_TP * cin, ny = (size_t)B * HY_NN_TP * cout;
	float *x = randact(B, cin), *w = randv((size_t)cout * cin), *b = randv(cout);
	const int r = on((double)B * HY_NN_TP * cin * cout);
	float *rx = rnd(x, nx, r), *rw = rnd(w, (size_t)cout * cin, r);
	float *y1 = randv(ny), *y2 = randv(ny);
	dn->conv1_fwd(&ctx, B, cin, cout, ACT(x), w, b, y1);
	ref->conv1_fwd(&ctx, B, cin, cout, ACT(rx), rw, b, y2);
	close_to("conv1_fwd", y1, y2, ny);
	pads_zero("conv1_fwd", y1, B, cout);
	float *dy = randact(B, cout), *rdy = rnd(dy, ny, r), *dx1 = randv(nx), *dx2 = dup(dx1, nx);
	float *dw1 = randv((size_t)cout * cin), *dw2 = dup(dw1, (size_t)cout * cin);
	float *db1 = randv(cout), *db2 = dup(db1, cout);
	dn->conv1_bwd(&ctx, B, cin, cout, ACT(x), w, dy, ACT(dx1), 1, dw1, db1);
	ref->conv1_bwd(&ctx, B, cin, cout, ACT(rx), rw, rdy, ACT(dx2), 1, dw2, NULL);
	hy_nn_colsum_cpu(&ctx, B * HY_NN_TP, cout, dy, cout, db2);
	close_to("conv1_bwd dx", dx1, dx2, nx);
	close_to("conv1_bwd dw", dw1, dw2, (size_t)cout * cin);
	close_to("conv1_bwd db", db1, db2, cout);
	free(x), free(w), free(b), free(y1), free(y2), free(dy), free(dx1), free(dx2);
	free(dw1), free(dw2), free(db1), free(db2), free(rx), free(rw), free(rdy);
}

static void test_conv1(void **state)
{
	(void)state;
	if (!have())
		skip();
	conv1_case(6, 64, 8);
	conv1_case(64, 64, 64); /* over the bf16 threshold */
}

static void gemm_case(int M, int N, int K)
{
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++)
			for (int bt = 0; bt < 2; bt++) {
				int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 2;
				float *A = randv((size_t)(ta ? K : M) * lda);
				float *Bm = randv((size_t)(tb ? N : K) * ldb);
				float *C1 = randv((size_t)M * ldc), *C2 = dup(C1, (size_t)M * ldc);
				const int r = on((double)M * N * K);
				float *rA = rnd(A, (size_t)(ta ? K : M) * lda, r);
				float *rB = rnd(Bm, (size_t)(tb ? N : K) * ldb, r);
				float beta = bt ? 1.0f : 0.0f;
				dn->gemm(&ctx, ta, tb, M, N, K, 0.5f, A, lda, Bm, ldb, beta, C1, ldc);
				ref->gemm(&ctx, ta, tb, M, N, K, 0.5f, rA, lda, rB, ldb, beta, C2, ldc);
				close_to("gemm", C1, C2, (size_t)M * ldc);
				free(A), free(Bm), free(C1), free(C2), free(rA), free(rB);
			}
}

static void test_gemm(void **state)
{
	(void)state;
	if (!have())
		skip();
	gemm_case(13, 21, 17);
	gemm_case(300, 64, 128); /* over the bf16 threshold */
}

/* Forwards from the threads of a parallel region at once, as lib/play's
 * games run them: shapes shared between threads (one kept primitive used
 * concurrently), each call its own output. */
static void test_threads(void **state)
{
	(void)state;
	if (!have())
		skip();
	enum { N = 8, CALLS = 4 * N, CIN = 64, COUT = 64 };
	float *x[N], *w = randv((size_t)COUT * 3 * CIN), *y1[CALLS], *y2[N];
	for (int i = 0; i < N; i++) {
		const int r = on((double)(i + 1) * HY_NN_TP * 3 * CIN * COUT);
		x[i] = randact(i + 1, CIN);
		y2[i] = randv((size_t)(i + 1) * HY_NN_TP * COUT);
		float *rx = rnd(x[i], (size_t)(i + 1) * HY_NN_TP * CIN, r);
		float *rw = rnd(w, (size_t)COUT * 3 * CIN, r);
		ref->conv3_fwd(&ctx, i + 1, CIN, COUT, ACT(rx), rw, ACT(y2[i]));
		free(rx), free(rw);
	}
	for (int i = 0; i < CALLS; i++)
		y1[i] = randv((size_t)(i % N + 1) * HY_NN_TP * COUT);
#pragma omp parallel for num_threads(2) schedule(dynamic, 1)
	for (int i = 0; i < CALLS; i++)
		dn->conv3_fwd(&ctx, i % N + 1, CIN, COUT, ACT(x[i % N]), w, ACT(y1[i]));
	for (int i = 0; i < CALLS; i++) {
		close_to("conv3_fwd in a parallel region", y1[i], y2[i % N],
			(size_t)(i % N + 1) * HY_NN_TP * COUT);
		free(y1[i]);
	}
	for (int i = 0; i < N; i++)
		free(x[i]), free(y2[i]);
	free(w);
}

static void test_path(void **state)
{
	(void)state;
	hy_diag d;
	hy_diag_init(&d, NULL);
	int p = -1;
	assert_int_equal(hy_nn_cpu_path_parse("openblas", &p, &d), HY_OK);
	assert_int_equal(p, HY_NN_CPU_OPENBLAS);
	assert_int_equal(hy_nn_cpu_path_parse("auto", &p, &d), HY_OK);
	assert_int_equal(hy_nn_cpu_path_parse("mkl", &p, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "openblas, onednn, onednn-bf16 or auto"));
	if (dn) {
		assert_int_equal(hy_nn_cpu_path_parse("onednn-bf16", &p, &d), HY_OK);
		assert_int_equal(p, HY_NN_CPU_ONEDNN_BF16);
		assert_non_null(hy_nn_onednn_isa(NULL));
	} else {
		assert_int_equal(hy_nn_cpu_path_parse("onednn-bf16", &p, &d), HY_EUSAGE);
	}
	assert_true(hy_nn_backend_is_host(ref));
	if (dn)
		assert_true(hy_nn_backend_is_host(dn));
	/* every op above ran on oneDNN, none fell back to the reference */
	assert_int_equal(hy_nn_onednn_refusals(), 0);
	/* once handed out, the path does not change under a model */
	const hy_nn_backend *be = hy_nn_backend_cpu();
	const char *other = be == ref && dn ? "onednn" : "openblas";
	if (be != hy_nn_backend_cpu_openblas() || dn)
		assert_int_equal(hy_nn_cpu_path_set(other, &d), HY_EUSAGE);
	assert_int_equal(hy_nn_cpu_path_set(hy_nn_cpu_path_name(hy_nn_cpu_path()), &d), HY_OK);
	/* auto: oneDNN where oneDNN sees AVX-512, bf16 inference where it sees
	 * native bf16 */
	int bf16 = 0;
	const char *isa = hy_nn_onednn_isa(&bf16);
	assert_int_equal(hy_nn_cpu_path_parse("auto", &p, &d), HY_OK);
	if (!isa || strncmp(isa, "avx512", 6))
		assert_int_equal(p, HY_NN_CPU_OPENBLAS);
	else
		assert_int_equal(p, bf16 ? HY_NN_CPU_ONEDNN_BF16 : HY_NN_CPU_ONEDNN);
}

/* The cases of the group again with bf16 operands; the rounding must
 * have moved the reference's outputs (else the check proves nothing). */
static int bf16_on(void **state)
{
	(void)state;
	bf = 1;
	ctx.precision = HY_NN_PREC_BF16;
	max_rounding = 0;
	return 0;
}

static void test_bf16_was_rounded(void **state)
{
	(void)state;
	if (!have())
		skip();
	assert_true(max_rounding > 1e-3);
}

int main(void)
{
	hy_nn_ctx_init(&ctx, 2);
	hy_rng_seed(&rng, 20261202);
	ref = hy_nn_backend_cpu_openblas();
	dn = hy_nn_backend_cpu_onednn();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv3),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_conv1),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_path),
	};
	const struct CMUnitTest bf16[] = {
		cmocka_unit_test(test_conv3),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_conv1),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_bf16_was_rounded),
		cmocka_unit_test(test_path),
	};
	int rc = cmocka_run_group_tests_name("fp32", tests, NULL, NULL);
	return rc | cmocka_run_group_tests_name("bf16", bf16, bf16_on, NULL);
}
