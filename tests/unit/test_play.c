/* Policies and the game runner (lib/play): per-decision keys, the random
 * policy's legality and determinism, the baseline's decisions on hand-made
 * states (tsumo, riichi and its discard, a tenpai-keeping discard, maximum
 * acceptance on self-play states, value pon, declined chi, kyuushu, folding
 * with genbutsu), runner determinism over table and thread counts (rule
 * policies and a model), GAE against a direct sum, self-play observations
 * equal to re-encoding the written log, and the baseline beating random. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/tile.h"
#include "encode/encode.h"
#include "engine/engine.h"
#include "engine/table.h"
#include "hand/shanten.h"
#include "mjai/mjai.h"
#include "nn/checkpoint.h"
#include "nn/model.h"
#include "nn/cuda/cuda.h"
#include "play/policy.h"
#include "play/runner.h"
#include "samples/stream.h"

#include "fixture_play.h"
#include "fixture_ckpt.h"
#include "fixture_table.h"

/* ------------------------------------------------------------ keys */

static void test_keys(void **state)
{
	(void)state;
	uint64_t k = hy_policy_key(1, 2, 3, 0);
	assert_true(k == hy_policy_key(1, 2, 3, 0));
	assert_true(k != hy_policy_key(0, 2, 3, 0));
	assert_true(k != hy_policy_key(1, 3, 3, 0));
	assert_true(k != hy_policy_key(1, 2, 4, 0));
	assert_true(k != hy_policy_key(1, 2, 3, 1));
	assert_true(hy_policy_key(1, 2, 3, 0) != hy_policy_key(1, 3, 2, 0));
	/* uniform draws: in [0, 1), mean about 1/2, counters independent */
	double sum = 0;
	int n = 20000, equal = 0;
	for (int i = 0; i < n; i++) {
		double u = hy_policy_uniform(hy_policy_key(9, (uint64_t)i, 0, 0), 0);
		assert_true(u >= 0 && u < 1);
		sum += u;
		equal += u == hy_policy_uniform(hy_policy_key(9, (uint64_t)i, 0, 0), 1);
	}
	assert_true(fabs(sum / n - 0.5) < 0.01);
	assert_int_equal(equal, 0);
	/* popcount balance of the key bits */
	int bits = 0;
	for (int i = 0; i < 1000; i++)
		bits += __builtin_popcountll(hy_policy_key(0, 0, (uint64_t)i, 0));
	assert_true(bits > 1000 * 30 && bits < 1000 * 34);
}

static void test_specs(void **state)
{
	(void)state;
	hy_policy p;
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_policy_open(&p, "nonsense", NULL, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "unknown policy"));
	/* the registry (policies/registry.c): the message lists every row */
	const char *rows[] = {"random, ", "baseline, ", "rulebot[:PARAMS]", "rulebot-waits:ALPHA",
			      "search:GRP.h5", "qlabel:GRP.h5", "mjai:COMMAND", "a checkpoint PATH.h5"};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		assert_non_null(strstr(d.msg, rows[i]));
	/* a name that takes no argument, an argument left empty, one required */
	const char *bad[] = {"random:x", "baseline:", "rulebot:", "search", "mjai:", "rulebotx"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hy_diag_init(&d, NULL);
		assert_int_equal(hy_policy_open(&p, bad[i], NULL, &d), HY_EUSAGE);
	}
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_policy_open(&p, "rulebot:", NULL, &d), HY_EUSAGE);
	assert_non_null(strstr(d.msg, "names nothing after the colon (want rulebot[:PARAMS])"));
	p = open_policy("rulebot");
	hy_policy_close(&p);
	p = open_policy("rulebot:push_wall=10");
	assert_string_equal(p.name, "rulebot:push_wall=10");
	hy_policy_close(&p);
	assert_int_equal(hy_policy_open(&p, "", NULL, &d), HY_EUSAGE);
	assert_int_not_equal(hy_policy_open(&p, "/nonexistent/x.h5", NULL, &d), HY_OK);
	hy_policy_opts o;
	hy_policy_opts_default(&o);
	o.device = "cuda";
	assert_int_equal(hy_policy_open(&p, "/nonexistent/x.h5", &o, &d), HY_EUNSUP);
	p = open_policy("random");
	assert_string_equal(p.name, "random");
	assert_true(p.stochastic && p.concurrent);
	hy_policy_close(&p);
	p = open_policy("baseline");
	assert_false(p.stochastic);
	hy_policy_close(&p);
}

