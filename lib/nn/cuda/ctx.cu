/* The CUDA backend (cuda.h): context and memory, GEMMs through cuBLAS,
 * 3-tap convolutions as GEMMs over shifted rows (bf16: one GEMM over the
 * three taps side by side) or through cuDNN, the op table.
 * The small kernels are in kernels.cu.
 *
 * Streams and memory. Every op queues its work on the context's stream
 * (a blocking stream, so the legacy default stream used by the copies and
 * allocations of the table — which get no context — is ordered with it:
 * a to_host after an op sees the op's result). Device memory comes from
 * the device's stream-ordered pool, which ctx_init reserves to the planned
 * size of the model and its workspace (plan.h) and keeps (release
 * threshold ∞): the arena; the backend's scratch is one allocation carved
 * as plan.h says. Peak use is read from the pool.
 *
 * Precision (backend.h). BF16: activations and their gradients are stored
 * in bf16 (hy_nn_act), so a convolution reads them as they are (its taps
 * are one copy, k_taps_bf16) and writes its bf16 output directly (cuBLAS
 * with a bf16 C, or cuDNN), fp32 accumulation throughout; weights and the
 * fp32 head tensors are rounded to bf16 into scratch (k_to_bf16) where
 * they are GEMM operands; weight gradients accumulate in fp32. FP32: fp32
 * storage and operands, fp32 compute, no TF32.
 *
 * Determinism. cuBLAS is run-to-run deterministic on one GPU with a fixed
 * workspace (no atomics mode); cuDNN algorithms are restricted to the
 * deterministic ones; every reduction kernel has a fixed order. The
 * convolution implementation of a shape is timed at its first use (both
 * candidates, reported by hy_nn_cuda_report), but a choice by timing could
 * differ between two runs, so by default the GEMM form is used and the
 * timed winner only with --fast (cfg.fast). */
#include "nn/cuda/internal.h"

extern "C" {
#include "nn/math.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cu_fail(cu_ctx *x, hy_status st, const char *call, const char *why, const char *file,
	int line)
{
	if (x && !x->err) {
		x->err = st;
		snprintf(x->msg, sizeof x->msg, "%s: %s (%s:%d)", call, why, file, line);
	}
	return 1;
}

/* ------------------------------------------------------------ memory */

/* Zeroed device memory from the pool (the arena that the context's plan
 * reserves and whose high-water mark is the peak reported), on the thread's
 * current device, in the legacy default stream; NULL on failure (the model
 * reports it as out of memory). Pool memory cannot be mapped by CUDA IPC,
 * so no device pointer is handed to MPI (dist/grad.c stages through
 * page-locked host memory: finding 7). */
static void *cu_alloc(size_t bytes)
{
	void *p = NULL;
	size_t n = hy_nn_cuda_round(bytes);
	if (cudaMallocAsync(&p, n, cudaStreamLegacy) != cudaSuccess) {
		(void)cudaGetLastError(); /* reported as NULL */
		return NULL;
	}
	if (cudaMemsetAsync(p, 0, n, cudaStreamLegacy) != cudaSuccess ||
		cudaStreamSynchronize(cudaStreamLegacy) != cudaSuccess) {
		(void)cudaGetLastError();
		(void)cudaFreeAsync(p, cudaStreamLegacy);
		return NULL;
	}
	return p;
}

/* The memory entries take no context: they bind the device that holds the
 * pointer (alloc: the thread's current device, which every entry point
 * with a context sets, cu_enter). */
static void bind_ptr(const void *p)
{
	cudaPointerAttributes a;
	int cur = -1;
	if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice &&
		(cudaGetDevice(&cur) != cudaSuccess || cur != a.device))
		(void)cudaSetDevice(a.device);
	(void)cudaGetLastError(); /* a host pointer is not an error here */
}

/* The table's copies have no context to keep a failure in: it stays in
 * the runtime's last error, which be->sync reports. */
static void cu_free(void *p)
{
	if (p) {
		bind_ptr(p);
		(void)cudaFreeAsync(p, cudaStreamLegacy);
	}
}

static void cu_to_dev(void *dst, const void *src, size_t bytes)
{
	if (bytes) {
		bind_ptr(dst);
		(void)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
	}
}

static void cu_to_host(void *dst, const void *src, size_t bytes)
{
	if (bytes) {
		bind_ptr(src);
		(void)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
	}
}

static void cu_zero(void *p, size_t bytes)
{
	if (bytes) {
		bind_ptr(p);
		(void)cudaMemset(p, 0, bytes);
	}
}

/* ------------------------------------------------------------ GEMM */

/* Row-major C[M][N] = alpha·op(A)·op(B) + beta·C with fp32 C: cuBLAS is
 * column-major, so it computes Cᵀ = op(B)ᵀ·op(A)ᵀ. A and B are bf16 when
 * bf16, else fp32; fp32 accumulation either way. */
