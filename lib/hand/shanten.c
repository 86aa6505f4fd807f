/* Shanten, waits and tile acceptance (see shanten.h).
 *
 * Standard form: exact "tiles to add" distance, from per-suit tables (see
 * shanten_table.h) combined by a min-plus convolution over (mentsu, pair).
 * Because each suit's distance respects the four-copies limit, a hand that
 * needs a fifth copy of a kind is never counted as closer than it is.
 * Chiitoitsu: 6 − pairs + max(0, 7 − kinds) (four of a kind is one pair).
 * Kokushi: 13 − terminal/honour kinds − (1 if one of them is paired).
 *
 * State: the only global data are the tables of shanten_table.c, built once
 * on first use under pthread_once and read-only afterwards; every function
 * here is thread-safe. Invalid input (nmelds outside 0–4, a count above 4,
 * a concealed count other than 3·(4 − nmelds) + 1 or + 2) gives
 * HY_SHANTEN_NA from the shanten functions, 0 from hy_hand_waits and −1
 * from hy_ukeire.
 *
 * Two code paths share shanten_impl.h: a portable one, and an AVX2 one
 * chosen at start-up when the CPU has it (AVX2, POPCNT, BMI2); build with
 * -DHY_SHANTEN_PORTABLE to test the portable path on such a CPU. */
#include "hand/shanten.h"

#include <string.h>

#include "hand/shanten_table.h"

/* 1m 9m 1p 9p 1s 9s and the seven honours. */
#define TERM_MASK ((uint64_t)0x3FC060301ull)


typedef struct hstat {
	int M, n;            /* mentsu wanted, concealed tiles             */
	int pairs, kinds;    /* kinds held ≥ 2, ≥ 1                        */
	int ykinds, ypairs;  /* the same over terminals and honours        */
	uint32_t hkey;       /* honour histogram key (hy_shtab_hkey)       */
} hstat;

static inline int chiitoi_of(int pairs, int kinds)
{
	return 6 - pairs + (kinds < 7 ? 7 - kinds : 0);
}

static inline int kokushi_of(int ykinds, int ypairs)
{
	return 13 - ykinds - (ypairs > 0);
}

/* hi << 15 | lo: the packed keys of shanten_table.h */
static inline uint32_t suit_key(const uint8_t *g)
{
	return hy_shtab_hi(g) << 15 | hy_shtab_lo(g);
}

static inline const uint8_t *suit_cls(const hy_shtab *t, uint32_t key)
{
	return t->cls[t->suit[t->off_hi[key >> 15] + t->rank_lo[key & 0x7FFF]]];
}

/* ------------------------------------------------------------ portable */

typedef struct gvec {
	uint8_t b[16];
} gvec;

static inline gvec g_load(const uint8_t *e)
{
	gvec v;
	memcpy(v.b, e, 16);
	return v;
}

static gvec g_conv(gvec A, gvec B)
{
	gvec C;
	memset(C.b, 0, 16);
	for (int p = 0; p < 2; p++)
		for (int m = 0; m < 5; m++) {
			int best = 0;
			for (int p1 = 0; p1 <= p; p1++)
				for (int m1 = 0; m1 <= m; m1++) {
					int a = A.b[8 * p1 + m1], b = B.b[8 * (p - p1) + m - m1];
					if (a && b && a + b - HY_SHTAB_K > best)
						best = a + b - HY_SHTAB_K;
				}
			C.b[8 * p + m] = (uint8_t)best;
		}
	return C;
}

static int g_stats(const uint8_t *c, int nmelds, hstat *st)
{
	if (nmelds < 0 || nmelds > 4)
		return 0;
	memset(st, 0, sizeof *st);
	for (int k = 0; k < 34; k++) {
		int x = c[k];
		if (x > 4)
			return 0;
		int y = (int)(TERM_MASK >> k & 1);
		st->n += x;
		st->kinds += x >= 1;
		st->pairs += x >= 2;
		st->ykinds += y & (x >= 1);
		st->ypairs += y & (x >= 2);
	}
	st->M = 4 - nmelds;
	st->hkey = hy_shtab_hkey(c + 27);
	int r = st->n - 3 * st->M;
	return r == 1 || r == 2;
}

