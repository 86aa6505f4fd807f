/* The CPU-side planning of the CUDA backend, compiled by gcc in every build
 * so that it is unit-tested without a GPU (tests/unit/test_nn_cuda_host.c):
 * how much device memory a model and its batch workspace take (the arena
 * is reserved from this before training, and a batch that does not fit is
 * refused with the largest one that does), and the per-shape cache of the
 * convolution choice (GEMM or cuDNN, with cuDNN's algorithm and workspace).
 *
 * The byte counts mirror the allocations of hy_nn_model_init and
 * hy_nn_work_init (model.c) one by one, each rounded up to the allocator's
 * granularity; the unit test counts those allocations through a wrapping
 * backend and fails if the two drift apart. */
#ifndef HY_NN_CUDA_PLAN_H
#define HY_NN_CUDA_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "nn/model.h"

enum {
	HY_NN_CUDA_ALIGN = 256, /* bytes: every device allocation is rounded to this */
	HY_NN_CUDA_PARTIALS = 256, /* blocks of the fixed-order reductions          */
	HY_NN_CUDA_RESULTS = 8,    /* result pairs after the partials (16 doubles)  */
	HY_NN_CUDA_MAX_CHANNELS = 4096, /* hydra-fit --channels' bound (kernels' shared memory) */
};

/* Workspace shared by cuBLAS and cuDNN (the largest a convolution algorithm
 * may use is capped to it when algorithms are chosen). */
#define HY_NN_CUDA_WORKSPACE ((size_t)64 << 20)
/* Kept free for the CUDA libraries' own allocations and the pool's
 * fragmentation when the largest batch is computed. */
#define HY_NN_CUDA_MARGIN ((size_t)512 << 20)

/* Scratch the backend carves from one allocation (lib/nn/cuda/ctx.cu):
 * sizes in bytes, each rounded to HY_NN_CUDA_ALIGN. */
typedef struct hy_nn_cuda_scratch {
	size_t act16[2];  /* bf16 GEMM operands: an activation, or its 3 taps  */
	size_t w16[2];    /* bf16 copies of weight operands / weight gradient  */
	size_t wtmp;      /* fp32 weight-gradient target while timing           */
	size_t ones;      /* fp32 ones for bias gradients (a GEMV)              */
	size_t partials;  /* doubles of the fixed-order reductions, + ints      */
	size_t workspace; /* cuBLAS + cuDNN                                     */
	size_t total;
} hy_nn_cuda_scratch;

typedef struct hy_nn_mem_plan {
	size_t params;  /* weights, gradients, both moments  */
	size_t work;    /* hy_nn_work_init at the batch      */
	size_t scratch; /* the backend's scratch (above)     */
	size_t total;
} hy_nn_mem_plan;

/* Bytes of one allocation as the arena hands it out. */
size_t hy_nn_cuda_round(size_t bytes);
/* Floats of the parameter table of an architecture (hy_nn_params.total),
 * and the largest single tensor. */
size_t hy_nn_plan_param_floats(hy_nn_arch a, size_t *largest);
/* Bytes hy_nn_work_init (infer 0) or hy_nn_work_init_infer (infer 1)
 * allocates for a batch through the backend, with the activation storage
 * of precision (hy_nn_precision). */
size_t hy_nn_plan_work_bytes(hy_nn_arch a, int batch, int precision, int infer);
void hy_nn_plan_scratch(hy_nn_arch a, int batch, int precision, hy_nn_cuda_scratch *s);
/* The model, the workspace (training or inference) and the scratch. */
void hy_nn_plan_mem(hy_nn_arch a, int batch, int precision, int infer, hy_nn_mem_plan *p);
/* Largest batch in [1, 1 << 20] whose plan fits in avail bytes (after
 * HY_NN_CUDA_MARGIN); 0 when not even batch 1 fits. */
int hy_nn_plan_max_batch(hy_nn_arch a, int precision, int infer, size_t avail);
/* HY_OK when the plan of batch fits in mem_free bytes of the GPU named
 * gpu; else HY_EUSAGE: "batch N of a BxC network needs X GiB of GPU memory
 * (…); GPU has Y GiB free: the largest batch that fits is M". */
hy_status hy_nn_plan_check(hy_nn_arch a, int batch, int precision, int infer, size_t mem_free,
	const char *gpu, hy_diag *d);

/* ------------------------------------------------------------ conv cache */

typedef enum hy_nn_conv_dir {
	HY_NN_CONV_FWD = 0,
	HY_NN_CONV_BWD_DATA = 1,
	HY_NN_CONV_BWD_FILTER = 2,
} hy_nn_conv_dir;

typedef enum hy_nn_conv_impl {
	HY_NN_CONV_AUTO = 0,  /* timed at the first use of a shape           */
	HY_NN_CONV_GEMM = 1,  /* three shifted cuBLAS GEMMs                  */
	HY_NN_CONV_CUDNN = 2, /* cuDNN's convolution                         */
} hy_nn_conv_impl;

