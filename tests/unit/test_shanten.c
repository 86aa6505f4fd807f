/* Shanten, waits, ukeire and the discards batch (lib/hand/shanten.h).
 * Vectors are read in place from $HY_SHARED/data/vectors (default
 * ../shared); tests that need them skip when absent. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tile.h"
#include "hand/shanten.h"

static const char *shared_dir(void)
{
	const char *s = getenv("HY_SHARED");
	return s && *s ? s : "../shared";
}

static FILE *open_vector(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/data/vectors/%s", shared_dir(), name);
	return fopen(path, "r");
}

/* mpsz → counts; returns the tile count, -1 on error. */
static int counts_of(const char *mpsz, uint8_t c[34])
{
	uint8_t t[40];
	const char *end;
	int n = hy_mpsz_parse(mpsz, t, 40, &end);
	memset(c, 0, 34);
	if (n < 0 || *end)
		return -1;
	for (int i = 0; i < n; i++) {
		int k = hy_tile_kind(t[i]);
		if (k < 0)
			return -1;
		c[k]++;
	}
	return n;
}

static void hand(const char *mpsz, uint8_t c[34])
{
	if (counts_of(mpsz, c) < 0)
		fail_msg("%s:%d: bad test hand '%s'", __FILE__, __LINE__, mpsz);
}

/* ------------------------------------------------------------ vectors */

/* Shanten counts real tiles: 4 held + the need for a fifth copy is not
 * "closer", so 1111z 2222z 333z 444z is 1-shanten (as in the Python mahjong
 * library); the 40,000-hand benchmark agrees with this exact definition. */

static void test_benchmark_14(void **state)
{
	(void)state;
	char path[1024], line[256];
	FILE *f = open_vector("shanten_14tiles_benchmark.tsv", path, sizeof path);
	if (!f) {
		print_message("skipped: %s not found (set HY_SHARED)\n", path);
		skip();
	}
	int rows = 0, bad = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (lineno == 1) {
			assert_string_equal(line, "set\tidx\thand\tshanten_standard\tshanten_kokushi\tshanten_chiitoitsu\n");
			continue;
		}
		char set[32], mpsz[64];
		int idx, es, ek, ec;
		if (sscanf(line, "%31s %d %63s %d %d %d", set, &idx, mpsz, &es, &ek, &ec) != 6)
			fail_msg("%s:%d: unreadable row", path, lineno);
		uint8_t c[34];
		if (counts_of(mpsz, c) != 14)
			fail_msg("%s:%d: bad hand '%s'", path, lineno, mpsz);
		hy_shanten_forms r = hy_shanten_all(c, 0);
		int m = es < ek ? es : ek;
		m = ec < m ? ec : m;
		if (r.standard != es || r.kokushi != ek || r.chiitoi != ec || r.min != m ||
		    hy_shanten_standard(c, 0) != es || hy_shanten_chiitoi(c, 0) != ec ||
		    hy_shanten_kokushi(c, 0) != ek || hy_shanten(c, 0) != m) {
			if (bad++ < 10)
				print_error("%s:%d: %s: got %d/%d/%d, want %d/%d/%d\n", path, lineno, mpsz,
				            r.standard, r.kokushi, r.chiitoi, es, ek, ec);
		}
		if (rows % 8 == 0 && hy_shanten_standard_ref(c, 0) != es && bad++ < 10)
			print_error("%s:%d: %s: reference DP gives %d, want %d\n", path, lineno, mpsz,
			            hy_shanten_standard_ref(c, 0), es);
		rows++;
	}
	fclose(f);
	print_message("%d rows checked\n", rows);
	assert_int_equal(rows, 40000);
	assert_int_equal(bad, 0);
}

