/* Linear layers and 1×1 convolutions through cuBLASLt (internal.h).
 *
 * Which path each precision takes (cu_linear_fwd in gemm.cu):
 *  - BF16: cuBLASLt here, bf16 operands (rounded into the scratch by
 *    gemm.cu's cu_operand()), fp32 accumulation (CUBLAS_COMPUTE_32F) and fp32
 *    output, the bias added by the CUBLASLT_EPILOGUE_BIAS epilogue — the
 *    fusion saves the separate pass of k_add_bias over y. The pad rows of
 *    a 1×1 convolution are zeroed afterwards by gemm.cu as before.
 *  - FP32: cublasGemmEx (fp32 operands, fp32 compute, no TF32) and
 *    k_add_bias, as the CPU computes: the path that is compared with it.
 *  - BF16 when this file is built without cuBLASLt (the build defines
 *    HY_HAVE_CUBLASLT when it links libcublasLt), when the plan index is
 *    full, or for a shape the heuristic has no algorithm for: the fp32
 *    path's cublasGemmEx with bf16 operands and k_add_bias.
 *
 * Plans. A shape's matmul descriptor, its three layouts and the algorithm
 * the heuristic picks (the first, with our workspace as its limit) are made
 * at the shape's first use and kept in its slot (plan.h hy_nn_lt_index,
 * unit-tested on the CPU) until the context is freed: like the convolution
 * choice, once per shape. The workspace is the context's cuBLAS/cuDNN
 * workspace, carved from the arena's scratch (plan.h): all three libraries
 * run on the context's one stream, so they never use it at once.
 *
 * Determinism: the heuristic's answer is a function of the shape, the
 * GPU and the limits we give it, and cuBLASLt's reductions (split-K
 * included: CUBLASLT_REDUCTION_SCHEME_* keep a fixed order, INPLACE uses
 * counters for sequence, not atomics for sums) are run-to-run
 * deterministic, so the same run twice gives the same bits.
 *
 * Row-major to cuBLASLt's column-major as in gemm_rm: y[rows][out] =
 * x·wᵀ is, column-major, Yᵀ (out × rows, ld = ldy) = op(W)·Xᵀ where W is
 * stored in × out (ld = in) and op = T, and Xᵀ is stored in × rows (ld =
 * ldx). The epilogue's bias has D's row count, out: one per output. */
#include "nn/cuda/internal.h"

#include <string.h>

#ifdef HY_HAVE_CUBLASLT

/* Alignment the plans assume of every operand and of the bias: 16 bytes
 * (the heuristic otherwise assumes 256 and may pick kernels that fault on
 * our parameter tensors, which the table aligns to 64 bytes, or on row
 * offsets). lt_linear_fwd checks it and leaves other pointers to the
 * fallback. */
enum { LT_ALIGN = 16 };

int lt_init(cu_ctx *x)
{
	return CU_BLAS(x, cublasLtCreate(&x->lt));
}

void lt_free(cu_ctx *x)
{
	/* teardown: failures are of no use to anyone any more */
	for (int i = 0; i < x->lt_index.n; i++) {
		cu_lt_plan *p = &x->lt_plan[i];
		if (p->pref)
			(void)cublasLtMatmulPreferenceDestroy(p->pref);
		for (int k = 0; k < 3; k++)
			if (p->lay[k])
				(void)cublasLtMatrixLayoutDestroy(p->lay[k]);
		if (p->desc)
			(void)cublasLtMatmulDescDestroy(p->desc);
	}
	memset(x->lt_plan, 0, sizeof x->lt_plan);
	x->lt_index.n = 0;
	if (x->lt)
		(void)cublasLtDestroy(x->lt);
	x->lt = NULL;
}

/* Makes the plan p of shape s: p->ok = 1, or 0 when cuBLASLt has no
 * algorithm for it (not an error: the shape then takes the fallback for
 * good) or a call failed (kept in x as every other failure). What was
 * made is released by lt_free either way. */
