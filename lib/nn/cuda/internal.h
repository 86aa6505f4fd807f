/* Internals of the CUDA backend shared by ctx.cu (context, memory, the op
 * table), gemm.cu (the GEMMs and linear layers), conv.cu (the
 * convolutions), lt.cu (cuBLASLt) and kernels.cu (the small kernels). C++ as
 * nvcc compiles it; nothing here is visible outside lib/nn/cuda/. */
#ifndef HY_NN_CUDA_INTERNAL_H
#define HY_NN_CUDA_INTERNAL_H

#include <cublas_v2.h>
#ifdef HY_HAVE_CUBLASLT
#include <cublasLt.h>
#endif
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "nn/cuda/cuda.h"
#include "nn/cuda/plan.h"
#include "samples/sample.h"
}

/* A linear shape's cuBLASLt plan (lt.cu): descriptor, layouts of A (W),
 * B (X) and C = D (y), preference, the heuristic's algorithm. */
#ifdef HY_HAVE_CUBLASLT
typedef struct cu_lt_plan {
	int ok;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t lay[3];
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulHeuristicResult_t heur;
} cu_lt_plan;
#endif

typedef struct cu_ctx cu_ctx;

/* The kernels that differ between the two paths (cuda.h hy_nn_cuda_path),
 * chosen once per context by cu_path_set: v1's (kernels.cu, conv.cu) or
 * v2's (fused.cu, conv.cu's chunks). A v2 kernel given a call it does not
 * take (a width or alignment of its own) runs v1's itself. Activation
 * pointers are activation storage (void: bf16 or fp32 per the context). */
typedef struct cu_path_ops {
	void (*gn_mish_fwd)(cu_ctx *x, int B, int C, const void *in, const float *gamma,
		const float *beta, void *z, void *a, float *mean, float *rstd);
	/* leaves the dγ/dβ partials in scratch for k_gn_param_grads */
	void (*gn_mish_bwd)(cu_ctx *x, int B, int C, const void *in, const void *z,
		const float *gamma, const float *mean, const float *rstd, const void *da, void *dx,
		int dx_acc, float *scratch);
	void (*se_fwd)(cu_ctx *x, int B, int C, const void *in, const void *y, const float *e2,
		float *s, void *out);
	/* a bf16 3-tap convolution in direction dir (conv.cu) */
	void (*conv_bf16)(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
		const float *w, const void *dy, void *out);
} cu_path_ops;

/* The private state behind hy_nn_ctx.priv. */
struct cu_ctx {
	int device, precision, fast, conv;
	int path;        /* HY_NN_CUDA_PATH_V1, _V2 or _V3 (cuda.h): cu_path_set  */
	struct cu_v3 *v3; /* v3's plan and scratch (v3/v3.h); NULL: not v3     */
	const cu_path_ops *ops; /* the path's kernels                            */
	size_t l2_bytes; /* the device's L2 (the chunks of conv.cu's v2 taps)    */
	int sms;         /* its SMs (the chunks are whole waves of the GEMM)     */
	int chunk_rows;  /* rows of the last chunked convolution (the report)   */
	/* graphs of inference forwards (graph.cu): on in a v2 context */
	int graphs, gslot; /* gslot: the slot being captured, −1: none          */
	hy_status cap_err; /* a call refused during the capture (cu_fail)      */
	char cap_msg[256];
	hy_nn_graph_index gidx;
	cudaGraphExec_t gexec[HY_NN_GRAPH_CACHE];
	int graph_captures, graph_replays, graph_failed;
	hy_nn_arch arch;
	int max_batch;
	cudaStream_t s;
	cublasHandle_t blas;
	cudnnHandle_t dnn;
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	cudaEvent_t ev0, ev1;
	/* profiling timers (backend mark), made on the first use */
	cudaEvent_t *marks;
	/* the feed's copies: their own stream; ev_up after the last upload,
	 * ev_use after the last dev_copy (backend.h to_dev_async) */
	cudaStream_t cs;
	cudaEvent_t ev_up, ev_use;
	/* fences of the copy stream (backend copy_mark/copy_wait/copy_done);
	 * ev_ops: the ops queued before a to_host_async */
	cudaEvent_t ev_copy[HY_NN_COPY_FENCES], ev_ops;
#ifdef HY_HAVE_CUBLASLT
	cublasLtHandle_t lt;
	cu_lt_plan lt_plan[HY_NN_LT_CACHE];
#else
	void *lt; /* NULL: no cuBLASLt in this build */
#endif
	hy_nn_lt_index lt_index;
	/* scratch: one allocation carved as plan.h's hy_nn_cuda_scratch */
	void *scratch;
	uint16_t *act16[2], *w16[2];
	float *wtmp, *ones;
	double *part;   /* HY_NN_CUDA_PARTIALS block partials, then results:
			 * HY_NN_CUDA_RESULTS pairs (sum, count bits); the
			 * last pair is read at once (sumsq), the others by
			 * the queued losses until the next sync */
	double *hres;   /* page-locked copies of the result pairs */
	struct {
		double *sum;
		int *correct;
	} pend[HY_NN_CUDA_RESULTS - 1]; /* the queued losses' host addresses */
	int npend;
	double *rowloss;
	int *rowok;
	void *ws;
	size_t ws_bytes;
	size_t act_cap, w_cap; /* elements of act16[i] and of w16[i] */
	/* AdamW's tensor table on the device (rebuilt when the table changes) */
	void *spans;
	uint64_t spans_hash; /* of the table the device copy was made from */
	int nspans;
	hy_nn_mem_plan plan;
	hy_nn_conv_cache cache;
	int conv_timings; /* choices made by timing (conv.cu choose) */
	/* the first failure: status and "call: reason (file:line)" */
	hy_status err;
	char msg[480];
};