static inline int g_final(gvec x, gvec y, int M)
{
	return HY_SHTAB_K - g_conv(x, y).b[8 + M];
}

#define SFX(name) name##_gen
#define ATTR
#define VEC gvec
#define VLOAD(e) g_load(e)
#define VCONV(a, b) g_conv(a, b)
#define VFINAL(x, y, M) g_final(x, y, M)
#define STATS(c, n, st) g_stats(c, n, st)
#define SUIT_KEY(g) suit_key(g)
#define DIST_HAND(t, c, st) dist_hand_gen(t, c, st)
#include "hand/shanten_impl.h"
#undef DIST_HAND
#undef SFX
#undef ATTR
#undef VEC
#undef VLOAD
#undef VCONV
#undef VFINAL
#undef SUIT_KEY
#undef STATS

/* ------------------------------------------------------------ AVX2 */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(HY_SHANTEN_PORTABLE)
#include <immintrin.h>
#define HY_SHANTEN_AVX2 1
#define AVX2_ATTR __attribute__((target("avx2,popcnt,bmi2")))

static AVX2_ATTR inline __m128i x_load(const uint8_t *e)
{
	return _mm_load_si128((const __m128i *)e);
}

/* C[p][m] = min over p1 + p2 = p, m1 + m2 = m of A[p1][m1] + B[p2][m2], in
 * e-form (K − dist, 0 = impossible): for each m1, broadcast A[0][m1] and
 * A[1][m1] and add B shifted up by m1 lanes (and by a whole row for the
 * A[1] term). Lanes 5–7 pick up sums with m > 4; they only ever move up,
 * so they never reach lanes 0–4. */
static AVX2_ATTR inline __m128i x_conv(__m128i A, __m128i B)
{
	__m128i C = _mm_setzero_si128();
#define X_STEP(j)                                                                  \
	do {                                                                           \
		__m128i bs = _mm_slli_epi64(B, 8 * (j));                                    \
		__m128i bh = _mm_slli_si128(bs, 8);                                         \
		__m128i a0 = _mm_shuffle_epi8(A, _mm_set1_epi8(j));                         \
		__m128i a1 = _mm_shuffle_epi8(A, _mm_set1_epi8(8 + (j)));                   \
		C = _mm_max_epu8(C, _mm_adds_epu8(a0, bs));                                 \
		C = _mm_max_epu8(C, _mm_adds_epu8(a1, bh));                                 \
	} while (0)
	X_STEP(0);
	X_STEP(1);
	X_STEP(2);
	X_STEP(3);
	X_STEP(4);
#undef X_STEP
	return _mm_subs_epu8(C, _mm_set1_epi8(HY_SHTAB_K));
}


static AVX2_ATTR inline int x_stats(const uint8_t *c, int nmelds, hstat *st)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)c);
	uint32_t c32 = c[32], c33 = c[33];
	uint32_t over = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(4)));
	uint64_t nz = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_setzero_si256()));
	uint64_t ge2 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(1)));
	uint64_t ge3 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(2)));
	uint64_t ge4 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(3)));
	ge3 |= (uint64_t)(c32 > 2) << 32 | (uint64_t)(c33 > 2) << 33;
	ge4 |= (uint64_t)(c32 > 3) << 32 | (uint64_t)(c33 > 3) << 33;
	nz |= (uint64_t)(c32 > 0) << 32 | (uint64_t)(c33 > 0) << 33;
	ge2 |= (uint64_t)(c32 > 1) << 32 | (uint64_t)(c33 > 1) << 33;
	__m256i sad = _mm256_sad_epu8(v, _mm256_setzero_si256());
	__m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(sad), _mm256_extracti128_si256(sad, 1));
	int n = _mm_cvtsi128_si32(s2) + _mm_extract_epi32(s2, 2) + (int)(c32 + c33);
	st->M = 4 - nmelds;
	st->n = n;
	st->kinds = __builtin_popcountll(nz);
	st->pairs = __builtin_popcountll(ge2);
	st->ykinds = __builtin_popcountll(nz & TERM_MASK);
	st->ypairs = __builtin_popcountll(ge2 & TERM_MASK);
	const uint64_t H = 0x7Full << 27;
	st->hkey = (uint32_t)(__builtin_popcountll(nz & H) + 8 * __builtin_popcountll(ge2 & H) +
	                      64 * __builtin_popcountll(ge3 & H) + 512 * __builtin_popcountll(ge4 & H));
	int r = n - 3 * st->M;
	return (unsigned)nmelds <= 4 && !over && c32 <= 4 && c33 <= 4 && (r == 1 || r == 2);
}