static int gemm_rm_c(cu_ctx *x, int ta, int tb, int M, int N, int K, float alpha,
	const void *A, int lda, const void *B, int ldb, float beta, void *C, int ldc, int bf16,
	int c_bf16)
{
	if (x->err)
		return 1;
	if (M <= 0 || N <= 0 || K <= 0)
		return 0;
	cudaDataType t = bf16 ? CUDA_R_16BF : CUDA_R_32F;
	cudaDataType tc = c_bf16 ? CUDA_R_16BF : CUDA_R_32F;
	return CU_BLAS(x, cublasGemmEx(x->blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
				  ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, t, ldb, A, t, lda,
				  &beta, C, tc, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* The same with an fp32 C. A bf16 C (activation storage) is read (β ≠ 0)
 * and written in bf16, the sum itself in fp32: one rounding per call. */
static int gemm_rm(cu_ctx *x, int ta, int tb, int M, int N, int K, float alpha, const void *A,
	int lda, const void *B, int ldb, float beta, float *C, int ldc, int bf16)
{
	return gemm_rm_c(x, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, bf16, 0);
}

/* Element e of a matrix of fp32 (bf16 = 0) or bf16 values. */
static const void *at(const void *p, size_t e, int bf16)
{
	return (const char *)p + e * (bf16 ? 2 : 4);
}

static void *at_w(void *p, size_t e, int bf16)
{
	return (char *)p + e * (bf16 ? 2 : 4);
}

/* The generic GEMM of the table is fp32 in both precisions (the model
 * does not use it on a hot path). */
static void cu_gemm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		gemm_rm(x, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0);
}

/* ------------------------------------------------------------ convolutions */

/* Operands in the context's precision: src itself in fp32, else its bf16
 * copy in dst (rows × cols, row stride ld, packed). */
static const void *operand(cu_ctx *x, const float *src, int rows, int cols, int ld,
	uint16_t *dst)
{
	if (x->precision != HY_NN_PREC_BF16)
		return src;
	size_t cap = dst == x->w16[0] || dst == x->w16[1] ? x->w_cap : x->act_cap;
	if ((size_t)rows * cols > cap) {
		cu_fail(x, HY_EUSAGE, "operand", "larger than the scratch planned for the context's "
			"architecture and batch", __FILE__, __LINE__);
		return src;
	}
	k_to_bf16(x, rows, cols, src, ld, dst);
	return dst;
}

/* Ops on more rows than the context was made for would overrun its
 * scratch (bf16 operands, the ones vector, per-row losses). */
static int too_big(cu_ctx *x, long rows, long cap, const char *op)
{
	if (rows <= cap)
		return 0;
	return cu_fail(x, HY_EUSAGE, op, "more rows than the batch the context was made for",
		__FILE__, __LINE__);
}

/* bf16 taps of rows × cols of activation storage (k_taps_bf16) into dst,
 * within its capacity. */
static const void *taps(cu_ctx *x, const void *src, int rows, int cols, uint16_t *dst)
{
	if ((size_t)rows * 3 * cols > x->act_cap) {
		cu_fail(x, HY_EUSAGE, "taps", "larger than the scratch planned for the context's "
			"architecture and batch", __FILE__, __LINE__);
		return src;
	}
	k_taps_bf16(x, rows, cols, src, dst);
	return dst;
}

/* bf16: each direction is ONE GEMM over the taps side by side (K or N =
 * 3·C, C written once): the taps of the bf16 input are one copy
 * (k_taps_bf16), the data gradient's weights are rearranged as they are
 * rounded (k_wflip_bf16), and y, dx are written in bf16 by the GEMM
 * itself (fp32 accumulation, one rounding). Same sums as the fp32 form
 * below, in one call: y(r+1) = X3(r)·Wᵀ, dx(r+1) = D3(r)·Wd, dW += dy(r+1)ᵀ·X3(r)
 * (dy read in place: it is bf16 already). */
static void conv_gemm_bf16(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	const int R = B * HY_NN_TP, rows = R - 2;
	if (dir == HY_NN_CONV_FWD) {
		const void *X3 = taps(x, in, rows, cin, x->act16[0]);
		const void *W = operand(x, w, cout, 3 * cin, 3 * cin, x->w16[0]);
		gemm_rm_c(x, 0, 1, rows, cout, 3 * cin, 1.0f, X3, 3 * cin, W, 3 * cin, 0.0f,
			at_w(out, cout, 1), cout, 1, 1);
		k_zero_pads_act(x, B, cout, out);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		const void *D3 = taps(x, dy, rows, cout, x->act16[1]);
		if ((size_t)3 * cout * cin > x->w_cap)
			cu_fail(x, HY_EUSAGE, "wflip", "weights larger than planned", __FILE__, __LINE__);
		else
			k_wflip_bf16(x, cout, cin, w, x->w16[0]);
		gemm_rm_c(x, 0, 0, rows, cin, 3 * cout, 1.0f, D3, 3 * cout, x->w16[0], cin, 0.0f,
			at_w(out, cin, 1), cin, 1, 1);
		k_zero_pads_act(x, B, cin, out);
	} else {
		const void *X3 = taps(x, in, rows, cin, x->act16[0]);
		gemm_rm(x, 1, 0, cout, 3 * cin, rows, 1.0f, at(dy, cout, 1), cout, X3, 3 * cin, 1.0f,
			(float *)out, 3 * cin, 1);
	}
}

/* The GEMM form (backend.h): over the rows r of all B·36 − 2 at once,
 * y(r+1) = Σ_k x(r+k)·W_kᵀ; dx(r+1) = Σ_j dy(r+j)·W_{2−j}; dW_k += Σ_r
 * dy(r+1)ᵀ·x(r+k). Rows that straddle two samples land on pad rows (zeroed
 * after) or meet zero pads. in, dy: activation storage; out: y, dx
 * (activation storage) or dw (fp32). fp32: three GEMMs per direction,
 * accumulating (β = 1) in the fp32 output; bf16: one. */
static void conv_gemm(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	const int R = B * HY_NN_TP, rows = R - 2;
	if (x->precision == HY_NN_PREC_BF16) {
		conv_gemm_bf16(x, dir, B, cin, cout, in, w, dy, out);
		return;
	}
	const float *X = (const float *)in, *D = (const float *)dy;
	float *O = (float *)out;
	if (dir == HY_NN_CONV_FWD) {
		for (int k = 0; k < 3; k++)
			gemm_rm(x, 0, 1, rows, cout, cin, 1.0f, X + (size_t)k * cin, cin,
				w + (size_t)k * cin, 3 * cin, k ? 1.0f : 0.0f, O + cout, cout, 0);
		k_zero_pads(x, B, cout, O);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		for (int j = 0; j < 3; j++)
			gemm_rm(x, 0, 0, rows, cin, cout, 1.0f, D + (size_t)j * cout, cout,
				w + (size_t)(2 - j) * cin, 3 * cin, j ? 1.0f : 0.0f, O + cin, cin, 0);
		k_zero_pads(x, B, cin, O);
	} else {
		for (int k = 0; k < 3; k++)
			gemm_rm(x, 1, 0, cout, cin, rows, 1.0f, D + cout, cout, X + (size_t)k * cin, cin,
				1.0f, O + (size_t)k * cin, 3 * cin, 0);
	}
}

/* cuDNN's view of the layout: NHWC with N = B, H = 1, W = 36 (pads
 * included), pad 1 along W, so that output w = Σ_k x(w − 1 + k)·W_k — rows
 * 1..34 are the convolution, rows 0 and 35 are zeroed after; the filter
 * [Cout][1][3][Cin] in NHWC is our [Cout][3][Cin]. */
static int conv_desc(cu_ctx *x, int B, int cin, int cout)
{
	const int bf = x->precision == HY_NN_PREC_BF16;
	cudnnDataType_t dt = bf ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
	return CU_DNN(x, cudnnSetTensor4dDescriptor(x->xd, CUDNN_TENSOR_NHWC, dt, B, cin, 1,
			      HY_NN_TP)) ||
		CU_DNN(x, cudnnSetTensor4dDescriptor(x->yd, CUDNN_TENSOR_NHWC, dt, B, cout, 1,
			      HY_NN_TP)) ||
		CU_DNN(x, cudnnSetFilter4dDescriptor(x->wd, dt, CUDNN_TENSOR_NHWC, cout, cin, 1, 3)) ||
		CU_DNN(x, cudnnSetConvolution2dDescriptor(x->cd, 0, 1, 1, 1, 1, 1,
			      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)) ||
		CU_DNN(x, cudnnSetConvolutionMathType(x->cd,
			      bf ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
}

/* The workspace of algorithm algo for the shape in the descriptors. */
static int conv_ws(cu_ctx *x, int dir, int algo, size_t *ws)
{
	if (dir == HY_NN_CONV_FWD)
		return CU_DNN(x, cudnnGetConvolutionForwardWorkspaceSize(x->dnn, x->xd, x->wd, x->cd,
				      x->yd, (cudnnConvolutionFwdAlgo_t)algo, ws));
	if (dir == HY_NN_CONV_BWD_DATA)
		return CU_DNN(x, cudnnGetConvolutionBackwardDataWorkspaceSize(x->dnn, x->wd, x->yd,
				      x->cd, x->xd, (cudnnConvolutionBwdDataAlgo_t)algo, ws));
	return CU_DNN(x, cudnnGetConvolutionBackwardFilterWorkspaceSize(x->dnn, x->xd, x->yd,
			      x->cd, x->wd, (cudnnConvolutionBwdFilterAlgo_t)algo, ws));
}

/* The cuDNN form with algorithm algo. in, dy, and the output y or dx are
 * activation storage in the descriptors' type (bf16 or fp32), read and
 * written in place; bf16 weights are rounded into scratch; the weight
 * gradient is fp32 (added to dw). */
static void conv_cudnn(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out, int algo, size_t ws)
{
	const float one = 1.0f, zero = 0.0f;
	if (conv_desc(x, B, cin, cout))
		return;
	/* the algorithm was chosen on another batch of the same bucket: its
	 * workspace for this one (within ours, else the GEMM form) */
	if (conv_ws(x, dir, algo, &ws))
		return;
	if (ws > x->ws_bytes) {
		conv_gemm(x, dir, B, cin, cout, in, w, dy, out);
		return;
	}
	if (dir == HY_NN_CONV_FWD) {
		const void *W = operand(x, w, cout, 3 * cin, 3 * cin, x->w16[0]);
		if (x->err)
			return;
		if (CU_DNN(x, cudnnConvolutionForward(x->dnn, &one, x->xd, in, x->wd, W, x->cd,
				      (cudnnConvolutionFwdAlgo_t)algo, x->ws, ws, &zero, x->yd, out)))
			return;
		k_zero_pads_act(x, B, cout, out);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		const void *W = operand(x, w, cout, 3 * cin, 3 * cin, x->w16[0]);
		if (x->err)
			return;
		if (CU_DNN(x, cudnnConvolutionBackwardData(x->dnn, &one, x->wd, W, x->yd, dy, x->cd,
				      (cudnnConvolutionBwdDataAlgo_t)algo, x->ws, ws, &zero, x->xd, out)))
			return;
		k_zero_pads_act(x, B, cin, out);
	} else { /* fp32 only (choose: a bf16 dw takes the GEMM form) */
		(void)CU_DNN(x, cudnnConvolutionBackwardFilter(x->dnn, &one, x->xd, in, x->yd, dy,
				     x->cd, (cudnnConvolutionBwdFilterAlgo_t)algo, x->ws, ws, &one,
				     x->wd, out));
	}
}

/* cuDNN's fastest usable algorithm for a shape, measured by cuDNN on our
 * buffers (out is overwritten: the caller passes the real output for y
 * and dx, scratch for dw): deterministic ones only unless fast, workspace
 * within ours. −1 when there is none (the failure is not an error: the
 * GEMM form is then used). */
static int find_algo(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out, size_t *ws, float *ms)
{
	enum { MAXP = 8 };
	int n = 0, algo = -1;
	if (conv_desc(x, B, cin, cout))
		return -1;
	const void *X = in, *D = dy; /* activation storage: the descriptors' type */
	const void *W = dir != HY_NN_CONV_BWD_FILTER ? operand(x, w, cout, 3 * cin, 3 * cin,
							     x->w16[0]) : NULL;
	if (x->err)
		return -1;
	cudnnStatus_t st;
#define PICK(perf)                                                                          \
	for (int i = 0; i < n && algo < 0; i++)                                                 \
		if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= x->ws_bytes &&  \
			(x->fast || perf[i].determinism == CUDNN_DETERMINISTIC)) {                  \
			algo = (int)perf[i].algo;                                               \
			*ws = perf[i].memory;                                                   \
			*ms = perf[i].time;                                                     \
		}
	if (dir == HY_NN_CONV_FWD) {
		cudnnConvolutionFwdAlgoPerf_t perf[MAXP];
		st = cudnnFindConvolutionForwardAlgorithmEx(x->dnn, x->xd, X, x->wd, W, x->cd, x->yd,
			out, MAXP, &n, perf, x->ws, x->ws_bytes);
		if (st == CUDNN_STATUS_SUCCESS)
			PICK(perf);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		cudnnConvolutionBwdDataAlgoPerf_t perf[MAXP];
		st = cudnnFindConvolutionBackwardDataAlgorithmEx(x->dnn, x->wd, W, x->yd, D, x->cd,
			x->xd, out, MAXP, &n, perf, x->ws, x->ws_bytes);
		if (st == CUDNN_STATUS_SUCCESS)
			PICK(perf);
	} else {
		cudnnConvolutionBwdFilterAlgoPerf_t perf[MAXP];
		st = cudnnFindConvolutionBackwardFilterAlgorithmEx(x->dnn, x->xd, X, x->yd, D, x->cd,
			x->wd, out, MAXP, &n, perf, x->ws, x->ws_bytes); /* fp32 only */
		if (st == CUDNN_STATUS_SUCCESS)
			PICK(perf);
	}
#undef PICK
	/* NOT_SUPPORTED and the like only mean "no cuDNN candidate here"; the
	 * runtime's error state is cleared so that sync does not report it */
	if (st != CUDNN_STATUS_SUCCESS)
		(void)cudaGetLastError();
	return algo;
}

/* Milliseconds of one GEMM-form call: the best of three after a warm-up. */
static float time_gemm(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	float best = -1.0f;
	conv_gemm(x, dir, B, cin, cout, in, w, dy, out);
	for (int r = 0; r < 3; r++) {
		float ms;
		if (CU_RT(x, cudaEventRecord(x->ev0, x->s)))
			return -1.0f;
		conv_gemm(x, dir, B, cin, cout, in, w, dy, out);
		if (CU_RT(x, cudaEventRecord(x->ev1, x->s)) || CU_RT(x, cudaEventSynchronize(x->ev1)) ||
			CU_RT(x, cudaEventElapsedTime(&ms, x->ev0, x->ev1)))
			return -1.0f;
		if (best < 0 || ms < best)
			best = ms;
	}
	return best;
}

/* The implementation of a shape: cached, else chosen now (its first use).
 * The key holds the batch rounded up to a power of two (plan.h), so that
 * inference over 1…1024 pending requests chooses 11 times, not 1024, and
 * the cache evicts the least recently used shape when full. Timing runs
 * only where it decides: --fast (the faster form wins), or a forced cuDNN
 * (its algorithm); the deterministic default is the GEMM form, untimed.
 * A bf16 weight gradient always takes the GEMM form: cuDNN's legacy API
 * writes dw in the inputs' type, bf16, and the rounding before the fp32
 * accumulation would lose what the GEMM form keeps (finding 12).
 * out: the real output for y and dx; dw is timed into scratch. */
static hy_nn_conv_choice choose(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	hy_nn_conv_choice e = {hy_nn_conv_key(dir, x->precision, hy_nn_conv_bucket(B), cin, cout),
		HY_NN_CONV_GEMM, -1, 0, -1.0f, -1.0f, 0};
	const hy_nn_conv_choice *f = hy_nn_conv_cache_find(&x->cache, e.key);
	if (f)
		return *f;
	const int bf_dw = dir == HY_NN_CONV_BWD_FILTER && x->precision == HY_NN_PREC_BF16;
	if (!bf_dw && (x->conv == HY_NN_CONV_CUDNN || (x->conv == HY_NN_CONV_AUTO && x->fast))) {
		void *target = dir == HY_NN_CONV_BWD_FILTER ? (void *)x->wtmp : out;
		if (x->fast)
			e.ms_gemm = time_gemm(x, dir, B, cin, cout, in, w, dy, target);
		e.algo = find_algo(x, dir, B, cin, cout, in, w, dy, target, &e.ws, &e.ms_cudnn);
		if (e.algo >= 0 && (x->conv == HY_NN_CONV_CUDNN ||
				   (e.ms_gemm >= 0 && e.ms_cudnn < e.ms_gemm)))
			e.impl = HY_NN_CONV_CUDNN;
	}
	(void)hy_nn_conv_cache_put(&x->cache, &e);
	return e;
}

static void conv_run(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	hy_nn_conv_choice e = choose(x, dir, B, cin, cout, in, w, dy, out);
	if (x->err)
		return;
	if (e.impl == HY_NN_CONV_CUDNN)
		conv_cudnn(x, dir, B, cin, cout, in, w, dy, out, e.algo, e.ws);
	else
		conv_gemm(x, dir, B, cin, cout, in, w, dy, out);
}

static void cu_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *in,
	const float *w, hy_nn_act *y)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err && B > 0 && !too_big(x, B, x->max_batch, "conv3_fwd"))
		conv_run(x, HY_NN_CONV_FWD, B, cin, cout, in, w, NULL, y);
}

