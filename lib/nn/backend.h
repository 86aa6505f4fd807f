/* Op-level interface of the network (ARCHITECTURE.md §8): every op the model needs,
 * behind one table of function pointers: the CPU backend
 * (hy_nn_backend_cpu(), lib/nn/cpu.c, the reference) and the CUDA one
 * (hy_nn_backend_cuda(), lib/nn/cuda/cuda.h). Pointers passed to ops live
 * in the backend's memory (host for the CPU, device for CUDA); the structs
 * are identical in both builds.
 *
 * Activation layout, written once: [B][36][C] — sample outermost, then the
 * 34 tiles padded by one zero row on each side (row 0 and row 35), channels
 * fastest. Row r = b·36 + 1 + t holds tile t of sample b. Every op that
 * writes an activation or an activation gradient leaves the pad rows zero;
 * ops may rely on zero pads in their inputs. A 3-tap convolution is then
 * three shifted GEMMs over all B·36 − 2 rows at once.
 *
 * Conv weights are stored [Cout][3][Cin] (tap before input channel), linear
 * weights [out][in]. Weight and bias gradients are ACCUMULATED (+=); the
 * caller zeroes them once per step. Reductions are done in a fixed order
 * for a fixed thread count, so results are bit-reproducible run to run. */
#ifndef HY_NN_BACKEND_H
#define HY_NN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "nn/ops.h"
#include "nn/params.h"

enum {
	HY_NN_T = 34,      /* tiles                       */
	HY_NN_TP = 36,     /* padded rows per sample      */
	HY_NN_GROUPS = 32, /* GroupNorm groups            */
	HY_NN_MARKS = 4096, /* timer slots (backend mark)  */
	HY_NN_COPY_FENCES = 64, /* copy fences (backend copy_mark):             */
	HY_NN_FENCE_FEED = 0,   /* 0, 1: the feed's slots (train/feed.c)        */
	HY_NN_FENCE_GRAD = 2,   /* 2 … 63: gradient buckets' downloads (mpi/grad.c) */
};

/* Arithmetic precision of a context (ARCHITECTURE.md §8). FP32: every op in fp32.
 * BF16: activations and activation gradients are STORED in bf16 (see
 * hy_nn_act below), GEMMs and convolutions multiply bf16 operands on
 * tensor cores with fp32 accumulation; master weights, weight gradients,
 * GroupNorm statistics, softmax, losses, gradient norms and optimiser
 * state stay fp32; no loss scaling (bf16 has fp32's exponent range). The
 * CPU backend always computes and stores in fp32, so a GPU run in FP32 can
 * be compared with it. */
typedef enum hy_nn_precision {
	HY_NN_PREC_FP32 = 0,
	HY_NN_PREC_BF16 = 1,
} hy_nn_precision;

/* Execution context of a backend: thread count. On the CPU it sizes the
 * OpenMP loops and the row split of every GEMM; OpenBLAS itself is set to
 * one thread by hy_nn_ctx_init (one thread pool, no spinning against it). */
/* Activation storage: the [B][36][C] tensors of the trunk (its input, every
 * block's intermediate values and output, the final GroupNorm+Mish) and
 * their gradients — the bulk of a training step's memory and traffic. An
 * opaque element type, so that the compiler keeps these buffers apart from
 * the fp32 ones: fp32 on the CPU (cpu.c reads them as float) and on CUDA in
 * FP32, bf16 (the upper half of an fp32, rounded to nearest even by
 * hy_nn_bf16_round) on CUDA in BF16. hy_nn_act_size gives the bytes of an
 * element; hy_nn_act_put / hy_nn_act_get move fp32 host values in and out.
 * Everything else — heads, SE vectors, pooled features, losses — is fp32. */
typedef struct hy_nn_act hy_nn_act;

/* What a backend's graph_begin tells hy_nn_forward (below). */
enum {
	HY_NN_GRAPH_EAGER = 0,     /* queue the ops                          */
	HY_NN_GRAPH_REPLAYED = 1,  /* done: the graph was launched           */
	HY_NN_GRAPH_CAPTURING = 2, /* queue the ops, then call graph_end     */
};

typedef struct hy_nn_ctx {
	int threads;
	int device;    /* CUDA device ordinal; unused on the CPU                */
	int precision; /* hy_nn_precision; the CPU computes in fp32 whatever it says */
	int fast;      /* CUDA: allow non-deterministic algorithms; 0 by default */
	void *priv;    /* backend handles (cuBLAS, streams); NULL on the CPU     */
} hy_nn_ctx;