/* Two suit pairs at once: lanes 0–15 combine v0 with v1, lanes 16–31 v2
 * with the honours; the same steps as x_conv (all shuffles and byte shifts
 * stay within 128-bit lanes). */
static AVX2_ATTR inline __m256i x_conv2(__m256i A, __m256i B)
{
	__m256i C = _mm256_setzero_si256();
#define X_STEP2(j)                                                                 \
	do {                                                                           \
		__m256i bs = _mm256_slli_epi64(B, 8 * (j));                                 \
		__m256i bh = _mm256_slli_si256(bs, 8);                                      \
		__m256i a0 = _mm256_shuffle_epi8(A, _mm256_set1_epi8(j));                   \
		__m256i a1 = _mm256_shuffle_epi8(A, _mm256_set1_epi8(8 + (j)));             \
		C = _mm256_max_epu8(C, _mm256_adds_epu8(a0, bs));                           \
		C = _mm256_max_epu8(C, _mm256_adds_epu8(a1, bh));                           \
	} while (0)
	X_STEP2(0);
	X_STEP2(1);
	X_STEP2(2);
	X_STEP2(3);
	X_STEP2(4);
#undef X_STEP2
	return _mm256_subs_epu8(C, _mm256_set1_epi8(HY_SHTAB_K));
}

/* rev[M]: lane m1 ← Y[1][M − m1], lane 8 + m1 ← Y[0][M − m1] (m1 ≤ M),
 * zero elsewhere, so that X + rev pairs every split of M mentsu. */
static const uint8_t rev_mask[5][16] = {
#define R(M, i) ((i) <= (M) ? 8 + (M) - (i) : 0x80)
#define L(M, i) ((i) <= (M) ? (M) - (i) : 0x80)
#define ROW(M) {R(M, 0), R(M, 1), R(M, 2), R(M, 3), R(M, 4), 0x80, 0x80, 0x80, \
                L(M, 0), L(M, 1), L(M, 2), L(M, 3), L(M, 4), 0x80, 0x80, 0x80}
	ROW(0), ROW(1), ROW(2), ROW(3), ROW(4),
#undef ROW
#undef L
#undef R
};

/* Least Σ dist over splits of M mentsu with one pair between X and Y. */
static AVX2_ATTR inline int x_final(__m128i X, __m128i Y, int M)
{
	__m128i r = _mm_shuffle_epi8(Y, _mm_loadu_si128((const __m128i *)rev_mask[M]));
	/* 2K − (eX + eY) = dX + dY where both are real; ≥ K elsewhere. */
	__m128i d = _mm_subs_epu8(_mm_set1_epi8(2 * HY_SHTAB_K), _mm_adds_epu8(X, r));
	d = _mm_min_epu8(d, _mm_srli_epi16(d, 8));
	d = _mm_and_si128(d, _mm_set1_epi16(0xFF));
	return _mm_cvtsi128_si32(_mm_minpos_epu16(d)) & 0xFFFF;
}

/* The packed keys with BMI2: 3 low bits of each count byte. */
static AVX2_ATTR inline uint32_t x_suit_key(const uint8_t *g)
{
	uint64_t lo;
	uint32_t hi;
	memcpy(&lo, g, 8);
	memcpy(&hi, g + 5, 4);
	return (uint32_t)_pext_u32(hi, 0x07070707u) << 15 | (uint32_t)_pext_u64(lo, 0x0707070707ull);
}

/* Standard-form distance of a valid hand. */
static AVX2_ATTR inline int x_dist_hand(const hy_shtab *t, const uint8_t *c, const hstat *st)
{
	__m128i v0 = x_load(suit_cls(t, x_suit_key(c)));
	__m128i v1 = x_load(suit_cls(t, x_suit_key(c + 9)));
	__m128i v2 = x_load(suit_cls(t, x_suit_key(c + 18)));
	__m128i vh = x_load(t->cls[t->honor[st->hkey]]);
	int M = st->M;
	__m256i A = _mm256_inserti128_si256(_mm256_castsi128_si256(v0), v2, 1);
	__m256i B = _mm256_inserti128_si256(_mm256_castsi128_si256(v1), vh, 1);
	__m256i C = x_conv2(A, B);
	return x_final(_mm256_castsi256_si128(C), _mm256_extracti128_si256(C, 1), M);
}

