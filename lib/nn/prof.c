/* Per-op time breakdown of a backend (see prof.h). */
#include "nn/prof.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The ops that are timed: backend.h's computing members. Memory
 * management, activation helpers and sync pass through untimed. */
#define HY_PROF_OPS(X)                                                                     \
	X(gemm) X(conv3_fwd) X(conv3_bwd) X(conv1_fwd) X(conv1_bwd) X(linear_fwd)           \
	X(linear_bwd) X(gn_mish_fwd) X(gn_mish_bwd) X(mish_fwd) X(mish_bwd) X(relu_fwd)     \
	X(relu_bwd) X(pool_fwd) X(pool_bwd) X(se_fwd) X(se_bwd) X(softmax_ce) X(bce) X(mse) \
	X(sumsq) X(scale) X(adamw) X(adamw_tensors) X(expand_obs) X(act_from_f32)          \
	X(dev_copy)

enum {
#define X(name) OP_##name,
	HY_PROF_OPS(X)
#undef X
	OP_COUNT
};
_Static_assert((int)OP_COUNT <= (int)HY_NN_PROF_MAX_OPS, "raise HY_NN_PROF_MAX_OPS");
/* The members that pass through untimed: name, memory, activation helpers,
 * the upload fences, sync, the timers and the graphs (graph_begin and
 * graph_end are cleared: a profiled forward queues its ops one by one, or
 * there would be nothing per op to time). A member added to backend.h must
 * join one list. */
enum { UNTIMED = 22 };
_Static_assert(sizeof(hy_nn_backend) == (OP_COUNT + UNTIMED) * sizeof(void *),
	"a member of hy_nn_backend is neither in HY_PROF_OPS nor counted as untimed");

static const char *const op_name[OP_COUNT] = {
#define X(name) #name,
	HY_PROF_OPS(X)
#undef X
};

static struct {
	const hy_nn_backend *in;
	const hy_nn_ctx *ctx;
	hy_nn_backend out;
	long calls[OP_COUNT];
	double ms[OP_COUNT];
	int pending[HY_NN_MARKS / 2]; /* op of each queued pair of marks */
	int npending;
	double t0; /* wall clock at the start of the op (no device timers) */
} P;

static double wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

void hy_nn_prof_flush(void)
{
	for (int i = 0; i < P.npending; i++) {
		double ms = P.in->mark_ms(P.ctx, 2 * i, 2 * i + 1);
		if (ms > 0)
			P.ms[P.pending[i]] += ms;
	}
	P.npending = 0;
}

static void begin(int op)
{
	P.calls[op]++;
	if (!P.in->mark) {
		P.t0 = wall_ms();
		return;
	}
	if (P.npending == HY_NN_MARKS / 2)
		hy_nn_prof_flush();
	P.pending[P.npending] = op;
	P.in->mark(P.ctx, 2 * P.npending);
}

static void end(int op)
{
	if (!P.in->mark) {
		P.ms[op] += wall_ms() - P.t0;
		return;
	}
	P.in->mark(P.ctx, 2 * P.npending + 1);
	P.npending++;
}

/* One forwarder per timed op, written out by signature: each calls the
 * inner op between begin and end (R: returns its value). */
