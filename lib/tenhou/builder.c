/* Tenhou kyoku → mjai events (see builder.h for the conventions). */
#include "tenhou/builder.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hy_tk_kyoku_init(hy_tk_kyoku *k)
{
	memset(k, 0, sizeof *k);
	hy_tk_kyoku_reset(k);
}

void hy_tk_kyoku_free(hy_tk_kyoku *k)
{
	free(k->acts);
	memset(k, 0, sizeof *k);
}

void hy_tk_kyoku_reset(hy_tk_kyoku *k)
{
	hy_tk_act *acts = k->acts;
	size_t cap = k->capacts;
	memset(k, 0, sizeof *k);
	k->acts = acts;
	k->capacts = cap;
	k->oya = HY_NO_SEAT;
	memset(k->tehais, HY_TILE_NONE, sizeof k->tehais);
}

hy_tk_act *hy_tk_kyoku_push(hy_tk_kyoku *k, const hy_tk_act *a)
{
	if (HY_GROW(k->acts, k->capacts, k->nacts + 1, 256))
		return NULL;
	k->acts[k->nacts] = *a;
	return &k->acts[k->nacts++];
}

void hy_tk_sort_tiles(uint8_t *t, int n)
{
	for (int i = 1; i < n; i++) {
		uint8_t x = t[i];
		int j = i;
		while (j > 0 && hy_tk_tile_ord(t[j - 1]) > hy_tk_tile_ord(x)) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = x;
	}
}

const char *hy_tk_round_name(int round, int honba, char *buf, size_t size)
{
	static const char winds[4] = {'E', 'S', 'W', 'N'};
	snprintf(buf, size, "%c%d-%d", winds[(round / 4) & 3], round % 4 + 1, honba);
	return buf;
}

void hy_tk_sim_start(hy_tk_sim *s, const hy_tk_kyoku *k)
{
	memset(s, 0, sizeof *s);
	for (int p = 0; p < 4; p++) {
		for (int i = 0; i < 13; i++)
			if (k->tehais[p][i] < HY_TILE_UNKNOWN)
				s->cnt[p][k->tehais[p][i]]++;
		s->last_tsumo[p] = HY_TILE_NONE;
	}
	s->disc_actor = HY_NO_SEAT;
	s->disc_pai = HY_TILE_NONE;
	s->kan_pai = HY_TILE_NONE;
}

static int take(hy_tk_sim *s, int p, int t)
{
	if (t >= HY_TILE_UNKNOWN || s->cnt[p][t] == 0)
		return 0;
	s->cnt[p][t]--;
	return 1;
}

const char *hy_tk_sim_apply(hy_tk_sim *s, hy_tk_act *a)
{
	int p = a->actor;
	if (p > 3)
		return "bad seat";
	switch (a->type) {
	case HY_EV_TSUMO:
		if (a->pai >= HY_TILE_UNKNOWN)
			return "bad tile drawn";
		s->cnt[p][a->pai]++;
		s->last_tsumo[p] = a->pai;
		break;
	case HY_EV_REACH:
		s->disc_actor = HY_NO_SEAT;
		s->kan_pai = HY_TILE_NONE;
		return NULL;
	case HY_EV_DAHAI:
		if (a->tsumogiri && a->pai == HY_TILE_NONE) {
			if (s->last_tsumo[p] == HY_TILE_NONE)
				return "tsumogiri without a drawn tile";
			a->pai = s->last_tsumo[p];
		}
		if (!take(s, p, a->pai))
			return "discarded tile not in hand";
		s->last_tsumo[p] = HY_TILE_NONE;
		s->disc_actor = (uint8_t)p;
		s->disc_pai = a->pai;
		s->kan_pai = HY_TILE_NONE;
		return NULL;
	case HY_EV_CHI:
	case HY_EV_PON:
	case HY_EV_DAIMINKAN:
		if (s->disc_actor != a->target || s->disc_pai != a->pai || a->target == p)
			return "call of a tile that was not just discarded";
		if (a->type == HY_EV_CHI && a->target != (p + 3) % 4)
			return "chi not from the left";
		for (int i = 0; i < a->nconsumed; i++)
			if (!take(s, p, a->consumed[i]))
				return "called with tiles not in hand";
		s->last_tsumo[p] = HY_TILE_NONE;
		break;
	case HY_EV_KAKAN:
		if (!take(s, p, a->pai))
			return "added kan tile not in hand";
		s->last_tsumo[p] = HY_TILE_NONE;
		s->disc_actor = HY_NO_SEAT;
		s->kan_pai = a->pai;
		return NULL;
	case HY_EV_ANKAN:
		for (int i = 0; i < a->nconsumed; i++)
			if (!take(s, p, a->consumed[i]))
				return "closed kan of tiles not in hand";
		s->last_tsumo[p] = HY_TILE_NONE;
		break;
	default:
		return "bad action";
	}
	s->disc_actor = HY_NO_SEAT;
	s->kan_pai = HY_TILE_NONE;
	return NULL;
}

