/* GPU throughput of the CUDA backend (make bench-gpu, bench/gpu/gpu.sh):
 *   gpu_bench train ARCH BATCH [STEPS [fp32|bf16 [fast]]]
 *   gpu_bench infer ARCH BATCH [STEPS]
 *   gpu_bench expand BATCH [STEPS]
 *   gpu_bench profile ARCH BATCH [STEPS [fp32|bf16]]
 *   gpu_bench roof [C [BATCH...]]
 * roof: the ceilings of this GPU and the convolution GEMMs bare at C
 * channels (default 256) and the batches (default 1024 2048), each as a
 * share of the ceiling measured in the same run (bench/gpu/roof.h
 * hy_nn_cuda_roof; issue 43 step 1).
 * train: samples/s of forward + loss + backward + AdamW on fixed synthetic
 * samples already on the device (the data feed is measured by feed_bench),
 * model FLOPs utilisation, peak memory, the convolution chosen per shape.
 * infer: forward only. expand: the device side of the compact feed, the
 * host-to-device copy of a batch from pinned memory (compact binary16
 * planes, and the fp32 model input for comparison) and expand_obs.
 * profile: a training step's time per op (nn/prof.h: CUDA events around
 * every op of backend.h, recorded on the op stream) and the remainder of
 * the wall time, where the device waits for the host.
 * Without a GPU: "bench-gpu: skipped: no GPU", exit 0.
 *
 * FLOPs per sample (counted as 2 per multiply-add, GEMM-shaped work only;
 * the elementwise kernels are memory-bound and not counted): forward
 *   stem 2·34·3·85·C + blocks N·2·(2·34·3·C·C) + SE N·2·2·(C·C/16)·2
 *   + policy 2·34·C·64 + 2·34·64·46 + value 2·(C·512 + 512)
 *   + grp 2·(C·256 + 256·24) + tenpai 2·(C·64 + 64·3) + danger 2·34·C·3;
 * a training step is 3× the forward (the backward computes the input and
 * the weight gradients, each as many FLOPs as the forward), less the
 * stem's input gradient, which is not computed. For full (40×256) that is
 * 1.08 GFLOP forward, 3.2 GFLOP per trained sample. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/cuda/compact.h"
#include "nn/cuda/cuda.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/prof.h"
#include "nn/synth.h"
#include "roof.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double flops_fwd(hy_nn_arch a)
{
	const double C = a.channels, N = a.blocks, T = HY_NN_T;
	return 2 * T * 3 * HY_NN_IN * C + N * 2 * (2 * T * 3 * C * C) + N * 2 * 2 * (C * C / 16) * 2 +
		2 * T * C * HY_NN_POL_CH + 2 * T * HY_NN_POL_CH * HY_ACTIONS +
		2 * (C * HY_NN_VAL_HID + HY_NN_VAL_HID) + 2 * (C * HY_NN_GRP_HID +
		HY_NN_GRP_HID * HY_GRP_CLASSES) + 2 * (C * HY_NN_TEN_HID + HY_NN_TEN_HID * HY_NN_OPP) +
		2 * T * C * HY_NN_OPP;
}

static double flops_train(hy_nn_arch a)
{
	return 3 * flops_fwd(a) - 2 * HY_NN_T * 3 * HY_NN_IN * (double)a.channels;
}

/* Dense bf16 tensor-core peak of the GPU (FLOP/s), 0 when unknown;
 * BENCH_GPU_PEAK_TFLOPS overrides. fp32 runs are set against the same
 * figure (their MFU shows what bf16 gains). */
static double peak_flops(const char *name)
{
	const char *e = getenv("BENCH_GPU_PEAK_TFLOPS");
	if (e)
		return atof(e) * 1e12;
	if (strstr(name, "H100") && strstr(name, "PCIe"))
		return 756e12;
	if (strstr(name, "H100") || strstr(name, "H200") || strstr(name, "GH200"))
		return 989e12;
	if (strstr(name, "A100"))
		return 312e12;
	return 0;
}

static int fail(const char *what, const hy_diag *d)
{
	fprintf(stderr, "gpu_bench: %s: %s\n", what, d->msg);
	return 1;
}

#ifdef HY_HAVE_CUDA
#include <cuda_runtime.h>