static void cu_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *in,
	const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || B < 1 || too_big(x, B, x->max_batch, "conv3_bwd"))
		return;
	if (dx)
		conv_run(x, HY_NN_CONV_BWD_DATA, B, cin, cout, in, w, dy, dx);
	conv_run(x, HY_NN_CONV_BWD_FILTER, B, cin, cout, in, w, dy, dw);
}

/* ------------------------------------------------------------ linear */

static void cu_linear_fwd(const hy_nn_ctx *c, int rows, int in, int out, const float *xin,
	int ldx, const float *w, const float *b, float *y, int ldy, int pad_B)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || rows < 1)
		return;
	const int bf = x->precision == HY_NN_PREC_BF16;
	const void *X = operand(x, xin, rows, in, ldx, x->act16[0]);
	const void *W = operand(x, w, out, in, in, x->w16[0]);
	/* bf16: cuBLASLt with the bias as its epilogue; fp32 (and bf16 where
	 * lt.cu has no plan): cublasGemmEx, then the bias kernel (lt.cu says
	 * which path each precision takes) */
	if (x->err)
		return;
	if (!bf || lt_linear_fwd(x, rows, in, out, X, in, W, b, y, ldy)) {
		gemm_rm(x, 0, 1, rows, out, in, 1.0f, X, bf ? in : ldx, W, in, 0.0f, y, ldy, bf);
		k_add_bias(x, rows, out, b, y, ldy);
	}
	if (pad_B)
		k_zero_pads(x, pad_B, ldy, y);
}

