/* The CUDA backend of the op table (backend.h): cuBLAS GEMMs (bf16 operands
 * with fp32 accumulation, or fp32), 3-tap convolutions as GEMMs over
 * shifted rows or through cuDNN (chosen per shape, see plan.h), kernels for
 * the rest (kernels.cu). Compiled when the build finds nvcc, cuDNN and
 * cuBLAS (HY_HAVE_CUDA); otherwise the functions below exist and say that
 * this build has no CUDA backend (none.c), so callers need no #ifdef.
 *
 * Use: hy_nn_cuda_probe (is there a usable GPU), hy_nn_cuda_ctx_init (the
 * device, precision, determinism; memory reserved for the model and its
 * batch, or HY_EUSAGE naming the largest batch that fits), then
 * hy_nn_model_init(…, hy_nn_backend_cuda(), &ctx, …) as on the CPU. Ops
 * queue work on the context's stream and return at once; be->sync waits
 * and reports the first failure (call, file and line). Weights move to and
 * from the host through be->to_dev / be->to_host, so checkpoints are the
 * same files on both backends. */
#ifndef HY_NN_CUDA_H
#define HY_NN_CUDA_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"
#include "nn/backend.h"
#include "nn/model.h"

/* Which kernels a bf16 context runs (issue 43). V1: the kernels that ran
 * correctly on an H200 (bench/gpu/RESULTS.md), one scalar a thread, the
 * convolution's taps written whole. V2: the taps built in chunks that stay
 * in L2 and the weight gradient read in place (conv.cu), the stem's K
 * padded to 16 bytes, GroupNorm+Mish and the SE gate in 16-byte vectors
 * with the sample in registers (fused.cu). DEFAULT is V1 until
 * `make gpu-acceptance` has compared V2 with the CPU and timed it on a GPU;
 * V3, issue 56's (lib/nn/cuda/v3/): v2's kernels, and the residual block
 * through nn/ops.h's fused ops (GroupNorm+Mish in the convolutions' operand
 * loads, statistics and pools in their epilogues); on a GPU without bf16
 * warp MMA (compute < 8.0), or for a width it does not take, the block
 * runs v2's ops. The environment variable HYDRA_CUDA_PATH (v1, v2 or v3)
 * overrides DEFAULT. fp32 contexts always run V1. */
typedef enum hy_nn_cuda_path {
	HY_NN_CUDA_PATH_DEFAULT = 0,
	HY_NN_CUDA_PATH_V1 = 1,
	HY_NN_CUDA_PATH_V2 = 2,
	HY_NN_CUDA_PATH_V3 = 3,
} hy_nn_cuda_path;

/* The path of cfg_path (hy_nn_cuda_path) with HYDRA_CUDA_PATH's value env
 * (NULL: unset) applied to DEFAULT: V1, V2 or V3, or -1 for an env value
 * other than "v1", "v2" or "v3" (the context refuses it, naming the
 * variable).
 * Compiled in every build (select.c). */
int hy_nn_cuda_path_pick(int cfg_path, const char *env);

typedef struct hy_nn_cuda_cfg {
	int device;        /* CUDA ordinal                                        */
	int precision;     /* hy_nn_precision: BF16 is the GPU default           */
	int fast;          /* allow non-deterministic cuDNN algorithms and the timed
			    * convolution choice (default 0: bit-identical runs) */
	int conv;          /* hy_nn_conv_impl (plan.h): AUTO, or force GEMM/CUDNN */
	hy_nn_arch arch;   /* the model the memory is reserved for               */
	int max_batch;     /* the largest batch the workspace is made for        */
	int infer;         /* 1: the memory of an inference workspace
			    * (hy_nn_work_init_infer) is reserved, not training's */
	int path;          /* hy_nn_cuda_path                                   */
} hy_nn_cuda_cfg;

typedef struct hy_nn_cuda_info {
	char name[128];
	int major, minor;          /* compute capability */
	size_t mem_free, mem_total;
	int count;                 /* devices present    */
} hy_nn_cuda_info;

/* 1 when this build has the CUDA backend. */
int hy_nn_cuda_built(void);
/* HY_OK when device is a usable GPU (info filled; info may be NULL);
 * HY_EUNSUP with the reason otherwise (no backend in this build, no
 * driver, no such device, compute capability below 8.0). */
hy_status hy_nn_cuda_probe(int device, hy_nn_cuda_info *info, hy_diag *d);
/* The one parser of a --device name: "cpu", "auto", "cuda" or "cuda:N" (N
 * from 0 to HY_NN_CUDA_MAX, decimal, the whole text). HY_OK with *kind and,
 * for cuda:N, *ordinal N (else 0); HY_EUSAGE "bad --device 'NAME': auto,
 * cpu, cuda or cuda:N (N from 0 to 1023)" otherwise. No probe. */