#define DIST_HAND(t, c, st) x_dist_hand(t, c, st)
#define SUIT_KEY(g) x_suit_key(g)
#define SFX(name) name##_avx2
#define ATTR AVX2_ATTR
#define VEC __m128i
#define VLOAD(e) x_load(e)
#define VCONV(a, b) x_conv(a, b)
#define VFINAL(x, y, M) x_final(x, y, M)
#define STATS(c, n, st) x_stats(c, n, st)
#include "hand/shanten_impl.h"
#undef SFX
#undef ATTR
#undef VEC
#undef VLOAD
#undef VCONV
#undef VFINAL
#undef SUIT_KEY
#undef STATS
#undef DIST_HAND
#endif

/* ------------------------------------------------------------ slow path */

/* Without tables (only if start-up could not allocate): the DP per suit. */
static int slow_standard(const uint8_t *c, int M)
{
	gvec v[4];
	for (int s = 0; s < 4; s++) {
		uint8_t d[2][5];
		hy_shtab_dist(c + 9 * s, s < 3 ? 9 : 7, s < 3, d);
		memset(v[s].b, 0, 16);
		for (int p = 0; p < 2; p++)
			for (int m = 0; m < 5; m++)
				v[s].b[8 * p + m] = (uint8_t)(HY_SHTAB_K - d[p][m]);
	}
	gvec x = g_conv(g_conv(v[0], v[1]), g_conv(v[2], v[3]));
	return HY_SHTAB_K - x.b[8 + M] - 1;
}

static hy_shanten_forms slow_all(const uint8_t *c, int nmelds)
{
	hy_shanten_forms f = {HY_SHANTEN_NA, HY_SHANTEN_NA, HY_SHANTEN_NA, HY_SHANTEN_NA};
	hstat st;
	if (!g_stats(c, nmelds, &st))
		return f;
	f.min = f.standard = (int8_t)slow_standard(c, st.M);
	if (nmelds == 0) {
		f.chiitoi = (int8_t)chiitoi_of(st.pairs, st.kinds);
		f.kokushi = (int8_t)kokushi_of(st.ykinds, st.ypairs);
		f.min = f.chiitoi < f.min ? f.chiitoi : f.min;
		f.min = f.kokushi < f.min ? f.kokushi : f.min;
	}
	return f;
}

static int slow_moves(const uint8_t *c, int nmelds, int d, int want, int8_t out[34])
{
	hstat st;
	for (int k = 0; k < 34; k++)
		out[k] = HY_SHANTEN_NA;
	if (!g_stats(c, nmelds, &st) || st.n - 3 * st.M != want)
		return HY_SHANTEN_NA;
	int best = HY_SHANTEN_NA;
	uint8_t h[34];
	memcpy(h, c, 34);
	for (int k = 0; k < 34; k++) {
		if (d < 0 ? c[k] == 0 : c[k] == 4)
			continue;
		h[k] = (uint8_t)(h[k] + d);
		out[k] = slow_all(h, nmelds).min;
		h[k] = c[k];
		if (out[k] < best)
			best = out[k];
	}
	return best;
}

int hy_shanten_standard_ref(const uint8_t c[34], int nmelds)
{
	hstat st;
	if (!g_stats(c, nmelds, &st))
		return HY_SHANTEN_NA;
	return slow_standard(c, st.M);
}

/* ------------------------------------------------------------ public */

hy_shanten_forms hy_shanten_all(const uint8_t c[34], int nmelds)
{
	const hy_shtab *t = hy_shtab_get();
#ifdef HY_SHANTEN_AVX2
	if (t->avx2)
		return all_avx2(t, c, nmelds);
#endif
	return t->ok ? all_gen(t, c, nmelds) : slow_all(c, nmelds);
}

