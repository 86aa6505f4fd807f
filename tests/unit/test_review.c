/* The review of a game (lib/review) and the bot's metadata
 * (hy_mjaibot_add_meta): on a self-played rulebot game, the review by
 * rulebot has one decision per encoder sample, agrees everywhere and
 * gives probability 1 to each play; the random policy's distribution is
 * uniform over the legal actions; the costliest departures are ordered
 * and capped; the summary figures per seat; the metadata is Mortal's
 * layout, its softmax the policy's distribution, and an answer that does
 * not fit is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encode/encode.h"
#include "nn/checkpoint.h"
#include "nn/model.h"
#include "play/policies/readercheck.h"
#include "play/mjaibot.h"
#include "play/policy.h"
#include "play/runner.h"
#include "review/json.h"
#include "review/review.h"

typedef struct ctx {
	int games;
	hy_reader_check *reader;
} ctx;

/* A random-initialised tiny wait reader (train_mode 2) at path. */
static void tiny_reader(char *path, size_t n)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(path, n, "%s/review-reader-%ld.h5", dir, (long)getpid());
	hy_nn_ctx cx;
	hy_nn_ctx_init(&cx, 1);
	hy_nn_model m;
	assert_int_equal(hy_nn_model_init(&m, (hy_nn_arch){2, 32, 0}, hy_nn_backend_cpu(), &cx, NULL),
			 HY_OK);
	hy_rng rng;
	hy_rng_seed(&rng, 5);
	assert_int_equal(hy_nn_model_init_params(&m, &rng, NULL), HY_OK);
	int32_t obs = HY_OBS_VERSION, mode = 2;
	hy_nn_ckpt_attr attr[2] = {{"obs_version", HY_NN_ATTR_I32, &obs},
				   {"train_mode", HY_NN_ATTR_I32, &mode}};
	hy_nn_ckpt_meta meta = {.extra = attr, .nextra = 2};
	hy_nn_optim_defaults(&meta.opt, 10);
	assert_int_equal(hy_nn_ckpt_save(path, &m, &meta, NULL), HY_OK);
	hy_nn_model_free(&m);
}

/* The threats of a review with a reader at threshold t: every opponent in
 * riichi is listed, an opponent not in riichi only at tenpai >= t, each
 * deal-in a probability no larger than its tenpai (no reader: none);
 * returns the threats. */
static size_t check_threats(const hy_review *r, double t)
{
	size_t all = 0;
	for (size_t i = 0; i < r->n; i++) {
		const hy_review_dec *x = &r->dec[i];
		int listed[4] = {0};
		for (int k = 0; k < x->nthreat; k++) {
			const hy_review_threat *th = &x->threat[k];
			assert_true(th->seat < 4 && th->seat != x->seat);
			assert_int_equal(th->riichi, x->pl[th->seat].riichi);
			assert_true(th->riichi || th->tenpai >= t);
			for (int q = 0; q < 34; q++)
				assert_true(th->deal_in[q] >= 0 && th->deal_in[q] <= th->tenpai + 1e-6f);
			listed[th->seat] = 1;
		}
		for (int s = 0; s < 4; s++)
			if (r->reader && s != x->seat && x->pl[s].riichi)
				assert_true(listed[s]);
		all += (size_t)x->nthreat;
	}
	return all;
}