/* dW += dyᵀx and dx = dy·W by GEMMs; db += dyᵀ·1 by a GEMV against the
 * ones vector (cuBLAS, fixed order: no atomics). */
static void cu_linear_bwd(const hy_nn_ctx *c, int rows, int in, int out, const float *xin,
	int ldx, const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw,
	float *db)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || rows < 1 || too_big(x, rows, (long)x->max_batch * HY_NN_TP, "linear_bwd"))
		return;
	const int bf = x->precision == HY_NN_PREC_BF16;
	const void *D = operand(x, dy, rows, out, ldy, x->act16[1]);
	const void *X = operand(x, xin, rows, in, ldx, x->act16[0]);
	const int ldd = bf ? out : ldy, ldxx = bf ? in : ldx;
	gemm_rm(x, 1, 0, out, in, rows, 1.0f, D, ldd, X, ldxx, 1.0f, dw, in, bf);
	if (dx) {
		const void *W = operand(x, w, out, in, in, x->w16[0]);
		gemm_rm(x, 0, 0, rows, in, out, 1.0f, D, ldd, W, in, dx_acc ? 1.0f : 0.0f, dx, ldx, bf);
	}
	if (db) {
		const float one = 1.0f;
		CU_BLAS(x, cublasSgemv(x->blas, CUBLAS_OP_N, out, rows, &one, dy, ldy, x->ones, 1, &one,
				   db, 1));
	}
}

/* ------------------------------------------------------------ 1×1 convolutions */

/* fp32: the linear op over the B·36 rows. bf16: x is bf16 already, so it
 * is the GEMM's operand as it is (cuBLASLt with the bias epilogue where
 * lt.cu plans the shape); y is an fp32 head tensor. */
static void cu_conv1_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *xa,
	const float *w, const float *b, float *y)
{
	cu_ctx *x = cu_enter(c);
	const int rows = B * HY_NN_TP;
	if (x->err || B < 1)
		return;
	if (x->precision != HY_NN_PREC_BF16) {
		cu_linear_fwd(c, rows, cin, cout, (const float *)xa, cin, w, b, y, cout, B);
		return;
	}
	const void *W = operand(x, w, cout, cin, cin, x->w16[0]);
	if (x->err)
		return;
	if (lt_linear_fwd(x, rows, cin, cout, xa, cin, W, b, y, cout)) {
		gemm_rm(x, 0, 1, rows, cout, cin, 1.0f, xa, cin, W, cin, 0.0f, y, cout, 1);
		k_add_bias(x, rows, cout, b, y, cout);
	}
	k_zero_pads(x, B, cout, y);
}

/* bf16: dy (fp32) rounded once into scratch for both GEMMs; x read in
 * place; dx written (or accumulated: β = 1 reads the bf16 dx) in bf16;
 * db from the fp32 dy (GEMV against ones, fixed order). */
