/* lib/core/num: strict command-line numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/num.h"

static void test_i64(void **state)
{
	int64_t v = 7;
	assert_int_equal(hy_parse_i64("42", 0, 99, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(hy_parse_i64("-5", -10, 10, &v), 0);
	assert_int_equal(v, -5);
	static const char *const bad[] = {"", "x", "5x", "100", "-1", "99999999999999999999", " 2", "\t2", "\n5"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		v = 7;
		assert_int_equal(hy_parse_i64(bad[i], 0, 99, &v), -1);
		assert_int_equal(v, 7);
	}
}

static void test_u64(void **state)
{
	uint64_t v = 7;
	assert_int_equal(hy_parse_u64("0x10", 0, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(hy_parse_u64("18446744073709551615", 10, &v), 0);
	assert_true(v == UINT64_MAX);
	static const char *const bad[] = {"", "-1", "12a", "18446744073709551616", " 1", " -1", "\t7"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		v = 7;
		assert_int_equal(hy_parse_u64(bad[i], 10, &v), -1);
		assert_int_equal(v, 7);
	}
	assert_int_equal(hy_parse_u64("0x10", 10, &v), -1);
}

static void test_double(void **state)
{
	double v = 7;
	assert_int_equal(hy_parse_double("0.25", &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(hy_parse_double("-1e-3", &v), 0);
	assert_true(v == -1e-3);
	static const char *const bad[] = {"", "x", "1.5x", "nan", "inf", "1e999", " 0.5", "\n1"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		v = 7;
		assert_int_equal(hy_parse_double(bad[i], &v), -1);
		assert_true(v == 7);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64), cmocka_unit_test(test_u64), cmocka_unit_test(test_double),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