/* Reviews the finished game with rulebot and random. */
static hy_status on_game(void *p, const hy_play_game *g, hy_diag *d)
{
	ctx *c = p;
	c->games++;
	hy_encoder *enc;
	assert_int_equal(hy_encoder_new(&enc, NULL), HY_OK);
	const hy_sample *smp;
	size_t nsmp;
	assert_int_equal(hy_encode_game(enc, g->log, &smp, &nsmp, d), HY_OK);
	assert_true(nsmp > 50);

	hy_policy rb, rnd;
	assert_int_equal(hy_policy_open(&rb, "rulebot", NULL, d), HY_OK);
	assert_int_equal(hy_policy_open(&rnd, "random", NULL, d), HY_OK);
	hy_review r;
	hy_review_init(&r);
	hy_status st = hy_review_game(&r, g->log, 15, &rb, d);
	if (st != HY_OK)
		print_error("review: %s\n", d->msg);
	assert_int_equal(st, HY_OK);
	assert_int_equal(r.n, nsmp);
	hy_review_stats s;
	hy_review_stats_of(&r, -1, &s);
	assert_int_equal(s.decisions, nsmp);
	assert_int_equal(s.agree, nsmp);
	assert_int_equal(s.low, 0);
	assert_true(fabs(s.mean_prob - 1.0) < 1e-9);
	size_t per = 0, idx[4];
	for (int seat = 0; seat < 4; seat++) {
		hy_review_stats_of(&r, seat, &s);
		per += s.decisions;
	}
	assert_int_equal(per, nsmp);
	assert_int_equal(hy_review_costliest(&r, idx, 4), 0);
	/* the decisions are the samples, in order: seat and legal mask */
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.dec[i].seat, smp[i].seat);
		assert_true(r.dec[i].legal == smp[i].mask);
		assert_int_equal(r.dec[i].played.index, smp[i].action);
		assert_true(r.dec[i].played.prob == 1.0f);
	}
	/* kyoku cover the decisions */
	size_t sum = 0;
	for (size_t k = 0; k < r.nky; k++) {
		assert_int_equal(r.ky[k].first, sum);
		sum += r.ky[k].n;
	}
	assert_int_equal(sum, r.n);

	/* a reader: at threshold 0 every opponent threatens at every decision;
	 * at 1 only those in riichi; none without a reader */
	hy_review_set_reader(&r, c->reader, "tiny", 0.0);
	assert_int_equal(hy_review_game(&r, g->log, 15, &rb, d), HY_OK);
	assert_int_equal(check_threats(&r, 0.0), 3 * r.n);
	hy_review_set_reader(&r, c->reader, "tiny", 1.0);
	assert_int_equal(hy_review_game(&r, g->log, 15, &rb, d), HY_OK);
	size_t riichi = 0;
	for (size_t i = 0; i < r.n; i++)
		for (int q = 0; q < 4; q++)
			riichi += q != r.dec[i].seat && r.dec[i].pl[q].riichi;
	assert_int_equal(check_threats(&r, 1.0), riichi);
	hy_review_set_reader(&r, NULL, NULL, HY_REVIEW_THREAT);
	assert_int_equal(hy_review_game(&r, g->log, 15, &rb, d), HY_OK);
	assert_int_equal(check_threats(&r, 0.0), 0);

	/* random: uniform over the legal actions */
	assert_int_equal(hy_review_game(&r, g->log, 1, &rnd, d), HY_OK);
	assert_true(r.n > 0);
	for (size_t i = 0; i < r.n; i++) {
		int k = __builtin_popcountll(r.dec[i].legal);
		for (int a = 0; a < HY_ACTIONS; a++)
			assert_true(fabsf(r.dec[i].prob[a] - ((r.dec[i].legal >> a & 1) ? 1.0f / k : 0)) <
				    1e-6f);
	}
	char *txt;
	size_t len;
	assert_int_equal(hy_review_json(&r, &txt, &len, d), HY_OK);
	json_error_t je;
	json_t *o = json_loadb(txt, len, 0, &je);
	assert_non_null(o);
	assert_int_equal(json_array_size(json_object_get(o, "decisions")), r.n);
	json_decref(o);
	free(txt);

	hy_review_free(&r);
	hy_policy_close(&rb);
	hy_policy_close(&rnd);
	hy_encoder_free(enc);
	return HY_OK;
}

static void test_review_game(void **state)
{
	(void)state;
	hy_policy rb;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_policy_open(&rb, "rulebot", NULL, &d), HY_OK);
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.seed = 11;
	o.count = 1;
	hy_policy *pol[1] = {&rb};
	ctx c = {0};
	char path[512];
	tiny_reader(path, sizeof path);
	assert_int_equal(hy_reader_check_open(&c.reader, path, &d), HY_OK);
	assert_int_equal(hy_play_run(&o, pol, 1, on_game, &c, &d), HY_OK);
	assert_int_equal(c.games, 1);
	hy_reader_check_close(c.reader);
	unlink(path);
	hy_policy_close(&rb);
}

/* A decision with a played action and a first choice of given
 * probabilities. */
static void set(hy_review_dec *x, int seat, int played, float pp, int top, float tp)
{
	memset(x, 0, sizeof *x);
	x->seat = (uint8_t)seat;
	x->ntop = 1;
	x->top[0].index = (int8_t)top;
	x->top[0].prob = tp;
	x->played.index = (int8_t)played;
	x->played.prob = pp;
}

