/* The compact sample form on the CPU (compact.h): the reference of the
 * CUDA backend's expand_obs and of the data feed's compact batches. */
#include "nn/cuda/compact.h"

#include <string.h>

#include "nn/math.h"

void hy_nn_obs_expand_cpu(int B, const uint16_t *obs, float *x)
{
	const int C = HY_OBS_CHANNELS;
	memset(x, 0, (size_t)B * HY_NN_TP * C * sizeof *x);
	for (int b = 0; b < B; b++) {
		const uint16_t *o = obs + (size_t)b * HY_OBS_SIZE;
		float *xb = x + ((size_t)b * HY_NN_TP + 1) * C;
		for (int c = 0; c < C; c++)
			for (int t = 0; t < HY_NN_T; t++)
				xb[(size_t)t * C + c] = hy_nn_half_to_float(o[c * HY_NN_T + t]);
	}
}

void hy_nn_obs_pack(const hy_sample *s, int B, uint16_t *obs)
{
	for (int b = 0; b < B; b++)
		memcpy(obs + (size_t)b * HY_OBS_SIZE, s[b].obs, sizeof s[b].obs);
}
