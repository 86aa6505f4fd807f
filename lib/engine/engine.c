/* The four-player Tenhou game engine: rules defaults, the players' tiles,
 * the event log, setting up a kyoku (hands, indicators, draws) and
 * inspection. Legal actions are in legal.c, state transitions in apply.c,
 * what the three share in internal.h. See engine.h for the state machine
 * and ARCHITECTURE.md §3 for the rules. */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#include "core/tile.h"
#include "engine/internal.h"

void hy_rules_default(hy_rules *r)
{
	r->length = 2;
	r->start_score = 25000;
	r->target = 30000;
}

/* ------------------------------------------------------------ player tiles */

void hy_player_add(hy_player *p, int t)
{
	int k = hy_tile_code_kind(t);
	p->cnt[k]++;
	p->have |= 1ull << k;
	if (hy_tile_is_red(t))
		p->red[t - HY_TILE_5MR]++;
	p->nconc++;
}

void hy_player_remove(hy_player *p, int t)
{
	int k = hy_tile_code_kind(t);
	if (--p->cnt[k] == 0)
		p->have &= ~(1ull << k);
	if (hy_tile_is_red(t))
		p->red[t - HY_TILE_5MR]--;
	p->nconc--;
}

int hy_engine_is_tenpai(const hy_player *p)
{
	/* Tenhou: a wait on a kind the hand holds all four of does not count. */
	uint64_t w = p->waits;
	for (int k = 0; k < 34 && w; k++) {
		if (!(w >> k & 1))
			continue;
		int have = p->cnt[k];
		for (int i = 0; i < p->nmelds; i++)
			for (int j = 0; j < p->melds[i].ntiles; j++)
				have += hy_tile_code_kind(p->melds[i].tiles[j]) == k;
		if (have >= 4)
			w &= ~(1ull << k);
	}
	return w != 0;
}

/* ------------------------------------------------------------ event log */

void hy_engine_emit_simple(hy_engine *e, int type, int actor, int target, int pai)
{
	if (!e->log)
		return;
	hy_event ev;
	hy_event_blank(&ev, (hy_ev_type)type);
	ev.actor = (uint8_t)actor;
	ev.target = (uint8_t)target;
	ev.pai = (uint8_t)pai;
	hy_engine_emit(e, &ev);
}

/* ------------------------------------------------------------ setup */

void hy_engine_init(hy_engine *e, const hy_rules *r, hy_game *log)
{
	memset(e, 0, sizeof *e);
	if (r)
		e->rules = *r;
	else
		hy_rules_default(&e->rules);
	for (int s = 0; s < 4; s++)
		e->scores[s] = e->rules.start_score;
	e->phase = HY_PH_NEW_KYOKU;
	e->log = log;
	e->riichi_seat = 255;
	if (log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_START_GAME);
		hy_engine_emit(e, &ev);
	}
}

void hy_engine_set_round(hy_engine *e, int bakaze, int kyoku, int honba, int kyotaku, int oya,
			 const int32_t scores[4])
{
	e->bakaze = (uint8_t)bakaze;
	e->kyoku = (uint8_t)kyoku;
	e->honba = (uint8_t)honba;
	e->kyotaku = (uint8_t)kyotaku;
	e->oya = (uint8_t)oya;
	if (scores)
		memcpy(e->scores, scores, sizeof e->scores);
}

hy_status hy_engine_start_kyoku(hy_engine *e, const uint8_t hands[4][13], int dora_indicator,
				hy_diag *d)
{
	if (e->phase != HY_PH_NEW_KYOKU)
		return hy_diag_set(d, HY_EUSAGE, 0, "start_kyoku: previous kyoku not finished");
	memset(e->p, 0, sizeof e->p);
	memset(&e->res, 0, sizeof e->res);
	uint8_t seen[HY_TILE_CODES] = {0};
	for (int s = 0; s < 4; s++) {
		hy_player *p = &e->p[s];
		p->drawn = HY_TILE_NONE;
		p->nagashi_ok = 1;
		p->pao_seat = HY_NO_SEAT;
		for (int i = 0; i < 13; i++) {
			int t = hands[s][i];
			if (t >= HY_TILE_UNKNOWN)
				return hy_diag_set(d, HY_EDATA, 0, "start_kyoku: seat %d: bad tile", s);
			hy_player_add(p, t);
			seen[t]++;
		}
		update_waits(p);
	}
	if (dora_indicator < 0 || dora_indicator >= HY_TILE_UNKNOWN)
		return hy_diag_set(d, HY_EDATA, 0, "start_kyoku: bad dora indicator");
	seen[dora_indicator]++;
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		int lim = hy_tile_is_red(t) ? 1 : (hy_tile_red_of(t) >= 0 ? 3 : 4);
		if (seen[t] > lim)
			return hy_diag_set(d, HY_EDATA, 0, "start_kyoku: %d copies of %s", seen[t],
					   hy_tile_to_mjai(t));
	}
	e->dora_ind[0] = (uint8_t)dora_indicator;
	e->nind_known = 1;
	e->ndora = 1;
	e->nura = 0;
	e->pending_dora = 0;
	e->live_left = 70;
	e->nkans = 0;
	e->kan_seats = 0;
	e->rinshan = 0;
	e->draw_rinshan = 0;
	e->first_go = 1;
	e->ndiscards = 0;
	e->suufon_kind = 255;
	e->after_call = 0;
	e->riichi_seat = 255;
	e->abort_kan = 0;
	e->call_pending = 0;
	e->actor = e->oya;
	e->phase = HY_PH_DRAW;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_START_KYOKU);
		ev.flags = HY_EVF_BAKAZE | HY_EVF_KYOKU | HY_EVF_HONBA | HY_EVF_KYOTAKU |
			   HY_EVF_SCORES | HY_EVF_TEHAIS;
		ev.bakaze = (uint8_t)(27 + e->bakaze);
		ev.kyoku = (uint8_t)(e->kyoku + 1);
		ev.honba = e->honba;
		ev.kyotaku = e->kyotaku;
		ev.oya = e->oya;
		ev.dora_marker = (uint8_t)dora_indicator;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		memcpy(ev.tehais, hands, sizeof ev.tehais);
		hy_engine_emit(e, &ev);
	}
	return HY_OK;
}

