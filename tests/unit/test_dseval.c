/* lib/play/dseval: action types, top-1/top-3 among the legal actions (ties
 * to the lower index, illegal actions ignored), loss averaging. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "encode/obs.h"
#include "play/dseval.h"

static void test_types(void **state)
{
	int n[HY_DSEVAL_TYPES] = {0};
	for (int a = 0; a < HY_ACTIONS; a++) {
		int t = hy_dseval_type_of(a);
		assert_true(t >= 0 && t < HY_DSEVAL_TYPES);
		n[t]++;
	}
	/* 37 discards (34 kinds + 3 red fives), 3 chi, one of each other */
	static const int want[HY_DSEVAL_TYPES] = {37, 1, 3, 1, 1, 1, 1, 1};
	for (int t = 0; t < HY_DSEVAL_TYPES; t++)
		assert_int_equal(n[t], want[t]);
	assert_int_equal(hy_dseval_type_of(37), HY_DSEVAL_RIICHI);
	assert_int_equal(hy_dseval_type_of(41), HY_DSEVAL_PON);
	assert_int_equal(hy_dseval_type_of(43), HY_DSEVAL_WIN);
	assert_int_equal(hy_dseval_type_of(44), HY_DSEVAL_KYUUSHU);
	assert_int_equal(hy_dseval_type_of(45), HY_DSEVAL_PASS);
	assert_int_equal(hy_dseval_type_of(46), -1);
	assert_int_equal(hy_dseval_type_of(-1), -1);
	assert_string_equal(hy_dseval_type_name(HY_DSEVAL_KYUUSHU), "kyuushu");
	assert_string_equal(hy_dseval_type_name(99), "?");
}

static void test_topk(void **state)
{
	float l[HY_ACTIONS];
	for (int i = 0; i < HY_ACTIONS; i++)
		l[i] = (float)i; /* higher index, higher logit */
	hy_dseval_acc a;
	memset(&a, 0, sizeof a);
	/* legal 0..9: label 9 is the argmax, 7 third, 6 fourth */
	uint64_t m = (1ull << 10) - 1;
	/* each returns the model's top-1 among the legal actions */
	assert_int_equal(hy_dseval_add_policy(&a, l, m, 9), 9);
	assert_int_equal(hy_dseval_add_policy(&a, l, m, 7), 9);
	assert_int_equal(hy_dseval_add_policy(&a, l, m, 6), 9);
	assert_int_equal(a.confusion[HY_DSEVAL_DISCARD][HY_DSEVAL_DISCARD], 3);
	assert_int_equal(a.count[HY_DSEVAL_DISCARD], 3);
	assert_int_equal(a.top1[HY_DSEVAL_DISCARD], 1);
	assert_int_equal(a.top3[HY_DSEVAL_DISCARD], 2);
	/* illegal actions do not count even with the highest logits: pass
	 * (45) against legal pon (41) only */
	m = 1ull << 41 | 1ull << 45;
	hy_dseval_add_policy(&a, l, m, 45);
	assert_int_equal(a.top1[HY_DSEVAL_PASS], 1);
	assert_int_equal(hy_dseval_add_policy(&a, l, m, 41), 45);
	assert_int_equal(a.count[HY_DSEVAL_PON], 1);
	/* confusion: a pon label whose top-1 is pass, a pass label right */
	assert_int_equal(a.confusion[HY_DSEVAL_PON][HY_DSEVAL_PASS], 1);
	assert_int_equal(a.confusion[HY_DSEVAL_PASS][HY_DSEVAL_PASS], 1);
	assert_int_equal(a.confusion[HY_DSEVAL_PON][HY_DSEVAL_PON], 0);
	assert_int_equal(a.top1[HY_DSEVAL_PON], 0);
	assert_int_equal(a.top3[HY_DSEVAL_PON], 1);
	/* the label counts as legal even if the mask lacks it */
	assert_int_equal(hy_dseval_add_policy(&a, l, 1ull << 3, 43), 43);
	assert_int_equal(a.top1[HY_DSEVAL_WIN], 1);
	/* a label out of range counts nothing */
	assert_int_equal(hy_dseval_add_policy(&a, l, m, 46), -1);
	assert_int_equal(a.confusion[HY_DSEVAL_WIN][HY_DSEVAL_WIN], 1);
	/* ties go to the lower index (the trainer's argmax) */
	float t[HY_ACTIONS] = {0};
	assert_int_equal(hy_dseval_add_policy(&a, t, 0xf, 0), 0);
	assert_int_equal(hy_dseval_add_policy(&a, t, 0xf, 3), 0);
	assert_int_equal(a.top1[HY_DSEVAL_DISCARD], 2);
	assert_int_equal(a.top3[HY_DSEVAL_DISCARD], 3);
	assert_int_equal(a.count[HY_DSEVAL_DISCARD], 5);
}

static void set(hy_sample *s, int ch, int kind)
{
	s->obs[ch * HY_OBS_TILES + kind] = hy_half_from_float(1.0f);
}

