/* Per-op time breakdown of any backend (bench/gpu/gpu_bench.c `profile`,
 * make gpu-acceptance).
 *
 * hy_nn_prof_wrap returns a backend whose ops are the inner backend's, each
 * bracketed by two timestamps: on a backend with device timers (mark and
 * mark_ms in backend.h: CUDA events recorded on the op stream, so nothing
 * waits and the queue runs as it would) the op's time on the device; on
 * one without (the CPU, whose ops are synchronous) the wall clock. Marks
 * are read back in hy_nn_prof_flush (a sync) or when the ring is full.
 *
 * One profiler per process: the op table has no user data, so the wrapper
 * keeps its state in this module. Not thread-safe; for benchmarks. */
#ifndef HY_NN_PROF_H
#define HY_NN_PROF_H

#include <stdio.h>

#include "nn/backend.h"

enum { HY_NN_PROF_MAX_OPS = 40 };

typedef struct hy_nn_prof_row {
	const char *op;  /* backend.h member name */
	long calls;
	double ms;       /* summed op time */
} hy_nn_prof_row;

/* The wrapped backend of inner (which must outlive it). ctx: the context
 * whose marks are used (ops must be called with it). Resets the counts. */
const hy_nn_backend *hy_nn_prof_wrap(const hy_nn_backend *inner, const hy_nn_ctx *ctx);
/* The name of timed op i (0 ≤ i: nn/ops.h's rows in order), NULL past
 * the last. */
const char *hy_nn_prof_op_name(int i);
/* Reads back pending marks into the totals (waits for the queued work). */
void hy_nn_prof_flush(void);
/* Zeroes the totals (after a warm-up). */
void hy_nn_prof_reset(void);
/* The rows with calls > 0, most time first; returns their count. */
int hy_nn_prof_rows(hy_nn_prof_row *rows, int cap);
/* Writes the table: each op's calls, ms per step, share of wall, and the
 * remainder of wall (host time where the device idles: launches, syncs).
 * wall_ms: the measured wall time of the profiled steps. */
void hy_nn_prof_print(FILE *f, int steps, double wall_ms);

#endif