hy_status hy_engine_feed_indicator(hy_engine *e, int tile, hy_diag *d)
{
	if (e->nind_known >= 5)
		return hy_diag_set(d, HY_EDATA, 0, "dora: more than 5 indicators");
	if (tile < 0 || tile >= HY_TILE_UNKNOWN)
		return hy_diag_set(d, HY_EDATA, 0, "dora: bad indicator");
	e->dora_ind[e->nind_known++] = (uint8_t)tile;
	return HY_OK;
}

int hy_engine_indicators_wanted(const hy_engine *e)
{
	int want = 1 + e->nkans;
	if (want > 5)
		want = 5;
	return want > e->nind_known ? want - e->nind_known : 0;
}

void hy_engine_set_ura(hy_engine *e, const uint8_t *ura, int n)
{
	if (n > 5)
		n = 5;
	memcpy(e->ura, ura, (size_t)n);
	e->nura = (uint8_t)n;
}

hy_status hy_engine_draw(hy_engine *e, int tile, hy_diag *d)
{
	if (e->phase != HY_PH_DRAW)
		return hy_diag_set(d, HY_EUSAGE, 0, "draw: not a draw state");
	if (e->live_left == 0)
		return hy_diag_set(d, HY_EDATA, 0, "draw: the wall is empty");
	if (tile < 0 || tile >= HY_TILE_UNKNOWN)
		return hy_diag_set(d, HY_EDATA, 0, "draw: bad tile");
	hy_player *p = &e->p[e->actor];
	if (p->nconc != 13 - 3 * p->nmelds)
		return hy_diag_set(d, HY_EDATA, 0, "draw: seat %d holds %d tiles", e->actor,
				   p->nconc);
	hy_player_add(p, tile);
	p->drawn = (uint8_t)tile;
	e->live_left--;
	e->rinshan = e->draw_rinshan;
	e->draw_rinshan = 0;
	e->after_call = 0;
	e->phase = HY_PH_TURN;
	hy_engine_emit_simple(e, HY_EV_TSUMO, e->actor, HY_NO_SEAT, tile);
	return HY_OK;
}

/* ------------------------------------------------------------ inspection */

void hy_engine_count_tiles(const hy_engine *e, uint8_t cnt[HY_TILE_CODES])
{
	memset(cnt, 0, HY_TILE_CODES);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int k = 0; k < 34; k++)
			cnt[k] += (uint8_t)plain_count(p, k);
		for (int i = 0; i < 3; i++)
			cnt[HY_TILE_5MR + i] += p->red[i];
		for (int i = 0; i < p->nmelds; i++)
			for (int j = 0; j < p->melds[i].ntiles; j++) {
				/* the called tile is counted in the discarder's river */
				if (j == 0 && p->melds[i].type != HY_MELD_ANKAN)
					continue;
				cnt[p->melds[i].tiles[j]]++;
			}
		for (int i = 0; i < p->nriver; i++)
			cnt[p->river[i]]++;
	}
}

int hy_engine_describe(const hy_engine *e, char *buf, int size)
{
	static const char *ph[] = {"new_kyoku", "draw", "turn", "riichi", "call", "chankan",
				   "kyoku_end", "game_end"};
	char hand[64];
	int s = e->actor < 4 ? e->actor : 0;
	const hy_player *p = &e->p[s];
	uint8_t t[14];
	int n = 0;
	for (int k = 0; k < 34 && n < 14; k++) {
		int pl = plain_count(p, k);
		if (hy_tile_red_of(k) >= 0 && p->red[k / 9] && n < 14)
			t[n++] = 0 + (uint8_t)hy_tile_red_of(k);
		for (int i = 0; i < pl && n < 14; i++)
			t[n++] = (uint8_t)k;
	}
	hy_mpsz_format(t, n, hand, sizeof hand);
	return snprintf(buf, (size_t)size, "%c%d-%d %s actor %d hand %s melds %d live %d",
			"ESWN"[e->bakaze & 3], e->kyoku + 1, e->honba,
			e->phase < 8 ? ph[e->phase] : "?", e->actor, hand, p->nmelds, e->live_left);
}
