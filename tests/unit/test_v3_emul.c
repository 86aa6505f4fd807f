/* Path v3's GEMM kernels (lib/nn/cuda/v3/conv.cu, wgrad.cu) run on the CPU:
 * their loops, staging and index helpers (v3/map3.h) with every warp MMA
 * emulated by the PTX ISA's definition of mma.m16n8k16 (the fragment
 * tables written out here from the ISA's text, independently of map3.h's
 * helpers), against the direct convolution: the forward, the data gradient
 * through the flipped weights (hy_v3_wd_src) and the weight gradient over
 * its slices; and the epilogues' partial sums (map3.h hy_v3_tile_*, written
 * per tile as conv.cu's reduce_tile loops over them) read back by the
 * reductions' helpers (hy_v3_sums_of, hy_v3_pool_of, the channel sums)
 * against the per-sample statistics, pools and GroupNorm-backward sums
 * computed directly. What a GPU adds — the instruction itself, timing, shared
 * memory banks — is check_gpu's; what the CPU can check is that the
 * kernels' index maths computes the convolution. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/v3/map3.h"
#include "nn/fuse.h"
#include "nn/rng.h"

enum { TP = HY_V3_TP, BM = HY_V3_BM, BN = HY_V3_BN, BK = HY_V3_BK, HALO = BM + 2 };

/* The ISA's m16n8k16 .bf16 fragments: element i of lane l (g = l >> 2,
 * q = l % 4). A: row g for i < 2 or 4 ≤ i < 6, else g + 8; column 2q +
 * (i & 1), + 8 for i ≥ 4. B: row 2q + (i & 1), + 8 for i ≥ 2; column g.
 * C: row g for i < 2, else g + 8; column 2q + (i & 1). Element i of A is
 * register i/2's half i%2 (low to high), of B likewise. */
static void isa_a(int l, int i, int *r, int *c)
{
	*r = (l >> 2) + ((i < 2 || (i >= 4 && i < 6)) ? 0 : 8);
	*c = 2 * (l & 3) + (i & 1) + (i >= 4 ? 8 : 0);
}

static void isa_b(int l, int i, int *r, int *c)
{
	*r = 2 * (l & 3) + (i & 1) + (i >= 2 ? 8 : 0);
	*c = l >> 2;
}

static void isa_c(int l, int i, int *r, int *c)
{
	*r = (l >> 2) + (i >= 2 ? 8 : 0);
	*c = 2 * (l & 3) + (i & 1);
}

/* acc[l][i] += (A·B)[isa_c(l, i)] for a warp's registers: a[l][j][h],
 * b[l][j][h] the two halves of register j. */
static void mma_emul(float acc[32][4], float a[32][4][2], float b[32][2][2])
{
	float A[16][16], Bm[16][8];
	for (int l = 0; l < 32; l++) {
		for (int i = 0; i < 8; i++) {
			int r, c;
			isa_a(l, i, &r, &c);
			A[r][c] = a[l][i / 2][i % 2];
		}
		for (int i = 0; i < 4; i++) {
			int r, c;
			isa_b(l, i, &r, &c);
			Bm[r][c] = b[l][i / 2][i % 2];
		}
	}
	for (int l = 0; l < 32; l++)
		for (int i = 0; i < 4; i++) {
			int r, c;
			isa_c(l, i, &r, &c);
			float s = 0.0f;
			for (int k = 0; k < 16; k++)
				s += A[r][k] * Bm[k][c];
			acc[l][i] += s;
		}
}

static int tile_row(int r)
{
	return r % TP >= 1 && r % TP <= TP - 2;
}

static float *randv(hy_rng *g, size_t n)
{
	float *v = malloc(n * sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)hy_rng_normal(g);
	return v;
}

/* conv.cu's main loop and staging for in [R][C], packed weights w [C][3][C]:
 * out [R][C] at the tile rows (the epilogue's zeros elsewhere are not its
 * business here). */
