/* The CUDA backend's GEMMs (cuBLAS; cuBLASLt plans in lt.cu): the
 * row-major GEMM, the operands rounded to bf16 in a bf16 context, and the
 * ops built on them: gemm, linear_fwd/bwd and the 1×1 convolutions of the
 * heads (conv1_fwd/bwd). Split from ctx.cu by concern (issue 23). */
#include "nn/cuda/internal.h"

extern "C" {
#include "nn/math.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ GEMM */

/* Row-major C[M][N] = alpha·op(A)·op(B) + beta·C with fp32 C: cuBLAS is
 * column-major, so it computes Cᵀ = op(B)ᵀ·op(A)ᵀ. A and B are bf16 when
 * bf16, else fp32; fp32 accumulation either way. */
int cu_gemm_rm_c(cu_ctx *x, int ta, int tb, int M, int N, int K, float alpha,
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
int cu_gemm_rm(cu_ctx *x, int ta, int tb, int M, int N, int K, float alpha, const void *A,
	int lda, const void *B, int ldb, float beta, float *C, int ldc, int bf16)
{
	return cu_gemm_rm_c(x, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, bf16, 0);
}


/* The generic GEMM of the table is fp32 in both precisions (the model
 * does not use it on a hot path). */
void cu_gemm(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err)
		cu_gemm_rm(x, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0);
}

/* Operands in the context's precision: src itself in fp32, else its bf16
 * copy in dst (rows × cols, row stride ld, packed). */
const void *cu_operand(cu_ctx *x, const float *src, int rows, int cols, int ld,
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

/* ------------------------------------------------------------ linear */

void cu_linear_fwd(const hy_nn_ctx *c, int rows, int in, int out, const float *xin,
	int ldx, const float *w, const float *b, float *y, int ldy, int pad_B)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || rows < 1)
		return;
	const int bf = x->precision == HY_NN_PREC_BF16;
	const void *X = cu_operand(x, xin, rows, in, ldx, x->act16[0]);
	const void *W = cu_operand(x, w, out, in, in, x->w16[0]);
	/* bf16: cuBLASLt with the bias as its epilogue; fp32 (and bf16 where
	 * lt.cu has no plan): cublasGemmEx, then the bias kernel (lt.cu says
	 * which path each precision takes) */
	if (x->err)
		return;
	if (!bf || lt_linear_fwd(x, rows, in, out, X, in, W, b, y, ldy)) {
		cu_gemm_rm(x, 0, 1, rows, out, in, 1.0f, X, bf ? in : ldx, W, in, 0.0f, y, ldy, bf);
		k_add_bias(x, rows, out, b, y, ldy);
	}
	if (pad_B)
		k_zero_pads(x, pad_B, ldy, y);
}

/* dW += dyᵀx and dx = dy·W by GEMMs; db += dyᵀ·1 by a GEMV against the
 * ones vector (cuBLAS, fixed order: no atomics). */
void cu_linear_bwd(const hy_nn_ctx *c, int rows, int in, int out, const float *xin,
	int ldx, const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw,
	float *db)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || rows < 1 || too_big(x, rows, (long)x->max_batch * HY_NN_TP, "linear_bwd"))
		return;
	const int bf = x->precision == HY_NN_PREC_BF16;
	const void *D = cu_operand(x, dy, rows, out, ldy, x->act16[1]);
	const void *X = cu_operand(x, xin, rows, in, ldx, x->act16[0]);
	const int ldd = bf ? out : ldy, ldxx = bf ? in : ldx;
	cu_gemm_rm(x, 1, 0, out, in, rows, 1.0f, D, ldd, X, ldxx, 1.0f, dw, in, bf);
	if (dx) {
		const void *W = cu_operand(x, w, out, in, in, x->w16[0]);
		cu_gemm_rm(x, 0, 0, rows, in, out, 1.0f, D, ldd, W, in, dx_acc ? 1.0f : 0.0f, dx, ldx, bf);
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
void cu_conv1_fwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *xa,
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
	const void *W = cu_operand(x, w, cout, cin, cin, x->w16[0]);
	if (x->err)
		return;
	if (lt_linear_fwd(x, rows, cin, cout, xa, cin, W, b, y, cout)) {
		cu_gemm_rm(x, 0, 1, rows, cout, cin, 1.0f, xa, cin, W, cin, 0.0f, y, cout, 1);
		k_add_bias(x, rows, cout, b, y, cout);
	}
	k_zero_pads(x, B, cout, y);
}

/* bf16: dy (fp32) rounded once into scratch for both GEMMs; x read in
 * place; dx written (or accumulated: β = 1 reads the bf16 dx) in bf16;
 * db from the fp32 dy (GEMV against ones, fixed order). */
void cu_conv1_bwd(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *xa,
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
	const void *D = cu_operand(x, dy, rows, cout, cout, x->act16[1]);
	cu_gemm_rm(x, 1, 0, cout, cin, rows, 1.0f, D, cout, xa, cin, 1.0f, dw, cin, 1);
	if (dxa) {
		const void *W = cu_operand(x, w, cout, cin, cin, x->w16[0]);
		cu_gemm_rm_c(x, 0, 0, rows, cin, cout, 1.0f, D, cout, W, cin, dx_acc ? 1.0f : 0.0f, dxa,
			cin, 1, 1);
	}
	if (db && !x->err) {
		const float one = 1.0f;
		CU_BLAS(x, cublasSgemv(x->blas, CUBLAS_OP_N, cout, rows, &one, dy, cout, x->ones, 1,
				   &one, db, 1));
	}
}