/* ------------------------------------------------------------ random */

static void test_random(void **state)
{
	(void)state;
	hy_policy p = open_policy("random");
	table t;
	deal(&t, "123456789m1234p", "123456789p1234s", "123456789s1234m", "1122334455667z",
	     "9m");
	draw(&t, "5p");
	uint64_t legal = hy_engine_legal_mask(&t.e, 0);
	int n = __builtin_popcountll(legal), seen[HY_A_COUNT] = {0};
	for (uint64_t k = 0; k < 2000; k++) {
		hy_decision r = {.e = &t.e, .track = &t.trk, .key = hy_policy_key(5, 0, k, 0),
				 .seat = 0, .legal = legal};
		hy_choice c, c2;
		assert_int_equal(p.ops->decide(&p, 1, &r, &c, NULL), HY_OK);
		assert_int_equal(p.ops->decide(&p, 1, &r, &c2, NULL), HY_OK);
		assert_int_equal(c.index, c2.index);
		assert_true(legal >> c.index & 1);
		assert_float_equal(c.logp, -logf((float)n), 1e-6);
		seen[c.index]++;
	}
	for (int a = 0; a < HY_A_COUNT; a++)
		if (legal >> a & 1)
			assert_true(seen[a] > 2000 / n / 3);
	hy_game_free(&t.log);
	hy_policy_close(&p);
}

/* ------------------------------------------------------------ baseline */

static void test_baseline_win_riichi(void **state)
{
	(void)state;
	hy_policy p = open_policy("baseline");
	check_win_and_riichi(&p);
	table t;
	/* the only tenpai-keeping discard, after a chi-free deal (no riichi:
	 * the hand is open? no: closed, so riichi first, then the discard) */
	deal(&t, "123456789m11p45s", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "9m");
	draw(&t, "8s");
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), HY_A_RIICHI);
	act(&t, 0, (hy_action){.type = HY_ACT_RIICHI});
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), tile("8s"));
	hy_game_free(&t.log);
	hy_policy_close(&p);
}

/* Visible kinds outside a seat's concealed hand (rivers not called,
 * melds, indicators): what the acceptance count subtracts. */
static void visible(const hy_engine *e, uint8_t vis[34])
{
	memset(vis, 0, 34);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED))
				vis[hy_tile_kind(p->river[i])]++;
		for (int m = 0; m < p->nmelds; m++)
			for (int j = 0; j < p->melds[m].ntiles; j++)
				vis[hy_tile_kind(p->melds[m].tiles[j])]++;
	}
	for (int i = 0; i < e->ndora; i++)
		vis[hy_tile_kind(e->dora_ind[i])]++;
}