static void cu_conv1_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *xa,
	const float *w, const float *dy, hy_nn_act *dxa, int dx_acc, float *dw, float *db)
{
	cu_ctx *x = cu_enter(c);
	const int rows = B * HY_NN_TP;
	if (x->err || B < 1 || too_big(x, B, x->max_batch, "conv1_bwd"))
		return;
	if (x->precision != HY_NN_PREC_BF16) {
		cu_linear_bwd(c, rows, cin, cout, (const float *)xa, cin, w, dy, cout, (float *)dxa,
			dx_acc, dw, db);
		return;
	}
	const void *D = operand(x, dy, rows, cout, cout, x->act16[1]);
	gemm_rm(x, 1, 0, cout, cin, rows, 1.0f, D, cout, xa, cin, 1.0f, dw, cin, 1);
	if (dxa) {
		const void *W = operand(x, w, cout, cin, cin, x->w16[0]);
		gemm_rm_c(x, 0, 0, rows, cin, cout, 1.0f, D, cout, W, cin, dx_acc ? 1.0f : 0.0f, dxa,
			cin, 1, 1);
	}
	if (db && !x->err) {
		const float one = 1.0f;
		CU_BLAS(x, cublasSgemv(x->blas, CUBLAS_OP_N, cout, rows, &one, dy, cout, x->ones, 1,
				   &one, db, 1));
	}
}

/* ------------------------------------------------------------ the rest */

static void cu_gn_mish_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in,
	const float *gamma, const float *beta, hy_nn_act *z, hy_nn_act *a, float *mean,
	float *rstd)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_gn_mish_fwd(x, B, C, in, gamma, beta, z, a, mean, rstd);
}

static void cu_gn_mish_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in,
	const hy_nn_act *z, const float *gamma, const float *mean, const float *rstd,
	const hy_nn_act *da, hy_nn_act *dx, int dx_acc, float *dgamma, float *dbeta,
	float *scratch)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_gn_mish_bwd(x, B, C, in, z, gamma, mean, rstd, da, dx, dx_acc, dgamma, dbeta,
			scratch);
}

static void cu_mish_fwd(const hy_nn_ctx *c, size_t n, const float *z, float *a)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_mish_fwd(x, n, z, a);
}

static void cu_mish_bwd(const hy_nn_ctx *c, size_t n, const float *z, const float *da,
	float *dz)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_mish_bwd(x, n, z, da, dz);
}

static void cu_relu_fwd(const hy_nn_ctx *c, size_t n, float *h)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_relu_fwd(x, n, h);
}

static void cu_relu_bwd(const hy_nn_ctx *c, size_t n, const float *h, float *dh)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_relu_bwd(x, n, h, dh);
}

static void cu_pool_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in, float *avg,
	float *max, uint8_t *arg, int ldp)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_pool_fwd(x, B, C, in, avg, max, arg, ldp);
}

static void cu_pool_bwd(const hy_nn_ctx *c, int B, int C, const float *davg,
	const float *dmax, const uint8_t *arg, int ldp, hy_nn_act *dx)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_pool_bwd(x, B, C, davg, dmax, arg, ldp, dx);
}

static void cu_se_fwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *in,
	const hy_nn_act *y, const float *e2, float *s, hy_nn_act *out)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_se_fwd(x, B, C, in, y, e2, s, out);
}

static void cu_se_bwd(const hy_nn_ctx *c, int B, int C, const hy_nn_act *y, const float *s,
	const hy_nn_act *dout, hy_nn_act *dy, float *de2)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_se_bwd(x, B, C, y, s, dout, dy, de2);
}

static double cu_softmax_ce(const hy_nn_ctx *c, int B, int n, const float *logits,
	const uint64_t *mask, const uint8_t *label, float scale, float *dlogits, int *correct)
{
	cu_ctx *x = cu_enter(c);
	return x->err || too_big(x, B, x->max_batch, "softmax_ce")
		? NAN
		: k_softmax_ce(x, B, n, logits, mask, label, scale, dlogits, correct);
}

static double cu_bce(const hy_nn_ctx *c, size_t n, const float *logits, const float *target,
	const float *w, float scale, float *dlogits)
{
	cu_ctx *x = cu_enter(c);
	return x->err ? NAN : k_bce(x, n, logits, target, w, scale, dlogits);
}

static double cu_mse(const hy_nn_ctx *c, size_t n, const float *pred, const float *target,
	float scale, float *dpred)
{
	cu_ctx *x = cu_enter(c);
	return x->err ? NAN : k_mse(x, n, pred, target, scale, dpred);
}

static double cu_sumsq(const hy_nn_ctx *c, size_t n, const float *g)
{
	cu_ctx *x = cu_enter(c);
	return x->err ? NAN : k_sumsq(x, n, g);
}

static void cu_scale(const hy_nn_ctx *c, size_t n, float *g, float s)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_scale(x, n, g, s);
}

static void cu_adamw(const hy_nn_ctx *c, size_t n, float *p, const float *g, float *m,
	float *v, float lr, float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		k_adamw(x, n, p, g, m, v, lr, b1, b2, eps, wd, bc1, sqrt_bc2);
}

/* FNV-1a over the table's offsets, sizes and decay flags: what the device
 * copy depends on (not the host table's address, which a new model can
 * reuse with other shapes: finding 11). */
static uint64_t spans_hash(const hy_nn_tensor *t, int count)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < count; i++) {
		uint64_t v[3] = {(uint64_t)t[i].offset, (uint64_t)t[i].size, (uint64_t)t[i].decay};
		const unsigned char *b = (const unsigned char *)v;
		for (size_t k = 0; k < sizeof v; k++)
			h = (h ^ b[k]) * 1099511628211ull;
	}
	return h;
}

/* The tensor table goes to the device when it differs from the copy there
 * (by content: spans_hash and count). */
static void cu_adamw_tensors(const hy_nn_ctx *c, const hy_nn_tensor *t, int count, float *p,
	const float *g, float *m, float *v, float lr, float b1, float b2, float eps, float wd,
	float bc1, float sqrt_bc2)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || count < 1)
		return;
	const uint64_t hash = spans_hash(t, count);
	if (!x->spans || x->spans_hash != hash || x->nspans != count) {
		cu_span *h = (cu_span *)calloc((size_t)count, sizeof *h);
		if (!h) {
			cu_fail(x, HY_ENOMEM, "adamw_tensors", "out of host memory", __FILE__, __LINE__);
			return;
		}
		for (int i = 0; i < count; i++)
			h[i] = cu_span{t[i].offset, t[i].size, t[i].decay, 0};
		if (x->spans)
			CU_RT(x, cudaFree(x->spans));
		x->spans = NULL;
		if (!CU_RT(x, cudaMalloc(&x->spans, (size_t)count * sizeof *h)) &&
			!CU_RT(x, cudaMemcpy(x->spans, h, (size_t)count * sizeof *h,
				   cudaMemcpyHostToDevice))) {
			x->spans_hash = hash;
			x->nspans = count;
		}
		free(h);
		if (x->err)
			return;
	}
	size_t end = t[count - 1].offset + t[count - 1].size;
	k_adamw_spans(x, (const cu_span *)x->spans, count, end, p, g, m, v, lr, b1, b2, eps, wd,
		bc1, sqrt_bc2);
}