static hy_status push(hy_game *g, const hy_event *e)
{
	return hy_game_push(g, e) ? HY_OK : HY_ENOMEM;
}

static hy_status push_dora(hy_game *g, const hy_tk_kyoku *k, int *di, uint32_t line,
			   hy_diag *d)
{
	char name[16];
	if (*di >= k->ndora)
		return hy_diag_set(d, HY_EDATA, line, "kyoku %s: no indicator left for a kan dora",
				   hy_tk_round_name(k->round, k->honba, name, sizeof name));
	hy_event e;
	hy_event_blank(&e, HY_EV_DORA);
	e.dora_marker = k->dora[(*di)++];
	e.line = line;
	return push(g, &e);
}

/* Does the kyoku end with a ron on the action at index i? */
static int ronned(const hy_tk_kyoku *k, size_t i)
{
	if (i + 1 != k->nacts)
		return 0;
	if (k->end == HY_TK_RYUKYOKU)
		return k->ryu_ron3;
	return k->end == HY_TK_HORA && k->nhora > 0 && k->hora[0].actor != k->hora[0].target;
}

static hy_status bad(hy_diag *d, const hy_tk_kyoku *k, uint32_t line, const char *why)
{
	char name[16];
	return hy_diag_set(d, HY_EDATA, line, "kyoku %s: %s",
			   hy_tk_round_name(k->round, k->honba, name, sizeof name), why);
}

static hy_status emit_end(hy_game *g, const hy_tk_kyoku *k, const int riichi[4], int32_t sc[4], int *sticks, hy_diag *d)
{
	hy_event e;
	const hy_tk_act *last = k->nacts ? &k->acts[k->nacts - 1] : NULL;
	if (k->end == HY_TK_HORA) {
		if (k->nhora == 0)
			return bad(d, k, k->end_line, "win without a winner");
		for (int h = 0; h < k->nhora; h++) {
			const hy_tk_hora *w = &k->hora[h];
			hy_event_blank(&e, HY_EV_HORA);
			e.actor = w->actor;
			e.target = w->target;
			e.line = w->line;
			if (w->actor > 3 || w->target > 3)
				return bad(d, k, w->line, "bad seat in a win");
			if (w->actor == w->target) {
				if (!last || last->type != HY_EV_TSUMO || last->actor != w->actor)
					return bad(d, k, w->line, "tsumo win not after the winner's draw");
				e.pai = last->pai;
			} else {
				if (!last || last->actor != w->target ||
				    (last->type != HY_EV_DAHAI && last->type != HY_EV_KAKAN &&
				     last->type != HY_EV_ANKAN))
					return bad(d, k, w->line, "ron not on the loser's discard or kan");
				e.pai = last->type == HY_EV_ANKAN ? last->consumed[0] : last->pai;
			}
			memcpy(e.deltas, w->deltas, sizeof e.deltas);
			e.flags |= HY_EVF_DELTAS;
			if (riichi[w->actor]) {
				e.flags |= HY_EVF_URA;
				e.nura = k->nura;
				memcpy(e.ura, k->ura, k->nura);
			}
			for (int p = 0; p < 4; p++)
				sc[p] += w->deltas[p];
			hy_status st = push(g, &e);
			if (st)
				return st;
		}
		*sticks = 0;
	} else {
		hy_event_blank(&e, HY_EV_RYUKYOKU);
		e.line = k->end_line;
		memcpy(e.deltas, k->ryu_deltas, sizeof e.deltas);
		e.flags |= HY_EVF_DELTAS;
		for (int p = 0; p < 4; p++)
			sc[p] += k->ryu_deltas[p];
		hy_status st = push(g, &e);
		if (st)
			return st;
	}
	hy_event_blank(&e, HY_EV_END_KYOKU);
	e.line = k->end_line;
	return push(g, &e);
}