static void test_baseline_discard(void **state)
{
	(void)state;
	hy_policy p = open_policy("baseline");
	table t;
	/* three isolated tiles, equal shanten and acceptance: the guest wind
	 * (south, for the east dealer) goes before the terminal and the 5p */
	deal(&t, "123456789m5p34s9s", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "9m");
	draw(&t, "2z");
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), tile("2z"));
	hy_game_free(&t.log);
	/* on self-play states (baseline everywhere, nobody in riichi): every
	 * discard keeps the minimum shanten and the maximum live acceptance */
	hy_table *tb = malloc(sizeof *tb);
	assert_non_null(tb);
	hy_obs_track trk;
	hy_obs_track_reset(&trk);
	int checked = 0, differs = 0;
	for (uint64_t game = 0; game < 6; game++) {
		hy_diag d;
		assert_int_equal(hy_table_start(tb, NULL, 77, game, NULL, &d), HY_OK);
		while (tb->e.phase != HY_PH_GAME_END) {
			const hy_engine *e = &tb->e;
			int s = __builtin_ctz(hy_engine_deciders(e));
			uint64_t legal = hy_engine_legal_mask(e, s);
			int idx = decide1(&p, e, &trk, s, 0);
			int riichi = 0;
			for (int o = 0; o < 4; o++)
				riichi |= e->p[o].riichi != 0;
			if (e->phase == HY_PH_TURN && idx < HY_A_RIICHI && !riichi &&
			    __builtin_popcountll(legal & ((1ull << 37) - 1)) > 1) {
				uint8_t c[34], vis[34];
				memcpy(c, e->p[s].cnt, 34);
				visible(e, vis);
				int8_t sh[34];
				hy_shanten_discards(c, e->p[s].nmelds, sh);
				int best = 99, bu = -1, k = hy_tile_kind(idx);
				for (int j = 0; j < 37; j++)
					if (legal >> j & 1 && sh[hy_tile_kind(j)] < best)
						best = sh[hy_tile_kind(j)];
				assert_int_equal(sh[k], best);
				int mine = -1;
				for (int j = 0; j < 34; j++) {
					int ok = (legal >> j & 1) ||
						 (hy_tile_red_of(j) >= 0 && legal >> hy_tile_red_of(j) & 1);
					if (!ok || sh[j] != best)
						continue;
					c[j]--;
					int u = hy_ukeire(c, e->p[s].nmelds, vis, NULL);
					c[j]++;
					if (u > bu)
						bu = u;
					if (j == k)
						mine = u;
				}
				assert_int_equal(mine, bu);
				differs += idx != __builtin_ctzll(legal);
				checked++;
			}
			assert_int_equal(hy_table_act(tb, s, idx, &d), HY_OK);
		}
	}
	print_message("%d discards checked for maximum acceptance\n", checked);
	assert_true(checked > 500 && differs > 100);
	free(tb);
	hy_policy_close(&p);
}

static void test_baseline_calls(void **state)
{
	(void)state;
	hy_policy p = open_policy("baseline");
	table t;
	/* seat 1 holds a haku pair: pons the haku seat 0 throws */
	deal(&t, "123456789m12p55z", "123456m78p359s55z", "234567s1122334z", "567899s1166777z",
	     "9m");
	draw(&t, "3p");
	discard(&t, 0, "5z");
	assert_int_equal(t.e.phase, HY_PH_CALL);
	assert_true(hy_engine_legal_mask(&t.e, 1) >> HY_A_PON & 1);
	assert_int_equal(decide1(&p, &t.e, &t.trk, 1, 0), HY_A_PON);
	hy_game_free(&t.log);
	/* a chi chance is declined */
	deal(&t, "123456789m1299p", "123456m78p359s67z", "234567s1122334z", "567899s1166777z",
	     "9m");
	draw(&t, "3p");
	discard(&t, 0, "9p");
	assert_int_equal(t.e.phase, HY_PH_CALL);
	assert_true(hy_engine_legal_mask(&t.e, 1) >> HY_A_CHI_HIGH & 1);
	assert_int_equal(decide1(&p, &t.e, &t.trk, 1, 0), HY_A_PASS);
	hy_game_free(&t.log);
	/* kyuushu with nine terminal and honour kinds and a bad hand */
	deal(&t, "19m19p19s1234z258m", "123456789p1234s", "234567s1122334z", "567899s5566777z",
	     "9m");
	draw(&t, "3p");
	assert_true(hy_engine_legal_mask(&t.e, 0) >> HY_A_KYUUSHU & 1);
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), HY_A_KYUUSHU);
	hy_game_free(&t.log);
	hy_policy_close(&p);
}

static void test_baseline_fold(void **state)
{
	(void)state;
	hy_policy p = open_policy("baseline");
	table t;
	riichi_on_9s(&t);
	assert_true(t.e.p[1].riichi != 0);
	/* 2+ shanten against a riichi: the genbutsu 9s */
	assert_int_equal(decide1(&p, &t.e, &t.trk, 0, 0), tile("9s"));
	hy_game_free(&t.log);
	hy_policy_close(&p);
}

/* ------------------------------------------------------------ runner */