/* RiichiEnv's 13-tile hands, labelled tenpai or not (172 of 200 not). */
static void test_not_tenpai(void **state)
{
	(void)state;
	char path[1024], line[256];
	FILE *f = open_vector("not_tenpai_riichienv.tsv", path, sizeof path);
	if (!f) {
		print_message("skipped: %s not found (set HY_SHARED)\n", path);
		skip();
	}
	int rows = 0, lineno = 0, falses = 0;
	while (fgets(line, sizeof line, f)) {
		if (++lineno == 1)
			continue;
		int idx;
		char mpsz[64], exp[16];
		if (sscanf(line, "%d %63s %15s", &idx, mpsz, exp) != 3)
			fail_msg("%s:%d: unreadable row", path, lineno);
		uint8_t c[34];
		if (counts_of(mpsz, c) != 13 || (strcmp(exp, "false") != 0 && strcmp(exp, "true") != 0))
			fail_msg("%s:%d: unexpected row '%s'", path, lineno, mpsz);
		int tenpai = exp[0] == 't';
		int sh = hy_shanten(c, 0);
		uint64_t w = hy_hand_waits(c, 0);
		if (tenpai ? sh != 0 || w == 0 : sh < 1 || w != 0)
			fail_msg("%s:%d: %s (tenpai %s): shanten %d, waits %llx", path, lineno, mpsz, exp, sh,
			         (unsigned long long)w);
		rows++;
		falses += !tenpai;
	}
	fclose(f);
	print_message("%d rows checked, %d not tenpai\n", rows, falses);
	assert_int_equal(rows, 200);
}

/* Rows of the Python mahjong library's tests_shanten.py with an expected
 * shanten: ["sou", "pin", "man", "honors", n]. Three-player rows are left
 * out (no 2m–8m there, a different game); so are the rows that only check
 * that 3n-tile hands raise an error. */
static void test_mahjong_py(void **state)
{
	(void)state;
	char path[1024], line[512];
	FILE *f = open_vector("mahjong_py_parametrized.tsv", path, sizeof path);
	if (!f) {
		print_message("skipped: %s not found (set HY_SHARED)\n", path);
		skip();
	}
	int rows = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char file[128], fn[128], params[128], vals[256];
		if (sscanf(line, "%127[^\t]\t%127[^\t]\t%127[^\t]\t%255[^\n]", file, fn, params, vals) != 4)
			continue;
		if (strcmp(file, "tests/tests_shanten.py") != 0 ||
		    strcmp(params, "sou,pin,man,honors,shanten_number") != 0 ||
		    strstr(fn, "three_player"))
			continue;
		char s[4][32];
		int want;
		if (sscanf(vals, "[\"%31[0-9]\", \"%31[0-9]\", \"%31[0-9]\", \"%31[0-9]\", %d]", s[0], s[1],
		           s[2], s[3], &want) != 5) {
			/* empty strings do not match %[; parse field by field */
			const char *p = vals;
			for (int i = 0; i < 4; i++) {
				p = strchr(p, '"');
				assert_non_null(p);
				const char *q = strchr(p + 1, '"');
				assert_non_null(q);
				snprintf(s[i], sizeof s[i], "%.*s", (int)(q - p - 1), p + 1);
				p = q + 1;
			}
			if (sscanf(p, ", %d]", &want) != 1)
				fail_msg("%s:%d: unreadable values %s", path, lineno, vals);
		}
		char mpsz[160] = "";
		static const char suit[4] = {'s', 'p', 'm', 'z'};
		for (int i = 0; i < 4; i++)
			if (s[i][0])
				snprintf(mpsz + strlen(mpsz), sizeof mpsz - strlen(mpsz), "%s%c", s[i], suit[i]);
		uint8_t c[34];
		int n = counts_of(mpsz, c);
		assert_true(n > 0);
		int nmelds = n % 3 == 2 ? (14 - n) / 3 : (13 - n) / 3;
		int got;
		if (strstr(fn, "chiitoitsu"))
			got = hy_shanten_chiitoi(c, nmelds);
		else if (strstr(fn, "kokushi"))
			got = hy_shanten_kokushi(c, nmelds);
		else if (strstr(fn, "regular") || strstr(fn, "open_sets"))
			got = hy_shanten_standard(c, nmelds);
		else
			got = hy_shanten(c, nmelds);
		if (got != want)
			fail_msg("%s:%d: %s %s (nmelds %d): got %d, want %d", path, lineno, fn, mpsz, nmelds, got,
			         want);
		rows++;
	}
	fclose(f);
	print_message("%d rows checked\n", rows);
	assert_true(rows >= 50);
}

/* ------------------------------------------------------------ by hand */