static int make_plan(cu_ctx *x, cu_lt_plan *p, const hy_nn_lt_shape *s)
{
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cublasLtEpilogue_t epi = s->bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
	cudaDataType_t bias_t = CUDA_R_32F; /* the fp32 bias of the parameter table */
	uint64_t ws = x->ws_bytes;
	uint32_t al = LT_ALIGN;
	/* a pointer with exactly LT_ALIGN alignment: the heuristic reads the
	 * bias pointer's alignment from it and never dereferences it */
	const void *probe = (const char *)x->ws + LT_ALIGN;
	int nres = 0;
	memset(p, 0, sizeof *p);
	if (CU_BLAS(x, cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
		CU_BLAS(x, cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
			    sizeof ta)) ||
		CU_BLAS(x, cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
			    sizeof tb)) ||
		CU_BLAS(x, cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
			    sizeof epi)) ||
		(s->bias &&
			(CU_BLAS(x, cublasLtMatmulDescSetAttribute(p->desc,
				     CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_t, sizeof bias_t)) ||
				CU_BLAS(x, cublasLtMatmulDescSetAttribute(p->desc,
					    CUBLASLT_MATMUL_DESC_BIAS_POINTER, &probe, sizeof probe)))) ||
		/* A: W stored in × out; B: Xᵀ stored in × rows; C = D: out × rows */
		CU_BLAS(x, cublasLtMatrixLayoutCreate(&p->lay[0], CUDA_R_16BF, s->in, s->out, s->in)) ||
		CU_BLAS(x, cublasLtMatrixLayoutCreate(&p->lay[1], CUDA_R_16BF, s->in, s->rows,
			    s->ldx)) ||
		CU_BLAS(x, cublasLtMatrixLayoutCreate(&p->lay[2], CUDA_R_32F, s->out, s->rows,
			    s->ldy)) ||
		CU_BLAS(x, cublasLtMatmulPreferenceCreate(&p->pref)) ||
		CU_BLAS(x, cublasLtMatmulPreferenceSetAttribute(p->pref,
			    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)) ||
		CU_BLAS(x, cublasLtMatmulPreferenceSetAttribute(p->pref,
			    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al, sizeof al)) ||
		CU_BLAS(x, cublasLtMatmulPreferenceSetAttribute(p->pref,
			    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al, sizeof al)) ||
		CU_BLAS(x, cublasLtMatmulPreferenceSetAttribute(p->pref,
			    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al, sizeof al)) ||
		CU_BLAS(x, cublasLtMatmulPreferenceSetAttribute(p->pref,
			    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al, sizeof al)))
		return 1;
	/* NOT_SUPPORTED here only means "no algorithm for this shape" */
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(x->lt, p->desc, p->lay[0], p->lay[1],
		p->lay[2], p->lay[2], p->pref, 1, &p->heur, &nres);
	if (st == CUBLAS_STATUS_NOT_SUPPORTED ||
		(st == CUBLAS_STATUS_SUCCESS && (nres < 1 || p->heur.state != CUBLAS_STATUS_SUCCESS)))
		return 1;
	if (CU_BLAS(x, st))
		return 1;
	p->ok = 1;
	return 0;
}

static int aligned(const void *p)
{
	return p && (uintptr_t)p % LT_ALIGN == 0;
}

int lt_linear_fwd(cu_ctx *x, int rows, int in, int out, const void *X, int ldx, const void *W,
	const float *b, float *y, int ldy)
{
	if (x->err || !x->lt || x->precision != HY_NN_PREC_BF16)
		return 1;
	if (!aligned(X) || !aligned(W) || !aligned(y) || (b && !aligned(b)))
		return 1;
	hy_nn_lt_shape s = {x->precision, rows, in, out, ldx, ldy, b != NULL};
	int fresh;
	int i = hy_nn_lt_slot(&x->lt_index, &s, &fresh);
	if (i < 0)
		return 1;
	cu_lt_plan *p = &x->lt_plan[i];
	if (fresh)
		(void)make_plan(x, p, &s); /* p->ok stays 0 without an algorithm */
	if (x->err || !p->ok)
		return 1;
	const float one = 1.0f, zero = 0.0f;
	if (b && CU_BLAS(x, cublasLtMatmulDescSetAttribute(p->desc,
			       CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b)))
		return 1;
	(void)CU_BLAS(x, cublasLtMatmul(x->lt, p->desc, &one, W, p->lay[0], X, p->lay[1], &zero, y,
			     p->lay[2], y, p->lay[2], &p->heur.algo, x->ws, x->ws_bytes, x->s));
	return 0; /* done, or failed and kept in x */
}

#else /* built without cuBLASLt: every shape takes the cublasGemmEx path */

int lt_init(cu_ctx *x)
{
	return 0;
}

void lt_free(cu_ctx *x)
{
}

int lt_linear_fwd(cu_ctx *x, int rows, int in, int out, const void *X, int ldx, const void *W,
	const float *b, float *y, int ldy)
{
	return 1;
}

#endif
