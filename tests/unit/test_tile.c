/* lib/core/tile and lib/core/status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/grow.h"
#include "core/perm.h"
#include "core/status.h"
#include "core/tile.h"

static void test_mjai_all_codes(void **state)
{
	for (int t = 0; t < HY_TILE_CODES; t++) {
		const char *s = hy_tile_to_mjai(t);
		assert_non_null(s);
		assert_int_equal(hy_tile_from_mjai(s, strlen(s)), t);
	}
	assert_null(hy_tile_to_mjai(HY_TILE_CODES));
	assert_string_equal(hy_tile_to_mjai(0), "1m");
	assert_string_equal(hy_tile_to_mjai(26), "9s");
	assert_string_equal(hy_tile_to_mjai(27), "E");
	assert_string_equal(hy_tile_to_mjai(33), "C");
	assert_string_equal(hy_tile_to_mjai(HY_TILE_5PR), "5pr");
}

static void test_mjai_rejects(void **state)
{
	static const char *const bad[] = {"", "0m", "10m", "5z", "5mR", "4mr", "1x", "e", "EE", "5m ", "m", "?1"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(hy_tile_from_mjai(bad[i], strlen(bad[i])), -1);
	/* length is honoured: "5mr" cut to 2 bytes is the plain five */
	assert_int_equal(hy_tile_from_mjai("5mr", 2), 4);
}

static void test_kinds_and_reds(void **state)
{
	assert_int_equal(hy_tile_kind(HY_TILE_5MR), 4);
	assert_int_equal(hy_tile_kind(HY_TILE_5PR), 13);
	assert_int_equal(hy_tile_kind(HY_TILE_5SR), 22);
	assert_int_equal(hy_tile_kind(HY_TILE_UNKNOWN), -1);
	assert_int_equal(hy_tile_red_of(13), HY_TILE_5PR);
	assert_int_equal(hy_tile_red_of(12), -1);
	assert_true(hy_tile_is_red(HY_TILE_5SR));
	assert_false(hy_tile_is_red(22));
	assert_int_equal(hy_tile_num(22), 5);
	assert_int_equal(hy_tile_num(30), 0);
	assert_int_equal(hy_tile_suit(30), 3);
}

static void test_136(void **state)
{
	int per_code[HY_TILE_CODES] = {0};
	for (int id = 0; id < 136; id++) {
		int t = hy_tile_from_136(id);
		assert_true(t >= 0 && t < HY_TILE_UNKNOWN);
		per_code[t]++;
		assert_int_equal(hy_tile_kind(t), id / 4);
	}
	assert_int_equal(hy_tile_from_136(16), HY_TILE_5MR);
	assert_int_equal(hy_tile_from_136(52), HY_TILE_5PR);
	assert_int_equal(hy_tile_from_136(88), HY_TILE_5SR);
	assert_int_equal(per_code[4], 3);
	assert_int_equal(per_code[HY_TILE_5MR], 1);
	assert_int_equal(per_code[0], 4);
	assert_int_equal(hy_tile_from_136(-1), -1);
	assert_int_equal(hy_tile_from_136(136), -1);
}

static void test_mpsz(void **state)
{
	uint8_t t[20];
	const char *end;
	int n = hy_mpsz_parse("123m406p789s1122z", t, 20, &end);
	assert_int_equal(n, 13);
	assert_int_equal(*end, 0);
	assert_int_equal(t[0], 0);
	assert_int_equal(t[3], 12);
	assert_int_equal(t[4], HY_TILE_5PR);
	assert_int_equal(t[9], 27);
	assert_int_equal(t[12], 28);
	char buf[64];
	assert_int_equal(hy_mpsz_format(t, n, buf, sizeof buf), 17);
	assert_string_equal(buf, "123m406p789s1122z");
	/* stops at other bytes */
	n = hy_mpsz_parse("55z,rest", t, 20, &end);
	assert_int_equal(n, 2);
	assert_string_equal(end, ",rest");
	/* errors: honour 8z, dangling digits, too many tiles */
	assert_int_equal(hy_mpsz_parse("8z", t, 20, NULL), -1);
	assert_int_equal(hy_mpsz_parse("123", t, 20, NULL), -1);
	assert_int_equal(hy_mpsz_parse("m", t, 20, NULL), -1);
	assert_int_equal(hy_mpsz_parse("123456789m", t, 5, NULL), -1);
	/* truncating format still reports the full length */
	n = hy_mpsz_parse("123m", t, 20, NULL);
	assert_int_equal(hy_mpsz_format(t, n, buf, 3), 4);
	assert_string_equal(buf, "12");
}