hy_status hy_tk_emit_kyoku(hy_game *g, const hy_tk_kyoku *k, int32_t scores_out[4],
			   int *sticks_out, hy_diag *d)
{
	hy_event e;
	hy_status st;
	if (k->end == HY_TK_NONE)
		return bad(d, k, k->line, "no result");
	if (k->ndora == 0)
		return bad(d, k, k->line, "no dora indicator");
	if (k->oya > 3 || k->round > 15)
		return bad(d, k, k->line, "bad dealer or round");
	hy_event_blank(&e, HY_EV_START_KYOKU);
	e.line = k->line;
	e.bakaze = (uint8_t)(27 + k->round / 4);
	e.kyoku = (uint8_t)(k->round % 4 + 1);
	e.honba = k->honba;
	e.kyotaku = k->kyotaku;
	e.oya = k->oya;
	e.dora_marker = k->dora[0];
	memcpy(e.scores, k->scores, sizeof e.scores);
	for (int p = 0; p < 4; p++) {
		memcpy(e.tehais[p], k->tehais[p], 13);
		for (int i = 0; i < 13; i++)
			if (e.tehais[p][i] >= HY_TILE_UNKNOWN)
				return bad(d, k, k->line, "bad tile in a starting hand");
		hy_tk_sort_tiles(e.tehais[p], 13);
	}
	e.flags |= HY_EVF_SCORES | HY_EVF_KYOTAKU | HY_EVF_HONBA | HY_EVF_BAKAZE |
		   HY_EVF_KYOKU | HY_EVF_TEHAIS;
	if ((st = push(g, &e)))
		return st;

	hy_tk_sim s;
	hy_tk_sim_start(&s, k);
	int32_t sc[4];
	memcpy(sc, k->scores, sizeof sc);
	int sticks = k->kyotaku;
	int riichi[4] = {0, 0, 0, 0};
	int reach_pending = -1, pending_dora = 0, di = 1;
	for (size_t i = 0; i < k->nacts; i++) {
		hy_tk_act a = k->acts[i];
		const char *why = hy_tk_sim_apply(&s, &a);
		if (why)
			return bad(d, k, a.line, why);
		hy_event_blank(&e, (hy_ev_type)a.type);
		e.actor = a.actor;
		e.line = a.line;
		switch (a.type) {
		case HY_EV_TSUMO:
			e.pai = a.pai;
			break;
		case HY_EV_DAHAI:
			e.pai = a.pai;
			e.tsumogiri = a.tsumogiri ? 1 : 0;
			e.flags |= HY_EVF_TSUMOGIRI;
			break;
		case HY_EV_REACH:
			if (reach_pending >= 0 || riichi[a.actor])
				return bad(d, k, a.line, "riichi declared twice");
			reach_pending = a.actor;
			break;
		case HY_EV_CHI:
		case HY_EV_PON:
		case HY_EV_DAIMINKAN:
			e.target = a.target;
			/* fall through */
		case HY_EV_KAKAN:
			e.pai = a.pai;
			/* fall through */
		case HY_EV_ANKAN:
			e.nconsumed = a.nconsumed;
			memcpy(e.consumed, a.consumed, a.nconsumed);
			hy_tk_sort_tiles(e.consumed, e.nconsumed);
			break;
		default:
			return bad(d, k, a.line, "bad action");
		}
		if (reach_pending >= 0 && a.type != HY_EV_REACH &&
		    (a.actor != reach_pending || a.type != HY_EV_DAHAI))
			return bad(d, k, a.line, "riichi not followed by the declarer's discard");
		if ((st = push(g, &e)))
			return st;
		if (a.type == HY_EV_ANKAN && (st = push_dora(g, k, &di, a.line, d)))
			return st;
		if (a.type == HY_EV_DAIMINKAN || a.type == HY_EV_KAKAN)
			pending_dora++;
		if (a.type == HY_EV_DAHAI) {
			for (; pending_dora > 0; pending_dora--)
				if ((st = push_dora(g, k, &di, a.line, d)))
					return st;
			if (reach_pending >= 0) {
				if (!ronned(k, i)) {
					hy_event_blank(&e, HY_EV_REACH_ACCEPTED);
					e.actor = (uint8_t)reach_pending;
					e.line = a.line;
					if ((st = push(g, &e)))
						return st;
					riichi[reach_pending] = 1;
					sc[reach_pending] -= 1000;
					sticks++;
				}
				reach_pending = -1;
			}
		}
	}
	if (reach_pending >= 0)
		return bad(d, k, k->end_line, "riichi without a discard");
	if ((st = emit_end(g, k, riichi, sc, &sticks, d)))
		return st;
	if (scores_out)
		memcpy(scores_out, sc, sizeof sc);
	if (sticks_out)
		*sticks_out = sticks;
	return HY_OK;
}

void hy_tk_final_scores(const int32_t after[4], int sticks, int32_t out[4])
{
	int top = 0;
	for (int p = 0; p < 4; p++) {
		out[p] = after[p];
		if (after[p] > after[top])
			top = p;
	}
	out[top] += 1000 * sticks;
}
