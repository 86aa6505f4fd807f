/* Self-play driver: feeds the engine from the §9 walls. */
#include "engine/table.h"

#include <string.h>

#include "core/tile.h"

static hy_status deal(hy_table *t, hy_diag *d)
{
	hy_engine *e = &t->e;
	uint8_t key[32], phys[HY_WALL_SIZE];
	hy_status st = hy_wall_kyoku_key(t->game_key, e->bakaze * 4 + e->kyoku, e->honba, key, d);
	if (st == HY_OK)
		st = hy_wall_shuffle(key, phys, d);
	if (st != HY_OK)
		return st;
	for (int i = 0; i < HY_WALL_SIZE; i++)
		t->wall[i] = (uint8_t)hy_tile_from_136(phys[i]);
	uint8_t hands[4][13];
	for (int i = 0; i < 4; i++)
		memcpy(hands[(e->oya + i) % 4], t->wall + HY_WALL_DEAL + 13 * i, 13);
	st = hy_engine_start_kyoku(e, (const uint8_t(*)[13])hands, t->wall[HY_WALL_DORA], d);
	if (st != HY_OK)
		return st;
	for (int i = 1; i < 5; i++)
		hy_engine_feed_indicator(e, t->wall[HY_WALL_DORA + i], NULL);
	hy_engine_set_ura(e, t->wall + HY_WALL_URA, 5);
	t->live_next = HY_WALL_LIVE;
	t->rinshan_next = HY_WALL_RINSHAN;
	t->nkyoku++;
	return HY_OK;
}

/* Runs every transition that needs no decision. */
static hy_status advance(hy_table *t, hy_diag *d)
{
	hy_engine *e = &t->e;
	for (;;) {
		hy_status st;
		switch (e->phase) {
		case HY_PH_DRAW:
			if (e->draw_rinshan) {
				st = hy_engine_draw(e, t->wall[t->rinshan_next++], d);
			} else {
				st = hy_engine_draw(e, t->wall[t->live_next++], d);
			}
			if (st != HY_OK)
				return st;
			break;
		case HY_PH_KYOKU_END:
			hy_engine_next_kyoku(e);
			break;
		case HY_PH_NEW_KYOKU:
			st = deal(t, d);
			if (st != HY_OK)
				return st;
			break;
		default:
			return e->log_status;
		}
	}
}

hy_status hy_table_start(hy_table *t, const hy_rules *r, uint64_t seed, uint64_t game,
			 hy_game *log, hy_diag *d)
{
	memset(t, 0, sizeof *t);
	t->seed = seed;
	t->game = game;
	hy_status st = hy_wall_game_key(seed, game, t->game_key, d);
	if (st != HY_OK)
		return st;
	hy_engine_init(&t->e, r, log);
	return advance(t, d);
}

hy_status hy_table_act_concrete(hy_table *t, int seat, const hy_action *a, hy_diag *d)
{
	hy_status st = hy_engine_act(&t->e, seat, a, d);
	if (st != HY_OK)
		return st;
	t->nsteps++;
	return advance(t, d);
}

hy_status hy_table_act(hy_table *t, int seat, int index, hy_diag *d)
{
	hy_action a;
	if (hy_engine_action_of(&t->e, seat, index, &a) != HY_OK)
		return hy_diag_set(d, HY_EUSAGE, 0, "seat %d: action index %d is not legal", seat,
				   index);
	hy_status st = hy_engine_apply(&t->e, seat, &a, d);
	if (st != HY_OK)
		return st;
	t->nsteps++;
	return advance(t, d);
}

void hy_table_count_hidden(const hy_table *t, uint8_t cnt[HY_TILE_CODES])
{
	const hy_engine *e = &t->e;
	memset(cnt, 0, HY_TILE_CODES);
	for (int i = t->live_next; i < HY_WALL_SIZE; i++)
		cnt[t->wall[i]]++;
	for (int i = t->rinshan_next; i < HY_WALL_DORA; i++)
		cnt[t->wall[i]]++;
	/* indicators and ura stay in the dead wall */
	for (int i = HY_WALL_DORA; i < HY_WALL_DEAL; i++)
		cnt[t->wall[i]]++;
	(void)e;
}

void hy_engine_observe(const hy_engine *e, int seat, hy_view *v)
{
	memset(v, 0, sizeof *v);
	v->seat = (uint8_t)seat;
	v->phase = e->phase;
	v->bakaze = e->bakaze;
	v->kyoku = e->kyoku;
	v->honba = e->honba;
	v->kyotaku = e->kyotaku;
	v->oya = e->oya;
	v->live_left = e->live_left;
	memcpy(v->scores, e->scores, sizeof v->scores);
	v->ndora = e->ndora;
	memcpy(v->dora_ind, e->dora_ind, e->ndora);
	const hy_player *me = &e->p[seat];
	memcpy(v->cnt, me->cnt, 34);
	memcpy(v->red, me->red, 3);
	v->drawn = me->drawn;
	v->actor = e->actor;
	v->last_tile = (e->phase == HY_PH_CALL || e->phase == HY_PH_CHANKAN) ? e->last_tile
									     : HY_TILE_NONE;
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		v->nconc[s] = p->nconc;
		v->riichi[s] = p->riichi;
		v->nmelds[s] = p->nmelds;
		memcpy(v->melds[s], p->melds, sizeof v->melds[s]);
		v->nriver[s] = p->nriver;
		memcpy(v->river[s], p->river, sizeof v->river[s]);
		memcpy(v->river_flags[s], p->river_flags, sizeof v->river_flags[s]);
	}
	v->legal = hy_engine_legal_mask(e, seat);
}
