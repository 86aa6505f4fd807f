/* Helpers of the deal and search tests (test_deal.c, test_search.c):
 * what a seat sees, a deal's tile count, and rulebot self-play to a
 * chosen turn with the tracker fed. Include after fixture_play.h and
 * fixture_table.h. */
#ifndef HY_TESTS_FIXTURE_DEAL_H
#define HY_TESTS_FIXTURE_DEAL_H

#include "play/policies/deal.h"

/* Copies per tile code of everything the seat sees: own hand, rivers not
 * called away, melds, revealed indicators. */
static inline void seen(const hy_engine *e, int seat, int c[HY_TILE_UNKNOWN])
{
	memset(c, 0, sizeof(int) * HY_TILE_UNKNOWN);
	const hy_player *me = &e->p[seat];
	for (int k = 0; k < 34; k++) {
		int r = hy_tile_red_of(k), nr = r >= 0 ? me->red[r - HY_TILE_5MR] : 0;
		c[k] += me->cnt[k] - nr;
		if (r >= 0)
			c[r] += nr;
	}
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int i = 0; i < p->nriver; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED))
				c[p->river[i]]++;
		for (int m = 0; m < p->nmelds; m++)
			for (int j = 0; j < p->melds[m].ntiles; j++)
				c[p->melds[m].tiles[j]]++;
	}
	for (int i = 0; i < e->ndora; i++)
		c[e->dora_ind[i]]++;
}

static inline void add_hand(const hy_player *p, int c[HY_TILE_UNKNOWN])
{
	for (int k = 0; k < 34; k++) {
		int r = hy_tile_red_of(k), nr = r >= 0 ? p->red[r - HY_TILE_5MR] : 0;
		c[k] += p->cnt[k] - nr;
		if (r >= 0)
			c[r] += nr;
	}
}

/* The deal holds the full set: 4 of each kind, one red five per suit. */
static inline void check_deal(const hy_engine *e, int seat, const hy_deal *x)
{
	int c[HY_TILE_UNKNOWN];
	seen(e, seat, c);
	for (int s = 0; s < 4; s++) {
		assert_int_equal(x->e.p[s].nconc, e->p[s].nconc);
		if (s == seat)
			assert_memory_equal(x->e.p[s].cnt, e->p[s].cnt, 34);
		else
			add_hand(&x->e.p[s], c);
		/* the public table is the same */
		assert_int_equal(x->e.p[s].nriver, e->p[s].nriver);
		assert_memory_equal(x->e.p[s].river, e->p[s].river, e->p[s].nriver);
		assert_int_equal(x->e.p[s].riichi, e->p[s].riichi);
	}
	assert_int_equal(x->nlive, e->live_left);
	for (int i = 0; i < x->nlive; i++)
		c[x->live[i]]++;
	for (int i = 0; i < x->nrinshan; i++)
		c[x->rinshan[i]]++;
	for (int i = e->ndora; i < 5; i++)
		c[x->e.dora_ind[i]]++;
	for (int i = 0; i < 5; i++)
		c[x->e.ura[i]]++;
	assert_memory_equal(x->e.dora_ind, e->dora_ind, e->ndora);
	assert_memory_equal(x->e.scores, e->scores, sizeof e->scores);
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		int want = t >= HY_TILE_5MR ? 1 : hy_tile_red_of(t) >= 0 ? 3 : 4;
		if (c[t] != want)
			print_error("tile code %d: %d copies in the deal, want %d\n", t, c[t], want);
		assert_int_equal(c[t], want);
	}
}

/* Self-play with rulebot at every seat from seed until the n-th turn of
 * a seat (TURN phase); the tracker fed from the log. */
typedef struct game {
	hy_table t;
	hy_game log;
	hy_obs_track trk;
	size_t fed;
} game;

static inline void game_feed(game *g)
{
	for (; g->fed < g->log.n; g->fed++) {
		const hy_event *ev = &g->log.ev[g->fed];
		if (ev->type == HY_EV_START_KYOKU)
			hy_obs_track_reset(&g->trk);
		else
			hy_obs_track_event(&g->trk, &g->t.e, ev);
	}
}

/* Plays to the n-th TURN decision; returns its seat, −1 at game end. */
static inline int play_to(game *g, hy_policy *rb, uint64_t seed, int n)
{
	memset(g, 0, sizeof *g);
	hy_game_init(&g->log);
	hy_diag d;
	hy_diag_init(&d, NULL);
	assert_int_equal(hy_table_start(&g->t, NULL, seed, 0, &g->log, &d), HY_OK);
	game_feed(g);
	int turns = 0;
	while (g->t.e.phase != HY_PH_GAME_END) {
		unsigned who = hy_engine_deciders(&g->t.e);
		int s = __builtin_ctz(who);
		if (g->t.e.phase == HY_PH_TURN && turns++ == n)
			return s;
		int c = decide1(rb, &g->t.e, &g->trk, s, 0);
		assert_int_equal(hy_table_act(&g->t, s, c, &d), HY_OK);
		game_feed(g);
	}
	return -1;
}

#endif
