/* The four-player Tenhou game engine: state transitions. Discards and the
 * call windows they open, calls, kans and the chankan window, riichi,
 * wins, exhaustive and abortive draws, the next kyoku and the end of the
 * game (hy_engine_act, hy_engine_apply, hy_engine_next_kyoku). */
#include "engine/engine.h"

#include <string.h>

#include "core/tile.h"
#include "engine/internal.h"
#include "engine/win.h"

/* ------------------------------------------------------------ dora */

static void reveal_now(hy_engine *e)
{
	if (e->ndora >= 5)
		return;
	e->ndora++;
	if (e->log && e->ndora <= e->nind_known) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_DORA);
		ev.dora_marker = e->dora_ind[e->ndora - 1];
		hy_engine_emit(e, &ev);
	}
}

/* Daiminkan/kakan indicators waiting for the discard (or the next kan). */
static void reveal_pending(hy_engine *e)
{
	while (e->pending_dora) {
		e->pending_dora--;
		reveal_now(e);
	}
}

/* ------------------------------------------------------------ transitions */

static void end_kyoku_abort(hy_engine *e, int kind)
{
	memset(&e->res, 0, sizeof e->res);
	e->res.kind = (uint8_t)kind;
	e->phase = HY_PH_KYOKU_END;
	e->call_pending = 0;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_RYUKYOKU);
		ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		hy_engine_emit(e, &ev);
	}
}

static void exhaustive_draw(hy_engine *e)
{
	hy_result *r = &e->res;
	memset(r, 0, sizeof *r);
	r->kind = HY_RES_EXHAUSTIVE;
	int nt = 0, nn = 0;
	for (int s = 0; s < 4; s++) {
		r->tenpai[s] = (uint8_t)hy_engine_is_tenpai(&e->p[s]);
		nt += r->tenpai[s];
		r->nagashi[s] = e->p[s].nagashi_ok;
		nn += r->nagashi[s];
	}
	if (nn) {
		for (int s = 0; s < 4; s++) {
			if (!r->nagashi[s])
				continue;
			for (int o = 0; o < 4; o++) {
				if (o == s)
					continue;
				int pay = s == e->oya ? 4000 : (o == e->oya ? 4000 : 2000);
				r->deltas[o] -= pay;
				r->deltas[s] += pay;
			}
		}
	} else if (nt > 0 && nt < 4) {
		for (int s = 0; s < 4; s++)
			r->deltas[s] = r->tenpai[s] ? 3000 / nt : -3000 / (4 - nt);
	}
	for (int s = 0; s < 4; s++)
		e->scores[s] += r->deltas[s];
	e->phase = HY_PH_KYOKU_END;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_RYUKYOKU);
		ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
		memcpy(ev.deltas, r->deltas, sizeof ev.deltas);
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		hy_engine_emit(e, &ev);
	}
}

static void emit_hora(hy_engine *e, const hy_win *w)
{
	if (!e->log)
		return;
	hy_event ev;
	hy_event_blank(&ev, HY_EV_HORA);
	ev.actor = w->seat;
	ev.target = w->from;
	ev.pai = w->tile;
	ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
	memcpy(ev.deltas, w->deltas, sizeof ev.deltas);
	memcpy(ev.scores, e->scores, sizeof ev.scores);
	if (e->p[w->seat].riichi == 2) {
		ev.flags |= HY_EVF_URA;
		ev.nura = e->nura < e->ndora ? e->nura : e->ndora;
		memcpy(ev.ura, e->ura, ev.nura);
	}
	hy_engine_emit(e, &ev);
}

