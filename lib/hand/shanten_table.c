/* Distance tables for shanten (see shanten_table.h).
 *
 * The DP walks the kinds of a suit in order. Its state after kind i is
 * (a, b, m, p): a runs start at i, b runs started at i − 1 (both still need
 * later tiles), m mentsu and p pairs chosen so far; the value is the least
 * number of tiles added so far. At kind i it chooses r new runs (kinds 1–7
 * only), t ∈ {0,1} triplets and q ∈ {0,1} pairs; the kind then needs
 * x = a + b + r + 3t + 2q ≤ 4 tiles, which costs max(0, x − h[i]).
 *
 * The suit table is filled by a depth-first walk over count prefixes (at
 * most 14 tiles), so each prefix's DP step runs once: ~0.6 M steps. */
#include "hand/shanten_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { INF = 0xFF };

typedef struct dpst {
	uint8_t v[5][5][5][2]; /* [a][b][m][p] */
} dpst;

static void dp_init(dpst *s)
{
	memset(s, INF, sizeof *s);
	s->v[0][0][0][0] = 0;
}

/* The DP's moves do not depend on the counts, only their cost does: list
 * them once (per "runs allowed" flag) as (from, to, tiles needed). */
typedef struct trans {
	uint16_t from, to;
	uint8_t x;
} trans;

typedef struct translist {
	int n[2];
	trans t[2][1024];
} translist;

#define IDX(a, b, m, p) ((((a) * 5 + (b)) * 5 + (m)) * 2 + (p))

static void trans_init(translist *L)
{
	for (int runs = 0; runs < 2; runs++) {
		int n = 0;
		for (int a = 0; a < 5; a++)
			for (int b = 0; a + b < 5; b++)
				for (int m = a + b; m < 5; m++)
					for (int p = 0; p < 2; p++) {
						int rmax = runs ? 4 - m : 0;
						for (int r = 0; r <= rmax; r++)
							for (int t = 0; t < 2 && m + r + t < 5; t++)
								for (int q = 0; q < 2 - p; q++) {
									int x = a + b + r + 3 * t + 2 * q;
									if (x > 4)
										break;
									L->t[runs][n++] = (trans){(uint16_t)IDX(a, b, m, p),
									                          (uint16_t)IDX(r, a, m + r + t, p + q),
									                          (uint8_t)x};
								}
					}
		L->n[runs] = n;
	}
}

static void dp_step(const translist *L, const dpst *in, dpst *out, int h, int runs)
{
	const uint8_t *iv = &in->v[0][0][0][0];
	uint8_t *ov = &out->v[0][0][0][0];
	memset(out, INF, sizeof *out);
	const trans *t = L->t[runs];
	for (int i = 0, n = L->n[runs]; i < n; i++) {
		int v = iv[t[i].from];
		if (v == INF)
			continue;
		int x = t[i].x;
		int w = v + (x > h ? x - h : 0);
		if (w < ov[t[i].to])
			ov[t[i].to] = (uint8_t)w;
	}
}

static void dp_finish(const dpst *s, uint8_t dist[2][5])
{
	for (int p = 0; p < 2; p++)
		for (int m = 0; m < 5; m++)
			dist[p][m] = s->v[0][0][m][p];
}

void hy_shtab_dist(const uint8_t *h, int n, int runs, uint8_t dist[2][5])
{
	translist L;
	dpst s[2];
	trans_init(&L);
	dp_init(&s[0]);
	for (int i = 0; i < n; i++)
		dp_step(&L, &s[i & 1], &s[(i + 1) & 1], h[i], runs && i < n - 2);
	dp_finish(&s[n & 1], dist);
}

/* ------------------------------------------------------------ classes */

typedef struct builder {
	hy_shtab *t;
	uint16_t *code2cls; /* 18-bit code → class id + 1 (0 = none yet) */
	int failed;
	translist L;
	dpst st[10];
	uint8_t digit[9];
} builder;

/* dist is monotone in m with steps ≤ 3, dist[1][m] − dist[0][m] ∈ [0, 2]:
 * 2 bits per step pack the vector into 18 bits. */