/* Ordered as dev_copy is (obs may be the feed's staging buffer): after the
 * last upload (ev_up), recorded as its last reader (ev_use). */
static void cu_expand_obs(const hy_nn_ctx *c, int B, const uint16_t *obs, hy_nn_act *xin)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || B < 1 || CU_RT(x, cudaStreamWaitEvent(x->s, x->ev_up, 0)))
		return;
	k_expand_obs(x, B, obs, xin);
	CU_RT(x, cudaEventRecord(x->ev_use, x->s));
}

/* ------------------------------------------------------------ activation storage */

static size_t cu_act_size(const hy_nn_ctx *c)
{
	return cu_of(c)->precision == HY_NN_PREC_BF16 ? 2 : 4;
}

/* bf16: rounded on the host by the shared hy_nn_bf16_round (so a value
 * stored here is bit for bit the one k_act_from_f32 stores), then copied;
 * synchronous like to_dev, after the queued ops (the blocking stream). */
static void cu_act_put(const hy_nn_ctx *c, size_t n, const float *host, hy_nn_act *dst)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !n)
		return;
	if (x->precision != HY_NN_PREC_BF16) {
		CU_RT(x, cudaMemcpy(dst, host, n * sizeof *host, cudaMemcpyHostToDevice));
		return;
	}
	uint16_t *h = (uint16_t *)malloc(n * sizeof *h);
	if (!h) {
		cu_fail(x, HY_ENOMEM, "act_put", "out of host memory", __FILE__, __LINE__);
		return;
	}
	for (size_t i = 0; i < n; i++)
		h[i] = hy_nn_bf16_round(host[i]);
	CU_RT(x, cudaMemcpy(dst, h, n * sizeof *h, cudaMemcpyHostToDevice));
	free(h);
}

static void cu_act_get(const hy_nn_ctx *c, size_t n, const hy_nn_act *src, float *host)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !n)
		return;
	if (x->precision != HY_NN_PREC_BF16) {
		CU_RT(x, cudaMemcpy(host, src, n * sizeof *host, cudaMemcpyDeviceToHost));
		return;
	}
	uint16_t *h = (uint16_t *)malloc(n * sizeof *h);
	if (!h) {
		cu_fail(x, HY_ENOMEM, "act_get", "out of host memory", __FILE__, __LINE__);
		return;
	}
	if (!CU_RT(x, cudaMemcpy(h, src, n * sizeof *h, cudaMemcpyDeviceToHost)))
		for (size_t i = 0; i < n; i++)
			host[i] = hy_nn_bf16_to_float(h[i]);
	free(h);
}

/* Queued on the ops' stream as dev_copy is: after the last upload (ev_up:
 * src is the feed's staging buffer), and recorded as its last reader
 * (ev_use). */
static void cu_act_from_f32(const hy_nn_ctx *c, size_t n, const float *src, hy_nn_act *dst)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !n)
		return;
	if (CU_RT(x, cudaStreamWaitEvent(x->s, x->ev_up, 0)))
		return;
	k_act_from_f32(x, n, src, dst);
	CU_RT(x, cudaEventRecord(x->ev_use, x->s));
}

/* ------------------------------------------------------------ the feed's copies */

/* Page-locked host memory (backend.h host_alloc): portable, so any
 * context's stream may copy from it. NULL on failure (the feed reports it). */
static void *cu_host_alloc(size_t bytes)
{
	void *p = NULL;
	if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
		(void)cudaGetLastError(); /* reported as NULL */
		return NULL;
	}
	memset(p, 0, bytes);
	return p;
}

static void cu_host_free(void *p)
{
	if (p)
		(void)cudaFreeHost(p);
}

/* On the copy stream, after the last dev_copy (ev_use): the staging
 * buffer dst is free once that copy has read it. */
static void cu_to_dev_async(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !bytes)
		return;
	(void)(CU_RT(x, cudaStreamWaitEvent(x->cs, x->ev_use, 0)) ||
		CU_RT(x, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, x->cs)) ||
		CU_RT(x, cudaEventRecord(x->ev_up, x->cs)));
}

/* On the ops' stream, after the last upload (ev_up). */
static void cu_dev_copy(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !bytes)
		return;
	(void)(CU_RT(x, cudaStreamWaitEvent(x->s, x->ev_up, 0)) ||
		CU_RT(x, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, x->s)) ||
		CU_RT(x, cudaEventRecord(x->ev_use, x->s)));
}

static hy_status cu_sync(const hy_nn_ctx *c, hy_diag *d)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err) /* the ops, and the feed's copies (to_dev_async) */
		(void)(CU_RT(x, cudaStreamSynchronize(x->s)) || CU_RT(x, cudaStreamSynchronize(x->cs)));
	if (!x->err) { /* a failed copy or allocation of the table (no context) */
		cudaError_t e = cudaGetLastError();
		if (e != cudaSuccess)
			cu_fail(x, HY_EIO, "a copy or allocation", cudaGetErrorString(e), __FILE__,
				__LINE__);
	}
	if (x->err)
		return hy_diag_set(d, x->err, 0, "CUDA: %s", x->msg);
	return HY_OK;
}

/* Profiling timers: HY_NN_MARKS events made on the first mark, recorded on
 * the op stream (so they time the queue as it runs, without waiting). */
static void cu_mark(const hy_nn_ctx *c, int slot)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || slot < 0 || slot >= HY_NN_MARKS)
		return;
	if (!x->marks) {
		x->marks = (cudaEvent_t *)calloc(HY_NN_MARKS, sizeof *x->marks);
		if (!x->marks) {
			cu_fail(x, HY_ENOMEM, "calloc(marks)", "out of memory", __FILE__, __LINE__);
			return;
		}
		for (int i = 0; i < HY_NN_MARKS; i++)
			if (CU_RT(x, cudaEventCreate(&x->marks[i])))
				return;
	}
	(void)CU_RT(x, cudaEventRecord(x->marks[slot], x->s));
}

static double cu_mark_ms(const hy_nn_ctx *c, int a, int b)
{
	cu_ctx *x = cu_enter(c);
	float ms = -1;
	if (x->err || !x->marks || a < 0 || b < 0 || a >= HY_NN_MARKS || b >= HY_NN_MARKS)
		return -1;
	if (CU_RT(x, cudaEventSynchronize(x->marks[b])) ||
		CU_RT(x, cudaEventElapsedTime(&ms, x->marks[a], x->marks[b])))
		return -1;
	return ms;
}