/* Wins: seats in order from the discarder's right (head bump to the first). */
static void do_wins(hy_engine *e, const uint8_t *seats, int n, int from, int tile, int chankan)
{
	hy_result *r = &e->res;
	memset(r, 0, sizeof *r);
	r->kind = HY_RES_HORA;
	for (int i = 0; i < n && i < 2; i++) {
		hy_win *w = &r->win[r->nwin];
		if (!hy_engine_win_eval(e, seats[i], from, tile, chankan, i == 0, w))
			continue; /* cannot happen: options were checked */
		r->nwin++;
		for (int s = 0; s < 4; s++) {
			r->deltas[s] += w->deltas[s];
			e->scores[s] += w->deltas[s];
		}
		emit_hora(e, w);
		if (i == 0)
			e->kyotaku = 0;
	}
	e->phase = HY_PH_KYOKU_END;
	e->call_pending = 0;
}

static void accept_riichi(hy_engine *e)
{
	int s = e->riichi_seat;
	if (s == 255)
		return;
	e->riichi_seat = 255;
	hy_player *p = &e->p[s];
	p->riichi = 2;
	p->ippatsu = 1;
	e->scores[s] -= 1000;
	e->kyotaku++;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_REACH_ACCEPTED);
		ev.actor = (uint8_t)s;
		ev.flags = HY_EVF_DELTAS | HY_EVF_SCORES;
		ev.deltas[s] = -1000;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		hy_engine_emit(e, &ev);
	}
}

static void break_ippatsu_and_first(hy_engine *e)
{
	for (int s = 0; s < 4; s++)
		e->p[s].ippatsu = 0;
	e->first_go = 0;
}

static void count_kan(hy_engine *e, int s)
{
	e->nkans++;
	e->p[s].nkans++;
	e->kan_seats |= (uint8_t)(1u << s);
	if (e->nkans == 4 && (e->kan_seats & (e->kan_seats - 1)))
		e->abort_kan = 1;
}

static void check_pao(hy_engine *e, int s, int from)
{
	hy_player *p = &e->p[s];
	int drag = 0, wind = 0;
	for (int i = 0; i < p->nmelds; i++) {
		int k = hy_tile_code_kind(p->melds[i].tiles[0]);
		if (p->melds[i].type == HY_MELD_CHI)
			continue;
		drag += k >= 31;
		wind += k >= 27 && k <= 30;
	}
	int k = hy_tile_code_kind(p->melds[p->nmelds - 1].tiles[0]);
	if ((k >= 31 && drag == 3) || (k >= 27 && k <= 30 && wind == 4))
		p->pao_seat = (uint8_t)from;
}

/* A discard passed every call window with no call: aborts, end or next draw. */
static void after_discard_no_call(hy_engine *e)
{
	int d = e->actor;
	if (e->abort_kan) {
		end_kyoku_abort(e, HY_RES_SUUKAIKAN);
		return;
	}
	if (e->live_left == 0) {
		exhaustive_draw(e);
		return;
	}
	e->actor = (uint8_t)((d + 1) % 4);
	e->phase = HY_PH_DRAW;
}

static void take_called_tile(hy_engine *e, int d)
{
	hy_player *dp = &e->p[d];
	dp->river_flags[dp->nriver - 1] |= HY_RIVER_CALLED;
	dp->nagashi_ok = 0;
}

