/* The distillation term and the fade table (nn/distil.h, train/distil.h;
 * issue 52 step 2): KL(π_S,τ ‖ π_T,τ) is 0 for equal policies and positive
 * otherwise, its gradient matches finite differences at τ = 1 and 3 over
 * the legal actions only, and the table is the design's by quarters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nn/distil.h"
#include "samples/sample.h"
#include "train/distil.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static double uni(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static void test_kl_gradient(void **state)
{
	(void)state;
	enum { B = 5 };
	float s[B * HY_ACTIONS], t[B * HY_ACTIONS], g[B * HY_ACTIONS];
	uint64_t mask[B];
	uint8_t action[B];
	for (int i = 0; i < B * HY_ACTIONS; i++) {
		s[i] = (float)(4 * uni() - 2);
		t[i] = (float)(4 * uni() - 2);
	}
	for (int b = 0; b < B; b++) {
		mask[b] = 0;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (uni() < 0.3)
				mask[b] |= 1ull << i;
		action[b] = (uint8_t)(b * 7 % HY_ACTIONS);
	}
	/* equal policies: 0 */
	assert_true(fabs(hy_nn_distil_kl(B, s, s, mask, action, 3, 1, NULL)) < 1e-12);
	const float taus[2] = {1, 3};
	for (int q = 0; q < 2; q++) {
		const float tau = taus[q], coef = 0.7f;
		memset(g, 0, sizeof g);
		double kl = hy_nn_distil_kl(B, s, t, mask, action, tau, coef, g);
		assert_true(kl > 0);
		int checked = 0;
		for (int b = 0; b < B; b++)
			for (int i = 0; i < HY_ACTIONS; i++) {
				const uint64_t m = mask[b] | 1ull << action[b];
				float *x = &s[b * HY_ACTIONS + i];
				if (!(m >> i & 1)) { /* no gradient outside the legal actions */
					assert_true(g[b * HY_ACTIONS + i] == 0);
					continue;
				}
				const float x0 = *x, e = 1e-3f;
				*x = x0 + e;
				double kp = hy_nn_distil_kl(B, s, t, mask, action, tau, 0, NULL);
				*x = x0 - e;
				double km = hy_nn_distil_kl(B, s, t, mask, action, tau, 0, NULL);
				*x = x0;
				double fd = coef * tau * tau * (kp - km) / (2 * e);
				if (fabs(fd - g[b * HY_ACTIONS + i]) > 1e-4 + 1e-2 * fabs(fd))
					fail_msg("tau %g: sample %d action %d: analytic %g, fd %g", tau, b,
						 i, g[b * HY_ACTIONS + i], fd);
				checked++;
			}
		assert_true(checked > 10);
	}
}

static void test_fade_table(void **state)
{
	(void)state;
	static const struct {
		double f;
		float opp, wall, lambda, lr;
	} want[] = {
		{0, 1, 1, 1, 1},       {0.2499, 1, 1, 1, 1},  {0.25, 0.7f, 0.5f, 0.8f, 1},
		{0.5, 0.3f, 0.2f, 0.5f, 1}, {0.7499, 0.3f, 0.2f, 0.5f, 1},
		{0.75, 0, 0, 0.3f, 0.1f}, {1, 0, 0, 0.3f, 0.1f},  {7, 0, 0, 0.3f, 0.1f},
		{-1, 1, 1, 1, 1},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		hy_train_distil_phase p;
		hy_train_distil_phase_at(want[i].f, &p);
		if (p.opp != want[i].opp || p.wall != want[i].wall || p.lambda != want[i].lambda ||
		    p.lr != want[i].lr)
			fail_msg("fraction %g: %g %g %g %g", want[i].f, p.opp, p.wall, p.lambda, p.lr);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kl_gradient),
		cmocka_unit_test(test_fade_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
