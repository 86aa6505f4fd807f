/* The roof benchmark (bench/gpu/roof.cu), gpu_bench's "roof" mode: it
 * lives beside the benchmarks, not in lib/, and reads the CUDA backend's
 * private state (lib/nn/cuda/internal.h) to time its kernels alone. Built
 * and linked only where the CUDA backend is (the Makefile's
 * BENCH_EXTRA_gpu_bench). */
#ifndef HY_BENCH_GPU_ROOF_H
#define HY_BENCH_GPU_ROOF_H

#include <stdio.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Issue 43's ceilings and the convolution GEMMs bare (bench/gpu/roof.cu), printed to
 * out as "roof ..." lines: the device-to-device copy rate, the 8192³ bf16
 * GEMM rate (the best of cuBLASLt's first algorithms), and for each batch
 * in batches[nbatches] the forward, input-gradient and weight-gradient
 * GEMMs of a 3-tap convolution of `channels` channels as conv.cu calls
 * them, and the stem's at K = 255 and padded to 256, by cublasGemmEx and by
 * the best cuBLASLt algorithm, each as a share of that ceiling; then, with
 * the v1 kernels and with v2's (hy_nn_cuda_path), the taps, GroupNorm+Mish
 * and SE forward and backward kernels alone in GB/s, as a share of the
 * copy rate, and the whole convolution op forward and backward as a share
 * of the GEMM ceiling. HY_EUNSUP without the backend or a GPU; HY_EIO
 * naming the call that failed. */
hy_status hy_nn_cuda_roof(int device, int channels, const int *batches, int nbatches,
	FILE *out, hy_diag *d);
#ifdef __cplusplus
}
#endif

#endif
