/* Which engine the CPU backend runs its GEMM-shaped ops on (issue 54):
 * OpenBLAS (lib/nn/cpu.c, the reference the tests compare with) or oneDNN
 * (lib/nn/onednn.c: direct 1-D convolutions and matmul primitives, built
 * where libdnnl-dev is). The choice is made once per process, before the
 * first hy_nn_backend_cpu(): hy_nn_cpu_path_set (a program's --cpu-path),
 * else HYDRA_CPU_PATH in the environment, else "auto" — OpenBLAS for now:
 * on AVX2 both run at the FMA ceiling (bench/RESULTS.md), and the oneDNN
 * path has not yet been measured end to end on an AVX-512 CPU, where its
 * bare GEMM ran about twice OpenBLAS's (issue 54's table). Every other op
 * is the reference's in both paths. */
#ifndef HY_NN_CPUPATH_H
#define HY_NN_CPUPATH_H

#include "core/status.h"
#include "nn/backend.h"

enum {
	HY_NN_CPU_OPENBLAS = 0,
	HY_NN_CPU_ONEDNN = 1,
};

/* "openblas", "onednn" or "auto" (NULL or empty: auto) into *path.
 * HY_EUSAGE naming the choices for another word, or "onednn" in a build
 * without oneDNN. */
hy_status hy_nn_cpu_path_parse(const char *name, int *path, hy_diag *d);
/* Sets the path for this process; HY_EUSAGE as parse does, or when the
 * backend was already handed out with another path. */
hy_status hy_nn_cpu_path_set(const char *name, hy_diag *d);
/* The path in force (resolving HYDRA_CPU_PATH or auto at the first call;
 * an unusable HYDRA_CPU_PATH is reported once on stderr and auto used). */
int hy_nn_cpu_path(void);
const char *hy_nn_cpu_path_name(int path);
/* One line for -v: "openblas" or "onednn 2.6.3 (jit:avx2 ...)". */
const char *hy_nn_cpu_path_describe(void);

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
