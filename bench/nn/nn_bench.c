/* Training throughput of the CPU backend: samples/s of forward + backward
 * + AdamW update at a given architecture and batch, and peak RSS.
 *   nn_bench ARCH [BATCH [THREADS [STEPS]]]     (defaults 256 2 10)
 * One warm-up step, then STEPS timed steps on fixed synthetic samples.
 * NN_PROFILE=1 in the environment adds the per-op table (nn/prof.h) and,
 * measured in the same run on the same path and precision, the rate of the
 * backend's GEMM at 2048³ and at the trunk convolution's shape (rows
 * B·36 − 2, N = C, K = 3C, as a 3-tap convolution is one GEMM over its
 * taps) beside the rate the convolution ops reached in the profiled steps — the ceiling the
 * network's time is read against (issue 54);
 * NN_PRECISION=bf16 trains with bf16 GEMMs (the oneDNN path, f32 master
 * weights), as hydra-fit --precision bf16 does on the CPU. NN_INFER=1 times
 * the forward alone on an inference context and workspace, as self-play,
 * the arena and the bot run it (bf16 on the onednn-bf16 path). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "nn/cpupath.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/prof.h"
#include "nn/synth.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int die(const hy_diag *d)
{
	char buf[1100];
	fprintf(stderr, "nn_bench: %s\n", hy_diag_format(d, buf, sizeof buf));
	return 1;
}

/* GFLOP/s of be->gemm on ctx at M×N×K (C = A·Bᵀ, fp32 operands; the path
 * converts them where its precision says), the best of 3 windows of calls
 * filling about 0.3 s each. */
static double gemm_rate(const hy_nn_backend *be, const hy_nn_ctx *ctx, int M, int N, int K,
	hy_rng *r)
{
	float *A = be->alloc((size_t)M * K * sizeof(float)),
	      *Bm = be->alloc((size_t)N * K * sizeof(float)), *C = be->alloc((size_t)M * N * sizeof(float));
	if (!A || !Bm || !C)
		return 0;
	for (size_t i = 0; i < (size_t)M * K; i++)
		A[i] = (float)hy_rng_uniform(r) - 0.5f;
	for (size_t i = 0; i < (size_t)N * K; i++)
		Bm[i] = (float)hy_rng_uniform(r) - 0.5f;
	const double flop = 2.0 * M * N * K;
	be->gemm(ctx, 0, 1, M, N, K, 1.0f, A, K, Bm, K, 0.0f, C, N); /* warm-up */
	double t0 = now();
	int reps = 1;
	be->gemm(ctx, 0, 1, M, N, K, 1.0f, A, K, Bm, K, 0.0f, C, N);
	double one = now() - t0;
	reps = one > 0 ? (int)(0.3 / one) + 1 : 1;
	double best = 0;
	for (int w = 0; w < 3; w++) {
		t0 = now();
		for (int i = 0; i < reps; i++)
			be->gemm(ctx, 0, 1, M, N, K, 1.0f, A, K, Bm, K, 0.0f, C, N);
		double rate = reps * flop / (now() - t0) / 1e9;
		best = rate > best ? rate : best;
	}
	be->free(A);
	be->free(Bm);
	be->free(C);
	return best;
}

/* The 3-tap convolutions' multiply-adds ×2 of one training step: forward
 * (the stem 85 → C and two C → C a block), the weight gradient of each and
 * the input gradient of each but the stem's. */
static double conv_flop_step(hy_nn_arch a, int B, int infer)
{
	const double rows = (double)B * HY_NN_TP - 2, C = a.channels;
	const double stem = 2 * rows * C * 3 * HY_NN_IN, trunk = 2 * rows * C * 3 * C * 2 * a.blocks;
	if (infer)
		return stem + trunk;
	return (stem + trunk) /* forward */ + (stem + trunk) /* dW */ + trunk /* dx */;
}

/* After the profiled steps: the GEMM's rate on this path and precision at
 * the trunk's shape, and what the convolution ops reached. */
