/* Path v3's geometry (issue 56; ARCHITECTURE.md "Path v3"), as functions
 * nvcc compiles for the device and gcc for the host, so that
 * tests/unit/test_nn_cuda_host.c checks on the CPU what the kernels of
 * lib/nn/cuda/v3/ assume: the widths v3 takes, which samples a 128-row tile
 * of the convolution holds (its "slots", whose partial sums the epilogues
 * write and the reductions read back in a fixed order), the split of the
 * weight gradient's rows, and the scratch all of it needs. */
#ifndef HY_NN_CUDA_V3_MAP3_H
#define HY_NN_CUDA_V3_MAP3_H

#include <math.h>
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

/* ------------------------------------------------ the MMA fragments
 *
 * mma.sync m16n8k16 with bf16 inputs (PTX ISA, the m16n8k16 fragments),
 * lane l = 4g + q of a warp: A (16 × 16, row-major) in four 32-bit
 * registers j, each two elements of one row at consecutive columns; B (16
 * × 8, k-major) in two, each two consecutive k of one column; C (16 × 8,
 * fp32) in four elements. The position of register j's first element: */
static inline HY_HD void hy_v3_frag_a(int lane, int j, int *row, int *col)
{
	*row = (lane >> 2) + 8 * (j & 1);
	*col = 2 * (lane & 3) + 8 * (j >> 1);
}

static inline HY_HD void hy_v3_frag_b(int lane, int j, int *k, int *n)
{
	*k = 2 * (lane & 3) + 8 * j;
	*n = lane >> 2;
}

static inline HY_HD void hy_v3_frag_c(int lane, int i, int *row, int *col)
{
	*row = (lane >> 2) + 8 * (i >> 1);
	*col = 2 * (lane & 3) + (i & 1);
}

/* The convolution (v3/conv.cu), a 128 × 64 tile, 4 warps: warp w's m16
 * fragment m (0, 1) at tap t and k step ks reads A register j from halo
 * row *h, channel *k of the staged operand (halo row h = tile row h − 1);
 * B register j of n8 fragment n from output *o, channel *k of tap t's
 * staged weights; accumulator i of (m, n) is tile row *r, output *o. */
static inline HY_HD void hy_v3_conv_a(int w, int m, int t, int ks, int lane, int j, int *h,
	int *k)
{
	int row, col;
	hy_v3_frag_a(lane, j, &row, &col);
	*h = w * 32 + m * 16 + row + t;
	*k = ks + col;
}

static inline HY_HD void hy_v3_conv_b(int n, int ks, int lane, int j, int *o, int *k)
{
	int kk, nn;
	hy_v3_frag_b(lane, j, &kk, &nn);
	*o = n * 8 + nn;
	*k = ks + kk;
}

static inline HY_HD void hy_v3_conv_c(int w, int m, int n, int lane, int i, int *r, int *o)
{
	int row, col;
	hy_v3_frag_c(lane, i, &row, &col);
	*r = w * 32 + m * 16 + row;
	*o = n * 8 + col;
}

/* The weight gradient (v3/wgrad.cu), a 64 × 64 tile of outputs o × inputs
 * i a tap, 4 warps, a step of 32 rows: warp w's A register j is dyᵀ row
 * (output) *o, step row *k; B register j of n8 fragment n at tap t is the
 * operandᵀ row (input) *i, halo row *h (step row k − 1 + h), its second
 * element at *h + 1; accumulator i of (t, n) is output *o, input *in. */
static inline HY_HD void hy_v3_wg_a(int w, int ks, int lane, int j, int *o, int *k)
{
	int row, col;
	hy_v3_frag_a(lane, j, &row, &col);
	*o = w * 16 + row;
	*k = ks + col;
}

static inline HY_HD void hy_v3_wg_b(int t, int n, int ks, int lane, int j, int *i, int *h)
{
	int kk, nn;
	hy_v3_frag_b(lane, j, &kk, &nn);
	*i = n * 8 + nn;
	*h = ks + kk + t;
}

static inline HY_HD void hy_v3_wg_c(int w, int n, int lane, int e, int *o, int *in)
{
	int row, col;
	hy_v3_frag_c(lane, e, &row, &col);
	*o = w * 16 + row;
	*in = n * 8 + col;
}

/* The data gradient's weights: element e of wd [C][3][C] is w[o][2 − t][i]
 * for e = (i, t, o) (v3/small.cu v3_pack_kernel): the index into w. */
static inline HY_HD size_t hy_v3_wd_src(size_t e, int C)
{
	const size_t i = e / (3 * (size_t)C), t = e / C % 3, o = e % C;
	return (o * 3 + 2 - t) * C + i;
}