enum { HY_NN_CUDA_MAX = 1023 };
typedef enum hy_nn_device_kind {
	HY_NN_DEV_CPU,
	HY_NN_DEV_AUTO,
	HY_NN_DEV_CUDA,   /* the GPU of the node-local rank */
	HY_NN_DEV_CUDA_N, /* GPU *ordinal                    */
} hy_nn_device_kind;
hy_status hy_nn_device_parse(const char *name, hy_nn_device_kind *kind, int *ordinal,
	hy_diag *d);
/* A --device resolved: parsed and probed once, at the program's edge
 * (hy_nn_device_pick into it), and handed down to whatever opens a model
 * (play/policy.h hy_policy_opts.dev, play/dseval.h), which then neither
 * parses nor probes again. */
typedef struct hy_nn_device {
	int cuda;    /* 1: the GPU ordinal; 0: the CPU */
	int ordinal;
} hy_nn_device;
/* The backend a --device name asks for (parsed by hy_nn_device_parse): "cpu"; "cuda" or "cuda:N" (that
 * GPU, HY_EUNSUP "requested device unavailable: --device NAME: reason"
 * without it; "cuda" is the GPU of the node-local rank, GPU 0 outside
 * mpirun); "auto" (that GPU when usable, else the CPU with the reason in
 * why (whyn bytes; NULL, 0: not wanted), for the caller's one-line notice).
 * *cuda: 1 for the GPU *ordinal.
 * HY_EUSAGE for another name. Compiled in every build (select.c). */
hy_status hy_nn_device_pick(const char *name, int *cuda, int *ordinal, char *why, size_t whyn,
	hy_diag *d);
/* GPUs visible to this process (0 without a driver or a CUDA build). */
int hy_nn_cuda_count(void);
/* The GPU of a process with node-local rank local_rank among ndev visible
 * ones: local_rank mod ndev (0 when ndev < 1), so the ranks of a node
 * spread over its GPUs (several ranks share one when there are more). */
int hy_nn_device_for_rank(int local_rank, int ndev);
/* The node-local rank the launcher gives this process (Open MPI's
 * OMPI_COMM_WORLD_LOCAL_RANK, MPICH's MPI_LOCALRANKID, PMIx's
 * PMIX_LOCAL_RANK, Slurm's SLURM_LOCALID), 0 when none. "cuda" and "auto"
 * in hy_nn_device_pick take GPU hy_nn_device_for_rank(this, count). */
int hy_nn_local_rank_env(void);
/* The op table; NULL when not built. */
const hy_nn_backend *hy_nn_backend_cuda(void);
/* Creates the stream, cuBLAS and cuDNN handles and the scratch, and
 * reserves the device memory the model and a batch of cfg->max_batch need
 * (plan.h). HY_EUSAGE when that batch does not fit ("... the largest batch
 * that fits is N"), HY_EUNSUP without a usable GPU, HY_ENOMEM / HY_EIO on
 * a failing CUDA call. c->threads is set to 1. */
hy_status hy_nn_cuda_ctx_init(hy_nn_ctx *c, const hy_nn_cuda_cfg *cfg, hy_diag *d);
/* Releases what ctx_init made (the model and workspace are freed first). */
void hy_nn_cuda_ctx_free(hy_nn_ctx *c);
/* Multi-line report: device, precision, determinism, planned and peak
 * device memory, the convolution choice of every shape met so far. */
size_t hy_nn_cuda_report(const hy_nn_ctx *c, char *buf, size_t n);
/* How many convolution choices this context has made by timing (plan.h:
 * --fast, or a forced cuDNN's algorithm search): one per shape bucket
 * met, again only when the cache evicted it. */
int hy_nn_cuda_conv_timings(const hy_nn_ctx *c);
/* Graphs of inference forwards (graph.cu, on in a v2 context): how many
 * were captured, replayed, and failed to capture (their keys run eagerly). */
void hy_nn_cuda_graph_counts(const hy_nn_ctx *c, int *captured, int *replayed, int *failed);
/* Peak device memory in use since ctx_init (bytes, from the pool). */
size_t hy_nn_cuda_peak_bytes(const hy_nn_ctx *c);
/* The bf16 rounding of nn/math.h against CUDA's __float2bfloat16_rn on
 * the device, over all 2^32 fp32 patterns: the number that differ and the
 * smallest such pattern (0xffffffff: none). */
hy_status hy_nn_cuda_check_bf16(const hy_nn_ctx *c, unsigned long long *mismatches,
	unsigned int *first, hy_diag *d);

#endif
