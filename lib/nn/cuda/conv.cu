/* The CUDA backend's 3-tap convolutions: the GEMM form (three shifted
 * GEMMs over the rows, or one over the three taps side by side in bf16),
 * cuDNN's form, the choice between them per shape (plan.h's cache) and the
 * conv3_fwd/bwd entries. Split from ctx.cu by concern (issue 23). */
#include "nn/cuda/internal.h"
#include "nn/cuda/map.h"

extern "C" {
#include "nn/math.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ convolutions */

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

/* The bf16 convolution of path v2 (issue 43, step 2), the same sums as
 * cu_conv_bf16_v1 below without the taps of the whole batch in device
 * memory:
 * - y and dx: the rows go in chunks small enough that a chunk's taps stay in
 *   L2 (map.h hy_nn_conv_chunk_rows: half the device's L2); each chunk's
 *   taps are built by fused.cu's 16-byte copy into the same scratch, then
 *   one GEMM of the chunk's rows reads them back from L2: the 3× operand
 *   never goes to DRAM and back whole. K is padded with zeros to a multiple
 *   of 8 (the stem's 255 → 256, 16-byte rows), the weights the same way.
 * - dW: no taps at all. dW_k = dy(r+1)ᵀ·x(r+k) reads dy and x in place,
 *   as one strided-batched GEMM over k = 0, 1, 2 (A = dy shared by the
 *   three, stride 0; B = x shifted by k rows, stride cin; C = dW's k-th
 *   block of columns, stride cin), fp32 accumulation into dw (β = 1).
 * Chunks run in order on the context's stream, so each result is the sum
 * of the same products in the same order on every run. */
void cu_conv_bf16_v2(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	const int R = B * HY_NN_TP, rows = R - 2;
	if (dir == HY_NN_CONV_BWD_FILTER) {
		const float one = 1.0f;
		(void)CU_BLAS(x, cublasGemmStridedBatchedEx(x->blas, CUBLAS_OP_N, CUBLAS_OP_T, cin,
				     cout, rows, &one, in, CUDA_R_16BF, cin, (long long)cin,
				     cu_at(dy, cout, 1), CUDA_R_16BF, cout, 0LL, &one, out, CUDA_R_32F,
				     3 * cin, (long long)cin, 3, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
		return;
	}
	const int fwd = dir == HY_NN_CONV_FWD;
	const int cols = fwd ? cin : cout, nout = fwd ? cout : cin, kp = hy_nn_kpad(3 * cols);
	const int n = hy_nn_conv_chunk_rows(rows, kp, x->l2_bytes, x->sms);
	uint16_t *T3 = x->act16[fwd ? 0 : 1];
	if ((size_t)n * kp > x->act_cap || (size_t)kp * (fwd ? cout : cin) > x->w_cap) {
		cu_fail(x, HY_EUSAGE, "conv_chunk", "larger than the scratch planned for the context's "
			"architecture and batch", __FILE__, __LINE__);
		return;
	}
	if (fwd) {
		/* W [cout][kp]: row o = W[o][k][i] at k·cin + i, zeros after 3·cin */
		k2_pad_bf16(x, cout, 3 * cin, kp, w, 3 * cin, x->w16[0]);
	} else {
		/* Wd [kp][cin]: rows j·cout + o = W[o][2 − j], zero rows after 3·cout */
		k_wflip_bf16(x, cout, cin, w, x->w16[0]);
		if (kp > 3 * cout)
			(void)CU_RT(x, cudaMemsetAsync(x->w16[0] + (size_t)3 * cout * cin, 0,
					     (size_t)(kp - 3 * cout) * cin * 2, x->s));
	}
	x->chunk_rows = n;
	for (int r0 = 0; r0 < rows && !x->err; r0 += n) {
		const int m = rows - r0 < n ? rows - r0 : n;
		k2_taps(x, r0, m, cols, kp, fwd ? in : dy, T3);
		if (fwd)
			cu_gemm_rm_c(x, 0, 1, m, cout, kp, 1.0f, T3, kp, x->w16[0], kp, 0.0f,
				cu_at_w(out, (size_t)(r0 + 1) * cout, 1), cout, 1, 1);
		else
			cu_gemm_rm_c(x, 0, 0, m, cin, kp, 1.0f, T3, kp, x->w16[0], cin, 0.0f,
				cu_at_w(out, (size_t)(r0 + 1) * cin, 1), cin, 1, 1);
	}
	k_zero_pads_act(x, B, nout, out);
}

/* bf16: each direction is ONE GEMM over the taps side by side (K or N =
 * 3·C, C written once): the taps of the bf16 input are one copy
 * (k_taps_bf16), the data gradient's weights are rearranged as they are
 * rounded (k_wflip_bf16), and y, dx are written in bf16 by the GEMM
 * itself (fp32 accumulation, one rounding). Same sums as the fp32 form
 * below, in one call: y(r+1) = X3(r)·Wᵀ, dx(r+1) = D3(r)·Wd, dW += dy(r+1)ᵀ·X3(r)
 * (dy read in place: it is bf16 already). */
void cu_conv_bf16_v1(cu_ctx *x, int dir, int B, int cin, int cout, const void *in,
	const float *w, const void *dy, void *out)
{
	const int R = B * HY_NN_TP, rows = R - 2;
	if (dir == HY_NN_CONV_FWD) {
		const void *X3 = taps(x, in, rows, cin, x->act16[0]);
		const void *W = cu_operand(x, w, cout, 3 * cin, 3 * cin, x->w16[0]);
		cu_gemm_rm_c(x, 0, 1, rows, cout, 3 * cin, 1.0f, X3, 3 * cin, W, 3 * cin, 0.0f,
			cu_at_w(out, cout, 1), cout, 1, 1);
		k_zero_pads_act(x, B, cout, out);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		const void *D3 = taps(x, dy, rows, cout, x->act16[1]);
		if ((size_t)3 * cout * cin > x->w_cap)
			cu_fail(x, HY_EUSAGE, "wflip", "weights larger than planned", __FILE__, __LINE__);
		else
			k_wflip_bf16(x, cout, cin, w, x->w16[0]);
		cu_gemm_rm_c(x, 0, 0, rows, cin, 3 * cout, 1.0f, D3, 3 * cout, x->w16[0], cin, 0.0f,
			cu_at_w(out, cin, 1), cin, 1, 1);
		k_zero_pads_act(x, B, cin, out);
	} else {
		const void *X3 = taps(x, in, rows, cin, x->act16[0]);
		cu_gemm_rm(x, 1, 0, cout, 3 * cin, rows, 1.0f, cu_at(dy, cout, 1), cout, X3, 3 * cin, 1.0f,
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
		x->ops->conv_bf16(x, dir, B, cin, cout, in, w, dy, out);
		return;
	}
	const float *X = (const float *)in, *D = (const float *)dy;
	float *O = (float *)out;
	if (dir == HY_NN_CONV_FWD) {
		for (int k = 0; k < 3; k++)
			cu_gemm_rm(x, 0, 1, rows, cout, cin, 1.0f, X + (size_t)k * cin, cin,
				w + (size_t)k * cin, 3 * cin, k ? 1.0f : 0.0f, O + cout, cout, 0);
		k_zero_pads(x, B, cout, O);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		for (int j = 0; j < 3; j++)
			cu_gemm_rm(x, 0, 0, rows, cin, cout, 1.0f, D + (size_t)j * cout, cout,
				w + (size_t)(2 - j) * cin, 3 * cin, j ? 1.0f : 0.0f, O + cin, cin, 0);
		k_zero_pads(x, B, cin, O);
	} else {
		for (int k = 0; k < 3; k++)
			cu_gemm_rm(x, 1, 0, cout, cin, rows, 1.0f, D + cout, cout, X + (size_t)k * cin, cin,
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
		const void *W = cu_operand(x, w, cout, 3 * cin, 3 * cin, x->w16[0]);
		if (x->err)
			return;
		if (CU_DNN(x, cudnnConvolutionForward(x->dnn, &one, x->xd, in, x->wd, W, x->cd,
				      (cudnnConvolutionFwdAlgo_t)algo, x->ws, ws, &zero, x->yd, out)))
			return;
		k_zero_pads_act(x, B, cout, out);
	} else if (dir == HY_NN_CONV_BWD_DATA) {
		const void *W = cu_operand(x, w, cout, 3 * cin, 3 * cin, x->w16[0]);
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
	const void *W = dir != HY_NN_CONV_BWD_FILTER ? cu_operand(x, w, cout, 3 * cin, 3 * cin,
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
		x->conv_timings++;
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

void cu_conv3_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *in,
	const float *w, hy_nn_act *y)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err && B > 0 && !too_big(x, B, x->max_batch, "conv3_fwd"))
		conv_run(x, HY_NN_CONV_FWD, B, cin, cout, in, w, NULL, y);
}

void cu_conv3_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *in,
	const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || B < 1 || too_big(x, B, x->max_batch, "conv3_bwd"))
		return;
	if (dx)
		conv_run(x, HY_NN_CONV_BWD_DATA, B, cin, cout, in, w, dy, dx);
	conv_run(x, HY_NN_CONV_BWD_FILTER, B, cin, cout, in, w, dy, dw);
}
