/* Comparison of two float vectors, shared by the tests that hold a result
 * against a reference (test_fuse.c, tests/gpu/check_gpu.c). Static: each
 * test includes it once. */
#ifndef HY_TEST_FIXTURE_CMP_H
#define HY_TEST_FIXTURE_CMP_H

#include <math.h>
#include <stddef.h>

/* ‖a − b‖ / ‖a‖ over n values (‖a − b‖ where a is zero). */
static double rel_l2(const float *a, const float *b, size_t n)
{
	double num = 0, den = 0;
	for (size_t i = 0; i < n; i++) {
		num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
		den += (double)a[i] * a[i];
	}
	return den > 0 ? sqrt(num / den) : sqrt(num);
}

#endif
