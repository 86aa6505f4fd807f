/* A random-initialised tiny checkpoint for the unit tests that need a
 * model file (test_play.c, test_deal.c). */
#ifndef HY_TEST_FIXTURE_CKPT_H
#define HY_TEST_FIXTURE_CKPT_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "samples/sample.h"

/* Writes a 2×32 model initialised from seed to $TMPDIR/NAME-PID.h5
 * (/tmp without TMPDIR) and puts that path into path[n]; with tensor, every
 * element of that parameter (a name of the table, "policy/fc/bias") or, with
 * moment, of its AdamW first moment is set to value first. */
static inline void tiny_ckpt_set(char *path, size_t n, const char *name, uint64_t seed,
	const char *tensor, int moment, float value);
static inline void tiny_ckpt(char *path, size_t n, const char *name, uint64_t seed)
{
	tiny_ckpt_set(path, n, name, seed, NULL, 0, 0.0f);
}

static inline void tiny_ckpt_set(char *path, size_t n, const char *name, uint64_t seed,
	const char *tensor, int moment, float value)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(path, n, "%s/%s-%ld.h5", dir, name, (long)getpid());
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_model m;
	hy_diag d;
	hy_diag_init(&d, path);
	assert_int_equal(hy_nn_model_init(&m, (hy_nn_arch){2, 32, 0}, hy_nn_backend_cpu(), &ctx, &d),
			 HY_OK);
	hy_rng rng;
	hy_rng_seed(&rng, seed);
	assert_int_equal(hy_nn_model_init_params(&m, &rng, &d), HY_OK);
	if (tensor) { /* the CPU backend's arrays are host memory */
		int i = hy_nn_params_find(&m.table, tensor);
		assert_true(i >= 0);
		float *dst = (moment ? m.m : m.w) + m.table.t[i].offset;
		for (size_t k = 0; k < m.table.t[i].size; k++)
			dst[k] = value;
	}
	int32_t obs = HY_OBS_VERSION; /* a player of this build */
	hy_nn_ckpt_attr attr = {"obs_version", HY_NN_ATTR_I32, &obs};
	hy_nn_ckpt_meta meta = {.extra = &attr, .nextra = 1};
	hy_nn_optim_defaults(&meta.opt, 10);
	assert_int_equal(hy_nn_ckpt_save(path, &m, &meta, &d), HY_OK);
	hy_nn_model_free(&m);
}

#endif