/* Copies and widening of a compact batch; ms per batch of each. */
static int bench_expand(int B, int steps)
{
	hy_nn_ctx ctx;
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_cuda_cfg cfg = {.device = 0, .precision = HY_NN_PREC_BF16, .arch = {0, 32},
		.max_batch = B};
	if (hy_nn_cuda_ctx_init(&ctx, &cfg, &d))
		return fail("context", &d);
	const hy_nn_backend *be = hy_nn_backend_cuda();
	const size_t no = (size_t)B * HY_OBS_SIZE * 2, nx = (size_t)B * HY_NN_TP * HY_NN_IN * 4;
	void *ho = NULL, *hx = NULL;
	if (cudaHostAlloc(&ho, no, cudaHostAllocDefault) != cudaSuccess ||
		cudaHostAlloc(&hx, nx, cudaHostAllocDefault) != cudaSuccess) {
		fprintf(stderr, "gpu_bench: cudaHostAlloc failed\n");
		return 1;
	}
	memset(ho, 0x3c, no), memset(hx, 0, nx);
	void *dobs = be->alloc(no), *dx = be->alloc(nx);
	if (!dobs || !dx)
		return 1;
	double t[3] = {0, 0, 0};
	for (int i = 0; i < steps + 1; i++) { /* the first round is a warm-up */
		double a = now();
		be->to_dev(dobs, ho, no);
		double b = now();
		be->to_dev(dx, hx, nx);
		double c = now();
		be->expand_obs(&ctx, B, dobs, dx);
		if (be->sync(&ctx, &d))
			return fail("expand_obs", &d);
		double e = now();
		if (i) {
			t[0] += b - a;
			t[1] += c - b;
			t[2] += e - c;
		}
	}
	printf("expand batch %d: copy compact %.3f ms (%.1f GB/s), copy fp32 %.3f ms (%.1f GB/s), "
		"expand_obs %.3f ms (%.0f samples/s)\n", B, 1e3 * t[0] / steps,
		no * steps / t[0] / 1e9, 1e3 * t[1] / steps, nx * steps / t[1] / 1e9,
		1e3 * t[2] / steps, (double)B * steps / t[2]);
	be->free(dobs), be->free(dx);
	cudaFreeHost(ho), cudaFreeHost(hx);
	hy_nn_cuda_ctx_free(&ctx);
	return 0;
}
#endif

/* 1, having said "skipped" (exit 0: no GPU is no failure), when there is no
 * usable GPU 0 or no CUDA backend; d is initialised either way. */
