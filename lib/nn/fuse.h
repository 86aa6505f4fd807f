/* The reference of path v3's fused block ops (nn/ops.h, the rows from
 * fused_block to gn_bwd_apply; ARCHITECTURE.md "Path v3"): each composed
 * from the CPU's core ops and plain loops over host memory, so that
 * tests/unit/test_fuse.c can run a model through the fused block on the
 * CPU against the core ops, and check_gpu can compare the CUDA v3 kernels
 * with it op by op. */
#ifndef HY_NN_FUSE_H
#define HY_NN_FUSE_H

#include "nn/backend.h"

/* *out = the CPU's table (hy_nn_backend_cpu) with the fused rows filled by
 * their references (fused_block answers 1 for every C that is a multiple
 * of 32). */
void hy_nn_fused_ref_table(hy_nn_backend *out);

/* st [B][32][2] ← Σ, Σ² of each (sample, group) of x [B][36][C] (fp32 host
 * memory; the sums in double, stored as floats). */
void hy_nn_gn_stats_ref(int B, int C, const float *x, float *st);

#endif