static void test_waits(void **state)
{
	(void)state;
	uint8_t c[34];
	hand("1112345678999m", c);
	assert_int_equal(hy_shanten(c, 0), 0);
	assert_int_equal(hy_hand_waits(c, 0), 0x1FF);
	/* A wait on a kind held four times is listed: 1111m 333m 456m 789m
	 * waits 2m (11m + 123m + 33m) and the fifth 1m (111m + 11m + 333m). */
	hand("1111333456789m", c);
	assert_int_equal(hy_shanten(c, 0), 0);
	assert_int_equal(hy_hand_waits(c, 0), 0x3);
	/* ... but a hand whose only completion needs a fifth copy is not
	 * tenpai (shanten counts real tiles): 1111m 234p 567p 789s. */
	hand("1111m234567p789s", c);
	assert_int_equal(hy_shanten(c, 0), 1);
	assert_int_equal(hy_hand_waits(c, 0), 0);
	/* Kokushi 13-sided, chiitoitsu tanki. */
	hand("19m19p19s1234567z", c);
	assert_int_equal(hy_hand_waits(c, 0), 0x3FC060301ull);
	hand("1133m5577p99s115z", c);
	assert_int_equal(hy_hand_waits(c, 0), (uint64_t)1 << 31);
	/* Not tenpai, and a 3n+2 hand. */
	hand("1358m1358p1358s1z", c);
	assert_int_equal(hy_hand_waits(c, 0), 0);
	hand("1112345678999m1z", c);
	assert_int_equal(hy_hand_waits(c, 0), 0);
}

static void test_ukeire(void **state)
{
	(void)state;
	uint8_t c[34], vis[34] = {0};
	uint64_t kinds;
	hand("1112345678999m", c);
	assert_int_equal(hy_ukeire(c, 0, NULL, &kinds), 9);
	assert_int_equal(kinds, 0x1FF);
	assert_int_equal(hy_ukeire(c, 0, vis, &kinds), 1 + 7 * 3 + 1);
	vis[4] = 2; /* two 5m seen elsewhere */
	vis[0] = 1; /* the last 1m seen */
	assert_int_equal(hy_ukeire(c, 0, vis, &kinds), 20);
	assert_int_equal(kinds, 0x1FF);
	vis[4] = 4; /* more than exist: floored at 0 */
	assert_int_equal(hy_ukeire(c, 0, vis, &kinds), 19);
	/* 1-shanten: 1m 4m 4p 7p complete a run shape (a 1z triplet would
	 * leave five blocks and no pair: no gain): 4 kinds, 16 tiles, 15 with
	 * one 4p seen. */
	hand("23m56p123789s115z", c);
	assert_int_equal(hy_shanten(c, 0), 1);
	assert_int_equal(hy_ukeire(c, 0, NULL, &kinds), 4);
	assert_int_equal(kinds, 1ull << 0 | 1ull << 3 | 1ull << 12 | 1ull << 15);
	memset(vis, 0, sizeof vis);
	vis[12] = 1;
	assert_int_equal(hy_ukeire(c, 0, vis, NULL), 15);
	/* 3n+2 hand: an error. */
	hand("1112345678999m1z", c);
	assert_int_equal(hy_ukeire(c, 0, NULL, &kinds), -1);
	assert_int_equal(kinds, 0);
}