typedef struct collect {
	uint32_t crc;            /* over logs and steps */
	uint64_t games, steps, aborted;
	double rank_sum[4];      /* by policy index */
	uint64_t rank_n[4];
	int check_gae;
	int check_encode;
	hy_encoder *enc;
	uint64_t matched, encoded;
	double max_gae_err;
} collect;

static hy_status sink(void *ctx, const hy_play_game *g, hy_diag *d)
{
	(void)d;
	collect *c = ctx;
	c->games++;
	if (g->aborted) {
		c->aborted++;
		assert_int_equal(g->nsteps, 0);
		assert_true(g->game == 2 || g->game == 4);
		assert_non_null(strstr(g->d.msg, g->game == 2 ? "bot died" : "is not legal"));
		assert_int_equal(g->d.game, g->game);
		return HY_OK;
	}
	char buf[65536];
	for (size_t i = 0; i < g->log->n; i++) {
		int n = hy_mjai_format_event(&g->log->ev[i], buf, sizeof buf);
		assert_true(n > 0);
		c->crc = (uint32_t)crc32(c->crc, (const Bytef *)buf, (uInt)n);
	}
	static uint8_t rec[HY_SMS_RECORD_SIZE];
	for (size_t i = 0; i < g->nsteps; i++) {
		hy_sms_encode(&g->steps[i].s, rec);
		c->crc = (uint32_t)crc32(c->crc, rec, sizeof rec);
		c->crc = (uint32_t)crc32(c->crc, &g->steps[i].policy, 1);
	}
	c->steps += g->nsteps;
	/* per-seat statistics against the log */
	uint32_t wins[4] = {0}, deal[4] = {0}, kyoku = 0;
	for (size_t i = 0; i < g->log->n; i++) {
		const hy_event *ev = &g->log->ev[i];
		if (ev->type == HY_EV_HORA) {
			wins[ev->actor]++;
			if (ev->target != ev->actor)
				deal[ev->target]++;
		}
		kyoku += ev->type == HY_EV_END_KYOKU;
	}
	for (int s = 0; s < 4; s++) {
		assert_int_equal(g->stats[s].wins, wins[s]);
		assert_int_equal(g->stats[s].deal_ins, deal[s]);
		assert_int_equal(g->stats[s].kyoku, kyoku);
		assert_true(g->stats[s].calls <= kyoku && g->stats[s].riichi <= kyoku);
	}
	for (int s = 0; s < 4; s++) {
		c->rank_sum[g->seat_policy[s]] += g->rank[s] + 1;
		c->rank_n[g->seat_policy[s]]++;
	}
	if (c->check_gae) {
		/* direct sums: A_t = Σ_l (γλ)^l δ_{t+l} over the seat's own steps */
		const double gamma = 1.0, lambda = 0.95;
		for (int s = 0; s < 4; s++) {
			size_t idx[4096];
			size_t n = 0;
			for (size_t i = 0; i < g->nsteps && n < 4096; i++)
				if (g->steps[i].s.seat == s)
					idx[n++] = i;
			assert_true(n > 0);
			for (size_t a = 0; a < n; a++) {
				const hy_sample *x = &g->steps[idx[a]].s;
				double r = a + 1 == n ? hy_play_placement_points(g->rank[s]) / 100.0 : 0;
				assert_float_equal(x->reward, r, 1e-6);
				double adv = 0, f = 1;
				for (size_t b = a; b < n; b++) {
					const hy_sample *y = &g->steps[idx[b]].s;
					double rb = b + 1 == n ? hy_play_placement_points(g->rank[s]) / 100.0
							      : 0;
					double vn = b + 1 < n ? g->steps[idx[b + 1]].s.value : 0;
					adv += f * (rb + gamma * vn - y->value);
					f *= gamma * lambda;
				}
				double err = fabs(adv - x->adv);
				if (err > c->max_gae_err)
					c->max_gae_err = err;
				assert_true(err < 1e-3);
				assert_true(fabs(x->ret - (x->adv + x->value)) < 1e-5);
				assert_int_equal(x->rank, g->rank[s]);
			}
		}
	}
	if (c->check_encode) {
		const hy_sample *es;
		size_t en;
		hy_diag ed;
		hy_status st = hy_encode_game(c->enc, g->log, &es, &en, &ed);
		if (st != HY_OK)
			print_error("encode: %s\n", ed.msg);
		assert_int_equal(st, HY_OK);
		/* the encoder's samples are a subsequence of the recorded steps */
		size_t j = 0;
		for (size_t i = 0; i < en; i++) {
			const hy_sample *a = &es[i];
			for (; j < g->nsteps; j++) {
				const hy_sample *b = &g->steps[j].s;
				if (b->seat == a->seat && b->grand_kyoku == a->grand_kyoku &&
				    b->honba == a->honba && b->action == a->action && b->mask == a->mask &&
				    memcmp(b->obs, a->obs, sizeof a->obs) == 0)
					break;
			}
			if (j == g->nsteps)
				print_error("game %" PRIu64 ": encoder sample %zu (seat %u, kyoku %u, "
					    "action %u) has no self-play step\n",
					    g->game, i, a->seat, a->grand_kyoku, a->action);
			assert_true(j < g->nsteps);
			const hy_sample *b = &g->steps[j].s;
			assert_int_equal(b->kyoku_delta, a->kyoku_delta);
			assert_int_equal(b->score, a->score);
			assert_int_equal(b->rank, a->rank);
			assert_int_equal(b->grp, a->grp);
			assert_int_equal(b->opp_tenpai, a->opp_tenpai);
			assert_memory_equal(b->opp_waits, a->opp_waits, sizeof a->opp_waits);
			assert_int_equal(b->flags, a->flags);
			j++;
			c->matched++;
		}
		c->encoded += en;
	}
	return HY_OK;
}