/* A shape's key: direction (2 bits), precision (1), batch (21 bits, so at
 * most 2^21 − 1), cin and cout (13 bits each, at most 8191). 0 for a shape
 * out of these ranges (never cached). */
uint64_t hy_nn_conv_key(int dir, int precision, int batch, int cin, int cout);
/* The batch a choice is keyed and timed on: B rounded up to a power of two
 * (at most 2^20), so that inference with 1…1024 pending requests makes 11
 * keys, not 1024 (finding 4 of the CUDA review). */
int hy_nn_conv_bucket(int B);

typedef struct hy_nn_conv_choice {
	uint64_t key;
	int impl;          /* HY_NN_CONV_GEMM or HY_NN_CONV_CUDNN           */
	int algo;          /* cuDNN algorithm (its enum value), −1: none    */
	size_t ws;         /* cuDNN workspace bytes for algo                */
	float ms_gemm;     /* measured time of one call, ms (< 0: not timed) */
	float ms_cudnn;
	uint64_t used;     /* the cache's clock at the last find or put     */
} hy_nn_conv_choice;

enum { HY_NN_CONV_CACHE = 64 };

typedef struct hy_nn_conv_cache {
	int n;
	uint64_t clock;
	hy_nn_conv_choice e[HY_NN_CONV_CACHE];
} hy_nn_conv_cache;

/* The entry of key (marked as just used), or NULL. */
const hy_nn_conv_choice *hy_nn_conv_cache_find(hy_nn_conv_cache *c, uint64_t key);
/* Adds (or replaces) an entry; when the cache is full the least recently
 * used entry gives way. −1 only for key 0. */
int hy_nn_conv_cache_put(hy_nn_conv_cache *c, const hy_nn_conv_choice *e);
/* "fwd B=256 85->256 bf16: gemm 0.123 ms, cudnn algo 1 0.150 ms: gemm" lines. */
size_t hy_nn_conv_cache_format(const hy_nn_conv_cache *c, char *buf, size_t n);

/* ------------------------------------------------------------ linear plans */

/* A linear layer's shape as cuBLASLt plans it (lib/nn/cuda/lt.cu): the
 * matmul descriptor, the three layouts and the heuristic's algorithm are
 * made once per distinct shape and kept in the slot this index gives it. */
typedef struct hy_nn_lt_shape {
	int precision, rows, in, out, ldx, ldy, bias; /* bias: 0 or 1 */
} hy_nn_lt_shape;

enum { HY_NN_LT_CACHE = 64 };

typedef struct hy_nn_lt_index {
	int n;
	hy_nn_lt_shape s[HY_NN_LT_CACHE];
} hy_nn_lt_index;

/* The slot of shape s: an existing one (*fresh = 0) or a new one (*fresh =
 * 1: the caller makes its plan); −1 when the index is full or the shape is
 * not a valid one (sizes < 1, a row stride below the row length, a flag
 * not 0 or 1), which the caller runs unplanned. */
int hy_nn_lt_slot(hy_nn_lt_index *c, const hy_nn_lt_shape *s, int *fresh);

/* ------------------------------------------------------------ graphs */

/* CUDA graphs of inference forwards (issue 43 step 4; ctx.cu graph_*):
 * one graph per (model, workspace, batch), captured at the key's second
 * forward (the first runs eagerly, so that the convolution choice, the
 * cuBLASLt plans and any timing are made outside a capture), replayed from
 * the third on. The index is the host side: which keys are known, in what
 * state, and which gives way when it is full (least recently used). */
typedef enum hy_nn_graph_state {
	HY_NN_GRAPH_SEEN = 1,   /* one eager forward so far                 */
	HY_NN_GRAPH_READY = 2,  /* captured: replayed from now on           */
	HY_NN_GRAPH_FAILED = 3, /* capture failed: eager for good           */
} hy_nn_graph_state;

enum { HY_NN_GRAPH_CACHE = 16 };

typedef struct hy_nn_graph_key {
	const void *model, *work;
	int batch;
} hy_nn_graph_key;

typedef struct hy_nn_graph_index {
	int n;
	uint64_t clock;
	struct {
		hy_nn_graph_key key;
		int state;
		uint64_t used;
	} e[HY_NN_GRAPH_CACHE];
} hy_nn_graph_index;

/* The slot of key, marked as just used; −1 when absent. */
int hy_nn_graph_find(hy_nn_graph_index *g, const hy_nn_graph_key *key);
/* A slot for a new key in state SEEN: a free one, or the least recently
 * used one, whose previous key is returned in *evicted (and 1 in
 * *had_evicted, so that the caller destroys that slot's graph first). */
int hy_nn_graph_add(hy_nn_graph_index *g, const hy_nn_graph_key *key, int *had_evicted,
	hy_nn_graph_key *evicted);
/* The state a forward of key moves the slot to and what the caller does:
 * SEEN → capture (CAPTURING), READY → replay (REPLAYED), FAILED and a new
 * key → EAGER. */
int hy_nn_graph_action(const hy_nn_graph_index *g, int slot);

#endif
