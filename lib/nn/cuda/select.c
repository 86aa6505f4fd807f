/* --device names to a backend choice (cuda.h hy_nn_device_pick), in every
 * build: without the CUDA backend the probe says so and "auto" is the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda.h"

hy_status hy_nn_device_pick(const char *name, int *cuda, int *ordinal, char *why, size_t whyn,
	hy_diag *d)
{
	*cuda = 0;
	*ordinal = 0;
	if (whyn)
		why[0] = '\0';
	if (!name || !strcmp(name, "cpu"))
		return HY_OK;
	int dev = 0;
	if (!strncmp(name, "cuda:", 5)) {
		char *end;
		long v = strtol(name + 5, &end, 10);
		if (end == name + 5 || *end || v < 0 || v > 1023)
			return hy_diag_set(d, HY_EUSAGE, 0, "bad device '%s' (want cpu, auto, cuda or "
				"cuda:N)", name);
		dev = (int)v;
	} else if (strcmp(name, "cuda") && strcmp(name, "auto")) {
		return hy_diag_set(d, HY_EUSAGE, 0, "bad device '%s' (want cpu, auto, cuda or cuda:N)",
			name);
	}
	hy_diag pd;
	hy_diag_init(&pd, NULL);
	if (hy_nn_cuda_probe(dev, NULL, &pd) == HY_OK) {
		*cuda = 1;
		*ordinal = dev;
		return HY_OK;
	}
	if (!strcmp(name, "auto")) {
		if (whyn)
			snprintf(why, whyn, "%s", pd.msg);
		return HY_OK;
	}
	return hy_diag_set(d, HY_EUNSUP, 0, "requested device unavailable: --device %s: %s", name,
		pd.msg);
}