static void do_call(hy_engine *e, int s, const hy_action *a)
{
	int d = e->actor, t = e->last_tile, k = hy_tile_code_kind(t);
	hy_player *p = &e->p[s];
	take_called_tile(e, d);
	break_ippatsu_and_first(e);
	for (int i = 0; i < a->nconsumed; i++)
		hy_player_remove(p, a->consumed[i]);
	hy_meld *m = &p->melds[p->nmelds];
	memset(m, 0, sizeof *m);
	m->from = (uint8_t)((d - s + 4) % 4);
	m->tiles[0] = (uint8_t)t;
	for (int i = 0; i < a->nconsumed; i++)
		m->tiles[1 + i] = a->consumed[i];
	m->ntiles = (uint8_t)(1 + a->nconsumed);
	p->meld_called[p->nmelds] = (uint8_t)t;
	p->meld_from[p->nmelds] = (uint8_t)d;
	int evt;
	if (a->type == HY_ACT_CHI) {
		m->type = HY_MELD_CHI;
		int lo = chi_index(a) - HY_A_CHI_LOW;
		p->kuikae = chi_forbid(k, k - lo);
		evt = HY_EV_CHI;
	} else if (a->type == HY_ACT_PON) {
		m->type = HY_MELD_PON;
		p->kuikae = 1ull << k;
		evt = HY_EV_PON;
	} else {
		m->type = HY_MELD_MINKAN;
		evt = HY_EV_DAIMINKAN;
	}
	p->nmelds++;
	if (a->type != HY_ACT_CHI)
		check_pao(e, s, d);
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, (hy_ev_type)evt);
		ev.actor = (uint8_t)s;
		ev.target = (uint8_t)d;
		ev.pai = (uint8_t)t;
		ev.nconsumed = a->nconsumed;
		memcpy(ev.consumed, a->consumed, a->nconsumed);
		hy_engine_emit(e, &ev);
	}
	e->actor = (uint8_t)s;
	p->drawn = HY_TILE_NONE;
	if (a->type == HY_ACT_DAIMINKAN) {
		count_kan(e, s);
		e->pending_dora++;
		e->draw_rinshan = 1;
		e->phase = HY_PH_DRAW;
	} else {
		e->after_call = 1;
		e->rinshan = 0;
		e->phase = HY_PH_TURN;
	}
}

/* Resolves a finished call window (CALL phase). */
static void resolve_call(hy_engine *e)
{
	int d = e->actor, t = e->last_tile, k = hy_tile_code_kind(t);
	uint8_t ron[3];
	int nron = 0;
	for (int i = 1; i < 4; i++) {
		int s = (d + i) % 4;
		if (e->call_opts[s] && e->call_choice[s].type == HY_ACT_RON)
			ron[nron++] = (uint8_t)s;
	}
	/* Missed wins: furiten. */
	for (int s = 0; s < 4; s++) {
		hy_player *p = &e->p[s];
		if (s == d || !(p->waits >> k & 1) || (e->call_opts[s] && e->call_choice[s].type == HY_ACT_RON))
			continue;
		p->temp_furiten = 1;
		if (p->riichi == 2)
			p->riichi_furiten = 1;
	}
	if (nron == 3) {
		e->riichi_seat = 255;
		end_kyoku_abort(e, HY_RES_SANCHAHOU);
		return;
	}
	if (nron) {
		e->riichi_seat = 255;
		do_wins(e, ron, nron, d, t, 0);
		return;
	}
	accept_riichi(e);
	int ariichi = 0;
	for (int s = 0; s < 4; s++)
		ariichi += e->p[s].riichi == 2;
	if (ariichi == 4) {
		end_kyoku_abort(e, HY_RES_SUUCHA);
		return;
	}
	if (e->ndiscards == 4 && e->first_go && e->suufon_kind != 255) {
		end_kyoku_abort(e, HY_RES_SUUFON);
		return;
	}
	if (e->abort_kan) {
		end_kyoku_abort(e, HY_RES_SUUKAIKAN);
		return;
	}
	int caller = -1;
	for (int i = 1; i < 4 && caller < 0; i++) {
		int s = (d + i) % 4;
		int ty = e->call_choice[s].type;
		if (e->call_opts[s] && (ty == HY_ACT_PON || ty == HY_ACT_DAIMINKAN))
			caller = s;
	}
	int ds = (d + 1) % 4;
	if (caller < 0 && e->call_opts[ds] && e->call_choice[ds].type == HY_ACT_CHI)
		caller = ds;
	e->call_pending = 0;
	if (caller >= 0) {
		hy_action a = e->call_choice[caller];
		do_call(e, caller, &a);
		return;
	}
	after_discard_no_call(e);
}

/* Opens the window on e->last_tile of e->actor: CALL on a discard, CHANKAN
 * on a kan tile; the seats with an option have to answer. */