static void conv_emul(int R, int C, const float *in, const float *w, float *out)
{
	static float As[HALO][BK], Bs[3][BN][BK];
	static float acc[4][2][8][32][4];
	for (int my = 0; my < hy_v3_mtiles(R); my++)
		for (int bx = 0; bx < C / BN; bx++) {
			const int r0 = my * BM, n0 = bx * BN;
			memset(acc, 0, sizeof acc);
			for (int kc = 0; kc < C; kc += BK) {
				for (int h = 0; h < HALO; h++) /* load_a */
					for (int k = 0; k < BK; k++) {
						const int q = r0 - 1 + h;
						As[h][k] = q >= 0 && q < R && tile_row(q) ? in[(size_t)q * C + kc + k] : 0;
					}
				for (int t = 0; t < 3; t++) /* load_b */
					for (int n = 0; n < BN; n++)
						for (int k = 0; k < BK; k++)
							Bs[t][n][k] = w[((size_t)(n0 + n) * 3 + t) * C + kc + k];
				for (int t = 0; t < 3; t++)
					for (int ks = 0; ks < BK; ks += 16)
						for (int wp = 0; wp < 4; wp++)
							for (int m = 0; m < 2; m++)
								for (int n = 0; n < 8; n++) {
									float a[32][4][2], b[32][2][2];
									for (int l = 0; l < 32; l++) {
										for (int j = 0; j < 4; j++) {
											int h, k;
											hy_v3_conv_a(wp, m, t, ks, l, j, &h, &k);
											a[l][j][0] = As[h][k];
											a[l][j][1] = As[h][k + 1];
										}
										for (int j = 0; j < 2; j++) {
											int o, k;
											hy_v3_conv_b(n, ks, l, j, &o, &k);
											b[l][j][0] = Bs[t][o][k];
											b[l][j][1] = Bs[t][o][k + 1];
										}
									}
									mma_emul(acc[wp][m][n], a, b);
								}
			}
			for (int wp = 0; wp < 4; wp++)
				for (int m = 0; m < 2; m++)
					for (int n = 0; n < 8; n++)
						for (int l = 0; l < 32; l++)
							for (int i = 0; i < 4; i++) {
								int row, col;
								hy_v3_conv_c(wp, m, n, l, i, &row, &col);
								const int r = r0 + row;
								if (r < R)
									out[(size_t)r * C + n0 + col] = acc[wp][m][n][l][i];
							}
		}
}

/* The direct 3-tap convolution y[r][o] = Σ_t Σ_i x[r+t−1][i]·w[o][t][i]
 * (x's pad rows zero) at tile rows, in double. */
static void conv_ref(int R, int C, const float *x, const float *w, double *y)
{
	for (int r = 0; r < R; r++)
		for (int o = 0; o < C; o++) {
			double s = 0;
			for (int t = 0; t < 3; t++) {
				const int q = r + t - 1;
				if (q < 0 || q >= R || !tile_row(q))
					continue;
				for (int i = 0; i < C; i++)
					s += (double)x[(size_t)q * C + i] * w[((size_t)o * 3 + t) * C + i];
			}
			y[(size_t)r * C + o] = s;
		}
}

static void check_rows(int R, int C, const double *ref, const float *got)
{
	double worst = 0;
	for (int r = 0; r < R; r++)
		if (tile_row(r))
			for (int o = 0; o < C; o++) {
				double e = fabs(ref[(size_t)r * C + o] - got[(size_t)r * C + o]);
				worst = e > worst ? e : worst;
			}
	print_message("largest difference %.3g\n", worst);
	assert_true(worst < 1e-3);
}

