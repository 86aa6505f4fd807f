/* Agari decomposition and meld notation: hand-made cases, the Python
 * mahjong library's agari vectors, and random hands against a brute-force
 * reference. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tile.h"
#include "hand/agari.h"

static void counts_of(const char *mpsz, uint8_t c[34])
{
	uint8_t t[20];
	const char *end;
	int n = hy_mpsz_parse(mpsz, t, 20, &end);
	assert_true(n >= 0 && !*end);
	memset(c, 0, 34);
	for (int i = 0; i < n; i++)
		c[hy_tile_kind(t[i])]++;
}

static int decompose(const char *mpsz, hy_agari_form *f)
{
	uint8_t c[34];
	counts_of(mpsz, c);
	return hy_agari_decompose(c, NULL, 0, f, HY_AGARI_MAX);
}

static int count_shape(const hy_agari_form *f, int n, int shape)
{
	int k = 0;
	for (int i = 0; i < n && i < HY_AGARI_MAX; i++)
		k += f[i].shape == shape;
	return k;
}

static void test_forms(void **state)
{
	(void)state;
	hy_agari_form f[HY_AGARI_MAX];
	/* 111222333m: triplets or three identical runs */
	assert_int_equal(decompose("111222333m456p77z", f), 2);
	assert_int_equal(count_shape(f, 2, HY_AGARI_STANDARD), 2);
	assert_int_equal(f[0].blocks[0].type, HY_BLOCK_TRIPLET);
	assert_int_equal(f[0].blocks[4].type, HY_BLOCK_PAIR);
	assert_int_equal(f[0].blocks[4].kind, 33);  /* 7z = chun */
	/* ryanpeikou hand is also chiitoitsu */
	int n = decompose("223344m556677p88s", f);
	assert_int_equal(count_shape(f, n, HY_AGARI_CHIITOI), 1);
	assert_int_equal(count_shape(f, n, HY_AGARI_STANDARD), 1);
	/* four of a kind is not two chiitoitsu pairs */
	assert_int_equal(decompose("1111m2233p4455s66z", f), 0);
	/* kokushi */
	assert_int_equal(decompose("19m19p19s12345677z", f), 1);
	assert_int_equal(f[0].shape, HY_AGARI_KOKUSHI);
	assert_int_equal(f[0].blocks[0].kind, 33);
	assert_int_equal(decompose("119m19p19s1234566z", f), 0);
	/* chuuren: several readings */
	n = decompose("11123455678999m", f);
	assert_true(n >= 1);
	/* not complete, wrong size */
	assert_int_equal(decompose("123456789m1234p", f), -1);
	assert_int_equal(decompose("123456789m1234p5s", f), 0);
	/* melds come first, open */
	uint8_t c[34];
	counts_of("234m55p567678s", c);
	hy_meld m[1];
	hy_diag d;
	hy_diag_init(&d, "test");
	assert_int_equal(hy_meld_parse("pon:777z=", &m[0], &d), HY_OK);
	n = hy_agari_decompose(c, m, 1, f, HY_AGARI_MAX);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].blocks[0].kind, 33);
	assert_int_equal(f[0].blocks[0].open, 1);
	assert_int_equal(f[0].blocks[0].meld, 1);
	assert_int_equal(f[0].blocks[1].type, HY_BLOCK_SEQ);
	assert_int_equal(hy_agari_is_complete(c, 1), 1);
	/* ten concealed tiles do not fit one meld */
	counts_of("11m22p33s44z55z", c);
	assert_int_equal(hy_agari_decompose(c, m, 1, f, HY_AGARI_MAX), -1);
}

static void test_meld_notation(void **state)
{
	(void)state;
	hy_meld m;
	hy_diag d;
	char buf[64];
	hy_diag_init(&d, "test");
	assert_int_equal(hy_meld_parse("chi:406m", &m, &d), HY_OK);
	assert_int_equal(m.type, HY_MELD_CHI);
	assert_int_equal(m.from, HY_FROM_KAMICHA);
	hy_meld_format(&m, buf, sizeof buf);
	assert_string_equal(buf, "chi:406m-");
	assert_int_equal(hy_meld_parse("pon:555z+", &m, &d), HY_OK);
	assert_int_equal(m.from, HY_FROM_SHIMOCHA);
	assert_int_equal(hy_meld_parse("kan:1111s=", &m, &d), HY_OK);
	assert_int_equal(m.type, HY_MELD_MINKAN);
	assert_int_equal(hy_meld_parse("ankan:5055p", &m, &d), HY_OK);
	hy_meld_format(&m, buf, sizeof buf);
	assert_string_equal(buf, "ankan:5055p");
	assert_int_equal(hy_meld_parse("kakan:7777z=", &m, &d), HY_OK);
	static const char *const bad[] = {
		"chi:357m", "chi:123z", "chi:789m+", "pon:556m", "pon:5555m", "ankan:1111m-",
		"kan:111m", "pon555z", "foo:555z", "pon:555z?", "pon:000m", "chi:891m",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (hy_meld_parse(bad[i], &m, &d) != HY_EDATA)
			fail_msg("accepted bad meld '%s'", bad[i]);
		assert_non_null(strstr(d.msg, "meld '"));
	}
}