static void open_window(hy_engine *e, int chankan)
{
	uint8_t opts[4];
	e->call_pending = (uint8_t)hy_engine_window_options(e, chankan, opts);
	memcpy(e->call_opts, opts, sizeof opts);
	for (int s = 0; s < 4; s++)
		e->call_choice[s].type = HY_ACT_NONE;
	e->phase = chankan ? HY_PH_CHANKAN : HY_PH_CALL;
}

static void open_call_window(hy_engine *e)
{
	open_window(e, 0);
	if (!e->call_pending)
		resolve_call(e);
}

static void do_discard(hy_engine *e, int s, int t, int riichi_decl)
{
	hy_player *p = &e->p[s];
	int k = hy_tile_code_kind(t);
	int tsumogiri = p->drawn != HY_TILE_NONE && p->drawn == t;
	hy_player_remove(p, t);
	if (p->nriver < 32) {
		p->river[p->nriver] = (uint8_t)t;
		p->river_flags[p->nriver] = (uint8_t)((tsumogiri ? HY_RIVER_TSUMOGIRI : 0) |
						      (riichi_decl ? HY_RIVER_RIICHI : 0));
		p->nriver++;
	}
	p->discarded |= 1ull << k;
	p->temp_furiten = 0;
	p->drawn = HY_TILE_NONE;
	p->kuikae = 0;
	if (!hy_tile_is_yaochu(k))
		p->nagashi_ok = 0;
	if (p->ippatsu && !riichi_decl)
		p->ippatsu = 0;
	if (riichi_decl)
		e->riichi_seat = (uint8_t)s;
	/* suufon renda: the first four discards, one wind, no call */
	e->ndiscards++;
	if (e->ndiscards == 1)
		e->suufon_kind = (k >= 27 && k <= 30) ? (uint8_t)k : 255;
	else if (e->ndiscards <= 4 && k != e->suufon_kind)
		e->suufon_kind = 255;
	e->after_call = 0;
	e->rinshan = 0;
	reveal_pending(e);
	update_waits(p);
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_DAHAI);
		ev.actor = (uint8_t)s;
		ev.pai = (uint8_t)t;
		ev.tsumogiri = (uint8_t)tsumogiri;
		ev.flags = HY_EVF_TSUMOGIRI;
		hy_engine_emit(e, &ev);
	}
	e->last_tile = (uint8_t)t;
	e->actor = (uint8_t)s;
	open_call_window(e);
}

static void do_kan_self(hy_engine *e, int s, const hy_action *a)
{
	hy_player *p = &e->p[s];
	int k = hy_tile_code_kind(a->tile);
	p->drawn = HY_TILE_NONE;
	/* Ippatsu and the first go-around break only once the chankan window
	 * has passed (a chankan keeps ippatsu). Pending daiminkan/kakan
	 * indicators wait for the discard, except before an ankan's own. */
	if (a->type == HY_ACT_ANKAN) {
		reveal_pending(e);
		hy_meld *m = &p->melds[p->nmelds];
		memset(m, 0, sizeof *m);
		m->type = HY_MELD_ANKAN;
		m->from = HY_FROM_SELF;
		m->ntiles = 4;
		int j = 0;
		int r = hy_tile_red_of(k);
		if (r >= 0 && p->red[k / 9])
			m->tiles[j++] = (uint8_t)r;
		while (j < 4)
			m->tiles[j++] = (uint8_t)k;
		for (int i = 0; i < 4; i++)
			hy_player_remove(p, m->tiles[i]);
		p->meld_called[p->nmelds] = HY_TILE_NONE;
		p->meld_from[p->nmelds] = (uint8_t)s;
		p->nmelds++;
		count_kan(e, s);
		if (e->log) {
			hy_event ev;
			hy_event_blank(&ev, HY_EV_ANKAN);
			ev.actor = (uint8_t)s;
			ev.nconsumed = 4;
			memcpy(ev.consumed, m->tiles, 4);
			hy_engine_emit(e, &ev);
		}
		reveal_now(e);
		update_waits(p);
		e->last_tile = (uint8_t)k;
		e->chankan_ankan = 1;
	} else {
		int i;
		for (i = 0; i < p->nmelds; i++)
			if (p->melds[i].type == HY_MELD_PON && hy_tile_code_kind(p->melds[i].tiles[0]) == k)
				break;
		hy_meld *m = &p->melds[i];
		hy_player_remove(p, a->tile);
		m->type = HY_MELD_KAKAN;
		m->tiles[3] = a->tile;
		m->ntiles = 4;
		count_kan(e, s);
		if (e->log) {
			hy_event ev;
			hy_event_blank(&ev, HY_EV_KAKAN);
			ev.actor = (uint8_t)s;
			ev.pai = a->tile;
			ev.nconsumed = 3;
			memcpy(ev.consumed, m->tiles, 3);
			hy_engine_emit(e, &ev);
		}
		update_waits(p);
		e->last_tile = a->tile;
		e->chankan_ankan = 0;
	}
	e->actor = (uint8_t)s;
	open_window(e, 1);
}

