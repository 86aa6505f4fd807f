/* The compact form of a batch's observations for a GPU feed: the samples'
 * own 85×34 binary16 planes (5,780 bytes a sample instead of the 12,240 of
 * the model's padded fp32 input), widened on the device by the backend's
 * expand_obs. These are the CPU reference (and the feed's packing);
 * compiled in every build. */
#ifndef HY_NN_CUDA_COMPACT_H
#define HY_NN_CUDA_COMPACT_H

#include <stdint.h>

#include "nn/backend.h"
#include "samples/sample.h"

/* obs [B][85·34] binary16 → x [B][36][85] fp32, pad rows zero: the same
 * values hy_nn_work_load puts in the model's input. */
void hy_nn_obs_expand_cpu(int B, const uint16_t *obs, float *x);
/* The observations of B samples, back to back: obs [B][85·34]. */
void hy_nn_obs_pack(const hy_sample *s, int B, uint16_t *obs);

#endif
