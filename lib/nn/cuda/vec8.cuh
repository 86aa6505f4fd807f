/* Device helpers shared by the bf16 kernels of fused.cu (path v2) and
 * v3/ (path v3), for nvcc only: 8 bf16 of a 16-byte vector to fp32 and
 * back, rounding to nearest even as nn/math.h does. */
#ifndef HY_NN_CUDA_VEC8_CUH
#define HY_NN_CUDA_VEC8_CUH

#include <stdint.h>

extern "C" {
#include "nn/math.h"
}

__device__ static inline void unpack8(uint4 q, float *f)
{
	const uint32_t w[4] = {q.x, q.y, q.z, q.w};
	for (int k = 0; k < 4; k++) {
		f[2 * k] = hy_nn_bf16_to_float((uint16_t)(w[k] & 0xffffu));
		f[2 * k + 1] = hy_nn_bf16_to_float((uint16_t)(w[k] >> 16));
	}
}

__device__ static inline uint4 pack8(const float *f)
{
	uint32_t w[4];
	for (int k = 0; k < 4; k++)
		w[k] = (uint32_t)hy_nn_bf16_round(f[2 * k]) |
		       ((uint32_t)hy_nn_bf16_round(f[2 * k + 1]) << 16);
	return make_uint4(w[0], w[1], w[2], w[3]);
}

#endif
