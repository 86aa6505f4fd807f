/* lib/encode/dedup: the set of seen game ids (hydra-encode's duplicate filter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "encode/dedup.h"

static uint64_t splitmix64(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* Many ids through several growths: each is fresh once, then seen. */
static void test_add(void **state)
{
	hy_dedup s;
	hy_dedup_init(&s);
	int fresh;
	enum { N = 5000 };
	for (uint64_t i = 0; i < N; i++) {
		assert_int_equal(hy_dedup_add(&s, splitmix64(i), &fresh), HY_OK);
		assert_int_equal(fresh, 1);
	}
	for (uint64_t i = 0; i < N; i++) {
		assert_int_equal(hy_dedup_add(&s, splitmix64(i), &fresh), HY_OK);
		assert_int_equal(fresh, 0);
	}
	assert_int_equal(hy_dedup_count(&s), N);
	hy_dedup_free(&s);
}

/* 0 (the empty-slot marker) and ids that collide in the low bits are
 * ids like any other. */
static void test_edges(void **state)
{
	hy_dedup s;
	hy_dedup_init(&s);
	int fresh;
	assert_int_equal(hy_dedup_add(&s, 0, &fresh), HY_OK);
	assert_int_equal(fresh, 1);
	assert_int_equal(hy_dedup_add(&s, 0, &fresh), HY_OK);
	assert_int_equal(fresh, 0);
	for (uint64_t i = 1; i <= 100; i++) { /* all start at slot 0: one probe chain */
		assert_int_equal(hy_dedup_add(&s, i << 40 | i << 8, &fresh), HY_OK);
		assert_int_equal(fresh, 1);
	}
	for (uint64_t i = 1; i <= 100; i++) {
		assert_int_equal(hy_dedup_add(&s, i << 40 | i << 8, &fresh), HY_OK);
		assert_int_equal(fresh, 0);
	}
	assert_int_equal(hy_dedup_count(&s), 101);
	hy_dedup_free(&s);
	assert_int_equal(hy_dedup_count(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