static void test_open_hands(void **state)
{
	(void)state;
	uint8_t c[34];
	hand("5z", c);
	assert_int_equal(hy_shanten(c, 4), 0);
	assert_int_equal(hy_hand_waits(c, 4), 1ull << 31);
	assert_int_equal(hy_shanten_chiitoi(c, 4), HY_SHANTEN_NA);
	assert_int_equal(hy_shanten_kokushi(c, 4), HY_SHANTEN_NA);
	hand("55z", c);
	assert_int_equal(hy_shanten(c, 4), -1);
	hand("56z", c);
	assert_int_equal(hy_shanten(c, 4), 0);
	hand("2345m", c);
	assert_int_equal(hy_shanten(c, 3), 0);
	assert_int_equal(hy_hand_waits(c, 3), 1ull << 1 | 1ull << 4);
	hand("2468m", c);
	assert_int_equal(hy_shanten(c, 3), 1);
	hand("19m5z", c); /* wrong size for nmelds 3 */
	assert_int_equal(hy_shanten(c, 3), HY_SHANTEN_NA);
	hand("19m5z1s", c);
	assert_int_equal(hy_shanten(c, 3), 2);
	hand("1112m", c); /* 111m + 2m tanki, 11m + 12m penchan */
	assert_int_equal(hy_shanten(c, 3), 0);
	assert_int_equal(hy_hand_waits(c, 3), 1ull << 1 | 1ull << 2);
	hand("1111m", c); /* three melds + 1111m: only a fifth 1m would do */
	assert_int_equal(hy_shanten(c, 3), 1);
	assert_int_equal(hy_hand_waits(c, 3), 0);
	hand("1m2p", c);
	assert_int_equal(hy_shanten(c, 4), 0); /* 2 tiles + 4 melds: discard, tanki */
	hand("1111z", c); /* as 1111m */
	assert_int_equal(hy_shanten_standard(c, 3), 1);
	assert_int_equal(hy_hand_waits(c, 3), 0);
	hand("123m456p11z", c);
	assert_int_equal(hy_shanten(c, 2), -1);
	hand("123m456p1z", c);
	assert_int_equal(hy_shanten(c, 2), 0);
	assert_int_equal(hy_hand_waits(c, 2), 1ull << 27);
	hand("123m46p11z", c);
	assert_int_equal(hy_shanten(c, 2), 0);
	hand("123m4p789s112z", c);
	assert_int_equal(hy_shanten(c, 1), 1);
	hand("123m456p789s11z", c);
	assert_int_equal(hy_shanten(c, 1), -1);
	assert_int_equal(hy_shanten_chiitoi(c, 1), HY_SHANTEN_NA);
	hy_shanten_forms f = hy_shanten_all(c, 1);
	assert_int_equal(f.standard, -1);
	assert_int_equal(f.min, -1);
	assert_int_equal(f.chiitoi, HY_SHANTEN_NA);
	assert_int_equal(f.kokushi, HY_SHANTEN_NA);
}

static void test_four_copies(void **state)
{
	(void)state;
	uint8_t c[34];
	/* 1111z 2222z 333z 444z: the spare 1z and 2z cannot pair. */
	hand("11112222333444z", c);
	assert_int_equal(hy_shanten_standard(c, 0), 1);
	/* 1111m 234p 567p 789s 1z: 111m + 1m and 1z, one of them must pair. */
	hand("1111m234p567p789s1z", c);
	assert_int_equal(hy_shanten_standard(c, 0), 0);
	assert_int_equal(hy_shanten_standard_ref(c, 0), 0);
	hand("1111222233334444m", c); /* 16 tiles: invalid */
	assert_int_equal(hy_shanten(c, 0), HY_SHANTEN_NA);
}

static void test_invalid(void **state)
{
	(void)state;
	uint8_t c[34] = {0};
	int8_t out[34];
	c[0] = 5;
	c[1] = 9;
	assert_int_equal(hy_shanten(c, 0), HY_SHANTEN_NA);
	hand("1112345678999m", c);
	assert_int_equal(hy_shanten(c, -1), HY_SHANTEN_NA);
	assert_int_equal(hy_shanten(c, 5), HY_SHANTEN_NA);
	assert_int_equal(hy_shanten_discards(c, 0, out), HY_SHANTEN_NA); /* 3n+1 */
	for (int k = 0; k < 34; k++)
		assert_int_equal(out[k], HY_SHANTEN_NA);
	hand("1112345678999m1z", c);
	assert_int_equal(hy_shanten_discards(c, 0, out), 0);
	assert_int_equal(out[27], 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[20], HY_SHANTEN_NA);
}

/* ------------------------------------------------------------ random */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* n tiles drawn from a shuffled 136-tile wall; `suited` < 4 keeps to one
 * suit plus honours now and then (more complete shapes). */
static void random_hand(uint64_t *s, int n, uint8_t c[34])
{
	uint8_t wall[136];
	int mode = (int)(rng_next(s) % 4), suit = (int)(rng_next(s) % 3), w = 0;
	for (int i = 0; i < 136; i++) {
		int k = i / 4;
		if (mode == 0 && k / 9 != suit && k < 27)
			continue;
		if (mode == 1 && k / 9 != suit)
			continue;
		wall[w++] = (uint8_t)k;
	}
	if (w < n)
		w = 0;
	if (w == 0)
		for (int i = 0; i < 136; i++)
			wall[w++] = (uint8_t)(i / 4);
	memset(c, 0, 34);
	for (int i = 0; i < n; i++) {
		int j = i + (int)(rng_next(s) % (uint64_t)(w - i));
		uint8_t t = wall[j];
		wall[j] = wall[i];
		wall[i] = t;
		c[t]++;
	}
}