static int seat_rotate(void *ctx, uint64_t game, int seat)
{
	(void)ctx;
	return seat == (int)(game % 4) ? 0 : 1;
}

static collect run(hy_policy **pol, int npol, uint64_t seed, uint64_t count, int tables,
		   int threads, int record, int check_gae, int check_encode)
{
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.seed = seed;
	o.count = count;
	o.tables = tables;
	o.threads = threads;
	o.record_steps = record;
	o.seat_policy = npol > 1 ? seat_rotate : NULL;
	collect c;
	memset(&c, 0, sizeof c);
	c.check_gae = check_gae;
	c.check_encode = check_encode;
	if (check_encode)
		assert_int_equal(hy_encoder_new(&c.enc, NULL), HY_OK);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_play_run(&o, pol, npol, sink, &c, &d);
	if (st != HY_OK)
		print_error("run: %s\n", d.msg);
	assert_int_equal(st, HY_OK);
	assert_int_equal(c.games, count);
	hy_encoder_free(c.enc);
	return c;
}

static void test_runner_determinism(void **state)
{
	(void)state;
	hy_policy b = open_policy("baseline"), r = open_policy("random");
	hy_policy *pol[2] = {&b, &r};
	collect a = run(pol, 2, 11, 12, 1, 1, 1, 0, 0);
	collect x = run(pol, 2, 11, 12, 5, 2, 1, 0, 0);
	collect y = run(pol, 2, 11, 12, 12, 3, 1, 0, 0);
	assert_true(a.steps > 0);
	assert_int_equal(a.crc, x.crc);
	assert_int_equal(a.crc, y.crc);
	collect z = run(pol, 2, 12, 12, 5, 2, 1, 0, 0);
	assert_int_not_equal(a.crc, z.crc);
	/* without recording the logs are the same games */
	collect n1 = run(pol, 2, 11, 12, 3, 1, 0, 0, 0);
	assert_int_equal(n1.steps, 0);
	hy_policy_close(&b);
	hy_policy_close(&r);
}