static void test_conv_forward_and_dx(void **state)
{
	(void)state;
	enum { B = 5, C = 128, R = B * TP }; /* two row tiles, the second part-filled */
	hy_rng g;
	hy_rng_seed(&g, 5601);
	float *x = randv(&g, (size_t)R * C), *w = randv(&g, (size_t)C * 3 * C);
	float *got = calloc((size_t)R * C, 4), *wd = malloc((size_t)C * 3 * C * 4);
	double *ref = malloc((size_t)R * C * 8), *refd = calloc((size_t)R * C, 8);
	conv_emul(R, C, x, w, got);
	conv_ref(R, C, x, w, ref);
	check_rows(R, C, ref, got);
	/* the data gradient: dx[q][i] = Σ_t Σ_o dy[q − t + 1][o]·w[o][t][i] */
	for (size_t e = 0; e < (size_t)C * 3 * C; e++)
		wd[e] = w[hy_v3_wd_src(e, C)];
	memset(got, 0, (size_t)R * C * 4);
	conv_emul(R, C, x, wd, got); /* x as dy */
	for (int q = 0; q < R; q++)
		for (int i = 0; i < C; i++) {
			double s = 0;
			for (int t = 0; t < 3; t++) {
				const int r = q - t + 1;
				if (r < 0 || r >= R || !tile_row(r))
					continue;
				for (int o = 0; o < C; o++)
					s += (double)x[(size_t)r * C + o] * w[((size_t)o * 3 + t) * C + i];
			}
			refd[(size_t)q * C + i] = s;
		}
	check_rows(R, C, refd, got);
	free(x), free(w), free(got), free(wd), free(ref), free(refd);
}

/* wgrad.cu's loop over slices and steps for operand a and dy [R][C]:
 * dw[o][t][i] = Σ_s of the slices' tiles. */
static void wgrad_emul(int R, int C, int S, const float *a, const float *dy, float *dw)
{
	enum { WT = HY_V3_WTILE, WK = HY_V3_WK };
	static float dT[WT][WK], aT[WT][WK + 2];
	static float acc[4][3][8][32][4];
	memset(dw, 0, (size_t)C * 3 * C * 4);
	for (int s = 0; s < S; s++)
		for (int bx = 0; bx < (C / WT) * (C / WT); bx++) {
			const int o0 = bx / (C / WT) * WT, i0 = bx % (C / WT) * WT;
			int k0, k1;
			hy_v3_wslice(R, S, s, &k0, &k1);
			memset(acc, 0, sizeof acc);
			for (int k = k0; k < k1; k += WK) {
				for (int j = 0; j < WK; j++)
					for (int o = 0; o < WT; o++) {
						const int r = k + j;
						dT[o][j] = r < R && tile_row(r) ? dy[(size_t)r * C + o0 + o] : 0;
					}
				for (int h = 0; h < WK + 2; h++)
					for (int i = 0; i < WT; i++) {
						const int r = k - 1 + h;
						aT[i][h] = r >= 0 && r < R && tile_row(r) ? a[(size_t)r * C + i0 + i] : 0;
					}
				for (int ks = 0; ks < WK; ks += 16)
					for (int wp = 0; wp < 4; wp++)
						for (int t = 0; t < 3; t++)
							for (int n = 0; n < 8; n++) {
								float fa[32][4][2], fb[32][2][2];
								for (int l = 0; l < 32; l++) {
									for (int j = 0; j < 4; j++) {
										int o, kk;
										hy_v3_wg_a(wp, ks, l, j, &o, &kk);
										fa[l][j][0] = dT[o][kk];
										fa[l][j][1] = dT[o][kk + 1];
									}
									for (int j = 0; j < 2; j++) {
										int i, h;
										hy_v3_wg_b(t, n, ks, l, j, &i, &h);
										fb[l][j][0] = aT[i][h];
										fb[l][j][1] = aT[i][h + 1];
									}
								}
								mma_emul(acc[wp][t][n], fa, fb);
							}
			}
			for (int wp = 0; wp < 4; wp++)
				for (int t = 0; t < 3; t++)
					for (int n = 0; n < 8; n++)
						for (int l = 0; l < 32; l++)
							for (int e = 0; e < 4; e++) {
								int o, i;
								hy_v3_wg_c(wp, n, l, e, &o, &i);
								dw[((size_t)(o0 + o) * 3 + t) * C + i0 + i] += acc[wp][t][n][l][e];
							}
		}
}