static void test_misses(void **state)
{
	hy_dseval_acc a;
	memset(&a, 0, sizeof a);
	static hy_sample s; /* large: not on the stack */
	memset(&s, 0, sizeof s);
	s.action = 5; /* label: discard 6m */
	/* no riichi: 6m keeps the minimum shanten, 1m (0) and 2m (1) too, 9m (8)
	 * not; channel 9 is graded by acceptance, 0.25 the least a kept one has */
	set(&s, HY_OBS_BEST_DISCARD, 5);
	set(&s, HY_OBS_BEST_DISCARD, 0);
	s.obs[HY_OBS_BEST_DISCARD * HY_OBS_TILES + 1] = hy_half_from_float(0.25f);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 0), HY_DSEVAL_MISS_KEEP_BOTH);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 8), HY_DSEVAL_MISS_KEEP_LABEL);
	s.action = 8;
	assert_int_equal(hy_dseval_add_miss(&a, &s, 1), HY_DSEVAL_MISS_KEEP_MODEL);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 7), HY_DSEVAL_MISS_KEEP_NEITHER);
	/* not misses: the same action, or a top-1 that is no discard, or a
	 * label that is no discard */
	assert_int_equal(hy_dseval_add_miss(&a, &s, 8), -1);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 37), -1);
	s.action = 45;
	assert_int_equal(hy_dseval_add_miss(&a, &s, 8), -1);
	/* the red five for the plain one and back */
	s.action = 13;
	assert_int_equal(hy_dseval_add_miss(&a, &s, 35), HY_DSEVAL_MISS_RED);
	s.action = 36;
	assert_int_equal(hy_dseval_add_miss(&a, &s, 22), HY_DSEVAL_MISS_RED);
	/* opponent 1 (relative player 2) in riichi: safe is its genbutsu or a
	 * kind discarded after its declaration; the shanten no longer counts */
	set(&s, HY_OBS_RIICHI + 2, 0);
	set(&s, HY_OBS_RIVER + 3 * 2, 27);     /* E its genbutsu */
	set(&s, HY_OBS_RIICHI_SAFE + 1, 9); /* 1p passed after the riichi */
	set(&s, HY_OBS_RIVER + 3 * 1, 10);     /* 2p safe only against another */
	s.action = 27;
	assert_int_equal(hy_dseval_add_miss(&a, &s, 9), HY_DSEVAL_MISS_SAFE_BOTH);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 10), HY_DSEVAL_MISS_SAFE_LABEL);
	s.action = 5; /* keeps the minimum shanten, but unsafe */
	assert_int_equal(hy_dseval_add_miss(&a, &s, 27), HY_DSEVAL_MISS_SAFE_MODEL);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 10), HY_DSEVAL_MISS_SAFE_NEITHER);
	/* a second riichi (opponent 2): E is not its genbutsu, so no longer safe */
	set(&s, HY_OBS_RIICHI + 3, 0);
	s.action = 9;
	set(&s, HY_OBS_RIICHI_SAFE + 2, 9);
	assert_int_equal(hy_dseval_add_miss(&a, &s, 27), HY_DSEVAL_MISS_SAFE_LABEL);
	static const int want[HY_DSEVAL_MISSES] = {2, 1, 1, 1, 1, 1, 2, 1, 1};
	for (int m = 0; m < HY_DSEVAL_MISSES; m++)
		assert_int_equal(a.miss[m], want[m]);
	assert_string_equal(hy_dseval_miss_name(HY_DSEVAL_MISS_SAFE_LABEL), "safe-label");
	assert_string_equal(hy_dseval_miss_name(HY_DSEVAL_MISSES), "?");
}

static void test_finish(void **state)
{
	hy_dseval_acc a;
	memset(&a, 0, sizeof a);
	a.n = 10;
	a.count[HY_DSEVAL_DISCARD] = 8;
	a.top1[HY_DSEVAL_DISCARD] = 4;
	a.top3[HY_DSEVAL_DISCARD] = 6;
	a.count[HY_DSEVAL_PASS] = 2;
	a.top1[HY_DSEVAL_PASS] = 2;
	a.top3[HY_DSEVAL_PASS] = 2;
	a.confusion[HY_DSEVAL_DISCARD][HY_DSEVAL_RIICHI] = 3;
	a.miss[HY_DSEVAL_MISS_SAFE_MODEL] = 4;
	a.loss.n = 10;
	a.loss.sum_policy = 20;
	a.loss.sum_value = 5;
	a.loss.sum_grp = 30;
	a.loss.sum_tenpai = 6;
	a.loss.n_tenpai = 12;
	hy_dseval_result r;
	memset(&r, 0, sizeof r);
	r.arch.blocks = 2;
	r.arch.channels = 32;
	hy_dseval_finish(&a, &hy_nn_loss_w_policy, &r);
	assert_int_equal(r.arch.channels, 32);
	assert_int_equal(r.confusion[HY_DSEVAL_DISCARD][HY_DSEVAL_RIICHI], 3);
	assert_int_equal(r.miss[HY_DSEVAL_MISS_SAFE_MODEL], 4);
	assert_true(r.acc1[HY_DSEVAL_DISCARD] == 0.5 && r.acc3[HY_DSEVAL_DISCARD] == 0.75);
	assert_true(isnan(r.acc1[HY_DSEVAL_CHI]));
	assert_true(r.acc1_all == 0.6 && r.acc3_all == 0.8);
	assert_true(r.policy == 2.0 && r.value == 0.5 && r.grp == 3.0 && r.tenpai == 0.5);
	assert_true(isnan(r.danger));
	/* total: the trainer's weights (floats, hence 1e-6), a head with nothing
	 * counted adds 0 */
	assert_true(fabs(r.total - (2.0 + 0.5 * 0.5 + 0.1 * 3.0 + 0.05 * 0.5)) < 1e-6);
}