static int no_gpu(hy_nn_cuda_info *info, hy_diag *d)
{
	hy_diag_init(d, NULL);
	if (hy_nn_cuda_built() && !hy_nn_cuda_probe(0, info, d))
		return 0;
	printf("bench-gpu: skipped: no GPU (%s)\n",
		hy_nn_cuda_built() ? d->msg : "this build has no CUDA backend");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "roof")) { /* roof [C [BATCH...]] */
		hy_diag d;
		if (no_gpu(NULL, &d))
			return 0;
#ifdef HY_HAVE_CUDA /* (roof.cu is linked where the backend is built) */
		int C = argc > 2 ? atoi(argv[2]) : 256, nb = 0, bs[16];
		for (int i = 3; i < argc && nb < 16; i++)
			if ((bs[nb++] = atoi(argv[i])) < 1)
				return 2;
		if (!nb)
			bs[nb++] = 1024, bs[nb++] = 2048;
		if (hy_nn_cuda_roof(0, C, bs, nb, stdout, &d) != HY_OK) {
			fprintf(stderr, "gpu_bench roof: %s\n", d.msg);
			return 1;
		}
#endif
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "expand")) {
		hy_diag d;
		if (no_gpu(NULL, &d))
			return 0;
#ifdef HY_HAVE_CUDA
		int B = atoi(argv[2]), steps = argc > 3 ? atoi(argv[3]) : 50;
		return B < 1 || steps < 1 ? 2 : bench_expand(B, steps);
#endif
	}
	if (argc < 4 || (strcmp(argv[1], "train") && strcmp(argv[1], "infer") &&
			    strcmp(argv[1], "profile"))) {
		fprintf(stderr, "usage: gpu_bench train|infer|profile ARCH BATCH [STEPS [fp32|bf16 [fast]]]\n"
			"       gpu_bench expand BATCH [STEPS]\n"
			"       gpu_bench roof [C [BATCH...]]\n");
		return 2;
	}
	hy_diag d;
	hy_nn_cuda_info info;
	if (no_gpu(&info, &d))
		return 0;
	const int profile = !strcmp(argv[1], "profile");
	const int train = profile || !strcmp(argv[1], "train");
	hy_nn_arch a;
	if (hy_nn_arch_preset(argv[2], &a, &d))
		return fail("arch", &d);
	int B = atoi(argv[3]), steps = argc > 4 ? atoi(argv[4]) : 20;
	int prec = argc > 5 && !strcmp(argv[5], "fp32") ? HY_NN_PREC_FP32 : HY_NN_PREC_BF16;
	int fast = argc > 6 && !strcmp(argv[6], "fast");
	if (B < 1 || steps < 1) {
		fprintf(stderr, "gpu_bench: batch and steps must be positive\n");
		return 2;
	}
	hy_nn_ctx ctx;
	const int infer = !strcmp(argv[1], "infer"); /* the inference path: its workspace */
	hy_nn_cuda_cfg cfg = {.device = 0, .precision = prec, .fast = fast, .arch = a,
		.max_batch = B, .infer = infer};
	hy_status st = hy_nn_cuda_ctx_init(&ctx, &cfg, &d);
	if (st == HY_EUSAGE) { /* does not fit: say so, as hydra-fit would */
		printf("%s %s batch %d: refused: %s\n", argv[1], argv[2], B, d.msg);
		return 0;
	}
	if (st)
		return fail("context", &d);
	const hy_nn_backend *be = hy_nn_backend_cuda();
	if (profile)
		be = hy_nn_prof_wrap(be, &ctx);
	hy_nn_model m;
	hy_nn_work w;
	hy_rng r;
	hy_rng_seed(&r, 1);
	if (hy_nn_model_init(&m, a, be, &ctx, &d) || hy_nn_model_init_params(&m, &r, &d) ||
		(infer ? hy_nn_work_init_infer(&w, &m, B, &d) : hy_nn_work_init(&w, &m, B, &d)))
		return fail("model", &d);
	hy_sample *s = malloc((size_t)B * sizeof *s);
	if (!s)
		return 1;
	hy_nn_synth_samples(&r, s, B);
	if (hy_nn_work_load(&w, &m, s, B, &d))
		return fail("load", &d);
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 1000);
	int64_t step = 0;
	hy_nn_losses l;
	double t0 = 0;
	for (int i = 0; i < steps + 2; i++) { /* 2 warm-up steps: conv timing, caches */
		if (i == 2) {
			if (be->sync(&ctx, &d))
				return fail("warm-up", &d);
			if (profile)
				hy_nn_prof_reset();
			t0 = now();
		}
		hy_nn_forward(&m, &w);
		if (train) {
			hy_nn_loss(&m, &w, &l);
			hy_nn_backward(&m, &w);
			hy_nn_optim_step(&m, &oc, &step, NULL);
		}
	}
	if (be->sync(&ctx, &d))
		return fail("run", &d);
	double dt = now() - t0, sps = (double)steps * B / dt;
	double fl = train ? flops_train(a) : flops_fwd(a), peak = peak_flops(info.name);
	printf("%s %s %dx%d batch %d %s%s: %.0f samples/s, %.2f ms/step, %.2f GFLOP/sample, "
		"%.1f TFLOP/s", argv[1], argv[2], a.blocks, a.channels, B,
		prec == HY_NN_PREC_BF16 ? "bf16" : "fp32", fast ? " fast" : "", sps, 1e3 * dt / steps,
		fl / 1e9, sps * fl / 1e12);
	if (peak > 0)
		printf(", MFU %.1f%% of %.0f TFLOP/s", 100 * sps * fl / peak, peak / 1e12);
	printf("\n");
	if (profile)
		hy_nn_prof_print(stdout, steps, 1e3 * dt);
	char rep[8192];
	hy_nn_cuda_report(&ctx, rep, sizeof rep);
	for (char *p = rep, *q; *p; p = q + 1) { /* indented report lines */
		q = strchr(p, '\n');
		if (!q)
			break;
		printf("    %.*s\n", (int)(q - p), p);
	}
	free(s);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
	hy_nn_cuda_ctx_free(&ctx);
	return 0;
}