static void test_runner_encode_and_strength(void **state)
{
	(void)state;
	hy_policy b = open_policy("baseline"), r = open_policy("random");
	hy_policy *pol[2] = {&b, &r};
	/* self-play observations and labels equal the re-encoded log's */
	collect c = run(pol, 2, 3, 8, 4, 2, 1, 1, 1);
	print_message("encoder samples %" PRIu64 " matched of %" PRIu64 " self-play steps\n",
		      c.matched, c.steps);
	assert_true(c.matched > 1000);
	assert_int_equal(c.matched, c.encoded);
	/* baseline (one seat, rotating) against three random players */
	collect s = run(pol, 2, 21, 40, 8, 2, 0, 0, 0);
	double rb = s.rank_sum[0] / (double)s.rank_n[0];
	double rr = s.rank_sum[1] / (double)s.rank_n[1];
	print_message("40 games: baseline average rank %.3f, random %.3f\n", rb, rr);
	assert_true(rb <= 1.6);
	hy_policy_close(&b);
	hy_policy_close(&r);
}

static void test_model_policy(void **state)
{
	(void)state;
	char path[512];
	tiny_ckpt(path, sizeof path, "test_play", 4); /* values not zero: GAE is not trivial */
	hy_policy m, g, b = open_policy("baseline");
	hy_diag d;
	hy_diag_init(&d, path);
	hy_policy_opts o;
	hy_policy_opts_default(&o);
	o.temperature = 1.0f;
	assert_int_equal(hy_policy_open(&m, path, &o, &d), HY_OK);
	assert_true(m.stochastic && m.has_value && !m.concurrent);
	o.temperature = 0.0f;
	assert_int_equal(hy_policy_open(&g, path, &o, &d), HY_OK);
	assert_false(g.stochastic);
	/* sampling vs greedy on one state: greedy is the argmax, its logp the
	 * largest; sampled logps are log-probabilities (≤ 0) */
	table t;
	deal(&t, "123456789m1234p", "123456789p1234s", "123456789s1234m", "1122334455667z",
	     "9m");
	draw(&t, "5p");
	hy_decision r[3];
	hy_choice c[3];
	for (int i = 0; i < 3; i++)
		r[i] = (hy_decision){.e = &t.e, .track = &t.trk, .key = (uint64_t)i, .seat = 0,
				     .legal = hy_engine_legal_mask(&t.e, 0)};
	assert_int_equal(g.ops->decide(&g, 3, r, c, &d), HY_OK);
	assert_int_equal(c[0].index, c[1].index);
	assert_true(c[0].logp <= 0 && c[0].logp > -log(46.0) - 1e-3 - 10);
	assert_true(isfinite(c[0].value));
	float glogp = c[0].logp;
	assert_int_equal(m.ops->decide(&m, 3, r, c, &d), HY_OK);
	for (int i = 0; i < 3; i++) {
		assert_true(r[i].legal >> c[i].index & 1);
		assert_true(c[i].logp <= glogp + 1e-5);
	}
	hy_game_free(&t.log);
	/* runs: the model at seat g%4, baseline elsewhere; GAE with real values;
	 * the same games whatever the runner's thread count (the forward pass
	 * itself on one thread: its rounding depends on its row split and on a
	 * request's place in the batch, so on the table count too) */
	hy_policy *pol[2] = {&m, &b};
	collect x = run(pol, 2, 5, 4, 3, 1, 1, 1, 0);
	collect y = run(pol, 2, 5, 4, 3, 3, 1, 1, 0);
	print_message("model runs: %" PRIu64 " steps, GAE max error %.2g\n", x.steps,
		      x.max_gae_err);
	assert_int_equal(x.crc, y.crc);
	hy_policy_close(&m);
	hy_policy_close(&g);
	hy_policy_close(&b);
	unlink(path);
}

/* Non-finite models (issue 46): a checkpoint holding a NaN is refused at
 * open, naming the file and the dataset; one with finite parameters whose
 * output overflows is an error at the decision naming the model, never the
 * first legal action. */
/* The device goes down resolved (nn/cuda/cuda.h hy_nn_device): a model
 * given one opens there and neither parses nor probes its name again — an
 * unusable name resolved to the CPU by the program opens on the CPU, and
 * the same name unresolved is refused by the model. */
