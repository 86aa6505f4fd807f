/* Which engine the CPU backend runs its GEMM-shaped ops on (issue 54):
 * OpenBLAS (lib/nn/cpu.c, the reference the tests compare with) or oneDNN
 * (lib/nn/onednn.c: direct 1-D convolutions and matmul primitives, built
 * where libdnnl-dev is). The choice is made once per process, before the
 * first hy_nn_backend_cpu(): hy_nn_cpu_path_set (a program's --cpu-path),
 * else HYDRA_CPU_PATH in the environment, else "auto": oneDNN with bf16
 * inference where oneDNN sees avx512_bf16 (or AMX), oneDNN in fp32 where
 * it sees AVX-512, OpenBLAS elsewhere (on AVX2 both ran at the FMA
 * ceiling) — bench/RESULTS.md has the measurements behind each. Every
 * other op is the reference's in both engines.
 *
 * Precision: the oneDNN table computes a context's GEMM-shaped ops in
 * bf16 (fp32 accumulation and outputs) when the context's precision says
 * HY_NN_PREC_BF16; the reference always computes in fp32. Inference
 * contexts (hy_nn_ctx_init_infer: self-play, arena, bot, review, the
 * readers) take bf16 on the path "onednn-bf16"; training contexts are fp32
 * unless hydra-fit --precision bf16 asks (f32 master weights). */
#ifndef HY_NN_CPUPATH_H
#define HY_NN_CPUPATH_H

#include "core/status.h"
#include "nn/backend.h"

enum {
	HY_NN_CPU_OPENBLAS = 0,
	HY_NN_CPU_ONEDNN = 1,      /* oneDNN, fp32 inference */
	HY_NN_CPU_ONEDNN_BF16 = 2, /* oneDNN, bf16 inference */
};

/* In a bf16 context the oneDNN table computes a product in bf16 when it
 * has at least this many multiply-adds (a 3-tap convolution of `small`
 * from batch 5), smaller ones in fp32: at batch 1 converting the operands
 * cost more than the bf16 kernels saved (bench/RESULTS.md). */
enum { HY_NN_ONEDNN_BF16_MIN_MACS = 1 << 21 };

/* "openblas", "onednn", "onednn-bf16" or "auto" (NULL or empty: auto) into
 * *path. HY_EUSAGE naming the choices for another word, or a oneDNN path
 * in a build without oneDNN. */
hy_status hy_nn_cpu_path_parse(const char *name, int *path, hy_diag *d);
/* Sets the path for this process; HY_EUSAGE as parse does, or when the
 * backend was already handed out with another path. */
hy_status hy_nn_cpu_path_set(const char *name, hy_diag *d);
/* The path in force (resolving HYDRA_CPU_PATH or auto at the first call;
 * an unusable HYDRA_CPU_PATH is reported once on stderr and auto used). */
int hy_nn_cpu_path(void);
const char *hy_nn_cpu_path_name(int path);
/* One line for -v (no commas): "openblas", "openblas (onednn built)",
 * "onednn 2.6.3 fp32 inference on avx512_core" or "onednn 2.6.3 bf16
 * inference on avx512_core_amx". */
const char *hy_nn_cpu_path_describe(void);
/* 1 when the path in force runs on oneDNN. */
int hy_nn_cpu_path_onednn(void);
/* The precision inference contexts take: HY_NN_PREC_BF16 on the path
 * onednn-bf16, HY_NN_PREC_FP32 otherwise. */
int hy_nn_cpu_infer_precision(void);
/* hy_nn_ctx_init with the inference precision. */
void hy_nn_ctx_init_infer(hy_nn_ctx *c, int threads);
/* oneDNN's view of the CPU: "avx512_core_amx", "avx512_core_bf16",
 * "avx512_core", "avx2", ... (NULL without oneDNN); *bf16 (may be NULL)
 * set to 1 when it has native bf16 (avx512_bf16 or AMX). */
const char *hy_nn_onednn_isa(int *bf16);

/* The two tables, whatever the path in force: the reference, and oneDNN's
 * (NULL in a build without it). hy_nn_backend_cpu() is the one in force. */
const hy_nn_backend *hy_nn_backend_cpu_openblas(void);
const hy_nn_backend *hy_nn_backend_cpu_onednn(void);
/* oneDNN's version "X.Y.Z" (NULL without it). */
const char *hy_nn_onednn_version(void);
/* Calls oneDNN refused since the start (each then ran on the reference). */
int hy_nn_onednn_refusals(void);
/* 1 when be keeps its tensors in host memory (either CPU table). */
int hy_nn_backend_is_host(const hy_nn_backend *be);

#endif
