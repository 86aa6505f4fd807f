/* The checks both Tenhou writers share (wscan.h). */
#include "tenhou/wscan.h"

#include <string.h>

#include "core/tile.h"
#include "tenhou/builder.h"

int hy_tw_round(const hy_event *e)
{
	return 4 * (e->bakaze - 27) + e->kyoku - 1;
}

static hy_status unsup(hy_diag *d, const hy_game *g, size_t i, const char *fmt, const char *why)
{
	return hy_diag_set(d, HY_EUNSUP, g->ev[i].line,
			   "event %zu (%s) cannot be written as %s: %s", i + 1,
			   hy_ev_type_name(g->ev[i].type), fmt, why);
}

hy_status hy_tw_scan_game(const hy_game *g, const char *fmt, hy_tw_scan *w, hy_diag *d)
{
	memset(w, 0, sizeof *w);
	if (g->n == 0 || g->ev[0].type != HY_EV_START_GAME)
		return hy_diag_set(d, HY_EUNSUP, g->n ? g->ev[0].line : 0,
				   "a fragment (no start_game) cannot be written as %s", fmt);
	int32_t sc[4] = {0, 0, 0, 0};
	int sticks = 0, in_kyoku = 0, ended = 0, have_result = 0, end_scores = 0;
	for (size_t i = 1; i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		if (e->type == HY_EV_END_GAME) {
			if (in_kyoku && !ended)
				return unsup(d, g, i, fmt, "the kyoku before it has no result");
			if (e->flags & HY_EVF_SCORES) {
				memcpy(w->final, e->scores, sizeof w->final);
				end_scores = 1;
			}
			if (i + 1 != g->n)
				return unsup(d, g, i + 1, fmt, "an event after end_game");
			break;
		}
		if (e->type == HY_EV_START_KYOKU) {
			if (in_kyoku && !ended)
				return unsup(d, g, i, fmt, "the kyoku before it has no result");
			if (!(e->flags & HY_EVF_TEHAIS) || e->bakaze < 27 || e->bakaze > 30 ||
			    e->kyoku < 1 || e->kyoku > 4)
				return unsup(d, g, i, fmt, "no hands, round wind or kyoku");
			if (e->oya != e->kyoku - 1)
				return unsup(d, g, i, fmt, "the dealer is not seat kyoku - 1");
			for (int p = 0; p < 4; p++)
				for (int k = 0; k < 13; k++)
					if (e->tehais[p][k] >= HY_TILE_UNKNOWN)
						return unsup(d, g, i, fmt, "a hidden hand ('?')");
			in_kyoku = 1;
			ended = 0;
			w->nkyoku++;
			memcpy(sc, e->scores, sizeof sc);
			sticks = e->kyotaku;
			continue;
		}
		if (!in_kyoku)
			return unsup(d, g, i, fmt, "outside a kyoku");
		if (ended && e->type != HY_EV_END_KYOKU && e->type != HY_EV_HORA)
			return unsup(d, g, i, fmt, "play after the kyoku's result");
		switch (e->type) {
		case HY_EV_TSUMO:
		case HY_EV_DAHAI:
		case HY_EV_DORA:
			if ((e->type == HY_EV_DORA ? e->dora_marker : e->pai) >= HY_TILE_UNKNOWN)
				return unsup(d, g, i, fmt, "a hidden tile ('?')");
			break;
		case HY_EV_REACH_ACCEPTED:
			if (e->actor > 3)
				return unsup(d, g, i, fmt, "no actor");
			sc[e->actor] -= 1000;
			sticks++;
			break;
		case HY_EV_HORA:
		case HY_EV_RYUKYOKU:
			if (ended && e->type == HY_EV_RYUKYOKU)
				return unsup(d, g, i, fmt, "a second result");
			if (e->type == HY_EV_HORA && (e->actor > 3 || e->target > 3))
				return unsup(d, g, i, fmt, "no winner or target");
			for (int p = 0; p < 4; p++)
				sc[p] += e->flags & HY_EVF_DELTAS ? e->deltas[p] : 0;
			if (e->type == HY_EV_HORA)
				sticks = 0;
			ended = 1;
			have_result = 1;
			w->last_result = i;
			break;
		default:
			break;
		}
	}
	if (w->nkyoku == 0 || !have_result)
		return hy_diag_set(d, HY_EUNSUP, 0, "a game without a finished kyoku cannot be "
				   "written as %s", fmt);
	if (in_kyoku && !ended)
		return unsup(d, g, g->n - 1, fmt, "the last kyoku has no result");
	if (!end_scores)
		hy_tk_final_scores(sc, sticks, w->final);
	return HY_OK;
}

int hy_tw_draw_kind(const hy_game *g, size_t i)
{
	int accepted = 0, pending = 0;
	size_t k = i;
	while (k > 0 && g->ev[k].type != HY_EV_START_KYOKU)
		k--;
	for (size_t j = k; j < i; j++) {
		if (g->ev[j].type == HY_EV_REACH)
			pending = 1;
		if (g->ev[j].type == HY_EV_REACH_ACCEPTED) {
			pending = 0;
			accepted++;
		}
	}
	const hy_event *prev = i > 0 ? &g->ev[i - 1] : NULL;
	if (prev && prev->type == HY_EV_TSUMO)
		return HY_TW_KYUUSHU;
	if (pending)
		return HY_TW_RON3;
	if (prev && prev->type == HY_EV_REACH_ACCEPTED && accepted == 4)
		return HY_TW_REACH4;
	return HY_TW_DRAW;
}
