/* The one list of the network's ops (issue 55): every computing member of
 * backend.h's table, each a row
 *
 *     X(kind, ret, name, params, args, check)
 *
 * kind V (returns nothing) or R (returns ret); params the parameter list
 * with names, args the same names as a call's arguments; check the prefix
 * of tests/gpu/check_gpu.c's comparisons that cover the op. The build
 * expands it into the table's members (backend.h), the CPU's and the CUDA
 * backend's entries (cpu.c: cpu_NAME; cuda/ctx.cu, cuda/internal.h:
 * cu_NAME), the profiler's wrappers (prof.c) and check_gpu's op cases, so
 * that a new op is one row here plus its reference (cpu.c) and its kernels
 * (cuda/). HY_NN_OPS_CORE are the ops every backend has (the CPU is the
 * reference); HY_NN_OPS_DEVICE are optional (NULL on the CPU: a batched
 * optimiser, the compact feed's widening, copies queued with the ops).
 * HY_NN_OPS_EXTRA, when defined (a test build, tests/shell/t1470), adds
 * rows to the device list. Docs of each op above its row; shapes and the
 * activation layout are backend.h's. */
#ifndef HY_NN_OPS_H
#define HY_NN_OPS_H

#define HY_NN_OPS_CORE(X)                                                                   \
	/* Row-major C[M][N] = alpha·op(A)·op(B) + beta·C. */                                \
	X(V, void, gemm,                                                                     \
		(const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,       \
			const float *A, int lda, const float *B, int ldb, float beta, float *C, \
			int ldc),                                                            \
		(c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), "gemm")           \
	/* 3-tap, pad-1 convolution, no bias: x [B][36][cin] → y [B][36][cout]. */       \
	X(V, void, conv3_fwd,                                                                \
		(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,           \
			const float *w, hy_nn_act *y),                                       \
		(c, B, cin, cout, x, w, y), "conv3_fwd")                                     \
	/* dx (NULL: not wanted) = conv3ᵀ(dy), overwritten; dw += ∂/∂w. */               \
	X(V, void, conv3_bwd,                                                                \
		(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,           \
			const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw),      \
		(c, B, cin, cout, x, w, dy, dx, dw), "conv3_bwd")                            \
	/* 1×1 convolution with bias from activation storage to an fp32 head          \
	 * tensor: y [B][36][cout] = x·wᵀ + b per row, pad rows zero. */                  \
	X(V, void, conv1_fwd,                                                                \
		(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,           \
			const float *w, const float *b, float *y),                           \
		(c, B, cin, cout, x, w, b, y), "conv1_fwd")                                  \
	/* From dy [B][36][cout] fp32 (zero pads): dx (= or += per dx_acc) =          \
	 * dy·w, dw += dyᵀx, db += Σ_r dy. */                                            \
	X(V, void, conv1_bwd,                                                                \
		(const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,           \
			const float *w, const float *dy, hy_nn_act *dx, int dx_acc,          \
			float *dw, float *db),                                               \
		(c, B, cin, cout, x, w, dy, dx, dx_acc, dw, db), "conv1_bwd")                \
	/* Linear over fp32 rows: y[r][out] = x[r]·wᵀ + b (b may be NULL);            \
	 * ldx/ldy row strides; when pad_B > 0 the rows are pad_B samples of 36       \
	 * rows whose pad rows are zeroed afterwards. */                                 \
	X(V, void, linear_fwd,                                                               \
		(const hy_nn_ctx *c, int rows, int in, int out, const float *x, int ldx,     \
			const float *w, const float *b, float *y, int ldy, int pad_B),       \
		(c, rows, in, out, x, ldx, w, b, y, ldy, pad_B), "linear_fwd")               \
	/* dx (NULL: not wanted) = dy·w (beta 0 or 1 per dx_acc); dw += dyᵀx;         \
	 * db += Σ_r dy (db may be NULL). */                                             \
	X(V, void, linear_bwd,                                                               \
		(const hy_nn_ctx *c, int rows, int in, int out, const float *x, int ldx,     \
			const float *w, const float *dy, int ldy, float *dx, int dx_acc,     \
			float *dw, float *db),                                               \
		(c, rows, in, out, x, ldx, w, dy, ldy, dx, dx_acc, dw, db), "linear_bwd")    \
	/* Fused GroupNorm (32 groups, eps 1e-5, affine) + Mish over [B][36][C]:      \
	 * z = GN(x), a = Mish(z); mean/rstd [B][32] saved for backward. */              \
	X(V, void, gn_mish_fwd,                                                              \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const float *gamma,   \
			const float *beta, hy_nn_act *z, hy_nn_act *a, float *mean,          \
			float *rstd),                                                        \
		(c, B, C, x, gamma, beta, z, a, mean, rstd), "gn_mish_fwd")                  \
	/* From da = ∂L/∂a: dx (= or += per dx_acc), dgamma += , dbeta += .           \
	 * scratch: 2·B·C floats. */                                                     \
	X(V, void, gn_mish_bwd,                                                              \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const hy_nn_act *z,   \
			const float *gamma, const float *mean, const float *rstd,            \
			const hy_nn_act *da, hy_nn_act *dx, int dx_acc, float *dgamma,       \
			float *dbeta, float *scratch),                                       \
		(c, B, C, x, z, gamma, mean, rstd, da, dx, dx_acc, dgamma, dbeta, scratch),  \
		"gn_mish_bwd")                                                               \
	/* Elementwise: a = Mish(z) over n; dz = da·Mish'(z). */                          \
	X(V, void, mish_fwd, (const hy_nn_ctx *c, size_t n, const float *z, float *a),      \
		(c, n, z, a), "mish_fwd")                                                    \
	X(V, void, mish_bwd,                                                                 \
		(const hy_nn_ctx *c, size_t n, const float *z, const float *da, float *dz),  \
		(c, n, z, da, dz), "mish_bwd")                                               \
	/* In place ReLU, and dh *= (h > 0). */                                          \
	X(V, void, relu_fwd, (const hy_nn_ctx *c, size_t n, float *h), (c, n, h),           \
		"relu_fwd")                                                                  \
	X(V, void, relu_bwd, (const hy_nn_ctx *c, size_t n, const float *h, float *dh),     \
		(c, n, h, dh), "relu_bwd")                                                   \
	/* Pools over the 34 tiles: avg[b][c] and max[b][c] (argmax tile in           \
	 * arg, may be NULL for avg-only: max is skipped when max == NULL).           \
	 * avg/max rows have stride ldp. */                                              \
	X(V, void, pool_fwd,                                                                 \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, float *avg,           \
			float *max, uint8_t *arg, int ldp),                                  \
		(c, B, C, x, avg, max, arg, ldp), "pool_fwd")                                \
	/* dx += davg/34 broadcast (+ dmax at the argmax when dmax != NULL). */          \
	X(V, void, pool_bwd,                                                                 \
		(const hy_nn_ctx *c, int B, int C, const float *davg, const float *dmax,     \
			const uint8_t *arg, int ldp, hy_nn_act *dx),                         \
		(c, B, C, davg, dmax, arg, ldp, dx), "pool_bwd")                             \
	/* Squeeze-excitation gate: e2 [2B][C] = MLP(avg) rows then MLP(max)          \
	 * rows; s = σ(e2[b] + e2[B+b]) [B][C]; out = x + y·s. */                        \
	X(V, void, se_fwd,                                                                   \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const hy_nn_act *y,   \
			const float *e2, float *s, hy_nn_act *out),                          \
		(c, B, C, x, y, e2, s, out), "se_fwd")                                       \
	/* From dout: dy = dout·s (overwritten), de2[b] = de2[B+b] = Σ_t dout·y·s(1−s). */ \
	X(V, void, se_bwd,                                                                   \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *y, const float *s,       \
			const hy_nn_act *dout, hy_nn_act *dy, float *de2),                   \
		(c, B, C, y, s, dout, dy, de2), "se_bwd")                                    \
	/* Losses. Each sets *sum to Σ of per-item losses and writes                  \
	 * dlogits = scale·∂(Σ)/∂logits (so scale = weight / count gives the          \
	 * gradient of weight·mean). The CPU sets *sum at once; a device              \
	 * backend queues the loss with the ops and sets *sum (and adds to            \
	 * *correct) at the next sync, so that a step's losses are read with          \
	 * one wait (sum and correct must stay valid until then; NAN after a          \
	 * failure). Softmax cross-entropy over n classes, restricted to the          \
	 * legal classes of mask[b] (mask NULL: all legal); correct (if not           \
	 * NULL) += argmax == label. */                                                  \
	X(V, void, softmax_ce,                                                               \
		(const hy_nn_ctx *c, int B, int n, const float *logits, const uint64_t *mask, \
			const uint8_t *label, float scale, float *dlogits, double *sum,      \
			int *correct),                                                       \
		(c, B, n, logits, mask, label, scale, dlogits, sum, correct), "softmax_ce")  \
	/* Sigmoid BCE with per-element weights w ∈ {0, 1} (NULL: all 1). */              \
	X(V, void, bce,                                                                      \
		(const hy_nn_ctx *c, size_t n, const float *logits, const float *target,     \
			const float *w, float scale, float *dlogits, double *sum),           \
		(c, n, logits, target, w, scale, dlogits, sum), "bce")                       \
	X(V, void, mse,                                                                      \
		(const hy_nn_ctx *c, size_t n, const float *pred, const float *target,       \
			float scale, float *dpred, double *sum),                             \
		(c, n, pred, target, scale, dpred, sum), "mse")                              \
	/* Optimiser pieces: Σ g² (double, fixed order); g *= s; AdamW step           \
	 * (see hy_nn_adamw_elem) with bc1 = 1 − β1^t, sqrt_bc2 = √(1 − β2^t). */        \
	X(R, double, sumsq, (const hy_nn_ctx *c, size_t n, const float *g), (c, n, g),      \
		"sumsq")                                                                     \
	X(V, void, scale, (const hy_nn_ctx *c, size_t n, float *g, float s), (c, n, g, s),  \
		"adamw + scale")                                                             \
	X(V, void, adamw,                                                                    \
		(const hy_nn_ctx *c, size_t n, float *p, const float *g, float *m, float *v, \
			float lr, float b1, float b2, float eps, float wd, float bc1,        \
			float sqrt_bc2),                                                     \
		(c, n, p, g, m, v, lr, b1, b2, eps, wd, bc1, sqrt_bc2), "adamw")