static void test_wgrad(void **state)
{
	(void)state;
	enum { B = 5, C = 128, R = B * TP };
	hy_rng g;
	hy_rng_seed(&g, 5602);
	float *a = randv(&g, (size_t)R * C), *dy = randv(&g, (size_t)R * C);
	float *dw = malloc((size_t)C * 3 * C * 4);
	const int S = hy_v3_wsplit(R, C, 132);
	assert_true(S > 1); /* more than one slice, so that their seams are walked */
	wgrad_emul(R, C, S, a, dy, dw);
	double worst = 0;
	for (int o = 0; o < C; o++)
		for (int t = 0; t < 3; t++)
			for (int i = 0; i < C; i++) {
				double s = 0;
				for (int r = 0; r < R; r++) {
					const int q = r + t - 1;
					if (!tile_row(r) || q < 0 || q >= R || !tile_row(q))
						continue;
					s += (double)dy[(size_t)r * C + o] * a[(size_t)q * C + i];
				}
				double e = fabs(s - dw[((size_t)o * 3 + t) * C + i]);
				worst = e > worst ? e : worst;
			}
	print_message("weight gradient over %d slices: largest difference %.3g\n", S, worst);
	assert_true(worst < 1e-3);
	free(a), free(dy), free(dw);
}

/* map3.h's fragment helpers against the ISA's tables above: register j's
 * first element is the ISA's element 2j, its second 2j + 1 one column
 * (A) or one row (B) on. */
static void test_fragments(void **state)
{
	(void)state;
	for (int l = 0; l < 32; l++) {
		for (int j = 0; j < 4; j++) {
			int r, c, r0, c0, r1, c1;
			hy_v3_frag_a(l, j, &r, &c);
			isa_a(l, 2 * j, &r0, &c0);
			isa_a(l, 2 * j + 1, &r1, &c1);
			assert_true(r == r0 && c == c0 && r1 == r0 && c1 == c0 + 1);
		}
		for (int j = 0; j < 2; j++) {
			int k, n, k0, n0, k1, n1;
			hy_v3_frag_b(l, j, &k, &n);
			isa_b(l, 2 * j, &k0, &n0);
			isa_b(l, 2 * j + 1, &k1, &n1);
			assert_true(k == k0 && n == n0 && n1 == n0 && k1 == k0 + 1);
		}
		for (int i = 0; i < 4; i++) {
			int r, c, r0, c0;
			hy_v3_frag_c(l, i, &r, &c);
			isa_c(l, i, &r0, &c0);
			assert_true(r == r0 && c == c0);
		}
	}
}

/* reduce_tile's loops (v3/conv.cu) over every tile of y (STATS and POOL)
 * and of dz with x̂ (MISHGRAD), then the readers, against direct sums. */