static void resolve_chankan(hy_engine *e)
{
	int s = e->actor, t = e->last_tile, k = hy_tile_code_kind(t);
	uint8_t ron[3];
	int nron = 0;
	for (int i = 1; i < 4; i++) {
		int o = (s + i) % 4;
		if (e->call_opts[o] && e->call_choice[o].type == HY_ACT_RON)
			ron[nron++] = (uint8_t)o;
	}
	for (int o = 0; o < 4; o++) {
		hy_player *p = &e->p[o];
		if (o == s || !(p->waits >> k & 1) ||
		    (e->call_opts[o] && e->call_choice[o].type == HY_ACT_RON))
			continue;
		p->temp_furiten = 1;
		if (p->riichi == 2)
			p->riichi_furiten = 1;
	}
	e->call_pending = 0;
	if (nron == 3) {
		end_kyoku_abort(e, HY_RES_SANCHAHOU);
		return;
	}
	if (nron) {
		do_wins(e, ron, nron, s, t, 1);
		return;
	}
	break_ippatsu_and_first(e);
	if (!e->chankan_ankan)
		e->pending_dora++;
	e->draw_rinshan = 1;
	e->phase = HY_PH_DRAW;
}

static hy_status illegal(hy_engine *e, int seat, const hy_action *a, hy_diag *d)
{
	char st[160];
	hy_engine_describe(e, st, sizeof st);
	return hy_diag_set(d, HY_EUSAGE, 0, "seat %d: illegal action type %d tile %s (%s)", seat,
			   a->type, a->tile < HY_TILE_CODES ? hy_tile_to_mjai(a->tile) : "-", st);
}

hy_status hy_engine_act(hy_engine *e, int seat, const hy_action *a, hy_diag *d)
{
	if (seat < 0 || seat > 3 || !hy_engine_is_legal(e, seat, a))
		return illegal(e, seat, a, d);
	return hy_engine_apply(e, seat, a, d);
}

hy_status hy_engine_apply(hy_engine *e, int seat, const hy_action *a, hy_diag *d)
{
	hy_player *p = &e->p[seat];
	switch (e->phase) {
	case HY_PH_TURN:
	case HY_PH_RIICHI:
		switch (a->type) {
		case HY_ACT_DISCARD:
			do_discard(e, seat, a->tile, e->phase == HY_PH_RIICHI);
			return HY_OK;
		case HY_ACT_RIICHI:
			p->riichi = 1;
			p->double_riichi = e->first_go && p->nriver == 0;
			hy_engine_emit_simple(e, HY_EV_REACH, seat, HY_NO_SEAT, HY_TILE_NONE);
			e->phase = HY_PH_RIICHI;
			return HY_OK;
		case HY_ACT_TSUMO: {
			uint8_t w = (uint8_t)seat;
			do_wins(e, &w, 1, seat, p->drawn, 0);
			return HY_OK;
		}
		case HY_ACT_ANKAN:
		case HY_ACT_KAKAN:
			do_kan_self(e, seat, a);
			if (!e->call_pending)
				resolve_chankan(e);
			return HY_OK;
		case HY_ACT_KYUUSHU:
			end_kyoku_abort(e, HY_RES_KYUUSHU);
			if (e->log)
				e->log->ev[e->log->n - 1].actor = (uint8_t)seat,
				e->log->ev[e->log->n - 1].flags |= HY_EVF_ACTOR;
			return HY_OK;
		default:
			return illegal(e, seat, a, d);
		}
	case HY_PH_CALL:
	case HY_PH_CHANKAN:
		e->call_choice[seat] = *a;
		e->call_pending &= (uint8_t)~(1u << seat);
		if (!e->call_pending) {
			if (e->phase == HY_PH_CALL)
				resolve_call(e);
			else
				resolve_chankan(e);
		}
		return HY_OK;
	default:
		return illegal(e, seat, a, d);
	}
}