static void test_mahjong_py_agari(void **state)
{
	(void)state;
	const char *shared = getenv("HY_SHARED");
	char path[1024], line[4096];
	snprintf(path, sizeof path, "%s/data/vectors/mahjong_py_parametrized.tsv",
		 shared && *shared ? shared : "../shared");
	FILE *fp = fopen(path, "r");
	if (!fp) {
		printf("skipped: %s not found (set HY_SHARED)\n", path);
		skip();
	}
	int rows = 0, lineno = 0, bad = 0;
	while (fgets(line, sizeof line, fp)) {
		lineno++;
		if (strncmp(line, "tests/tests_agari.py\t", 21))
			continue;
		line[strcspn(line, "\r\n")] = 0;
		char *fn = line + 21, *tab = strchr(fn, '\t');
		assert_non_null(tab);
		*tab = 0;
		char *json = strrchr(tab + 1, '\t');
		assert_non_null(json);
		json_error_t je;
		json_t *v = json_loads(json + 1, 0, &je);
		assert_non_null(v);
		/* sou, pin, man, honors */
		char mpsz[128];
		snprintf(mpsz, sizeof mpsz, "%sm%sp%ss%sz",
			 json_string_value(json_array_get(v, 2)), json_string_value(json_array_get(v, 1)),
			 json_string_value(json_array_get(v, 0)), json_string_value(json_array_get(v, 3)));
		json_decref(v);
		/* empty groups ("m" alone) are not mpsz: drop them */
		char clean[128];
		int j = 0;
		for (int i = 0; mpsz[i]; i++)
			if (!(strchr("mpsz", mpsz[i]) && (i == 0 || strchr("mpsz", mpsz[i - 1]))))
				clean[j++] = mpsz[i];
		clean[j] = 0;
		uint8_t c[34];
		counts_of(clean, c);
		int want = strstr(fn, "_not_") == NULL;
		int got = hy_agari_is_complete(c, 0);
		if (got != want) {
			print_message("%s:%d: %s %s: got %d, want %d\n", path, lineno, fn, clean, got, want);
			bad++;
		}
		rows++;
	}
	fclose(fp);
	print_message("mahjong-py agari: %d rows, %d differ\n", rows, bad);
	assert_int_equal(rows, 17);
	assert_int_equal(bad, 0);
}

/* Brute force: is c (14 − 3·melds tiles) four-mentsu-and-a-pair shaped? */
static int brute_mentsu(uint8_t *c, int need)
{
	int k = 0;
	while (k < 34 && !c[k])
		k++;
	if (k == 34)
		return need == 0;
	int ok = 0;
	if (c[k] >= 3) {
		c[k] -= 3;
		ok = brute_mentsu(c, need - 1);
		c[k] += 3;
	}
	if (!ok && k < 27 && k % 9 < 7 && c[k + 1] && c[k + 2]) {
		c[k]--, c[k + 1]--, c[k + 2]--;
		ok = brute_mentsu(c, need - 1);
		c[k]++, c[k + 1]++, c[k + 2]++;
	}
	return ok;
}

static int brute_complete(uint8_t *c)
{
	for (int k = 0; k < 34; k++)
		if (c[k] >= 2) {
			c[k] -= 2;
			int ok = brute_mentsu(c, 4);
			c[k] += 2;
			if (ok)
				return 1;
		}
	int pairs = 0;
	for (int k = 0; k < 34; k++)
		pairs += c[k] == 2;
	if (pairs == 7)
		return 1;
	static const int y[13] = {0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33};
	int have = 0, two = 0;
	for (int i = 0; i < 13; i++)
		have += c[y[i]] >= 1, two += c[y[i]] == 2;
	return have == 13 && two == 1;
}

static void test_random(void **state)
{
	(void)state;
	unsigned seed = (unsigned)time(NULL);
	const char *env = getenv("HY_SEED");
	if (env)
		seed = (unsigned)strtoul(env, NULL, 10);
	print_message("test_random: seed %u (HY_SEED=%u reproduces)\n", seed, seed);
	srand(seed);
	int complete = 0;
	for (int it = 0; it < 200000; it++) {
		uint8_t c[34] = {0};
		int n = 0;
		if (it % 2) {  /* a built winning hand */
			while (n < 12) {
				int k = rand() % 34;
				if (rand() % 2 && k < 27 && k % 9 < 7) {
					if (c[k] < 4 && c[k + 1] < 4 && c[k + 2] < 4)
						c[k]++, c[k + 1]++, c[k + 2]++, n += 3;
				} else if (c[k] <= 1) {
					c[k] += 3, n += 3;
				}
			}
			int k;
			do
				k = rand() % 34;
			while (c[k] > 2);
			c[k] += 2;
		} else {  /* random tiles from one or two suits: many near-wins */
			int lo = (rand() % 3) * 9, span = rand() % 2 ? 9 : 18;
			while (n < 14) {
				int k = (lo + rand() % span) % 34;
				if (c[k] < 4)
					c[k]++, n++;
			}
		}
		uint8_t copy[34];
		memcpy(copy, c, 34);
		int want = brute_complete(copy);
		hy_agari_form f[HY_AGARI_MAX];
		int got = hy_agari_decompose(c, NULL, 0, f, HY_AGARI_MAX);
		if ((got > 0) != want) {
			char buf[64];
			uint8_t t[14];
			int m = 0;
			for (int k = 0; k < 34; k++)
				for (int j = 0; j < c[k]; j++)
					t[m++] = (uint8_t)k;
			hy_mpsz_format(t, m, buf, sizeof buf);
			fail_msg("seed %u: %s: decompose %d, brute force %d", seed, buf, got, want);
		}
		assert_true(got <= HY_AGARI_MAX);
		complete += want;
	}
	print_message("test_random: %d of 200000 hands complete\n", complete);
	assert_true(complete > 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_meld_notation),
		cmocka_unit_test(test_mahjong_py_agari),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
