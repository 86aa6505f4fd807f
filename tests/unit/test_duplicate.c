/* Duplicate self-play's advantages (lib/play/duplicate.c): three games of
 * one group, two seats; each step's advantage is its seat's kyoku reward
 * (the sum over its steps there) less the mean of the same seat's same
 * kyoku in the other games; a kyoku no other game played is dropped, with
 * its steps; the order of the kept steps is the order pushed; the
 * statistics; a second group after hy_dup_clear starts afresh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "play/duplicate.h"

static hy_sample step(int seat, int gk, int honba, float reward, int tag)
{
	hy_sample x;
	memset(&x, 0, sizeof x);
	x.seat = (uint8_t)seat;
	x.grand_kyoku = (uint8_t)gk;
	x.honba = (uint8_t)honba;
	x.reward = reward;
	x.adv = 99.0f;   /* the runner's GAE advantage: replaced */
	x.ret = 7.0f;    /* kept */
	x.step = (uint16_t)tag;
	return x;
}

/* game g's kyoku E1 (gk 0) and E2 (gk 1): seats 0 and 1 interleaved, the
 * reward on each seat's last step of the kyoku */
static void push_game(hy_dup *u, int g, const float r0[2], const float r1[2], int lone)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (int k = 0; k < 2; k++) {
		int honba = k == 1 && lone ? 1 : 0;
		for (int i = 0; i < 3; i++) {
			int tag = g * 100 + k * 10 + i;
			hy_sample a = step(0, k, honba, i == 2 ? r0[k] : 0, tag);
			hy_sample b = step(1, k, honba, i == 2 ? r1[k] : 0, tag);
			assert_int_equal(hy_dup_push(u, &a, &d), HY_OK);
			assert_int_equal(hy_dup_push(u, &b, &d), HY_OK);
		}
	}
	hy_dup_end_game(u);
}

static void test_group(void **state)
{
	(void)state;
	hy_dup u;
	hy_dup_init(&u);
	hy_diag d;
	hy_diag_init(&d, NULL);
	const float a0[2] = {1.0f, -0.5f}, a1[2] = {-1.0f, 0.25f};
	const float b0[2] = {0.0f, 0.5f}, b1[2] = {2.0f, -0.75f};
	const float c0[2] = {0.5f, 3.0f}, c1[2] = {-0.5f, 1.0f};
	push_game(&u, 0, a0, a1, 0);
	push_game(&u, 1, b0, b1, 0);
	push_game(&u, 2, c0, c1, 1); /* its E2 is another honba: no baseline */
	size_t n = 1234;
	assert_int_equal(hy_dup_finish(&u, &n, &d), HY_OK);
	/* 3 games × 2 kyoku × 2 seats × 3 steps, less game 2's E2 (6 steps) */
	assert_int_equal(n, 30);
	const float *r0[3] = {a0, b0, c0}, *r1[3] = {a1, b1, c1};
	size_t j = 0;
	for (int g = 0; g < 3; g++)
		for (int k = 0; k < 2; k++) {
			if (g == 2 && k == 1)
				continue;
			int others = k == 0 ? 2 : 1; /* E2 of game 2 is not a partner */
			for (int i = 0; i < 3; i++)
				for (int s = 0; s < 2; s++, j++) {
					const hy_sample *x = &u.s[j];
					assert_int_equal(x->step, g * 100 + k * 10 + i);
					assert_int_equal(x->seat, s);
					const float **r = s == 0 ? r0 : r1;
					double sum = 0;
					for (int h = 0; h < 3; h++)
						if (h != g && !(h == 2 && k == 1))
							sum += r[h][k];
					double want = r[g][k] - sum / others;
					assert_true(fabs(x->adv - want) < 1e-6);
					assert_true(x->ret == 7.0f);
					assert_true(x->reward == (i == 2 ? r[g][k] : 0));
				}
		}
	assert_int_equal(u.st.kyoku, 10);
	assert_int_equal(u.st.lone, 2);
	assert_int_equal(u.st.steps, 30);
	assert_int_equal(u.st.dropped, 6);
	/* the statistics: the 10 kyoku rewards with a baseline and their advantages */
	double s1 = 0, s2 = 0, a2 = 0;
	for (int g = 0; g < 3; g++)
		for (int k = 0; k < 2; k++)
			for (int s = 0; s < 2; s++) {
				if (g == 2 && k == 1)
					continue;
				const float **r = s == 0 ? r0 : r1;
				double sum = 0;
				int m = 0;
				for (int h = 0; h < 3; h++)
					if (h != g && !(h == 2 && k == 1))
						sum += r[h][k], m++;
				double adv = r[g][k] - sum / m;
				s1 += r[g][k];
				s2 += r[g][k] * r[g][k];
				a2 += adv * adv;
			}
	double mean = s1 / 10;
	assert_true(fabs(hy_dup_reward_sd(&u.st) - sqrt(s2 / 10 - mean * mean)) < 1e-9);
	assert_true(fabs(hy_dup_adv_rms(&u.st) - sqrt(a2 / 10)) < 1e-9);

	/* the next group: game 0 alone has no partner for anything */
	hy_dup_clear(&u);
	push_game(&u, 0, a0, a1, 0);
	assert_int_equal(hy_dup_finish(&u, &n, &d), HY_OK);
	assert_int_equal(n, 0);
	assert_int_equal(u.st.lone, 2 + 4);
	assert_int_equal(u.st.dropped, 6 + 12);
	assert_int_equal(u.st.kyoku, 10);
	/* two identical games: every advantage 0 */
	hy_dup_clear(&u);
	push_game(&u, 0, a0, a1, 0);
	push_game(&u, 1, a0, a1, 0);
	assert_int_equal(hy_dup_finish(&u, &n, &d), HY_OK);
	assert_int_equal(n, 24);
	for (size_t i = 0; i < n; i++)
		assert_true(u.s[i].adv == 0.0f);
	hy_dup_free(&u);
	hy_dup_free(&u); /* freeing twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