#define FWD(name, params, args)                                                            \
	static void p_##name params                                                        \
	{                                                                                  \
		begin(OP_##name);                                                          \
		P.in->name args;                                                           \
		end(OP_##name);                                                            \
	}
#define FWD_R(type, name, params, args)                                                    \
	static type p_##name params                                                        \
	{                                                                                  \
		begin(OP_##name);                                                          \
		type r_ = P.in->name args;                                                 \
		end(OP_##name);                                                            \
		return r_;                                                                 \
	}

FWD(gemm, (const hy_nn_ctx *c, int ta, int tb, int M, int N, int K, float alpha,
	const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc),
	(c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
FWD(conv3_fwd, (const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, hy_nn_act *y), (c, B, cin, cout, x, w, y))
FWD(conv3_bwd, (const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const hy_nn_act *dy, hy_nn_act *dx, float *dw),
	(c, B, cin, cout, x, w, dy, dx, dw))
FWD(conv1_fwd, (const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *b, float *y), (c, B, cin, cout, x, w, b, y))
FWD(conv1_bwd, (const hy_nn_ctx *c, int B, int cin, int cout, const hy_nn_act *x,
	const float *w, const float *dy, hy_nn_act *dx, int dx_acc, float *dw, float *db),
	(c, B, cin, cout, x, w, dy, dx, dx_acc, dw, db))
FWD(linear_fwd, (const hy_nn_ctx *c, int rows, int in, int out, const float *x, int ldx,
	const float *w, const float *b, float *y, int ldy, int pad_B),
	(c, rows, in, out, x, ldx, w, b, y, ldy, pad_B))
FWD(linear_bwd, (const hy_nn_ctx *c, int rows, int in, int out, const float *x, int ldx,
	const float *w, const float *dy, int ldy, float *dx, int dx_acc, float *dw, float *db),
	(c, rows, in, out, x, ldx, w, dy, ldy, dx, dx_acc, dw, db))
FWD(gn_mish_fwd, (const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const float *gamma,
	const float *beta, hy_nn_act *z, hy_nn_act *a, float *mean, float *rstd),
	(c, B, C, x, gamma, beta, z, a, mean, rstd))
FWD(gn_mish_bwd, (const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const hy_nn_act *z,
	const float *gamma, const float *mean, const float *rstd, const hy_nn_act *da,
	hy_nn_act *dx, int dx_acc, float *dgamma, float *dbeta, float *scratch),
	(c, B, C, x, z, gamma, mean, rstd, da, dx, dx_acc, dgamma, dbeta, scratch))
FWD(mish_fwd, (const hy_nn_ctx *c, size_t n, const float *z, float *a), (c, n, z, a))
FWD(mish_bwd, (const hy_nn_ctx *c, size_t n, const float *z, const float *da, float *dz),
	(c, n, z, da, dz))
FWD(relu_fwd, (const hy_nn_ctx *c, size_t n, float *h), (c, n, h))
FWD(relu_bwd, (const hy_nn_ctx *c, size_t n, const float *h, float *dh), (c, n, h, dh))
FWD(pool_fwd, (const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, float *avg, float *max,
	uint8_t *arg, int ldp), (c, B, C, x, avg, max, arg, ldp))
FWD(pool_bwd, (const hy_nn_ctx *c, int B, int C, const float *davg, const float *dmax,
	const uint8_t *arg, int ldp, hy_nn_act *dx), (c, B, C, davg, dmax, arg, ldp, dx))
FWD(se_fwd, (const hy_nn_ctx *c, int B, int C, const hy_nn_act *x, const hy_nn_act *y,
	const float *e2, float *s, hy_nn_act *out), (c, B, C, x, y, e2, s, out))
FWD(se_bwd, (const hy_nn_ctx *c, int B, int C, const hy_nn_act *y, const float *s,
	const hy_nn_act *dout, hy_nn_act *dy, float *de2), (c, B, C, y, s, dout, dy, de2))
FWD(softmax_ce, (const hy_nn_ctx *c, int B, int n, const float *logits,
	const uint64_t *mask, const uint8_t *label, float scale, float *dlogits, double *sum,
	int *correct), (c, B, n, logits, mask, label, scale, dlogits, sum, correct))
FWD(bce, (const hy_nn_ctx *c, size_t n, const float *logits, const float *target,
	const float *w, float scale, float *dlogits, double *sum),
	(c, n, logits, target, w, scale, dlogits, sum))
FWD(mse, (const hy_nn_ctx *c, size_t n, const float *pred, const float *target,
	float scale, float *dpred, double *sum), (c, n, pred, target, scale, dpred, sum))
FWD_R(double, sumsq, (const hy_nn_ctx *c, size_t n, const float *g), (c, n, g))
FWD(scale, (const hy_nn_ctx *c, size_t n, float *g, float s), (c, n, g, s))
FWD(adamw, (const hy_nn_ctx *c, size_t n, float *p, const float *g, float *m, float *v,
	float lr, float b1, float b2, float eps, float wd, float bc1, float sqrt_bc2),
	(c, n, p, g, m, v, lr, b1, b2, eps, wd, bc1, sqrt_bc2))
FWD(adamw_tensors, (const hy_nn_ctx *c, const hy_nn_tensor *t, int count, float *p,
	const float *g, float *m, float *v, float lr, float b1, float b2, float eps, float wd,
	float bc1, float sqrt_bc2), (c, t, count, p, g, m, v, lr, b1, b2, eps, wd, bc1, sqrt_bc2))
FWD(expand_obs, (const hy_nn_ctx *c, int B, const uint16_t *obs, hy_nn_act *x),
	(c, B, obs, x))
FWD(act_from_f32, (const hy_nn_ctx *c, size_t n, const float *src, hy_nn_act *dst),
	(c, n, src, dst))
FWD(dev_copy, (const hy_nn_ctx *c, void *dst, const void *src, size_t bytes),
	(c, dst, src, bytes))

const hy_nn_backend *hy_nn_prof_wrap(const hy_nn_backend *inner, const hy_nn_ctx *ctx)
{
	P.in = inner;
	P.ctx = ctx;
	P.out = *inner;
	/* an op the inner backend lacks (optional, NULL) stays NULL */
#define X(name) P.out.name = inner->name ? p_##name : NULL;
	HY_PROF_OPS(X)
#undef X
	P.out.graph_begin = NULL;
	P.out.graph_end = NULL;
	P.npending = 0;
	hy_nn_prof_reset();
	return &P.out;
}

void hy_nn_prof_reset(void)
{
	if (P.in && P.in->mark)
		hy_nn_prof_flush();
	memset(P.calls, 0, sizeof P.calls);
	memset(P.ms, 0, sizeof P.ms);
}

static int by_time(const void *a, const void *b)
{
	const hy_nn_prof_row *x = a, *y = b;
	return (x->ms < y->ms) - (x->ms > y->ms);
}

int hy_nn_prof_rows(hy_nn_prof_row *rows, int cap)
{
	if (P.in && P.in->mark)
		hy_nn_prof_flush();
	int n = 0;
	for (int i = 0; i < OP_COUNT && n < cap; i++)
		if (P.calls[i])
			rows[n++] = (hy_nn_prof_row){op_name[i], P.calls[i], P.ms[i]};
	qsort(rows, (size_t)n, sizeof *rows, by_time);
	return n;
}

void hy_nn_prof_print(FILE *f, int steps, double wall)
{
	hy_nn_prof_row r[HY_NN_PROF_MAX_OPS];
	int n = hy_nn_prof_rows(r, HY_NN_PROF_MAX_OPS);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += r[i].ms;
	fprintf(f, "    %-14s %8s %12s %7s\n", "op", "calls", "ms/step", "share");
	for (int i = 0; i < n; i++)
		fprintf(f, "    %-14s %8.0f %12.3f %6.1f%%\n", r[i].op, (double)r[i].calls / steps,
			r[i].ms / steps, wall > 0 ? 100 * r[i].ms / wall : 0);
	fprintf(f, "    %-14s %8s %12.3f %6.1f%%\n", "(ops)", "", sum / steps,
		wall > 0 ? 100 * sum / wall : 0);
	fprintf(f, "    %-14s %8s %12.3f %6.1f%%\n", "(not in ops)", "", (wall - sum) / steps,
		wall > 0 ? 100 * (wall - sum) / wall : 0);
}