static void test_status(void **state)
{
	assert_int_equal(hy_status_exit(HY_OK), 0);
	assert_int_equal(hy_status_exit(HY_EDATA), 1);
	assert_int_equal(hy_status_exit(HY_ETRUNC), 1);
	assert_int_equal(hy_status_exit(HY_EUSAGE), 2);
	assert_int_equal(hy_status_exit(HY_EFORMAT), 3);
	assert_int_equal(hy_status_exit(HY_EVERSION), 3);
	assert_string_equal(hy_status_str(HY_ETRUNC), "truncated input");
	assert_string_equal(hy_status_str((hy_status)999), "unknown status");
	hy_diag d;
	char buf[256];
	hy_diag_init(&d, "a.json");
	assert_int_equal(hy_diag_set(&d, HY_EDATA, 7, "bad tile '%s'", "0z"), HY_EDATA);
	assert_string_equal(hy_diag_format(&d, buf, sizeof buf), "a.json:7: bad tile '0z'");
	d.line = 0;
	d.game = 2;
	assert_string_equal(hy_diag_format(&d, buf, sizeof buf), "a.json: game 3: bad tile '0z'");
	d.game = UINT32_MAX;
	assert_string_equal(hy_diag_format(&d, buf, sizeof buf), "a.json: bad tile '0z'");
	assert_int_equal(hy_diag_set(NULL, HY_EIO, 0, "x"), HY_EIO);
}

/* The shared predicates and the one permutation numbering (core/perm.h):
 * every permutation of 3 and of 4 gets a distinct index in lexicographic
 * order, the suit table's order; non-permutations are refused. */
static void test_predicates_and_perms(void **state)
{
	(void)state;
	for (int k = 0; k < 34; k++) {
		int want = k >= 27 || k % 9 == 0 || k % 9 == 8;
		assert_int_equal(hy_tile_is_yaochu(k), want);
	}
	for (int t = 0; t < HY_TILE_KINDS + 3; t++)
		assert_int_equal(hy_tile_code_kind(t), hy_tile_kind(t));
	uint8_t p[4] = {0, 1, 2, 3}, q[4] = {3, 2, 1, 0}, r[4] = {0, 2, 3, 1};
	assert_int_equal(hy_perm_index(p, 4), 0);
	assert_int_equal(hy_perm_index(q, 4), 23);
	assert_int_equal(hy_perm_index(r, 4), 3);
	int seen[24] = {0}, last = -1;
	/* the 24 permutations of 4 in lexicographic order get 0..23 in order */
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 4; c++)
				for (int d = 0; d < 4; d++) {
					uint8_t x[4] = {(uint8_t)a, (uint8_t)b, (uint8_t)c, (uint8_t)d};
					int i = hy_perm_index(x, 4);
					if (a == b || a == c || a == d || b == c || b == d || c == d) {
						assert_int_equal(i, -1);
						continue;
					}
					assert_int_equal(i, last + 1);
					last = i;
					seen[i]++;
				}
	for (int i = 0; i < 24; i++)
		assert_int_equal(seen[i], 1);
	const uint8_t three[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	for (int i = 0; i < 6; i++)
		assert_int_equal(hy_perm_index(three[i], 3), i);
	uint8_t bad[3] = {0, 3, 1};
	assert_int_equal(hy_perm_index(bad, 3), -1);
	assert_int_equal(hy_perm_index(p, 0), -1);
	assert_int_equal(hy_perm_index(p, 9), -1);
}

/* The grow-array idiom (core/grow.h): doubles from its first capacity to
 * what is needed, keeps the contents, and refuses a size past SIZE_MAX
 * with the array unchanged. */
static void test_grow(void **state)
{
	(void)state;
	int *v = NULL;
	size_t cap = 0;
	assert_int_equal(HY_GROW(v, cap, 1, 16), 0);
	assert_int_equal(cap, 16);
	for (int i = 0; i < 16; i++)
		v[i] = i;
	assert_int_equal(HY_GROW(v, cap, 16, 16), 0); /* room already */
	assert_int_equal(cap, 16);
	assert_int_equal(HY_GROW(v, cap, 100, 16), 0);
	assert_int_equal(cap, 128);
	for (int i = 0; i < 16; i++)
		assert_int_equal(v[i], i);
	int *keep = v;
	assert_int_equal(HY_GROW(v, cap, SIZE_MAX / 2, 16), -1);
	assert_ptr_equal(v, keep);
	assert_int_equal(cap, 128);
	free(v);
	/* the capacity alone: doubled from cap, or from first; 0 on overflow */
	assert_int_equal(hy_grow_cap(0, 1, 16), 16);
	assert_int_equal(hy_grow_cap(0, 17, 16), 32);
	assert_int_equal(hy_grow_cap(48, 49, 16), 96);
	assert_int_equal(hy_grow_cap(64, 10, 16), 64);
	assert_int_equal(hy_grow_cap(0, 3, 0), 4);
	assert_int_equal(hy_grow_cap(SIZE_MAX / 2 + 1, SIZE_MAX, 16), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mjai_all_codes), cmocka_unit_test(test_mjai_rejects),
		cmocka_unit_test(test_kinds_and_reds), cmocka_unit_test(test_136),
		cmocka_unit_test(test_mpsz),           cmocka_unit_test(test_status),
		cmocka_unit_test(test_predicates_and_perms), cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