static uint16_t class_of(builder *B, const uint8_t d[2][5])
{
	uint32_t code = 0;
	for (int m = 1; m < 5; m++) {
		int s0 = d[0][m] - d[0][m - 1], s1 = d[1][m] - d[1][m - 1];
		if (s0 < 0 || s0 > 3 || s1 < 0 || s1 > 3)
			B->failed = 1;
		code = code << 4 | (uint32_t)(s0 & 3) << 2 | (uint32_t)(s1 & 3);
	}
	if (d[0][0] != 0 || d[1][0] > 2)
		B->failed = 1;
	code = code << 2 | (d[1][0] & 3u);
	uint16_t id = B->code2cls[code];
	if (id)
		return (uint16_t)(id - 1);
	if (B->t->nclass >= HY_SHTAB_MAXCLASS) {
		B->failed = 1;
		return 0;
	}
	id = (uint16_t)B->t->nclass++;
	B->code2cls[code] = (uint16_t)(id + 1);
	uint8_t *e = B->t->cls[id];
	memset(e, 0, 16);
	for (int p = 0; p < 2; p++)
		for (int m = 0; m < 5; m++)
			e[8 * p + m] = (uint8_t)(HY_SHTAB_K - d[p][m]);
	return id;
}

static void walk_suit(builder *B, int i, int sum)
{
	if (i == 9) {
		uint8_t d[2][5];
		dp_finish(&B->st[9], d);
		const uint8_t *g = B->digit;
		uint32_t lo = hy_shtab_lo(g), hi = hy_shtab_hi(g);
		B->t->suit[B->t->off_hi[hi] + B->t->rank_lo[lo]] = class_of(B, d);
		return;
	}
	for (int h = 0; h < 5 && sum + h <= 14; h++) {
		B->digit[i] = (uint8_t)h;
		dp_step(&B->L, &B->st[i], &B->st[i + 1], h, i < 7);
		walk_suit(B, i + 1, sum + h);
	}
}

static void build_index(hy_shtab *t)
{
	/* Low part: the 3125 patterns of counts 1–5 ordered by (sum, value),
	 * so that those with sum ≤ s are a prefix of length cnt[s]. */
	int sumlo[3125], cnt[21] = {0};
	uint8_t g[9];
	for (int v = 0; v < 3125; v++) {
		int s = 0;
		for (int x = v; x; x /= 5)
			s += x % 5;
		sumlo[v] = s;
		cnt[s]++;
	}
	int start[21], acc = 0;
	for (int s = 0; s < 21; s++) {
		start[s] = acc;
		acc += cnt[s];
		cnt[s] = acc; /* now: number with sum ≤ s */
	}
	for (int v = 0; v < 3125; v++) {
		for (int i = 0, x = v; i < 5; i++, x /= 5)
			g[i] = (uint8_t)(x % 5);
		t->rank_lo[hy_shtab_lo(g)] = (uint16_t)start[sumlo[v]]++;
	}
	uint32_t off = 0;
	for (int v = 0; v < 625; v++) {
		int s = 0;
		for (int i = 0, x = v; i < 4; i++, x /= 5) {
			g[5 + i] = (uint8_t)(x % 5);
			s += x % 5;
		}
		t->off_hi[hy_shtab_hi(g)] = off;
		if (s <= 14)
			off += (uint32_t)cnt[14 - s];
	}
	if (off != HY_SHTAB_SUIT)
		t->nclass = -1;
}

static hy_shtab g_tab;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void build(void)
{
	hy_shtab *t = &g_tab;
	builder B = {.t = t};
	trans_init(&B.L);
	build_index(t);
	if (t->nclass < 0)
		abort(); /* programmer bug: index arithmetic */
	B.code2cls = calloc((size_t)1 << 18, sizeof *B.code2cls);
	if (!B.code2cls)
		return; /* t->ok stays 0: shanten.c falls back to the DP */
	dp_init(&B.st[0]);
	walk_suit(&B, 0, 0);
	/* Honours: the class depends only on how many kinds hold ≥ 1, 2, 3, 4
	 * (hy_shtab_hkey); one pattern per key: counts in decreasing order. */
	for (int n4 = 0; n4 <= 7; n4++)
		for (int n3 = n4; n3 <= 7; n3++)
			for (int n2 = n3; n2 <= 7; n2++)
				for (int n1 = n2; n1 <= 7; n1++) {
					uint8_t h[7], d[2][5];
					for (int i = 0; i < 7; i++)
						h[i] = (uint8_t)((i < n1) + (i < n2) + (i < n3) + (i < n4));
					hy_shtab_dist(h, 7, 0, d);
					t->honor[hy_shtab_hkey(h)] = class_of(&B, d);
				}
	free(B.code2cls);
	if (B.failed)
		abort(); /* programmer bug: a dist vector outside the packing */
	t->ok = 1;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(HY_SHANTEN_PORTABLE)
	__builtin_cpu_init();
	t->avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
	          __builtin_cpu_supports("bmi2");
#endif
}

const hy_shtab *hy_shtab_get(void)
{
	pthread_once(&g_once, build);
	return &g_tab;
}
