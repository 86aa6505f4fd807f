/* Private to lib/hand/shanten.c, included twice: once for the portable code
 * path and once for the AVX2 one. The includer defines
 *   SFX(name)          name with the path's suffix
 *   ATTR               function attributes (target) of the path
 *   VEC                16-byte e-form vector type (see shanten_table.h)
 *   VLOAD(e)           class vector bytes → VEC
 *   VCONV(a, b)        min-plus convolution of two e-form vectors
 *   VFINAL(x, y, M)    least distance over splits of M mentsu between x, y
 *   STATS(c, n, st)    fills struct hstat; returns 0 on invalid counts
 *   SUIT_KEY(g)        packed key of one suit's counts
 *   DIST_HAND(t, c, st)  standard-form distance of a valid hand */

static ATTR inline void SFX(vecs)(const hy_shtab *t, const uint8_t *c, const hstat *st,
                                  uint32_t key[4], VEC v[4])
{
	for (int s = 0; s < 3; s++) {
		key[s] = SUIT_KEY(c + 9 * s);
		v[s] = VLOAD(suit_cls(t, key[s]));
	}
	key[3] = st->hkey;
	v[3] = VLOAD(t->cls[t->honor[key[3]]]);
}

static ATTR inline int SFX(dist_hand)(const hy_shtab *t, const uint8_t *c, const hstat *st)
{
	uint32_t key[4];
	VEC v[4];
	SFX(vecs)(t, c, st, key, v);
	return VFINAL(VCONV(v[0], v[1]), VCONV(v[2], v[3]), st->M);
}

/* The vector of suit s after adding d (±1) to kind j of that suit, which
 * holds ck now. */
static ATTR inline VEC SFX(vec_moved)(const hy_shtab *t, const uint32_t key[4], int s, int j, int d, int ck)
{
	if (s == 3) {
		uint32_t hk = d < 0 ? key[3] - (1u << 3 * (ck - 1)) : key[3] + (1u << 3 * ck);
		return VLOAD(t->cls[t->honor[hk]]);
	}
	uint32_t step = j < 5 ? 1u << 3 * j : 1u << (15 + 3 * (j - 5));
	return VLOAD(suit_cls(t, d < 0 ? key[s] - step : key[s] + step));
}

static ATTR hy_shanten_forms SFX(all)(const hy_shtab *t, const uint8_t *c, int nmelds)
{
	hy_shanten_forms f = {HY_SHANTEN_NA, HY_SHANTEN_NA, HY_SHANTEN_NA, HY_SHANTEN_NA};
	hstat st;
	if (!STATS(c, nmelds, &st))
		return f;
	f.standard = (int8_t)(DIST_HAND(t, c, &st) - 1);
	f.min = f.standard;
	if (nmelds == 0) {
		f.chiitoi = (int8_t)chiitoi_of(st.pairs, st.kinds);
		f.kokushi = (int8_t)kokushi_of(st.ykinds, st.ypairs);
		if (f.chiitoi < f.min)
			f.min = f.chiitoi;
		if (f.kokushi < f.min)
			f.min = f.kokushi;
	}
	return f;
}

static ATTR int SFX(standard)(const hy_shtab *t, const uint8_t *c, int nmelds)
{
	hstat st;
	if (!STATS(c, nmelds, &st))
		return HY_SHANTEN_NA;
	return DIST_HAND(t, c, &st) - 1;
}

/* Minimum shanten after removing (d = −1) or adding (d = +1) one tile of
 * each kind: out[k], HY_SHANTEN_NA where that is impossible (no tile to
 * remove, or 4 held already). Returns the best, or HY_SHANTEN_NA when the
 * hand itself is invalid or has the wrong size (want = 2: 3n+2, 1: 3n+1). */
static ATTR int SFX(moves)(const hy_shtab *t, const uint8_t *c, int nmelds, int d, int want, int8_t out[34])
{
	hstat st;
	for (int k = 0; k < 34; k++)
		out[k] = HY_SHANTEN_NA;
	if (!STATS(c, nmelds, &st) || st.n - 3 * st.M != want)
		return HY_SHANTEN_NA;
	uint32_t key[4];
	VEC v[4];
	SFX(vecs)(t, c, &st, key, v);
	VEC p01 = VCONV(v[0], v[1]), p23 = VCONV(v[2], v[3]);
	int best = HY_SHANTEN_NA;
	int closed = nmelds == 0;
	for (int k = 0; k < 34; k++) {
		int ck = c[k];
		if (d < 0 ? ck == 0 : ck == 4)
			continue;
		int s = k / 9, j = k - 9 * s;
		VEC nv = SFX(vec_moved)(t, key, s, j, d, ck);
		int dist;
		switch (s) {
		case 0: dist = VFINAL(VCONV(nv, v[1]), p23, st.M); break;
		case 1: dist = VFINAL(VCONV(v[0], nv), p23, st.M); break;
		case 2: dist = VFINAL(p01, VCONV(nv, v[3]), st.M); break;
		default: dist = VFINAL(p01, VCONV(v[2], nv), st.M); break;
		}
		int sh = dist - 1;
		if (closed) {
			int pairs = st.pairs, kinds = st.kinds, yk = st.ykinds, yp = st.ypairs;
			int y = (int)(TERM_MASK >> k & 1);
			if (d < 0) {
				pairs -= ck == 2;
				kinds -= ck == 1;
				yk -= y & (ck == 1);
				yp -= y & (ck == 2);
			} else {
				pairs += ck == 1;
				kinds += ck == 0;
				yk += y & (ck == 0);
				yp += y & (ck == 1);
			}
			int ch = chiitoi_of(pairs, kinds), ko = kokushi_of(yk, yp);
			if (ch < sh)
				sh = ch;
			if (ko < sh)
				sh = ko;
		}
		out[k] = (int8_t)sh;
		if (sh < best)
			best = sh;
	}
	return best;
}
