/* Training throughput of the CPU backend: samples/s of forward + backward
 * + AdamW update at a given architecture and batch, and peak RSS.
 *   nn_bench ARCH [BATCH [THREADS [STEPS]]]     (defaults 256 2 10)
 * One warm-up step, then STEPS timed steps on fixed synthetic samples.
 * NN_PROFILE=1 in the environment adds the per-op table (nn/prof.h);
 * NN_PRECISION=bf16 trains with bf16 GEMMs (the oneDNN path, f32 master
 * weights), as hydra-fit --precision bf16 does on the CPU. */
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
	hy_nn_ctx ctx;
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
		hy_nn_model_init_params(&m, &r, &d) || hy_nn_work_init(&w, &m, B, &d))
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
		hy_nn_loss(&m, &w, &l);
		hy_nn_backward(&m, &w);
		hy_nn_optim_step(&m, &c, &step, NULL);
		loss = l.total;
	}
	double dt = now() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("hydra-c  %-5s %dx%d batch %d threads %d, %s training, cpu path %s%s: %.1f samples/s "
		"(%.3f s/step), peak RSS %.0f MiB, loss %.4f\n",
		argv[1], a.blocks, a.channels, B, T,
		ctx.precision == HY_NN_PREC_BF16 ? "bf16" : "fp32", hy_nn_cpu_path_describe(),
		getenv("OPENBLAS_CORETYPE") ? "" : " (OPENBLAS_CORETYPE unset)", steps * (double)B / dt, dt / steps,
		ru.ru_maxrss / 1024.0, loss);
	if (profile) {
		hy_nn_prof_flush();
		hy_nn_prof_print(stdout, steps, 1e3 * dt);
	}
	free(s);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
	return 0;
}