/* ------------------------------------------------------------ game flow */

static int top_seat(const int32_t s[4])
{
	int best = 0;
	for (int i = 1; i < 4; i++)
		if (s[i] > s[best])
			best = i;
	return best;
}

static void finish_game(hy_engine *e)
{
	int top = top_seat(e->scores);
	e->scores[top] += 1000 * e->kyotaku;
	e->kyotaku = 0;
	for (int s = 0; s < 4; s++) {
		int r = 0;
		for (int o = 0; o < 4; o++)
			if (e->scores[o] > e->scores[s] || (e->scores[o] == e->scores[s] && o < s))
				r++;
		e->rank[s] = (uint8_t)r;
	}
	memcpy(e->final_scores, e->scores, sizeof e->scores);
	e->phase = HY_PH_GAME_END;
	if (e->log) {
		hy_event ev;
		hy_event_blank(&ev, HY_EV_END_GAME);
		ev.flags = HY_EVF_SCORES;
		memcpy(ev.scores, e->scores, sizeof ev.scores);
		hy_engine_emit(e, &ev);
	}
}

void hy_engine_next_kyoku(hy_engine *e)
{
	if (e->phase != HY_PH_KYOKU_END)
		return;
	hy_engine_emit_simple(e, HY_EV_END_KYOKU, HY_NO_SEAT, HY_NO_SEAT, HY_TILE_NONE);
	const hy_result *r = &e->res;
	int renchan, dealer_won = 0, nondealer_won = 0;
	for (int i = 0; i < r->nwin; i++) {
		if (r->win[i].seat == e->oya)
			dealer_won = 1;
		else
			nondealer_won = 1;
	}
	int drawn = r->kind != HY_RES_HORA;
	if (r->kind == HY_RES_HORA)
		renchan = dealer_won;
	else if (r->kind == HY_RES_EXHAUSTIVE)
		renchan = r->tenpai[e->oya];
	else
		renchan = 1;
	(void)nondealer_won;
	for (int s = 0; s < 4; s++)
		if (e->scores[s] < 0) {
			finish_game(e);
			return;
		}
	int idx = e->bakaze * 4 + e->kyoku;
	int last = e->rules.length * 4 - 1;
	int hard = last + 4;
	int any_target = 0;
	for (int s = 0; s < 4; s++)
		any_target |= e->scores[s] >= e->rules.target;
	int aborted = r->kind != HY_RES_HORA && r->kind != HY_RES_EXHAUSTIVE;
	if (renchan) {
		if (idx >= last && !aborted && top_seat(e->scores) == e->oya &&
		    e->scores[e->oya] >= e->rules.target) {
			finish_game(e);
			return;
		}
		e->honba++;
	} else {
		if (idx >= hard || (idx >= last && any_target)) {
			finish_game(e);
			return;
		}
		idx++;
		e->bakaze = (uint8_t)(idx / 4);
		e->kyoku = (uint8_t)(idx % 4);
		e->oya = (uint8_t)((e->oya + 1) % 4);
		e->honba = drawn ? (uint8_t)(e->honba + 1) : 0;
	}
	e->phase = HY_PH_NEW_KYOKU;
}