#ifndef HY_NN_OPS_EXTRA
#define HY_NN_OPS_EXTRA(X)
#endif

#define HY_NN_OPS_DEVICE(X)                                                                 \
	/* AdamW over the count tensors of a parameter table in one pass (one         \
	 * launch on a GPU instead of one per tensor): tensor i is the n =            \
	 * t[i].size floats at t[i].offset of p, g, m, v, with weight decay wd        \
	 * where t[i].decay and 0 elsewhere; the same per-element update as adamw. */    \
	X(V, void, adamw_tensors,                                                            \
		(const hy_nn_ctx *c, const hy_nn_tensor *t, int count, float *p,             \
			const float *g, float *m, float *v, float lr, float b1, float b2,    \
			float eps, float wd, float bc1, float sqrt_bc2),                     \
		(c, t, count, p, g, m, v, lr, b1, b2, eps, wd, bc1, sqrt_bc2),               \
		"adamw_tensors")                                                             \
	/* Widens B compact samples: obs [B][85·34] binary16 bits, channel-major      \
	 * as a sample stores them (samples/sample.h), into the model's input         \
	 * x [B][36][85] (activation storage) with zero pad rows. Lets a feed         \
	 * move half the bytes to a GPU and skip the widening on the host             \
	 * (model.h, the compact batch). Queued as dev_copy is: after every           \
	 * to_dev_async before it, so obs may be a staging buffer. */                    \
	X(V, void, expand_obs, (const hy_nn_ctx *c, int B, const uint16_t *obs, hy_nn_act *x), \
		(c, B, obs, x), "expand_obs")                                                \
	/* n fp32 values in the backend's memory into activation storage, queued      \
	 * with the ops (backend.h's act_* members). */                                  \
	X(V, void, act_from_f32,                                                             \
		(const hy_nn_ctx *c, size_t n, const float *src, hy_nn_act *dst),            \
		(c, n, src, dst), "act_from_f32")                                            \
	/* A device→device copy queued with the ops, after every to_dev_async         \
	 * queued before it (backend.h, the feed's copies). */                           \
	X(V, void, dev_copy, (const hy_nn_ctx *c, void *dst, const void *src, size_t bytes), \
		(c, dst, src, bytes), "inference")                                           \
	/* Path v3's block (issue 56; ARCHITECTURE.md "Path v3"): the residual    \
	 * block as five fused ops, with GroupNorm statistics carried from op to      \
	 * op as st [B][32][2] fp32 (Σ, Σ² of a (sample, group)'s 34 tile rows ×      \
	 * C/32 channels) instead of a pass of their own, and GroupNorm+Mish          \
	 * recomputed in the convolutions instead of stored. fused_block: 1 when      \
	 * context c runs a block of C channels through them (else the core ops). */   \
	X(R, int, fused_block, (const hy_nn_ctx *c, int C), (c, C), "v3 fused_block")      \
	/* st ← the statistics of x [B][36][C] (the stem's output). */                  \
	X(V, void, gn_stats, (const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, float *st), \
		(c, B, C, x, st), "v3 gn_stats")                                             \
	/* y = conv3_{C→C}(Mish(GN(x))) with GN's mean, rstd [B][32] from st (and     \
	 * written for backward); st_out (NULL: not wanted) ← the statistics of y;    \
	 * avg (NULL: not wanted) ← pool_fwd(y, avg, max, arg, ldp C). tmp           \
	 * [B][36][C]: scratch a backend may write (the reference stores the          \
	 * operand there). */                                                            \
	X(V, void, gn_conv3_fwd,                                                             \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const float *st,      \
			const float *gamma, const float *beta, const float *w, float *mean,  \
			float *rstd, hy_nn_act *y, float *st_out, float *avg, float *max,    \
			uint8_t *arg, hy_nn_act *tmp),                                       \
		(c, B, C, x, st, gamma, beta, w, mean, rstd, y, st_out, avg, max, arg, tmp), \
		"v3 gn_conv3_fwd")                                                           \
	/* se_fwd, and st_out (NULL: not wanted) ← the statistics of out. */            \
	X(V, void, se_fwd_stats,                                                             \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const hy_nn_act *y,   \
			const float *e2, float *s, hy_nn_act *out, float *st_out),           \
		(c, B, C, x, y, e2, s, out, st_out), "v3 se_fwd_stats")                      \
	/* gn_conv3_fwd's backward to GroupNorm's output, from dy = ∂L/∂y: dw +=      \
	 * the weight gradient at the operand Mish(GN(x)) (recomputed); dz ←          \
	 * conv3ᵀ(dy)·Mish'(GN(x)) (pad rows 0); dgamma += Σ dz·x̂, dbeta += Σ dz      \
	 * per channel; gs [B][32][2] ← Σ γ·dz, Σ γ·dz·x̂ per (sample, group).        \
	 * tmp as gn_conv3_fwd's. */                                                     \
	X(V, void, gn_conv3_bwd,                                                             \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const float *gamma,   \
			const float *beta, const float *mean, const float *rstd,             \
			const float *w, const hy_nn_act *dy, hy_nn_act *dz, float *dw,       \
			float *dgamma, float *dbeta, float *gs, hy_nn_act *tmp),             \
		(c, B, C, x, gamma, beta, mean, rstd, w, dy, dz, dw, dgamma, dbeta, gs, tmp), \
		"v3 gn_conv3_bwd")                                                           \
	/* GroupNorm's input gradient from gn_conv3_bwd's dz and gs: dx (= or +=      \
	 * per dx_acc) rstd·(γ·dz − gs₀/n − x̂·gs₁/n), n = 34·C/32; pad rows kept. */    \
	X(V, void, gn_bwd_apply,                                                             \
		(const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const float *gamma,   \
			const float *mean, const float *rstd, const hy_nn_act *dz,           \
			const float *gs, hy_nn_act *dx, int dx_acc),                         \
		(c, B, C, x, gamma, mean, rstd, dz, gs, dx, dx_acc), "v3 gn_bwd_apply")      \
	HY_NN_OPS_EXTRA(X)

#define HY_NN_OPS(X) HY_NN_OPS_CORE(X) HY_NN_OPS_DEVICE(X)

/* Expansions used by more than one file. */
#define HY_NN_OP_MEMBER(kind, ret, name, params, args, check) ret(*name) params;
#define HY_NN_OP_COUNT_ONE(kind, ret, name, params, args, check) +1

enum { HY_NN_OPS_N = 0 HY_NN_OPS(HY_NN_OP_COUNT_ONE) };

#endif