static const hy_nn_backend cuda_backend = {
	.name = "cuda",
	.alloc = cu_alloc,
	.free = cu_free,
	.to_dev = cu_to_dev,
	.to_host = cu_to_host,
	.zero = cu_zero,
	.gemm = cu_gemm,
	.conv3_fwd = cu_conv3_fwd,
	.conv3_bwd = cu_conv3_bwd,
	.conv1_fwd = cu_conv1_fwd,
	.conv1_bwd = cu_conv1_bwd,
	.linear_fwd = cu_linear_fwd,
	.linear_bwd = cu_linear_bwd,
	.gn_mish_fwd = cu_gn_mish_fwd,
	.gn_mish_bwd = cu_gn_mish_bwd,
	.mish_fwd = cu_mish_fwd,
	.mish_bwd = cu_mish_bwd,
	.relu_fwd = cu_relu_fwd,
	.relu_bwd = cu_relu_bwd,
	.pool_fwd = cu_pool_fwd,
	.pool_bwd = cu_pool_bwd,
	.se_fwd = cu_se_fwd,
	.se_bwd = cu_se_bwd,
	.softmax_ce = cu_softmax_ce,
	.bce = cu_bce,
	.mse = cu_mse,
	.sumsq = cu_sumsq,
	.scale = cu_scale,
	.adamw = cu_adamw,
	.adamw_tensors = cu_adamw_tensors,
	.expand_obs = cu_expand_obs,
	.act_size = cu_act_size,
	.act_put = cu_act_put,
	.act_get = cu_act_get,
	.act_from_f32 = cu_act_from_f32,
	.host_alloc = cu_host_alloc,
	.host_free = cu_host_free,
	.to_dev_async = cu_to_dev_async,
	.dev_copy = cu_dev_copy,
	.sync = cu_sync,
	.mark = cu_mark,
	.mark_ms = cu_mark_ms,
};

const hy_nn_backend *hy_nn_backend_cuda(void)
{
	return &cuda_backend;
}

int hy_nn_cuda_built(void)
{
	return 1;
}

int hy_nn_cuda_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return n;
}

/* ------------------------------------------------------------ context */

hy_status hy_nn_cuda_probe(int device, hy_nn_cuda_info *info, hy_diag *d)
{
	hy_nn_cuda_info tmp;
	if (!info)
		info = &tmp;
	memset(info, 0, sizeof *info);
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		int rt = 0;
		(void)cudaRuntimeGetVersion(&rt);
		if (e == cudaErrorInsufficientDriver)
			return hy_diag_set(d, HY_EUNSUP, 0, "no NVIDIA driver, or one "
				"older than this build's CUDA %d.%d", rt / 1000, rt % 1000 / 10);
		if (e == cudaErrorNoDevice)
			return hy_diag_set(d, HY_EUNSUP, 0, "no CUDA device found");
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA runtime: %s", cudaGetErrorString(e));
	}
	info->count = n;
	if (device < 0 || device >= n)
		return hy_diag_set(d, HY_EUNSUP, 0, "no CUDA device %d (%d present)", device, n);
	cudaDeviceProp p;
	if ((e = cudaGetDeviceProperties(&p, device)) != cudaSuccess ||
		(e = cudaSetDevice(device)) != cudaSuccess ||
		(e = cudaMemGetInfo(&info->mem_free, &info->mem_total)) != cudaSuccess) {
		(void)cudaGetLastError();
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA device %d is not usable: %s", device,
			cudaGetErrorString(e));
	}
	snprintf(info->name, sizeof info->name, "%.127s", p.name);
	info->major = p.major;
	info->minor = p.minor;
	if (p.major < 8)
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA device %d (%s) has compute capability "
			"%d.%d; this build needs 8.0 or newer", device, p.name, p.major, p.minor);
	int pools = 0;
	if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess)
		(void)cudaGetLastError();
	if (!pools) /* the arena is the device's stream-ordered pool */
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA device %d (%s) has no stream-ordered "
			"memory pool (cudaMallocAsync), which this backend allocates from", device,
			p.name);
	return HY_OK;
}

static void ctx_release(cu_ctx *x)
{
	/* teardown: failures are of no use to anyone any more */
	if (x->s)
		(void)cudaStreamSynchronize(x->s);
	if (x->cs)
		(void)cudaStreamSynchronize(x->cs);
	lt_free(x);
	if (x->cd)
		(void)cudnnDestroyConvolutionDescriptor(x->cd);
	if (x->wd)
		(void)cudnnDestroyFilterDescriptor(x->wd);
	if (x->yd)
		(void)cudnnDestroyTensorDescriptor(x->yd);
	if (x->xd)
		(void)cudnnDestroyTensorDescriptor(x->xd);
	if (x->dnn)
		(void)cudnnDestroy(x->dnn);
	if (x->blas)
		(void)cublasDestroy(x->blas);
	if (x->marks) {
		for (int i = 0; i < HY_NN_MARKS; i++)
			if (x->marks[i])
				(void)cudaEventDestroy(x->marks[i]);
		free(x->marks);
	}
	if (x->ev0)
		(void)cudaEventDestroy(x->ev0);
	if (x->ev1)
		(void)cudaEventDestroy(x->ev1);
	if (x->ev_up)
		(void)cudaEventDestroy(x->ev_up);
	if (x->ev_use)
		(void)cudaEventDestroy(x->ev_use);
	if (x->scratch)
		(void)cudaFree(x->scratch);
	if (x->spans)
		(void)cudaFree(x->spans);
	if (x->s)
		(void)cudaStreamDestroy(x->s);
	if (x->cs)
		(void)cudaStreamDestroy(x->cs);
	(void)cudaGetLastError();
	free(x);
}

/* Carves the scratch as plan.h lays it out. */
static void carve(cu_ctx *x, const hy_nn_cuda_scratch *s)
{
	char *p = (char *)x->scratch;
	x->act16[0] = (uint16_t *)p, p += s->act16[0];
	x->act16[1] = (uint16_t *)p, p += s->act16[1];
	x->w16[0] = (uint16_t *)p, p += s->w16[0];
	x->w16[1] = (uint16_t *)p, p += s->w16[1];
	x->wtmp = (float *)p, p += s->wtmp;
	x->ones = (float *)p, p += s->ones;
	x->part = (double *)p;
	x->rowloss = x->part + HY_NN_CUDA_PARTIALS + 16;
	x->rowok = (int *)(x->rowloss + x->max_batch);
	p += s->partials;
	x->ws = p;
	x->ws_bytes = s->workspace;
	x->act_cap = s->act16[0] / 2;
	x->w_cap = s->w16[0] / 2;
}

