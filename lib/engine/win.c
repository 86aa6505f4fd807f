/* The one place where the engine calls the hand scorer (hand/score.h):
 * builds an hy_hand_query from the engine state and converts the result
 * (seat winds → absolute seats). */
#include "engine/win.h"

#include <string.h>

#include "hand/score.h"

int hy_engine_win_eval(const hy_engine *e, int seat, int from, int tile, int chankan,
		       int bump, hy_win *w)
{
	const hy_player *p = &e->p[seat];
	hy_hand_query q;
	hy_hand_query_init(&q);
	int n = 0;
	for (int k = 0; k < 34; k++) {
		int plain = p->cnt[k];
		int r = hy_tile_red_of(k);
		if (r >= 0 && p->red[k / 9]) {
			q.tiles[n++] = (uint8_t)r;
			plain--;
		}
		for (int i = 0; i < plain; i++)
			q.tiles[n++] = (uint8_t)k;
	}
	int tsumo = from == seat;
	if (!tsumo) {
		if (n >= 14)
			return 0;
		q.tiles[n++] = (uint8_t)tile;
	}
	q.ntiles = (uint8_t)n;
	q.nmelds = p->nmelds;
	memcpy(q.melds, p->melds, sizeof q.melds);
	q.win_tile = (uint8_t)tile;
	q.tsumo = (uint8_t)tsumo;
	int wind0 = e->oya;
	q.seat_wind = (uint8_t)((seat - wind0 + 4) % 4);
	q.ron_from = tsumo ? HY_SEAT_NONE : (uint8_t)((from - wind0 + 4) % 4);
	q.round_wind = e->bakaze;
	q.pao_seat = p->pao_seat == HY_NO_SEAT ? HY_SEAT_NONE
					       : (uint8_t)((p->pao_seat - wind0 + 4) % 4);
	q.ndora = e->ndora < e->nind_known ? e->ndora : e->nind_known;
	memcpy(q.dora, e->dora_ind, 5);
	if (p->riichi == 2) {
		q.nura = e->nura < q.ndora ? e->nura : q.ndora;
		memcpy(q.ura, e->ura, 5);
	}
	uint32_t f = 0;
	if (p->riichi == 2)
		f |= HY_WIN_RIICHI;
	if (p->riichi == 2 && p->double_riichi)
		f |= HY_WIN_DOUBLE_RIICHI;
	if (p->riichi == 2 && p->ippatsu)
		f |= HY_WIN_IPPATSU;
	if (tsumo) {
		if (e->rinshan)
			f |= HY_WIN_RINSHAN;
		else if (e->live_left == 0)
			f |= HY_WIN_HAITEI;
		if (e->first_go && p->nriver == 0)
			f |= seat == e->oya ? HY_WIN_TENHOU : HY_WIN_CHIIHOU;
	} else {
		if (chankan)
			f |= HY_WIN_CHANKAN;
		else if (e->live_left == 0)
			f |= HY_WIN_HOUTEI;
	}
	q.flags = f;
	q.honba = bump ? e->honba : 0;
	q.sticks = bump ? e->kyotaku : 0;
	hy_hand_result r;
	if (hy_score_hand(&q, &r, NULL) != HY_OK || r.outcome != HY_HAND_WIN)
		return 0;
	if (!w)
		return 1;
	memset(w, 0, sizeof *w);
	w->seat = (uint8_t)seat;
	w->from = (uint8_t)from;
	w->tile = (uint8_t)tile;
	w->pao = p->pao_seat;
	w->han = r.han;
	w->fu = r.fu;
	w->yakuman = r.yakuman;
	w->nyaku = r.nyaku;
	for (int i = 0; i < r.nyaku && i < 24; i++) {
		w->yaku[i] = r.yaku[i].id;
		w->yaku_han[i] = r.yaku[i].han;
	}
	for (int s = 0; s < 4; s++)
		w->deltas[(s + wind0) % 4] = r.deltas[s];
	w->points = w->deltas[seat];
	return 1;
}