static inline cu_ctx *cu_of(const hy_nn_ctx *c)
{
	return (cu_ctx *)c->priv;
}

/* The context of an entry point of the op table, with its device made the
 * calling thread's current one: an op may come from another thread than
 * the one that made the context (loader threads, two contexts on two
 * ordinals), and CUDA's current device is per thread (finding 6). */
static inline cu_ctx *cu_enter(const hy_nn_ctx *c)
{
	cu_ctx *x = (cu_ctx *)c->priv;
	int cur = -1;
	if (cudaGetDevice(&cur) != cudaSuccess || cur != x->device)
		(void)cudaSetDevice(x->device); /* a failure shows in the op's own status */
	return x;
}

/* One macro family checks every CUDA, cuBLAS and cuDNN status: on failure
 * the call's text, the library's reason, file and line are kept in the
 * context (the first failure only) and the macro yields nonzero. */
int cu_fail(cu_ctx *x, hy_status st, const char *call, const char *why, const char *file,
	int line);
#define CU_RT(x, call)                                                                     \
	({                                                                                     \
		cudaError_t e_ = (call);                                                       \
		e_ == cudaSuccess ? 0                                                          \
				  : cu_fail((x), e_ == cudaErrorMemoryAllocation ? HY_ENOMEM : HY_EIO, \
					  #call, cudaGetErrorString(e_), __FILE__, __LINE__);          \
	})
#define CU_BLAS(x, call)                                                                   \
	({                                                                                     \
		cublasStatus_t e_ = (call);                                                    \
		e_ == CUBLAS_STATUS_SUCCESS ? 0                                                \
					    : cu_fail((x), HY_EIO, #call, cublasGetStatusString(e_), \
						    __FILE__, __LINE__);                         \
	})
#define CU_DNN(x, call)                                                                    \
	({                                                                                     \
		cudnnStatus_t e_ = (call);                                                     \
		e_ == CUDNN_STATUS_SUCCESS ? 0                                                 \
					   : cu_fail((x), HY_EIO, #call, cudnnGetErrorString(e_), \
						   __FILE__, __LINE__);                          \
	})
/* After a <<<>>> launch: a bad configuration shows here. */
#define CU_LAUNCH(x, what)                                                                 \
	({                                                                                     \
		cudaError_t e_ = cudaGetLastError();                                           \
		e_ == cudaSuccess ? 0                                                          \
				  : cu_fail((x), HY_EIO, "launch of " what, cudaGetErrorString(e_),   \
					  __FILE__, __LINE__);                                        \
	})

/* ------------------------------------------------------------ lt.cu */

/* cuBLASLt handle; lt_free also releases every plan. */
int lt_init(cu_ctx *x);
void lt_free(cu_ctx *x);
/* y[rows][out] = X·Wᵀ (+ b) with bf16 X (row stride ldx) and W, fp32 y
 * (ldy): 0 when queued (or failed, kept in x), 1 when the caller must run
 * its fallback (fp32 context, no cuBLASLt, no plan for the shape). */
int lt_linear_fwd(cu_ctx *x, int rows, int in, int out, const void *X, int ldx, const void *W,
	const float *b, float *y, int ldy);

/* A row count past the context's batch: kept as a usage failure (ctx.cu). */
int too_big(cu_ctx *x, long rows, long cap, const char *op);

/* ------------------------------------------------------------ gemm.cu, conv.cu */

/* Element e of a matrix of fp32 (bf16 = 0) or bf16 values. */
static inline const void *cu_at(const void *p, size_t e, int bf16)
{
	return (const char *)p + e * (bf16 ? 2 : 4);
}

static inline void *cu_at_w(void *p, size_t e, int bf16)
{
	return (char *)p + e * (bf16 ? 2 : 4);
}

/* Row-major C[M][N] = alpha·op(A)·op(B) + beta·C (fp32 C; A and B bf16 when
 * bf16), queued on x->s; c_bf16: C is bf16 too. Nonzero on failure. */
int cu_gemm_rm_c(cu_ctx *x, int ta, int tb, int M, int N, int K, float alpha, const void *A,
	int lda, const void *B, int ldb, float beta, void *C, int ldc, int bf16, int c_bf16);
int cu_gemm_rm(cu_ctx *x, int ta, int tb, int M, int N, int K, float alpha, const void *A,
	int lda, const void *B, int ldb, float beta, float *C, int ldc, int bf16);
/* src itself in fp32, else its bf16 copy in dst (rows × cols, stride ld). */
const void *cu_operand(cu_ctx *x, const float *src, int rows, int cols, int ld, uint16_t *dst);

/* The op table's entries (backend.h), one cu_NAME per row of nn/ops.h:
 * gemm, linear and conv1 in gemm.cu, conv3 in conv.cu, the device ops in
 * ctx.cu, the rest in kernels.cu. */
#define CU_DECL(kind, ret, name, params, args, check) ret cu_##name params;
HY_NN_OPS(CU_DECL)
#undef CU_DECL

/* ------------------------------------------------------------ kernels.cu */

/* Launch wrappers: each queues one kernel on x->s and checks the launch.
 * Pointers typed void are activation storage (backend.h hy_nn_act): bf16
 * bits in a bf16 context, floats in an fp32 one; the wrapper picks the
 * kernel's instance from x->precision. */
/* Kernel attributes for contexts of up to max_c channels (dynamic shared
 * memory); nonzero on failure, kept in x. */
int k_setup(cu_ctx *x, int max_c);
void k_to_bf16(cu_ctx *x, int rows, int cols, const float *src, int ld, uint16_t *dst);
/* dst [rows][3·cols]: row r = src rows r, r+1, r+2 (bf16): conv taps. */
void k_taps_bf16(cu_ctx *x, int rows, int cols, const void *src, uint16_t *dst);
/* dst [3·cout][cin]: dst[j·cout + o] = W[o][2 − j] (bf16): dx's weights. */
void k_wflip_bf16(cu_ctx *x, int cout, int cin, const float *w, uint16_t *dst);
void k_bf16_to_f32(cu_ctx *x, size_t n, const uint16_t *src, float *dst);
/* fp32 [B][36][C] (head tensors) / activation storage */
void k_zero_pads(cu_ctx *x, int B, int C, float *p);
void k_zero_pads_act(cu_ctx *x, int B, int C, void *p);
/* n fp32 values of device memory into activation storage */
void k_act_from_f32(cu_ctx *x, size_t n, const float *src, void *dst);
void k_add_bias(cu_ctx *x, int rows, int n, const float *b, float *y, int ldy);
void k_fill(cu_ctx *x, size_t n, float v, float *p);
/* The queued losses' sums into their host addresses (after the stream
 * has finished; NAN when ok is 0); ctx.cu's sync calls it. */
void k_losses_deliver(cu_ctx *x, int ok);
void k_expand_obs(cu_ctx *x, int B, const uint16_t *obs, void *out);
/* spans: count × {offset, size, decay} (cu_span) in device memory. */
typedef struct cu_span {
	unsigned long long offset, size;
	int decay, pad;
} cu_span;
void k_adamw_spans(cu_ctx *x, const cu_span *spans, int count, size_t end, float *p,
	const float *g, float *m, float *v, float lr, float b1, float b2, float eps, float wd,
	float bc1, float sqrt_bc2);

/* ------------------------------------------------------------ graph.cu */

/* backend.h graph_begin / graph_end / graph_reset. */
int cu_graph_begin(const hy_nn_ctx *c, const void *model, const void *work, int B);
int cu_graph_end(const hy_nn_ctx *c);
void cu_graph_reset(const hy_nn_ctx *c);

/* ------------------------------------------------------------ fused.cu (path v2) */

/* Blocks of 256 threads for a grid-stride loop over n elements, at most
 * 2^16 (kernels.cu; every kernel of kernels.cu and fused.cu is 256 wide). */
unsigned blocks_for(size_t n);

/* dst [n][kp] = the taps of src rows r0 … r0 + n − 1 (map.h), zeros in
 * the padding up to kp (a multiple of 8, ≥ 3·cols); src: bf16 activation
 * storage. */
void k2_taps(cu_ctx *x, int r0, int n, int cols, int kp, const void *src, uint16_t *dst);
/* dst [rows][kp] = bf16 of src (rows × cols, stride ld), zeros past cols. */
void k2_pad_bf16(cu_ctx *x, int rows, int cols, int kp, const float *src, int ld, uint16_t *dst);
/* The two paths' kernels of cu_path_ops: v1's in kernels.cu (k1_*) and
 * conv.cu (cu_conv_bf16_v1), v2's in fused.cu (k2_*) and conv.cu
 * (cu_conv_bf16_v2). */
void k1_gn_mish_fwd(cu_ctx *x, int B, int C, const void *in, const float *gamma,
	const float *beta, void *z, void *a, float *mean, float *rstd);
void k1_gn_mish_bwd(cu_ctx *x, int B, int C, const void *in, const void *z, const float *gamma,
	const float *mean, const float *rstd, const void *da, void *dx, int dx_acc, float *scratch);
void k1_se_fwd(cu_ctx *x, int B, int C, const void *in, const void *y, const float *e2, float *s,
	void *out);
void k2_gn_mish_fwd(cu_ctx *x, int B, int C, const void *in, const float *gamma,
	const float *beta, void *z, void *a, float *mean, float *rstd);
void k2_gn_mish_bwd(cu_ctx *x, int B, int C, const void *in, const void *z, const float *gamma,
	const float *mean, const float *rstd, const void *da, void *dx, int dx_acc, float *scratch);
void k2_se_fwd(cu_ctx *x, int B, int C, const void *in, const void *y, const float *e2, float *s,
	void *out);
void cu_conv_bf16_v1(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out);
void cu_conv_bf16_v2(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out);
/* Sets x->path and x->ops: v2's kernels only in a bf16 context (they are
 * bf16 kernels; an fp32 context runs v1 whatever it asked). The one place
 * the path is chosen: the context's start (ctx.cu), and the roof benchmark
 * timing both paths on one context. */
void cu_path_set(cu_ctx *x, int path);
/* Path v3's scratch and kernel attributes for the context's arch and batch
 * (v3/ops.cu): nonzero on failure (kept in x); x->v3 stays NULL where the
 * GPU has no bf16 warp MMA, and the block then runs v2's ops. cu_v3_free
 * releases it (ctx_release). */
int cu_v3_init(cu_ctx *x);
void cu_v3_free(cu_ctx *x);
/* dγ, dβ += Σ_b of the per-sample partials in scratch [2][B][C] (the
 * fixed-order two-pass sum of kernels.cu, shared by v1 and v2). */
void k_gn_param_grads(cu_ctx *x, int B, int C, float *scratch, float *dgamma, float *dbeta);

#endif