/* ------------------------------------------------ the epilogues' partials
 *
 * Where a tile's partial sums go (v3/conv.cu reduce_tile writes them, the
 * reductions of v3/small.cu read them): GroupNorm sums of (tile mt, slot s,
 * group g), 2 floats; the pools of (mt, s, channel ch), 3 (sum, max, first
 * argmax as a float, −1 where the slot has no rows); dγ, dβ of (mt, ch), 2. */
static inline HY_HD size_t hy_v3_part_st(int mt, int s, int g)
{
	return (((size_t)mt * HY_V3_SLOTS + s) * HY_V3_GROUPS + g) * 2;
}

static inline HY_HD size_t hy_v3_part_pool(int mt, int s, int C, int ch)
{
	return (((size_t)mt * HY_V3_SLOTS + s) * C + ch) * 3;
}

static inline HY_HD size_t hy_v3_part_chan(int mt, int C, int ch)
{
	return ((size_t)mt * C + ch) * 2;
}

/* One (slot s, group gl of the tile) pair of a staged tile Cs (ldc floats a
 * row; rows past the batch and pad rows hold 0): s1 = Σ v, s2 = Σ v² over
 * the slot's rows and the group's cpg channels; with gamma (the data
 * gradient's epilogue, Cs = dz, Xs = x̂): s1 = Σ γ·dz, s2 = Σ γ·dz·x̂, gamma
 * the tile's first channel's. In row-then-channel order. */
static inline HY_HD void hy_v3_tile_sums(const float *Cs, const float *Xs, int ldc, int mt,
	int cpg, const float *gamma, int s, int gl, float *s1, float *s2)
{
	int lo, hi;
	hy_v3_slot_rows(mt, hy_v3_first_sample(mt) + s, &lo, &hi);
	float a = 0.0f, b = 0.0f;
	for (int row = lo; row < hi; row++)
		for (int j = 0; j < cpg; j++) {
			const int col = gl * cpg + j;
			const float v = Cs[row * ldc + col];
			if (!gamma) {
				a += v;
				b += v * v;
			} else {
				const float gv = gamma[col] * v;
				a += gv;
				b += gv * Xs[row * ldc + col];
			}
		}
	*s1 = a;
	*s2 = b;
}

/* The pools of column col over slot s's rows: sum, the first maximum and
 * its tile index (0 … 33; −1 and max −∞ where the slot has no rows). */
static inline HY_HD void hy_v3_tile_pool(const float *Cs, int ldc, int mt, int s, int col,
	float *sum, float *mx, int *am)
{
	const int b = hy_v3_first_sample(mt) + s;
	int lo, hi;
	hy_v3_slot_rows(mt, b, &lo, &hi);
	float su = 0.0f, m = -INFINITY;
	int a = -1;
	for (int row = lo; row < hi; row++) {
		const float v = Cs[row * ldc + col];
		su += v;
		if (v > m || a < 0) {
			m = v;
			a = mt * HY_V3_BM + row - b * HY_V3_TP - 1;
		}
	}
	*sum = su;
	*mx = m;
	*am = a;
}

/* Column col of the whole tile: pg = Σ dz·x̂, pb = Σ dz (dγ, dβ). */
static inline HY_HD void hy_v3_tile_chan(const float *Cs, const float *Xs, int ldc, int col,
	float *pg, float *pb)
{
	float g = 0.0f, b = 0.0f;
	for (int row = 0; row < HY_V3_BM; row++) {
		g += Cs[row * ldc + col] * Xs[row * ldc + col];
		b += Cs[row * ldc + col];
	}
	*pg = g;
	*pb = b;
}

/* Sample b's GroupNorm sums of group g from the partials of its tiles, in
 * tile order. */
static inline HY_HD void hy_v3_sums_of(const float *part, int b, int g, float *s1, float *s2)
{
	int lo, hi;
	hy_v3_sample_tiles(b, &lo, &hi);
	float a = 0.0f, c = 0.0f;
	for (int mt = lo; mt <= hi; mt++) {
		const float *p = part + hy_v3_part_st(mt, b - hy_v3_first_sample(mt), g);
		a += p[0];
		c += p[1];
	}
	*s1 = a;
	*s2 = c;
}

/* Sample b's pools of channel ch from its tiles: the sum, and the first
 * maximum (a later tile's replaces an earlier one only when greater). */
static inline HY_HD void hy_v3_pool_of(const float *part, int C, int b, int ch, float *sum,
	float *mx, int *am)
{
	int lo, hi;
	hy_v3_sample_tiles(b, &lo, &hi);
	float su = 0.0f, m = 0.0f;
	int a = -1;
	for (int mt = lo; mt <= hi; mt++) {
		const float *p = part + hy_v3_part_pool(mt, b - hy_v3_first_sample(mt), C, ch);
		su += p[0];
		if (p[2] >= 0.0f && (a < 0 || p[1] > m)) {
			m = p[1];
			a = (int)p[2];
		}
	}
	*sum = su;
	*mx = m;
	*am = a;
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