static uint64_t test_seed(void)
{
	const char *e = getenv("HY_TEST_SEED");
	uint64_t seed = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);
	print_message("seed %llu (rerun with HY_TEST_SEED=%llu)\n", (unsigned long long)seed,
	              (unsigned long long)seed);
	return seed;
}

static void test_random_batch(void **state)
{
	(void)state;
	uint64_t seed = test_seed(), s = seed;
	for (int it = 0; it < 10000; it++) {
		int nmelds = it % 5 == 4 ? (int)(rng_next(&s) % 5) : 0;
		int n = 3 * (4 - nmelds) + 2;
		uint8_t c[34], h[34];
		int8_t out[34];
		random_hand(&s, n, c);
		int best = hy_shanten_discards(c, nmelds, out);
		int want_best = HY_SHANTEN_NA;
		memcpy(h, c, 34);
		for (int k = 0; k < 34; k++) {
			int want = HY_SHANTEN_NA;
			if (c[k]) {
				h[k]--;
				want = hy_shanten(h, nmelds);
				if (hy_shanten_standard(h, nmelds) != hy_shanten_standard_ref(h, nmelds))
					fail_msg("seed %llu hand %d kind %d: table %d, reference %d",
					         (unsigned long long)seed, it, k, hy_shanten_standard(h, nmelds),
					         hy_shanten_standard_ref(h, nmelds));
				h[k]++;
			}
			if (out[k] != want)
				fail_msg("seed %llu hand %d (nmelds %d) kind %d: batch %d, single %d",
				         (unsigned long long)seed, it, nmelds, k, out[k], want);
			if (want < want_best)
				want_best = want;
		}
		assert_int_equal(best, want_best);
		assert_int_equal(hy_shanten_standard(c, nmelds), hy_shanten_standard_ref(c, nmelds));
	}
}

/* Waits and ukeire of random 3n+1 hands against drawing each kind. */
static void test_random_waits(void **state)
{
	(void)state;
	uint64_t seed = test_seed(), s = seed;
	for (int it = 0; it < 10000; it++) {
		int nmelds = it % 3 == 2 ? (int)(rng_next(&s) % 5) : 0;
		uint8_t c[34], vis[34];
		random_hand(&s, 3 * (4 - nmelds) + 1, c);
		for (int k = 0; k < 34; k++)
			vis[k] = (uint8_t)(rng_next(&s) % (uint64_t)(5 - c[k]));
		int sh = hy_shanten(c, nmelds);
		uint64_t wmask = 0, umask = 0, kinds;
		int live = 0;
		for (int k = 0; k < 34; k++) {
			if (c[k] == 4)
				continue;
			c[k]++;
			int x = hy_shanten(c, nmelds);
			c[k]--;
			if (x == -1)
				wmask |= 1ull << k;
			if (x < sh) {
				umask |= 1ull << k;
				live += 4 - c[k] - vis[k];
			}
		}
		uint64_t w = hy_hand_waits(c, nmelds);
		/* Kinds held 4× may be listed on top; the rest must agree. */
		for (int k = 0; k < 34; k++)
			if (c[k] != 4 && ((w ^ wmask) >> k & 1))
				fail_msg("seed %llu hand %d: waits %llx, want %llx", (unsigned long long)seed, it,
				         (unsigned long long)w, (unsigned long long)wmask);
		assert_int_equal(hy_ukeire(c, nmelds, vis, &kinds), live);
		assert_int_equal(kinds, umask);
		assert_int_equal(hy_ukeire(c, nmelds, NULL, &kinds), __builtin_popcountll(umask));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_benchmark_14), cmocka_unit_test(test_not_tenpai),
		cmocka_unit_test(test_mahjong_py),   cmocka_unit_test(test_waits),
		cmocka_unit_test(test_ukeire),       cmocka_unit_test(test_open_hands),
		cmocka_unit_test(test_four_copies),  cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_random_batch), cmocka_unit_test(test_random_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