static void test_model_device_resolved(void **state)
{
	(void)state;
	char path[512];
	tiny_ckpt(path, sizeof path, "test_play_dev", 5);
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_policy p;
	hy_policy_opts o;
	hy_policy_opts_default(&o);
	o.device = "cuda:1023"; /* no machine has it */
	assert_int_equal(hy_policy_open(&p, path, &o, &d), HY_EUNSUP);
	hy_nn_device cpu = {0, 0};
	o.dev = &cpu;
	assert_int_equal(hy_policy_open(&p, path, &o, &d), HY_OK);
	hy_policy_close(&p);
	o.device = "no such device"; /* not parsed either */
	assert_int_equal(hy_policy_open(&p, path, &o, &d), HY_OK);
	hy_policy_close(&p);
	unlink(path);
}

static void test_model_nonfinite(void **state)
{
	(void)state;
	char path[512];
	hy_policy p;
	hy_diag d;
	tiny_ckpt_set(path, sizeof path, "test_play_nan", 4, "policy/fc/bias", 0, NAN);
	hy_diag_init(&d, path);
	assert_int_equal(hy_policy_open(&p, path, NULL, &d), HY_EFORMAT);
	print_message("%s\n", d.msg);
	assert_non_null(strstr(d.msg, path));
	assert_non_null(strstr(d.msg, "/params/policy/fc/bias holds a non-finite value"));
	unlink(path);
	tiny_ckpt_set(path, sizeof path, "test_play_big", 4, "policy/fc/weight", 0, 3e38f);
	hy_diag_init(&d, path);
	assert_int_equal(hy_policy_open(&p, path, NULL, &d), HY_OK);
	table t;
	deal(&t, "123456789m1234p", "123456789p1234s", "123456789s1234m", "1122334455667z",
	     "9m");
	draw(&t, "5p");
	float probs[HY_ACTIONS];
	hy_decision r = {.e = &t.e, .track = &t.trk, .seat = 0, .probs = probs,
			 .legal = hy_engine_legal_mask(&t.e, 0)};
	hy_choice c = {.index = -1};
	assert_int_equal(p.ops->decide(&p, 1, &r, &c, &d), HY_EDATA);
	print_message("%s\n", d.msg);
	assert_non_null(strstr(d.msg, path));
	assert_non_null(strstr(d.msg, "non-finite output"));
	hy_game_free(&t.log);
	hy_policy_close(&p);
	unlink(path);
}

/* A policy that fails on game 2 (no answer) and answers an illegal action
 * on game 4; baseline elsewhere. */
static hy_status flaky_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			      hy_diag *d)
{
	hy_policy *base = p->impl;
	hy_status st = base->ops->decide(base, n, req, out, d);
	if (st != HY_OK)
		return st;
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		if (req[i].game == 2) {
			out[i].index = -1;
			failed = 1;
		} else if (req[i].game == 4) {
			out[i].index = __builtin_ctzll(~req[i].legal);
		}
	}
	if (failed) {
		d->game = 2;
		return hy_diag_set(d, HY_EDATA, 7, "bot died");
	}
	return HY_OK;
}

static void test_runner_aborts(void **state)
{
	(void)state;
	hy_policy b = open_policy("baseline");
	static const hy_policy_ops flaky_ops = {flaky_decide, NULL, NULL, NULL};
	hy_policy f = {.ops = &flaky_ops, .impl = &b, .name = "flaky"};
	hy_policy *pol[2] = {&f, &b};
	hy_play_opts o;
	hy_play_opts_default(&o);
	o.seed = 1;
	o.count = 6;
	o.tables = 3;
	o.record_steps = 1;
	o.seat_policy = seat_rotate;
	collect c;
	memset(&c, 0, sizeof c);
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_play_run(&o, pol, 2, sink, &c, &d), HY_OK);
	assert_int_equal(c.games, 6);
	assert_int_equal(c.aborted, 2);
	hy_policy_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_specs),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_baseline_win_riichi),
		cmocka_unit_test(test_baseline_discard),
		cmocka_unit_test(test_baseline_calls),
		cmocka_unit_test(test_baseline_fold),
		cmocka_unit_test(test_runner_determinism),
		cmocka_unit_test(test_runner_encode_and_strength),
		cmocka_unit_test(test_runner_aborts),
		cmocka_unit_test(test_model_policy),
		cmocka_unit_test(test_model_nonfinite),
		cmocka_unit_test(test_model_device_resolved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