int hy_shanten_standard(const uint8_t c[34], int nmelds)
{
	const hy_shtab *t = hy_shtab_get();
#ifdef HY_SHANTEN_AVX2
	if (t->avx2)
		return standard_avx2(t, c, nmelds);
#endif
	return t->ok ? standard_gen(t, c, nmelds) : hy_shanten_standard_ref(c, nmelds);
}

int hy_shanten_chiitoi(const uint8_t c[34], int nmelds)
{
	hstat st;
	if (!g_stats(c, nmelds, &st) || nmelds != 0)
		return HY_SHANTEN_NA;
	return chiitoi_of(st.pairs, st.kinds);
}

int hy_shanten_kokushi(const uint8_t c[34], int nmelds)
{
	hstat st;
	if (!g_stats(c, nmelds, &st) || nmelds != 0)
		return HY_SHANTEN_NA;
	return kokushi_of(st.ykinds, st.ypairs);
}

int hy_shanten(const uint8_t c[34], int nmelds)
{
	return hy_shanten_all(c, nmelds).min;
}

static int moves(const uint8_t *c, int nmelds, int d, int want, int8_t out[34])
{
	const hy_shtab *t = hy_shtab_get();
#ifdef HY_SHANTEN_AVX2
	if (t->avx2)
		return moves_avx2(t, c, nmelds, d, want, out);
#endif
	return t->ok ? moves_gen(t, c, nmelds, d, want, out) : slow_moves(c, nmelds, d, want, out);
}

int hy_shanten_discards(const uint8_t c[34], int nmelds, int8_t out[34])
{
	return moves(c, nmelds, -1, 2, out);
}

/* Whether counts h (a kind may hold 5: a hypothetical fifth copy) split
 * into M mentsu and one pair. Only for the rare wait on a kind held 4×. */
static int decomposes(uint8_t *h, int need_pair)
{
	int i = 0;
	while (i < 34 && h[i] == 0)
		i++;
	if (i == 34)
		return !need_pair;
	if (need_pair && h[i] >= 2) {
		h[i] = (uint8_t)(h[i] - 2);
		int ok = decomposes(h, 0);
		h[i] = (uint8_t)(h[i] + 2);
		if (ok)
			return 1;
	}
	if (h[i] >= 3) {
		h[i] = (uint8_t)(h[i] - 3);
		int ok = decomposes(h, need_pair);
		h[i] = (uint8_t)(h[i] + 3);
		return ok;
	}
	if (i < 27 && i % 9 < 7 && h[i + 1] && h[i + 2]) {
		h[i]--, h[i + 1]--, h[i + 2]--;
		int ok = decomposes(h, need_pair);
		h[i]++, h[i + 1]++, h[i + 2]++;
		return ok;
	}
	/* Lowest kind left over as pair candidate only (handled above). */
	return 0;
}

uint64_t hy_hand_waits(const uint8_t c[34], int nmelds)
{
	int8_t out[34];
	hy_shanten_forms f = hy_shanten_all(c, nmelds);
	if (f.min != 0)
		return 0;
	moves(c, nmelds, +1, 1, out);
	uint64_t w = 0;
	for (int k = 0; k < 34; k++) {
		if (out[k] == -1) {
			w |= (uint64_t)1 << k;
		} else if (c[k] == 4) {
			uint8_t h[34];
			memcpy(h, c, 34);
			h[k] = 5;
			if (decomposes(h, 1))
				w |= (uint64_t)1 << k;
		}
	}
	return w;
}

int hy_ukeire(const uint8_t c[34], int nmelds, const uint8_t *visible, uint64_t *kinds)
{
	int8_t out[34];
	uint64_t mask = 0;
	if (kinds)
		*kinds = 0;
	hy_shanten_forms f = hy_shanten_all(c, nmelds);
	if (f.min == HY_SHANTEN_NA || moves(c, nmelds, +1, 1, out) == HY_SHANTEN_NA)
		return -1;
	int live = 0;
	for (int k = 0; k < 34; k++) {
		if (out[k] >= f.min)
			continue; /* also HY_SHANTEN_NA: 4 held, none to draw */
		mask |= (uint64_t)1 << k;
		if (visible) {
			int l = 4 - visible[k] - c[k];
			live += l > 0 ? l : 0;
		} else {
			live++;
		}
	}
	if (kinds)
		*kinds = mask;
	return live;
}