typedef struct hy_nn_backend {
	const char *name;

	/* memory: zeroed allocation of n floats / bytes, free, copies */
	void *(*alloc)(size_t bytes);
	void (*free)(void *p);
	void (*to_dev)(void *dst, const void *src, size_t bytes);
	void (*to_host)(void *dst, const void *src, size_t bytes);
	void (*zero)(void *p, size_t bytes);

	/* The computing ops, one member each: nn/ops.h's list (its docs there),
	 * the core ops then the optional device ones (NULL where a backend has
	 * no use for them, as on the CPU). */
	HY_NN_OPS(HY_NN_OP_MEMBER)

	/* The members below are optional too (NULL on the CPU). */
	/* Activation storage other than fp32 (NULL: fp32, as on the CPU).
	 * act_size: bytes of an element in this context. act_put / act_get:
	 * n fp32 host values into / out of activation storage (synchronous, as
	 * to_dev / to_host). (act_from_f32, queued with the ops, is in the
	 * op list.) */
	size_t (*act_size)(const hy_nn_ctx *c);
	void (*act_put)(const hy_nn_ctx *c, size_t n, const float *host, hy_nn_act *dst);
	void (*act_get)(const hy_nn_ctx *c, size_t n, const hy_nn_act *src, float *host);
	/* The feed's copies (train/feed.h). host_alloc/host_free: zeroed
	 * page-locked host memory for batches (NULL: malloc/free).
	 * to_dev_async: queues a host→device copy on the context's copy stream
	 * (its own, so that it overlaps the ops queued meanwhile), after every
	 * dev_copy queued before it (so a staging buffer is not overwritten
	 * while an earlier dev_copy still reads it); src must stay untouched
	 * until a sync after the dev_copy (the op list) that reads dst. */
	void *(*host_alloc)(size_t bytes);
	void (*host_free)(void *p);
	void (*to_dev_async)(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes);
	/* to_host_async: queues a device→host copy into page-locked dst
	 * (host_alloc) on the copy stream, after every op queued before it;
	 * dst holds the values once a fence marked after it has passed (the
	 * gradient buckets of an overlapped sum, mpi/grad.h).
	 * Fences of the copy stream: a host buffer goes back to its writers
	 * (the feed's slots), or to MPI (a downloaded bucket), only once its
	 * copy has passed. copy_mark: records fence k (0 ≤ k <
	 * HY_NN_COPY_FENCES) on the copy stream after every copy queued there
	 * so far. copy_wait: the host waits until fence k has passed (a fence
	 * never recorded has). copy_done: 1 if fence k has passed, 0 if not
	 * yet; it does not wait. A failure counts as passed and is kept for
	 * sync. NULL where to_dev_async is. */
	void (*to_host_async)(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes);
	void (*copy_mark)(const hy_nn_ctx *c, int k);
	void (*copy_wait)(const hy_nn_ctx *c, int k);
	int (*copy_done)(const hy_nn_ctx *c, int k);
	/* Waits for the queued work and returns the first failure of any op or
	 * copy since the context was made (ops return void and queue work
	 * asynchronously; a failure is kept with its call, file and line).
	 * NULL: ops cannot fail. */
	hy_status (*sync)(const hy_nn_ctx *c, hy_diag *d);
	/* Device timers for profiling (nn/prof.h). mark: records a timestamp
	 * in slot (0 ≤ slot < HY_NN_MARKS) on the op stream, queued with the
	 * ops. mark_ms: waits for slot b's timestamp and returns the
	 * milliseconds from slot a's to it (negative after a failure). NULL
	 * where ops are synchronous (the CPU: the wall clock times them). */
	void (*mark)(const hy_nn_ctx *c, int slot);
	double (*mark_ms)(const hy_nn_ctx *c, int a, int b);
	/* Graphs of inference forwards (hy_nn_forward on an inference
	 * workspace; NULL where launches cost nothing to speak of, as on the
	 * CPU). graph_begin(c, model, work, B) answers what the caller does
	 * (HY_NN_GRAPH_* above): EAGER, queue the ops; REPLAYED, the
	 * forward is already queued (a graph captured earlier was launched:
	 * it reads the inputs and weights where they are now); CAPTURING, queue
	 * the ops, which are recorded, then call graph_end, which launches
	 * them and returns 1 when the capture failed and the ops must be
	 * queued again (that key then stays eager). graph_reset: forget every
	 * graph (their addresses die with a workspace or a model). */
	int (*graph_begin)(const hy_nn_ctx *c, const void *model, const void *work, int B);
	int (*graph_end)(const hy_nn_ctx *c);
	void (*graph_reset)(const hy_nn_ctx *c);
} hy_nn_backend;

/* The CPU's table on the path in force (nn/cpupath.h: OpenBLAS or oneDNN). */
const hy_nn_backend *hy_nn_backend_cpu(void);

/* The three activation-storage helpers, for any backend (fp32 copies where
 * it has no act_* entries). */
size_t hy_nn_act_size(const hy_nn_backend *be, const hy_nn_ctx *c);
void hy_nn_act_put(const hy_nn_backend *be, const hy_nn_ctx *c, size_t n, const float *host,
	hy_nn_act *dst);
void hy_nn_act_get(const hy_nn_backend *be, const hy_nn_ctx *c, size_t n, const hy_nn_act *src,
	float *host);
/* From fp32 values in the backend's memory (be->dev_copy / to_dev_async
 * order as backend.h states for dev_copy). */
void hy_nn_act_from_f32(const hy_nn_backend *be, const hy_nn_ctx *c, size_t n,
	const float *src, hy_nn_act *dst);

/* Sets the thread count (≥ 1) and openblas_set_num_threads(1). Results are
 * bit-identical run to run for a given thread count. */
void hy_nn_ctx_init(hy_nn_ctx *c, int threads);

/* Zeroes the two pad rows of every sample of a [B][36][C] buffer. */
void hy_nn_zero_pads_cpu(const hy_nn_ctx *c, int B, int C, float *x);
/* db[j] += Σ_r dy[r][j] over rows of stride ldy, j < n, rows summed in
 * order (the CPU's bias gradient; the same sums on every CPU path). */
void hy_nn_colsum_cpu(const hy_nn_ctx *c, int rows, int n, const float *dy, int ldy, float *db);

#endif
