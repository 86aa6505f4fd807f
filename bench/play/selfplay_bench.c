/* Self-play benchmark: full hanchan per second of the game runner
 * (lib/play/runner.h) with one policy at every seat, nothing written.
 *
 *   selfplay_bench ckpt ARCH PATH        write a random-initialised
 *                                        checkpoint (tiny, small, ...)
 *   selfplay_bench run SPEC GAMES [TABLES [THREADS [RECORD]]]
 *
 * `run` prints hanchan per CPU-second of the process (the per-core figure,
 * robust to a shared machine) and per wall second; RECORD 1 also
 * records the steps (observations, labels, GAE) as hydra-sp does for its
 * sample stream. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/cpupath.h"
#include "nn/checkpoint.h"
#include "nn/model.h"
#include "play/policy.h"
#include "play/runner.h"
#include "samples/sample.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct count {
	uint64_t games, kyoku, steps, aborted;
} count;

static hy_status sink(void *ctx, const hy_play_game *g, hy_diag *d)
{
	(void)d;
	count *c = ctx;
	c->games++;
	c->aborted += g->aborted != 0;
	c->kyoku += g->stats[0].kyoku;
	c->steps += g->nsteps;
	return HY_OK;
}

static int write_ckpt(const char *arch, const char *path)
{
	hy_diag d;
	hy_diag_init(&d, path);
	hy_nn_arch a;
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_model m;
	hy_rng r;
	hy_rng_seed(&r, 1);
	int32_t obs = HY_OBS_VERSION; /* a player of this build: the model policy
				       * refuses a checkpoint that records none */
	hy_nn_ckpt_attr attr = {"obs_version", HY_NN_ATTR_I32, &obs};
	hy_nn_ckpt_meta meta = {.extra = &attr, .nextra = 1};
	hy_nn_optim_defaults(&meta.opt, 1);
	if (hy_nn_arch_preset(arch, &a, &d) || hy_nn_model_init(&m, a, hy_nn_backend_cpu(), &ctx, &d))
		goto fail;
	if (hy_nn_model_init_params(&m, &r, &d) || hy_nn_ckpt_save(path, &m, &meta, &d)) {
		hy_nn_model_free(&m);
		goto fail;
	}
	hy_nn_model_free(&m);
	return 0;
fail:
	fprintf(stderr, "selfplay_bench: %s: %s\n", path, d.msg);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "ckpt") == 0)
		return write_ckpt(argv[2], argv[3]);
	if (argc < 4 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "usage: selfplay_bench ckpt ARCH PATH | run SPEC GAMES [TABLES [THREADS "
				"[RECORD]]]\n");
		return 2;
	}
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.seed = 1;
	o.count = strtoull(argv[3], NULL, 10);
	o.tables = argc > 4 ? atoi(argv[4]) : 16;
	o.threads = argc > 5 ? atoi(argv[5]) : 1;
	o.record_steps = argc > 6 ? atoi(argv[6]) : 0;
	if (o.count == 0 || o.tables < 1 || o.threads < 1) {
		fprintf(stderr, "selfplay_bench: bad arguments\n");
		return 2;
	}
	hy_policy p;
	hy_diag d;
	hy_diag_init(&d, argv[2]);
	if (hy_policy_open(&p, argv[2], NULL, &d) != HY_OK) {
		fprintf(stderr, "selfplay_bench: %s: %s\n", argv[2], d.msg);
		return 1;
	}
	hy_policy *pp[1] = {&p};
	count c = {0};
	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	hy_status st = hy_play_run(&o, pp, 1, sink, &c, &d);
	double dt = clock_s(CLOCK_MONOTONIC) - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	hy_policy_close(&p);
	if (st != HY_OK || c.aborted) {
		fprintf(stderr, "selfplay_bench: %s\n", d.msg);
		return 1;
	}
	const char *name = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
	int model = strstr(name, ".h5") != NULL;
	printf("runner, %s at every seat, %d tables, %d thread(s)%s%s%s: %" PRIu64
	       " hanchan in %.2f s wall, %.2f s CPU: %.1f hanchan per CPU-second (%.1f/s wall), "
	       "%.1f kyoku/game\n",
	       name, o.tables, o.threads, o.record_steps ? ", steps recorded" : "",
	       model ? ", cpu path " : "", model ? hy_nn_cpu_path_describe() : "", c.games, dt, cpu,
	       (double)c.games / cpu, (double)c.games / dt, (double)c.kyoku / (double)c.games);
	if (o.record_steps)
		printf("  %.0f samples per CPU-second (%.0f per game)\n", (double)c.steps / cpu,
		       (double)c.steps / (double)c.games);
	return 0;
}