static void test_epilogue_reductions(void **state)
{
	(void)state;
	enum { B = 5, C = 128, R = B * TP, G = HY_V3_GROUPS, LDC = BN + 4 };
	const int cpg = C / G, ng = BN / cpg, mts = hy_v3_mtiles(R);
	hy_rng g;
	hy_rng_seed(&g, 5603);
	float *y = randv(&g, (size_t)R * C), *dz = randv(&g, (size_t)R * C);
	float *xh = randv(&g, (size_t)R * C), *gamma = randv(&g, C);
	for (int r = 0; r < R; r++) /* the epilogue stages 0 at pad rows */
		if (!tile_row(r))
			for (int c = 0; c < C; c++)
				y[(size_t)r * C + c] = dz[(size_t)r * C + c] = xh[(size_t)r * C + c] = 0;
	hy_v3_scratch sc;
	hy_v3_scratch_size(B, C, 132, &sc);
	float *st_part = calloc(sc.part, 4), *pool_part = calloc(sc.part, 4);
	float *gs_part = calloc(sc.part, 4), *chan = calloc(sc.chan, 4);
	static float Cs[BM][LDC], Ds[BM][LDC], Xs[BM][LDC];
	for (int mt = 0; mt < mts; mt++)
		for (int n0 = 0; n0 < C; n0 += BN) {
			for (int row = 0; row < BM; row++)
				for (int col = 0; col < BN; col++) {
					const int r = mt * BM + row;
					const size_t i = (size_t)r * C + n0 + col;
					Cs[row][col] = r < R ? y[i] : 0;
					Ds[row][col] = r < R ? dz[i] : 0;
					Xs[row][col] = r < R ? xh[i] : 0;
				}
			for (int p = 0; p < HY_V3_SLOTS * ng; p++) {
				const int s = p / ng, gl = p % ng;
				float *o = st_part + hy_v3_part_st(mt, s, n0 / cpg + gl);
				hy_v3_tile_sums(&Cs[0][0], NULL, LDC, mt, cpg, NULL, s, gl, &o[0], &o[1]);
				o = gs_part + hy_v3_part_st(mt, s, n0 / cpg + gl);
				hy_v3_tile_sums(&Ds[0][0], &Xs[0][0], LDC, mt, cpg, gamma + n0, s, gl, &o[0],
					&o[1]);
			}
			for (int p = 0; p < HY_V3_SLOTS * BN; p++) {
				const int s = p / BN, col = p % BN;
				float *o = pool_part + hy_v3_part_pool(mt, s, C, n0 + col);
				int am;
				hy_v3_tile_pool(&Cs[0][0], LDC, mt, s, col, &o[0], &o[1], &am);
				o[2] = (float)am;
			}
			for (int col = 0; col < BN; col++) {
				float *o = chan + hy_v3_part_chan(mt, C, n0 + col);
				hy_v3_tile_chan(&Ds[0][0], &Xs[0][0], LDC, col, &o[0], &o[1]);
			}
		}
	float st[2 * B * G];
	hy_nn_gn_stats_ref(B, C, y, st);
	for (int b = 0; b < B; b++)
		for (int k = 0; k < G; k++) {
			float s1, s2, g1, g2;
			hy_v3_sums_of(st_part, b, k, &s1, &s2);
			assert_true(fabsf(s1 - st[2 * (b * G + k)]) < 1e-4f * (1 + fabsf(s1)));
			assert_true(fabsf(s2 - st[2 * (b * G + k) + 1]) < 1e-4f * (1 + fabsf(s2)));
			double r1 = 0, r2 = 0;
			for (int t = 1; t <= TP - 2; t++)
				for (int j = 0; j < cpg; j++) {
					const int c = k * cpg + j;
					const size_t i = ((size_t)b * TP + t) * C + c;
					r1 += (double)gamma[c] * dz[i];
					r2 += (double)gamma[c] * dz[i] * xh[i];
				}
			hy_v3_sums_of(gs_part, b, k, &g1, &g2);
			assert_true(fabs(g1 - r1) < 1e-4 * (1 + fabs(r1)));
			assert_true(fabs(g2 - r2) < 1e-4 * (1 + fabs(r2)));
		}
	for (int b = 0; b < B; b++)
		for (int c = 0; c < C; c++) {
			float sum, mx;
			int am;
			hy_v3_pool_of(pool_part, C, b, c, &sum, &mx, &am);
			double rs = 0;
			float rm = -INFINITY;
			int ra = -1;
			for (int t = 0; t < TP - 2; t++) {
				const float v = y[((size_t)b * TP + 1 + t) * C + c];
				rs += v;
				if (v > rm) {
					rm = v;
					ra = t;
				}
			}
			assert_true(fabs(sum - rs) < 1e-4 * (1 + fabs(rs)));
			assert_true(mx == rm && am == ra);
		}
	for (int c = 0; c < C; c++) {
		float pg = 0, pb = 0;
		for (int mt = 0; mt < mts; mt++) {
			pg += chan[hy_v3_part_chan(mt, C, c)];
			pb += chan[hy_v3_part_chan(mt, C, c) + 1];
		}
		double rg = 0, rb = 0;
		for (int r = 0; r < R; r++) {
			rg += (double)dz[(size_t)r * C + c] * xh[(size_t)r * C + c];
			rb += dz[(size_t)r * C + c];
		}
		assert_true(fabs(pg - rg) < 1e-4 * (1 + fabs(rg)) && fabs(pb - rb) < 1e-4 * (1 + fabs(rb)));
	}
	free(y), free(dz), free(xh), free(gamma), free(st_part), free(pool_part), free(gs_part);
	free(chan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_conv_forward_and_dx),
		cmocka_unit_test(test_wgrad),
		cmocka_unit_test(test_epilogue_reductions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
