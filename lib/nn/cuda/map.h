/* Thread mappings of issue 43's kernels (kernels.cu, the "v2" path), as
 * functions that nvcc compiles for the device and gcc for the host, so
 * that tests/unit/test_nn_cuda_host.c walks every thread of a launch on
 * the CPU and checks that each element is owned by exactly one thread and
 * that the register arrays the kernels size at compile time are enough:
 * the parts of a kernel a CPU can check without a GPU.
 *
 * Also the plan of the chunked 3-tap convolution (conv.cu conv_chunk):
 * how many rows of taps one chunk holds so that it stays in L2, and the
 * 16-byte padding of a GEMM's K. */
#ifndef HY_NN_CUDA_MAP_H
#define HY_NN_CUDA_MAP_H

#include <stddef.h>

#ifdef __CUDACC__
#define HY_HD __host__ __device__
#else
#define HY_HD
#endif

enum {
	HY_NN_MAP_NT = 256,  /* threads per block of the v2 kernels            */
	HY_NN_MAP_VEC = 8,   /* bf16 values in one 16-byte vector              */
	HY_NN_MAP_ROWS = 34, /* rows of a sample a GroupNorm normalises (tiles) */
	HY_NN_MAP_MAXR = 5,  /* rows one thread of gn v2 holds in registers     */
	HY_NN_GN2_MAXC = 256, /* widest C of gn v2 (its shared per-channel arrays) */
	HY_NN_CHUNK_ALIGN = 128, /* chunk rows: a multiple of the GEMM's tile   */
};

/* ---------------------------------------------------------- GroupNorm v2
 *
 * One block of HY_NN_MAP_NT threads per sample; the sample's 34 rows of C
 * channels are C/8 vectors a row. Thread i takes vector column v = i mod
 * (C/8) and row group g = i div (C/8); the block has G = NT div (C/8) row
 * groups and thread (g, v) owns rows g, g + G, g + 2G, … < 34 of column v
 * (threads with g ≥ G own nothing). Every value of the sample is then
 * loaded once, in 16-byte vectors, and kept in registers (at most MAXR
 * rows a thread): C must be a multiple of 32 (whole GroupNorm groups, and
 * so of 8), at most HY_NN_GN2_MAXC (the kernels' shared per-channel
 * arrays), and ⌈34 / G⌉ ≤ MAXR; that is C = 32, 64, …, 256, which covers
 * the model widths. Other widths take the v1 kernels. */

/* Vector columns of a row. */
static inline HY_HD int hy_nn_gn2_cols(int C)
{
	return C / HY_NN_MAP_VEC;
}

/* Row groups of the block (0 when C is not a width the v2 kernels take). */
static inline HY_HD int hy_nn_gn2_groups(int C)
{
	if (C < HY_NN_MAP_VEC || C % HY_NN_MAP_VEC || C > HY_NN_MAP_VEC * HY_NN_MAP_NT)
		return 0;
	return HY_NN_MAP_NT / hy_nn_gn2_cols(C);
}

/* Rows thread (g) holds: ⌈(34 − g) / G⌉ for g < G, else 0. */
static inline HY_HD int hy_nn_gn2_nrows(int C, int g)
{
	const int G = hy_nn_gn2_groups(C);
	if (G < 1 || g >= G)
		return 0;
	return (HY_NN_MAP_ROWS - g + G - 1) / G;
}

/* Where row group g's partial of channel ch sits in the kernels' shared
 * array of HY_NN_GN2_PART floats: rows of C + C/8, one pad float after
 * each thread's 8 channels, so that a warp's threads (consecutive v, 8
 * channels each) store at a stride of 9 floats, 32 banks for 32 threads,
 * where a stride of 8 put 4 in a bank (issue 56, finding 9); the
 * channel-order reads of the totals meet at most 2 in a bank. */
enum { HY_NN_GN2_PART = HY_NN_MAP_NT * (HY_NN_MAP_VEC + 1) };
static inline HY_HD int hy_nn_gn2_pix(int g, int C, int ch)
{
	return g * (C + C / HY_NN_MAP_VEC) + ch + ch / HY_NN_MAP_VEC;
}

/* 1 when the v2 GroupNorm kernels take C (the register arrays suffice). */
static inline HY_HD int hy_nn_gn2_fits(int C)
{
	return hy_nn_gn2_groups(C) > 0 && hy_nn_gn2_nrows(C, 0) <= HY_NN_MAP_MAXR &&
		C <= HY_NN_GN2_MAXC && (C / 32) * 32 == C; /* whole groups (32 of them) */
}

/* ---------------------------------------------------------- taps v2
 *
 * The taps of rows [r0, r0 + n) of an activation of `cols` channels, each
 * dst row k = 3·cols values padded with zeros to kp (a multiple of 8):
 * dst[r][j] = src[(r0 + r)·cols + j] for j < 3·cols, 0 for 3·cols ≤ j < kp.
 * Vector form (cols a multiple of 8, kp = 3·cols): one thread per 16-byte
 * vector of dst, flat index e over n·kp/8 in 32 bits (n·kp ≤ 2^31 is
 * checked at launch), row e div (kp/8), vector e mod (kp/8); the source
 * vector starts at element (r0 + row)·cols + 8·vector, 16-byte aligned.
 * Scalar form otherwise: one thread per element of dst, same mapping with
 * a vector of one. */
static inline HY_HD size_t hy_nn_taps2_src(int r0, int cols, int row, int j)
{
	return (size_t)(r0 + row) * (size_t)cols + (size_t)j;
}

/* K of a GEMM over k = 3·cols values padded to a multiple of 8 (16 bytes
 * of bf16): the stem's 255 becomes 256. */
static inline HY_HD int hy_nn_kpad(int k)
{
	return (k + HY_NN_MAP_VEC - 1) / HY_NN_MAP_VEC * HY_NN_MAP_VEC;
}

/* Rows of taps one chunk holds: the taps of a chunk (rows · kp · 2 bytes)
 * take at most half of an L2 of l2_bytes (the other half for the weights,
 * the output tiles and what the GEMM streams), rounded down to whole waves
 * of the GEMM — a multiple of sms · HY_NN_CHUNK_ALIGN rows (one tile of
 * HY_NN_CHUNK_ALIGN rows per SM; issue 56, finding 5: half an H100's L2
 * rounded to tiles alone gave 133 tiles on 132 SMs, two waves for 1.01 of
 * work) when at least one wave fits and sms > 0, else to a multiple of
 * HY_NN_CHUNK_ALIGN; at least HY_NN_CHUNK_ALIGN; all rows when they fit
 * in one chunk; 0 for rows < 1 or kp < 1. l2_bytes 0 (unknown): one
 * chunk. */
static inline HY_HD int hy_nn_conv_chunk_rows(int rows, int kp, size_t l2_bytes, int sms)
{
	if (rows < 1 || kp < 1)
		return 0;
	if (l2_bytes == 0)
		return rows;
	size_t fit = l2_bytes / 2 / ((size_t)kp * 2);
	const size_t wave = sms > 0 ? (size_t)sms * HY_NN_CHUNK_ALIGN : 0;
	if (wave && fit >= wave)
		fit = fit / wave * wave;
	else
		fit = fit / HY_NN_CHUNK_ALIGN * HY_NN_CHUNK_ALIGN;
	if (fit < HY_NN_CHUNK_ALIGN)
		fit = HY_NN_CHUNK_ALIGN;
	return (size_t)rows <= fit ? rows : (int)fit;
}

#endif