/* The waits read: a cell per (known sample, opponent, kind), p = σ(tenpai)·
 * σ(danger) against [tenpai and a wait]; the log-loss, the base rate's, and
 * the AUC (a perfect order 1, a reversed one 0, ties one half); samples
 * without known labels count nothing; the reader's total weighs the tenpai
 * and danger heads alone. */
static void test_reader(void **state)
{
	(void)state;
	static hy_dseval_acc a; /* the histograms: not on the stack */
	memset(&a, 0, sizeof a);
	hy_sample s;
	memset(&s, 0, sizeof s);
	s.flags = HY_SAMPLE_F_OPP_KNOWN;
	s.opp_tenpai = 1;          /* opponent 0 tenpai on 3m and 6m */
	s.opp_waits[0] = (1u << 2) | (1u << 5);
	s.opp_waits[1] = 1u << 7;  /* not tenpai: its waits do not count */
	float ten[3] = {10, -10, -10}, dan[36 * 3];
	for (int i = 0; i < 36 * 3; i++)
		dan[i] = -10;
	dan[(1 + 2) * 3 + 0] = 10;
	dan[(1 + 5) * 3 + 0] = 10;
	hy_dseval_add_reader(&a, &s, ten, dan);
	assert_int_equal(a.rd.cells, 102);
	assert_int_equal(a.rd.wins, 2);
	hy_dseval_result r;
	memset(&r, 0, sizeof r);
	hy_dseval_finish(&a, &hy_nn_loss_w_policy, &r);
	assert_true(r.rd_logloss < 1e-3 && r.rd_auc == 1.0);
	double q = 2.0 / 102;
	assert_float_equal(r.rd_base, -(q * log(q) + (1 - q) * log(1 - q)), 1e-12);
	/* the order reversed: AUC 0 */
	memset(&a, 0, sizeof a);
	for (int i = 0; i < 36 * 3; i++)
		dan[i] = 10;
	dan[(1 + 2) * 3 + 0] = -10;
	dan[(1 + 5) * 3 + 0] = -10;
	ten[1] = ten[2] = 10;
	hy_dseval_add_reader(&a, &s, ten, dan);
	hy_dseval_finish(&a, &hy_nn_loss_w_policy, &r);
	assert_true(r.rd_auc == 0.0 && r.rd_logloss > 5);
	/* every cell alike: ties, one half; an unknown sample: nothing */
	memset(&a, 0, sizeof a);
	for (int i = 0; i < 36 * 3; i++)
		dan[i] = 0;
	hy_dseval_add_reader(&a, &s, ten, dan);
	s.flags = 0;
	hy_dseval_add_reader(&a, &s, ten, dan);
	assert_int_equal(a.rd.cells, 102);
	hy_dseval_finish(&a, &hy_nn_loss_w_policy, &r);
	assert_float_equal(r.rd_auc, 0.5, 1e-12);
	/* a furiten opponent's waits deal in to nobody: no wins */
	memset(&a, 0, sizeof a);
	s.flags = HY_SAMPLE_F_OPP_KNOWN | HY_SAMPLE_F_FURITEN_OF(0);
	hy_dseval_add_reader(&a, &s, ten, dan);
	assert_int_equal(a.rd.cells, 102);
	assert_int_equal(a.rd.wins, 0);
	/* a reader's total: its heads alone */
	a.loss.n = 4;
	a.loss.sum_policy = 40;
	a.loss.sum_tenpai = 2;
	a.loss.n_tenpai = 4;
	a.loss.sum_danger = 3;
	a.loss.n_danger = 6;
	hy_dseval_finish(&a, &hy_nn_loss_w_reader, &r);
	assert_float_equal(r.total, 0.5 + 0.5, 1e-12);
	hy_dseval_finish(&a, &hy_nn_loss_w_policy, &r);
	assert_float_equal(r.total, 10 + 0.05 * (0.5 + 0.5), 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_topk),
		cmocka_unit_test(test_misses),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
