/* Path v3's geometry (issue 56; ARCHITECTURE.md "Path v3"), as functions
 * nvcc compiles for the device and gcc for the host, so that
 * tests/unit/test_nn_cuda_host.c checks on the CPU what the kernels of
 * lib/nn/cuda/v3/ assume: the widths v3 takes, which samples a 128-row tile
 * of the convolution holds (its "slots", whose partial sums the epilogues
 * write and the reductions read back in a fixed order), the split of the
 * weight gradient's rows, and the scratch all of it needs. */
#ifndef HY_NN_CUDA_V3_MAP3_H
#define HY_NN_CUDA_V3_MAP3_H

#include <stddef.h>

#include "nn/cuda/map.h"

enum {
	HY_V3_BM = 128,   /* rows of a convolution tile (4 warps × 32)           */
	HY_V3_BN = 64,    /* output channels of a tile                          */
	HY_V3_BK = 32,    /* input channels a step of its K loop                */
	HY_V3_NT = 128,   /* threads of every v3 GEMM block                     */
	HY_V3_SLOTS = 5,  /* samples a tile can touch: 128 rows over 36-row ones */
	HY_V3_TP = 36,    /* rows of a sample (backend.h HY_NN_TP)              */
	HY_V3_GROUPS = 32, /* GroupNorm groups (backend.h HY_NN_GROUPS)         */
	HY_V3_WK = 32,    /* rows a step of the weight gradient's K loop        */
	HY_V3_WTILE = 64, /* output and input channels of a weight-gradient tile */
};

/* A width v3 takes: whole 64-channel tiles, and a GroupNorm group (C/32
 * channels) never split between two of them. */
static inline HY_HD int hy_v3_takes(int C)
{
	return C >= 64 && C <= 2048 && C % 64 == 0 && 64 % (C / 32) == 0;
}

static inline HY_HD int hy_v3_mtiles(int R)
{
	return (R + HY_V3_BM - 1) / HY_V3_BM;
}

/* The first sample tile mt touches; sample b is its slot b − first. */
static inline HY_HD int hy_v3_first_sample(int mt)
{
	return mt * HY_V3_BM / HY_V3_TP;
}

/* The tiles that hold sample b's rows: lo … hi (at most two). */
static inline HY_HD void hy_v3_sample_tiles(int b, int *lo, int *hi)
{
	*lo = b * HY_V3_TP / HY_V3_BM;
	*hi = (b * HY_V3_TP + HY_V3_TP - 1) / HY_V3_BM;
}

/* Tile mt's local rows [*r0, *r1) that are sample b's tile rows (its rows
 * 1 … 34; empty when none, r0 = r1). */
static inline HY_HD void hy_v3_slot_rows(int mt, int b, int *r0, int *r1)
{
	int lo = b * HY_V3_TP + 1 - mt * HY_V3_BM, hi = b * HY_V3_TP + HY_V3_TP - 1 - mt * HY_V3_BM;
	*r0 = lo < 0 ? 0 : lo > HY_V3_BM ? HY_V3_BM : lo;
	*r1 = hi < 0 ? 0 : hi > HY_V3_BM ? HY_V3_BM : hi;
	if (*r1 < *r0)
		*r1 = *r0;
}

/* Slices of the weight gradient's R rows: enough blocks for two waves of
 * sms SMs over the (C/64)² tiles, each slice whole 32-row steps, at least
 * one step a slice. */
static inline HY_HD int hy_v3_wsplit(int R, int C, int sms)
{
	int tiles = (C / HY_V3_WTILE) * (C / HY_V3_WTILE), steps = (R + HY_V3_WK - 1) / HY_V3_WK;
	int s = (2 * (sms > 0 ? sms : 1) + tiles - 1) / tiles;
	return s < 1 ? 1 : s > steps ? steps : s;
}

/* Slice s of S: rows [*k0, *k1) (the steps shared out as evenly as whole
 * steps allow; the last may end past R, whose rows read as zeros). */
static inline HY_HD void hy_v3_wslice(int R, int S, int s, int *k0, int *k1)
{
	int steps = (R + HY_V3_WK - 1) / HY_V3_WK;
	*k0 = (int)((long)steps * s / S) * HY_V3_WK;
	*k1 = (int)((long)steps * (s + 1) / S) * HY_V3_WK;
}

/* Scratch floats of a context of max_batch B and width C: part, the
 * epilogues' per-(tile, slot) partials (GroupNorm sums [32][2], or the
 * pools' [C][3]); chan, the per-(tile, channel) ones of dγ, dβ [C][2];
 * wpart, the weight gradient's slices [S][C][3C]. Weights packed in bf16
 * ([C][3C], forward and data-gradient layouts) are w16 elements. */
typedef struct hy_v3_scratch {
	size_t part, chan, wpart, w16;
	int split;
} hy_v3_scratch;

static inline HY_HD void hy_v3_scratch_size(int B, int C, int sms, hy_v3_scratch *s)
{
	const int R = B * HY_V3_TP, mt = hy_v3_mtiles(R);
	const size_t per = (size_t)(3 * C > 2 * HY_V3_GROUPS ? 3 * C : 2 * HY_V3_GROUPS);
	s->part = (size_t)mt * HY_V3_SLOTS * per;
	s->chan = (size_t)mt * C * 2;
	s->split = hy_v3_wsplit(R, C, sms);
	s->wpart = (size_t)s->split * C * 3 * C;
	s->w16 = (size_t)C * 3 * C;
}

#endif