static void print_ceiling(const hy_nn_backend *be, const hy_nn_ctx *ctx, hy_nn_arch a, int B,
	int steps, int infer, hy_rng *r)
{
	const int M = B * HY_NN_TP - 2, N = a.channels, K = 3 * a.channels;
	double g = gemm_rate(be, ctx, M, N, K, r), sq = gemm_rate(be, ctx, 2048, 2048, 2048, r);
	hy_nn_prof_row rows[HY_NN_PROF_MAX_OPS];
	int n = hy_nn_prof_rows(rows, HY_NN_PROF_MAX_OPS);
	double ms = 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].op, "conv3_fwd") || !strcmp(rows[i].op, "conv3_bwd"))
			ms += rows[i].ms;
	double conv = ms > 0 ? conv_flop_step(a, B, infer) * steps / (ms * 1e-3) / 1e9 : 0;
	printf("  ceiling, the same run on %d threads: the path's gemm 2048^3 %.1f GFLOP/s, at the "
		"trunk's shape %dx%dx%d %.1f; the 3-tap convolutions %.1f GFLOP/s (%.0f%% of the "
		"2048^3 rate)\n", ctx->threads, sq, M, N, K, g, conv, sq > 0 ? 100 * conv / sq : 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nn_bench ARCH [BATCH [THREADS [STEPS]]]\n");
		return 2;
	}
	int B = argc > 2 ? atoi(argv[2]) : 256, T = argc > 3 ? atoi(argv[3]) : 2;
	int steps = argc > 4 ? atoi(argv[4]) : 10;
	hy_diag d;
	hy_diag_init(&d, "nn_bench");
	hy_nn_arch a;
	if (hy_nn_arch_preset(argv[1], &a, &d))
		return die(&d);
	if (B < 1 || T < 1 || steps < 1) {
		fprintf(stderr, "nn_bench: batch, threads and steps must be positive\n");
		return 2;
	}
	const char *ie = getenv("NN_INFER");
	const int infer = ie && *ie && *ie != '0';
	hy_nn_ctx ctx;
	if (infer)
		hy_nn_ctx_init_infer(&ctx, T);
	else
		hy_nn_ctx_init(&ctx, T);
	const char *pr = getenv("NN_PRECISION");
	if (pr && !strcmp(pr, "bf16"))
		ctx.precision = HY_NN_PREC_BF16;
	hy_nn_model m;
	hy_nn_work w;
	hy_rng r;
	hy_rng_seed(&r, 1);
	const char *pe = getenv("NN_PROFILE");
	const int profile = pe && *pe && *pe != '0';
	const hy_nn_backend *be = hy_nn_backend_cpu();
	if (profile)
		be = hy_nn_prof_wrap(be, &ctx);
	if (hy_nn_model_init(&m, a, be, &ctx, &d) ||
		hy_nn_model_init_params(&m, &r, &d) ||
		(infer ? hy_nn_work_init_infer(&w, &m, B, &d) : hy_nn_work_init(&w, &m, B, &d)))
		return die(&d);
	hy_sample *s = malloc((size_t)B * sizeof *s);
	if (!s)
		return 1;
	hy_nn_synth_samples(&r, s, B);
	if (hy_nn_work_load(&w, &m, s, B, &d))
		return die(&d);
	hy_nn_optim_cfg c;
	hy_nn_optim_defaults(&c, 1000);
	int64_t step = 0;
	double t0 = 0, loss = 0;
	for (int i = 0; i <= steps; i++) {
		if (i == 1) {
			if (profile)
				hy_nn_prof_reset();
			t0 = now();
		}
		hy_nn_losses l;
		hy_nn_forward(&m, &w);
		if (infer)
			continue;
		hy_nn_loss(&m, &w, &l);
		hy_nn_backward(&m, &w);
		hy_nn_optim_step(&m, &c, &step, NULL);
		loss = l.total;
	}
	double dt = now() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("hydra-c  %-5s %dx%d batch %d threads %d, %s %s, cpu path %s%s: %.1f samples/s "
		"(%.3f s/step), peak RSS %.0f MiB, loss %.4f\n",
		argv[1], a.blocks, a.channels, B, T,
		ctx.precision == HY_NN_PREC_BF16 ? "bf16" : "fp32", infer ? "inference" : "training",
		hy_nn_cpu_path_describe(),
		getenv("OPENBLAS_CORETYPE") ? "" : " (OPENBLAS_CORETYPE unset)", steps * (double)B / dt, dt / steps,
		ru.ru_maxrss / 1024.0, loss);
	if (profile) {
		hy_nn_prof_flush();
		hy_nn_prof_print(stdout, steps, 1e3 * dt);
		print_ceiling(hy_nn_backend_cpu(), &ctx, a, B, steps, infer, &r);
	}
	free(s);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
	return 0;
}
