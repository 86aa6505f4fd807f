/* Per-op time breakdown of a backend (see prof.h). */
#include "nn/prof.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The ops that are timed: nn/ops.h's list, every computing member of
 * backend.h. Memory management, activation helpers and sync pass through
 * untimed. */
#define HY_PROF_OPS(X) HY_NN_OPS(X)

enum {
#define X(kind, ret, name, params, args, check) OP_##name,
	HY_PROF_OPS(X)
#undef X
	OP_COUNT
};
_Static_assert((int)OP_COUNT <= (int)HY_NN_PROF_MAX_OPS, "raise HY_NN_PROF_MAX_OPS");
/* The members that pass through untimed: name, memory, activation helpers,
 * the upload fences, sync, the timers and the graphs (graph_begin and
 * graph_end are cleared: a profiled forward queues its ops one by one, or
 * there would be nothing per op to time). A member added to backend.h
 * outside nn/ops.h must be counted here. */
enum { UNTIMED = 22 };
_Static_assert(sizeof(hy_nn_backend) == (OP_COUNT + UNTIMED) * sizeof(void *),
	"a member of hy_nn_backend is neither in HY_PROF_OPS nor counted as untimed");

static const char *const op_name[OP_COUNT] = {
#define X(kind, ret, name, params, args, check) #name,
	HY_PROF_OPS(X)
#undef X
};

const char *hy_nn_prof_op_name(int i)
{
	return i >= 0 && i < OP_COUNT ? op_name[i] : NULL;
}

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

/* One forwarder per timed op, from its row of nn/ops.h: each calls the
 * inner op between begin and end (R: returns its value). */
#define FWD_V(type, name, params, args)                                                          \
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

/* one wrapper p_NAME per row of nn/ops.h */
#define PROF_WRAP(kind, ret, name, params, args, check) FWD_##kind(ret, name, params, args)
HY_PROF_OPS(PROF_WRAP)
#undef PROF_WRAP

const hy_nn_backend *hy_nn_prof_wrap(const hy_nn_backend *inner, const hy_nn_ctx *ctx)
{
	P.in = inner;
	P.ctx = ctx;
	P.out = *inner;
	/* an op the inner backend lacks (optional, NULL) stays NULL */
#define X(kind, ret, name, params, args, check) P.out.name = inner->name ? p_##name : NULL;
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