static void test_figures(void **state)
{
	(void)state;
	hy_review_dec dec[5];
	set(&dec[0], 0, 1, 0.25f, 2, 0.75f); /* cost 0.5  */
	set(&dec[1], 1, 3, 0.90f, 3, 0.90f); /* agrees    */
	set(&dec[2], 0, 4, 0.05f, 5, 0.95f); /* cost 0.9, low */
	set(&dec[3], 1, 6, 0.25f, 7, 0.75f); /* cost 0.5  */
	set(&dec[4], 0, 8, 0.40f, 9, 0.60f); /* cost 0.2  */
	hy_review r;
	hy_review_init(&r);
	r.dec = dec;
	r.n = 5;
	r.seats = 3;
	size_t idx[10];
	assert_int_equal(hy_review_costliest(&r, idx, 10), 4);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 0); /* ties in game order */
	assert_int_equal(idx[2], 3);
	assert_int_equal(idx[3], 4);
	assert_int_equal(hy_review_costliest(&r, idx, 2), 2);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 0);
	hy_review_stats s;
	hy_review_stats_of(&r, -1, &s);
	assert_int_equal(s.decisions, 5);
	assert_int_equal(s.agree, 1);
	assert_int_equal(s.low, 1);
	assert_true(fabs(s.mean_prob - (0.25 + 0.9 + 0.05 + 0.25 + 0.4) / 5) < 1e-6);
	hy_review_stats_of(&r, 1, &s);
	assert_int_equal(s.decisions, 2);
	assert_int_equal(s.agree, 1);
	assert_true(fabs(s.agreement - 0.5) < 1e-12);
}

static void test_meta(void **state)
{
	(void)state;
	hy_mjaibot_meta m;
	memset(&m, 0, sizeof m);
	m.mask = (1ull << 3) | (1ull << 45);
	m.prob[3] = 0.25f;
	m.prob[45] = 0.75f;
	m.greedy = 1;
	m.has_value = 1;
	m.value = -0.125f;
	m.eval_ns = 12345;
	m.shanten = 2;
	char buf[512] = "{\"type\":\"none\"}";
	int n = hy_mjaibot_add_meta(buf, (int)strlen(buf), sizeof buf, &m);
	assert_true(n > 0);
	assert_int_equal((int)strlen(buf), n);
	json_error_t je;
	json_t *o = json_loads(buf, 0, &je);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "type")), "none");
	json_t *meta = json_object_get(o, "meta");
	json_t *q = json_object_get(meta, "q_values"), *p = json_object_get(meta, "probs");
	assert_int_equal(json_array_size(q), 2);
	assert_int_equal(json_array_size(p), 2);
	double z = exp(json_number_value(json_array_get(q, 0))) +
		   exp(json_number_value(json_array_get(q, 1)));
	assert_true(fabs(exp(json_number_value(json_array_get(q, 1))) / z - 0.75) < 1e-5);
	assert_true(fabs(json_number_value(json_array_get(p, 0)) - 0.25) < 1e-6);
	assert_true(json_integer_value(json_object_get(meta, "mask_bits")) == (json_int_t)m.mask);
	assert_true(json_is_true(json_object_get(meta, "is_greedy")));
	assert_int_equal(json_integer_value(json_object_get(meta, "batch_size")), 1);
	assert_int_equal(json_integer_value(json_object_get(meta, "eval_time_ns")), 12345);
	assert_int_equal(json_integer_value(json_object_get(meta, "shanten")), 2);
	assert_true(fabs(json_number_value(json_object_get(meta, "value")) + 12.5) < 1e-4);
	json_decref(o);
	/* a probability of 0: q floored at -50; no value without one */
	m.prob[3] = 0;
	m.prob[45] = 1;
	m.has_value = 0;
	strcpy(buf, "{\"type\":\"none\"}");
	n = hy_mjaibot_add_meta(buf, (int)strlen(buf), sizeof buf, &m);
	assert_true(n > 0);
	assert_non_null(strstr(buf, "\"q_values\":[-50,0]"));
	assert_null(strstr(buf, "\"value\""));
	/* too small */
	char small[40] = "{\"type\":\"none\"}";
	assert_int_equal(hy_mjaibot_add_meta(small, (int)strlen(small), sizeof small, &m), -1);
	assert_int_equal(hy_mjaibot_add_meta(small, 0, sizeof small, &m), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_review_game),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_meta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