static double gib(size_t b)
{
	return (double)b / (1024.0 * 1024.0 * 1024.0);
}

hy_status hy_nn_cuda_ctx_init(hy_nn_ctx *c, const hy_nn_cuda_cfg *cfg, hy_diag *d)
{
	memset(c, 0, sizeof *c);
	hy_nn_cuda_info info;
	hy_status st = hy_nn_cuda_probe(cfg->device, &info, d);
	if (st)
		return st;
	if (cfg->max_batch < 1 || cfg->max_batch > 1 << 20)
		return hy_diag_set(d, HY_EUSAGE, 0, "bad batch size %d", cfg->max_batch);
	if (cfg->arch.channels > HY_NN_CUDA_MAX_CHANNELS)
		return hy_diag_set(d, HY_EUSAGE, 0, "%d channels: the CUDA backend takes at most %d",
			cfg->arch.channels, HY_NN_CUDA_MAX_CHANNELS);
	char gpu[200];
	snprintf(gpu, sizeof gpu, "GPU %d (%s)", cfg->device, info.name);
	if ((st = hy_nn_plan_check(cfg->arch, cfg->max_batch, cfg->precision, cfg->infer,
		     info.mem_free, gpu,
		     d)))
		return st;
	hy_nn_mem_plan plan;
	hy_nn_plan_mem(cfg->arch, cfg->max_batch, cfg->precision, cfg->infer, &plan);
	cu_ctx *x = (cu_ctx *)calloc(1, sizeof *x);
	if (!x)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	x->device = cfg->device;
	x->precision = cfg->precision == HY_NN_PREC_BF16 ? HY_NN_PREC_BF16 : HY_NN_PREC_FP32;
	x->fast = cfg->fast != 0;
	x->conv = cfg->conv;
	x->arch = cfg->arch;
	x->max_batch = cfg->max_batch;
	x->plan = plan;
	hy_nn_cuda_scratch s;
	hy_nn_plan_scratch(cfg->arch, cfg->max_batch, x->precision, &s);
	cudaMemPool_t pool;
	uint64_t keep = UINT64_MAX, zero = 0;
	void *reserve = NULL;
	(void)(CU_RT(x, cudaSetDevice(x->device)) ||
		CU_RT(x, cudaStreamCreate(&x->s)) || k_setup(x, HY_NN_CUDA_MAX_CHANNELS) ||
		CU_RT(x, cudaEventCreate(&x->ev0)) || CU_RT(x, cudaEventCreate(&x->ev1)) ||
		/* the feed's copy stream: non-blocking, so the legacy stream's
		 * copies of the table do not serialise it */
		CU_RT(x, cudaStreamCreateWithFlags(&x->cs, cudaStreamNonBlocking)) ||
		CU_RT(x, cudaEventCreateWithFlags(&x->ev_up, cudaEventDisableTiming)) ||
		CU_RT(x, cudaEventCreateWithFlags(&x->ev_use, cudaEventDisableTiming)) ||
		CU_BLAS(x, cublasCreate(&x->blas)) || CU_BLAS(x, cublasSetStream(x->blas, x->s)) ||
		lt_init(x) ||
		CU_BLAS(x, cublasSetMathMode(x->blas, CUBLAS_DEFAULT_MATH)) ||
		CU_DNN(x, cudnnCreate(&x->dnn)) || CU_DNN(x, cudnnSetStream(x->dnn, x->s)) ||
		CU_DNN(x, cudnnCreateTensorDescriptor(&x->xd)) ||
		CU_DNN(x, cudnnCreateTensorDescriptor(&x->yd)) ||
		CU_DNN(x, cudnnCreateFilterDescriptor(&x->wd)) ||
		CU_DNN(x, cudnnCreateConvolutionDescriptor(&x->cd)) ||
		/* the arena: the pool keeps what it once held, so holding the
		 * planned bytes once reserves them */
		CU_RT(x, cudaDeviceGetDefaultMemPool(&pool, x->device)) ||
		CU_RT(x, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep)) ||
		CU_RT(x, cudaMallocAsync(&reserve, plan.params + plan.work, x->s)) ||
		CU_RT(x, cudaFreeAsync(reserve, x->s)) ||
		CU_RT(x, cudaStreamSynchronize(x->s)) ||
		CU_RT(x, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero)) ||
		CU_RT(x, cudaMalloc(&x->scratch, s.total)));
	if (!x->err) {
		carve(x, &s);
		(void)(CU_BLAS(x, cublasSetWorkspace(x->blas, x->ws, x->ws_bytes)));
		k_fill(x, (size_t)cfg->max_batch * HY_NN_TP, 1.0f, x->ones);
		(void)(CU_RT(x, cudaStreamSynchronize(x->s)));
	}
	if (x->err) {
		st = hy_diag_set(d, x->err, 0, "CUDA: %s", x->msg);
		ctx_release(x);
		return st;
	}
	c->threads = 1;
	c->device = x->device;
	c->precision = x->precision;
	c->fast = x->fast;
	c->priv = x;
	return HY_OK;
}

void hy_nn_cuda_ctx_free(hy_nn_ctx *c)
{
	if (c->priv)
		ctx_release(cu_of(c));
	c->priv = NULL;
}

size_t hy_nn_cuda_peak_bytes(const hy_nn_ctx *c)
{
	cu_ctx *x = cu_enter(c);
	cudaMemPool_t pool;
	uint64_t high = 0;
	if (!x || cudaDeviceGetDefaultMemPool(&pool, x->device) != cudaSuccess ||
		cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return (size_t)high + x->plan.scratch;
}

size_t hy_nn_cuda_report(const hy_nn_ctx *c, char *buf, size_t n)
{
	cu_ctx *x = cu_enter(c);
	if (!x) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, x->device) != cudaSuccess) {
		(void)cudaGetLastError();
		snprintf(p.name, sizeof p.name, "?");
	}
	int w = snprintf(buf, n,
		"device %d: %s\nprecision %s, %s\nmemory planned %.3f GiB (parameters and moments "
		"%.3f, activations of batch %d %.3f, scratch %.3f), peak %.3f GiB\n",
		x->device, p.name, x->precision == HY_NN_PREC_BF16 ? "bf16" : "fp32",
		x->fast ? "fast (convolution chosen by time, any cuDNN algorithm)"
			: "deterministic (GEMM convolutions, deterministic cuDNN algorithms)",
		gib(x->plan.total), gib(x->plan.params), x->max_batch, gib(x->plan.work),
		gib(x->plan.scratch), gib(hy_nn_cuda_peak_bytes(c)));
	size_t len = w > 0 ? (size_t)w : 0;
	if (len < n)
		len += hy_nn_conv_cache_format(&x->cache, buf + len, n - len);
	return len;
}
