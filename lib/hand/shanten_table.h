/* Private to lib/hand: the distance tables behind shanten.c.
 *
 * For one suit (or the honours) with tile counts h[], dist[p][m] is the least
 * number of tiles to add so that the suit holds m mentsu and p pairs (p ≤ 1,
 * m ≤ 4) with at most 4 copies of each kind; extra tiles in hand cost
 * nothing. The standard-form shanten of a hand is then
 *   min over m0+m1+m2+m3 = 4 − nmelds, exactly one p = 1, of Σ dist − 1,
 * which is exact, including hands that hold all four copies of a kind.
 *
 * Every suit pattern with at most 14 tiles (405,350 of them; perfect hash
 * off_hi[hi] + rank_lo[lo] over the counts packed 3 bits each) and every
 * honour pattern (by its count histogram, hy_shtab_hkey) maps to a class id; classes are the distinct dist
 * vectors, stored SIMD-ready ("e-form": byte K − dist[p][m] at lane 8p + m,
 * lanes 5–7 and 13–15 zero). The tables are built once, lazily, under
 * pthread_once (hy_shtab_get) and are immutable afterwards. */
#ifndef HY_HAND_SHANTEN_TABLE_H
#define HY_HAND_SHANTEN_TABLE_H

#include <stdint.h>

enum {
	HY_SHTAB_K = 32,            /* e-form offset: dist ≤ 14 < K           */
	HY_SHTAB_SUIT = 405350,     /* suit patterns with ≤ 14 tiles          */
	HY_SHTAB_HONOR = 4096,      /* honour histogram keys                  */
	HY_SHTAB_MAXCLASS = 8192,
};

typedef struct hy_shtab {
	uint32_t off_hi[1 << 12];    /* counts 6–9, 3 bits each → offset      */
	uint16_t rank_lo[1 << 15];   /* counts 1–5, 3 bits each → rank        */
	uint16_t suit[HY_SHTAB_SUIT];
	uint16_t honor[HY_SHTAB_HONOR];
	_Alignas(16) uint8_t cls[HY_SHTAB_MAXCLASS][16];
	int nclass;
	int ok;                      /* tables built (else: slow DP path)      */
	int avx2;                    /* the CPU runs the AVX2 code path        */
} hy_shtab;

/* Packed keys of a suit's counts g[0..8] (each ≤ 4). */
static inline uint32_t hy_shtab_lo(const uint8_t *g)
{
	return g[0] | (uint32_t)g[1] << 3 | (uint32_t)g[2] << 6 | (uint32_t)g[3] << 9 |
	       (uint32_t)g[4] << 12;
}

static inline uint32_t hy_shtab_hi(const uint8_t *g)
{
	return g[5] | (uint32_t)g[6] << 3 | (uint32_t)g[7] << 6 | (uint32_t)g[8] << 9;
}

/* Honour key: n1 + 8·n2 + 64·n3 + 512·n4, nj = kinds of g[0..6] held ≥ j. */
static inline uint32_t hy_shtab_hkey(const uint8_t *g)
{
	uint32_t k = 0;
	for (int i = 0; i < 7; i++)
		k += (g[i] >= 1) + 8u * (g[i] >= 2) + 64u * (g[i] >= 3) + 512u * (g[i] >= 4);
	return k;
}

/* The tables, built on first use (thread-safe). Never NULL; if start-up
 * could not allocate its scratch, ok is 0 and callers use hy_shtab_dist. */
const hy_shtab *hy_shtab_get(void);

/* dist[2][5] of one suit (runs = 1) or honour group (runs = 0) of n kinds
 * straight from the DP, without tables: the reference the tables are built
 * from, also used for counts the tables do not cover. */
void hy_shtab_dist(const uint8_t *h, int n, int runs, uint8_t dist[2][5]);

#endif
