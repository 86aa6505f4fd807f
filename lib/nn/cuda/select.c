/* --device names to a backend choice (cuda.h hy_nn_device_pick), in every
 * build: without the CUDA backend the probe says so and "auto" is the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda.h"

#include "core/num.h"

int hy_nn_device_for_rank(int local_rank, int ndev)
{
	return ndev < 1 || local_rank < 1 ? 0 : local_rank % ndev;
}

int hy_nn_local_rank_env(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		"PMIX_LOCAL_RANK", "SLURM_LOCALID"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r = v && *v ? strtol(v, &end, 10) : -1;
		if (v && *v && !*end && r >= 0 && r < 1 << 20)
			return (int)r;
	}
	return 0;
}

hy_status hy_nn_device_parse(const char *name, hy_nn_device_kind *kind, int *ordinal,
	hy_diag *d)
{
	int64_t v = 0;
	*ordinal = 0;
	if (!strcmp(name, "cpu"))
		*kind = HY_NN_DEV_CPU;
	else if (!strcmp(name, "auto"))
		*kind = HY_NN_DEV_AUTO;
	else if (!strcmp(name, "cuda"))
		*kind = HY_NN_DEV_CUDA;
	else if (!strncmp(name, "cuda:", 5) && !hy_parse_i64(name + 5, 0, HY_NN_CUDA_MAX, &v))
		*kind = HY_NN_DEV_CUDA_N, *ordinal = (int)v;
	else
		return hy_diag_set(d, HY_EUSAGE, 0, "bad --device '%s': auto, cpu, cuda or cuda:N "
			"(N from 0 to %d)", name, HY_NN_CUDA_MAX);
	return HY_OK;
}

hy_status hy_nn_device_pick(const char *name, int *cuda, int *ordinal, char *why, size_t whyn,
	hy_diag *d)
{
	*cuda = 0;
	*ordinal = 0;
	if (whyn)
		why[0] = '\0';
	if (!name)
		return HY_OK;
	hy_nn_device_kind kind;
	int dev;
	hy_status st = hy_nn_device_parse(name, &kind, &dev, d);
	if (st != HY_OK || kind == HY_NN_DEV_CPU)
		return st;
	if (kind != HY_NN_DEV_CUDA_N)
		dev = hy_nn_device_for_rank(hy_nn_local_rank_env(), hy_nn_cuda_count());
	hy_diag pd;
	hy_diag_init(&pd, NULL);
	if (hy_nn_cuda_probe(dev, NULL, &pd) == HY_OK) {
		*cuda = 1;
		*ordinal = dev;
		return HY_OK;
	}
	if (kind == HY_NN_DEV_AUTO) {
		if (whyn)
			snprintf(why, whyn, "%s", pd.msg);
		return HY_OK;
	}
	return hy_diag_set(d, HY_EUNSUP, 0, "requested device unavailable: --device %s: %s", name,
		pd.msg);
}

int hy_nn_cuda_path_pick(int cfg_path, const char *env)
{
	if (cfg_path >= HY_NN_CUDA_PATH_V1 && cfg_path <= HY_NN_CUDA_PATH_V3)
		return cfg_path;
	if (cfg_path != HY_NN_CUDA_PATH_DEFAULT)
		return -1;
	if (!env || !*env)
		return HY_NN_CUDA_PATH_V1; /* until a GPU run has measured v2 */
	if (!strcmp(env, "v1"))
		return HY_NN_CUDA_PATH_V1;
	if (!strcmp(env, "v2"))
		return HY_NN_CUDA_PATH_V2;
	if (!strcmp(env, "v3"))
		return HY_NN_CUDA_PATH_V3;
	return -1;
}
