/* Replay check of mjai events against the engine (see replay.h). */
#include "engine/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/tile.h"
#include "engine/engine.h"
#include "hand/yaku.h"

typedef struct rctx {
	const hy_game *g;
	hy_replay_report *rep;
	hy_engine e;
	int skipping;      /* rest of the kyoku skipped */
	int in_kyoku;      /* a kyoku was started and checked */
	int scores_ok;     /* the engine's running scores are worth comparing */
	hy_status stop;
} rctx;

static void issue(rctx *c, int kind, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void issue(rctx *c, int kind, size_t i, const char *fmt, ...)
{
	hy_replay_issue is;
	memset(&is, 0, sizeof is);
	is.kind = (uint8_t)kind;
	is.event = i;
	is.line = c->g->ev[i].line;
	is.game = c->g;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(is.msg, sizeof is.msg, fmt, ap);
	va_end(ap);
	c->scores_ok = 0;
	if (kind == HY_REPLAY_ILLEGAL)
		c->rep->illegal++;
	else
		c->rep->mismatch++;
	if (c->rep->issue && c->stop == HY_OK)
		c->stop = c->rep->issue(c->rep->ctx, &is);
}

static void illegal(rctx *c, size_t i, const char *why)
{
	char st[200];
	hy_engine_describe(&c->e, st, sizeof st);
	const hy_event *ev = &c->g->ev[i];
	issue(c, HY_REPLAY_ILLEGAL, i, "illegal %s (actor %d, pai %s): %s; state: %s",
	      hy_ev_type_name(ev->type), ev->actor == HY_NO_SEAT ? -1 : ev->actor,
	      ev->pai < HY_TILE_CODES ? hy_tile_to_mjai(ev->pai) : "-", why, st);
	c->skipping = 1;
}

static int act(rctx *c, size_t i, int seat, const hy_action *a)
{
	if (hy_engine_act(&c->e, seat, a, NULL) != HY_OK) {
		illegal(c, i, "not among the legal actions");
		return 0;
	}
	return 1;
}

/* Everyone still to answer a call window passes. */
static int pass_all(rctx *c, size_t i)
{
	hy_action p = {.type = HY_ACT_PASS};
	while (c->e.call_pending && (c->e.phase == HY_PH_CALL || c->e.phase == HY_PH_CHANKAN)) {
		int s = __builtin_ctz(c->e.call_pending);
		if (!act(c, i, s, &p))
			return 0;
	}
	return 1;
}

static int in_window(const hy_engine *e)
{
	return e->phase == HY_PH_CALL || e->phase == HY_PH_CHANKAN;
}

static void fmt4(char *b, size_t n, const int32_t v[4])
{
	snprintf(b, n, "[%d %d %d %d]", v[0], v[1], v[2], v[3]);
}

static void describe_win(const hy_win *w, char *b, size_t n)
{
	int o = snprintf(b, n, "han %d fu %d%s", w->han, w->fu, w->yakuman ? " yakuman" : "");
	for (int k = 0; k < w->nyaku && o > 0 && (size_t)o < n; k++) {
		const char *nm = hy_yaku_name(w->yaku[k]);
		o += snprintf(b + o, n - (size_t)o, " %s(%d)", nm ? nm : "?", w->yaku_han[k]);
	}
}

static void check_hora(rctx *c, size_t i)
{
	const hy_event *ev = &c->g->ev[i];
	c->rep->hora++;
	const hy_win *w = NULL;
	for (int k = 0; k < c->e.res.nwin; k++)
		if (c->e.res.win[k].seat == ev->actor)
			w = &c->e.res.win[k];
	if (!w) {
		illegal(c, i, "the engine found no such win");
		return;
	}
	if (!(ev->flags & HY_EVF_DELTAS))
		return;
	if (memcmp(w->deltas, ev->deltas, sizeof w->deltas) != 0) {
		char a[64], b[64], y[400];
		fmt4(a, sizeof a, w->deltas);
		fmt4(b, sizeof b, ev->deltas);
		describe_win(w, y, sizeof y);
		issue(c, HY_REPLAY_DELTAS, i, "hora seat %d: computed deltas %s, logged %s (%s)",
		      ev->actor, a, b, y);
	}
}

static void check_ryukyoku(rctx *c, size_t i)
{
	const hy_event *ev = &c->g->ev[i];
	c->rep->ryukyoku++;
	if (c->e.phase != HY_PH_KYOKU_END || c->e.res.kind == HY_RES_HORA) {
		illegal(c, i, "no draw is possible here");
		return;
	}
	if (!(ev->flags & HY_EVF_DELTAS))
		return;
	if (memcmp(c->e.res.deltas, ev->deltas, sizeof ev->deltas) != 0) {
		char a[64], b[64];
		fmt4(a, sizeof a, c->e.res.deltas);
		fmt4(b, sizeof b, ev->deltas);
		issue(c, HY_REPLAY_DELTAS, i,
		      "ryukyoku (kind %d): computed deltas %s, logged %s (tenpai %d%d%d%d)",
		      c->e.res.kind, a, b, c->e.res.tenpai[0], c->e.res.tenpai[1],
		      c->e.res.tenpai[2], c->e.res.tenpai[3]);
	}
}

/* end_game with scores: the engine's running scores after the last kyoku,
 * leftover riichi sticks to the top seat (ties by seat order), must be the
 * logged final scores (mjlog owari, end_game scores of an mjai log). */
static void check_final(rctx *c, size_t i)
{
	const hy_event *ev = &c->g->ev[i];
	hy_engine *e = &c->e;
	if (!(ev->flags & HY_EVF_SCORES) || !c->in_kyoku || !c->scores_ok || c->skipping ||
	    e->phase != HY_PH_KYOKU_END)
		return;
	int32_t fin[4];
	memcpy(fin, e->scores, sizeof fin);
	int top = 0;
	for (int s = 1; s < 4; s++)
		if (fin[s] > fin[top])
			top = s;
	fin[top] += 1000 * e->kyotaku;
	if (memcmp(fin, ev->scores, sizeof fin) != 0) {
		char a[64], b[64];
		fmt4(a, sizeof a, fin);
		fmt4(b, sizeof b, ev->scores);
		issue(c, HY_REPLAY_FINAL, i, "end_game: computed final scores %s, logged %s", a, b);
	}
}

void hy_replay_set_round(struct hy_engine *e, const hy_event *ev)
{
	e->phase = HY_PH_NEW_KYOKU;
	int bakaze = (ev->flags & HY_EVF_BAKAZE) && ev->bakaze >= 27 && ev->bakaze <= 30
			     ? ev->bakaze - 27 : 0;
	int kyoku = (ev->flags & HY_EVF_KYOKU) && ev->kyoku >= 1 && ev->kyoku <= 4 ? ev->kyoku - 1
										   : 0;
	int oya = ev->oya < 4 ? ev->oya : kyoku;
	hy_engine_set_round(e, bakaze, kyoku, (ev->flags & HY_EVF_HONBA) ? ev->honba : 0,
			    (ev->flags & HY_EVF_KYOTAKU) ? ev->kyotaku : 0, oya,
			    (ev->flags & HY_EVF_SCORES) ? ev->scores : NULL);
}

static void start_kyoku(rctx *c, size_t i)
{
	const hy_event *ev = &c->g->ev[i];
	hy_engine *e = &c->e;
	c->rep->kyoku++;
	c->skipping = 0;
	if ((ev->flags & HY_EVF_SCORES) && c->in_kyoku && c->scores_ok &&
	    memcmp(ev->scores, e->scores, sizeof e->scores) != 0) {
		char a[64], b[64];
		fmt4(a, sizeof a, e->scores);
		fmt4(b, sizeof b, ev->scores);
		issue(c, HY_REPLAY_SCORES, i, "start_kyoku: running scores %s, logged %s", a, b);
	}
	int known = (ev->flags & HY_EVF_TEHAIS) != 0;
	for (int s = 0; s < 4 && known; s++)
		for (int k = 0; k < 13; k++)
			if (ev->tehais[s][k] >= HY_TILE_UNKNOWN)
				known = 0;
	hy_replay_set_round(e, ev);
	if (!known) {
		c->rep->skipped_kyoku++;
		c->skipping = 1;
		c->in_kyoku = 0;
		return;
	}
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (hy_engine_start_kyoku(e, (const uint8_t(*)[13])ev->tehais, ev->dora_marker, &d) !=
	    HY_OK) {
		illegal(c, i, d.msg);
		c->in_kyoku = 0;
		return;
	}
	c->in_kyoku = 1;
	c->scores_ok = (ev->flags & HY_EVF_SCORES) != 0;
}

static void call(rctx *c, size_t i, int type)
{
	const hy_event *ev = &c->g->ev[i];
	hy_action a = {.type = (uint8_t)type, .tile = ev->pai, .nconsumed = ev->nconsumed};
	memcpy(a.consumed, ev->consumed, 4);
	if (c->e.phase != HY_PH_CALL || ev->actor > 3 ||
	    !(c->e.call_pending >> ev->actor & 1)) {
		illegal(c, i, "no call window for this seat");
		return;
	}
	if (ev->pai != c->e.last_tile || (ev->target < 4 && ev->target != c->e.actor)) {
		illegal(c, i, "not the tile just discarded");
		return;
	}
	if (!act(c, i, ev->actor, &a))
		return;
	pass_all(c, i);
}

/* A ron (or several): consecutive hora events after a discard or kakan. */
static size_t rons(rctx *c, size_t i)
{
	hy_engine *e = &c->e;
	const hy_event *ev = &c->g->ev[i];
	if (ev->flags & HY_EVF_URA)
		hy_engine_set_ura(e, ev->ura, ev->nura);
	size_t j = i;
	for (; j < c->g->n; j++) {
		const hy_event *h = &c->g->ev[j];
		if (h->type != HY_EV_HORA)
			break;
		if (h->flags & HY_EVF_URA)
			hy_engine_set_ura(e, h->ura, h->nura);
		if (h->actor > 3 || !(e->call_pending >> h->actor & 1)) {
			illegal(c, j, "no ron chance for this seat");
			return j;
		}
		hy_action a = {.type = HY_ACT_RON, .tile = e->last_tile};
		if (!act(c, j, h->actor, &a))
			return j;
	}
	if (!pass_all(c, i))
		return j - 1;
	for (size_t k = i; k < j && !c->skipping; k++)
		check_hora(c, k);
	return j - 1;
}

/* A hora event: a tsumo on the seat's turn, else the ron(s) of a window;
 * the index of the last event it took. */
static size_t hora(rctx *c, size_t i)
{
	const hy_event *ev = &c->g->ev[i];
	hy_engine *e = &c->e;
	if (ev->actor == ev->target || ev->target > 3) {
		if (ev->flags & HY_EVF_URA)
			hy_engine_set_ura(e, ev->ura, ev->nura);
		hy_action a = {.type = HY_ACT_TSUMO, .tile = ev->pai};
		if (e->phase != HY_PH_TURN || ev->actor != e->actor) {
			illegal(c, i, "not this seat's turn");
			return i;
		}
		if (act(c, i, ev->actor, &a))
			check_hora(c, i);
		return i;
	}
	if (!in_window(e)) {
		illegal(c, i, "no discard or kan to win on");
		return i;
	}
	return rons(c, i);
}

/* A ryukyoku event: nine terminals on a turn, or the end of the wall
 * (a window's triple ron first, when the log shows the abortive draw). */
static void ryukyoku(rctx *c, size_t i)
{
	hy_engine *e = &c->e;
	if (e->phase == HY_PH_TURN) {
		hy_action a = {.type = HY_ACT_KYUUSHU};
		if (!act(c, i, e->actor, &a))
			return;
	} else if (in_window(e)) {
		int n = 0;
		for (int s = 0; s < 4; s++)
			n += (e->call_pending >> s & 1) && (e->call_opts[s] & 1);
		if (n == 3) {
			hy_action a = {.type = HY_ACT_RON, .tile = e->last_tile};
			for (int s = 0; s < 4 && !c->skipping; s++)
				if ((e->call_pending >> s & 1) && (e->call_opts[s] & 1))
					act(c, i, s, &a);
		}
		if (!c->skipping && !pass_all(c, i))
			return;
	}
	if (!c->skipping)
		check_ryukyoku(c, i);
}

static size_t step(rctx *c, size_t i)
{
	const hy_event *ev = &c->g->ev[i];
	hy_engine *e = &c->e;
	hy_diag d;
	d.msg[0] = 0;
	switch (ev->type) {
	case HY_EV_START_KYOKU:
		start_kyoku(c, i);
		return i;
	case HY_EV_START_GAME:
		return i;
	case HY_EV_END_GAME:
		check_final(c, i);
		return i;
	default:
		break;
	}
	if (c->skipping || !c->in_kyoku)
		return i;
	switch (ev->type) {
	case HY_EV_DORA:
		if (hy_engine_feed_indicator(e, ev->dora_marker, &d) != HY_OK)
			illegal(c, i, d.msg);
		break;
	case HY_EV_TSUMO:
		if (in_window(e) && !pass_all(c, i))
			break;
		if (e->phase != HY_PH_DRAW || ev->actor != e->actor) {
			illegal(c, i, "not this seat's draw");
			break;
		}
		if (ev->pai >= HY_TILE_UNKNOWN) {
			c->skipping = 1;
			c->rep->skipped_kyoku++;
			break;
		}
		if (hy_engine_draw(e, ev->pai, &d) != HY_OK)
			illegal(c, i, d.msg);
		break;
	case HY_EV_DAHAI: {
		hy_action a = {.type = HY_ACT_DISCARD, .tile = ev->pai};
		if (ev->actor != e->actor || (e->phase != HY_PH_TURN && e->phase != HY_PH_RIICHI)) {
			illegal(c, i, "not this seat's turn");
			break;
		}
		act(c, i, ev->actor, &a);
		break;
	}
	case HY_EV_REACH: {
		hy_action a = {.type = HY_ACT_RIICHI};
		if (ev->actor != e->actor || e->phase != HY_PH_TURN) {
			illegal(c, i, "not this seat's turn");
			break;
		}
		act(c, i, ev->actor, &a);
		break;
	}
	case HY_EV_REACH_ACCEPTED:
		/* accepted by the engine when the declaration tile's window closes
		 * without a ron; a call after it is still to come */
		break;
	case HY_EV_CHI:
		call(c, i, HY_ACT_CHI);
		break;
	case HY_EV_PON:
		call(c, i, HY_ACT_PON);
		break;
	case HY_EV_DAIMINKAN:
		call(c, i, HY_ACT_DAIMINKAN);
		break;
	case HY_EV_KAKAN:
	case HY_EV_ANKAN: {
		if (in_window(e) && !pass_all(c, i))
			break;
		hy_action a = {.type = ev->type == HY_EV_KAKAN ? HY_ACT_KAKAN : HY_ACT_ANKAN,
			       .tile = ev->pai, .nconsumed = ev->nconsumed};
		memcpy(a.consumed, ev->consumed, 4);
		if (ev->type == HY_EV_ANKAN)
			a.tile = (uint8_t)hy_tile_kind(ev->consumed[0]);
		if (ev->actor != e->actor || e->phase != HY_PH_TURN) {
			illegal(c, i, "not this seat's turn");
			break;
		}
		act(c, i, ev->actor, &a);
		break;
	}
	case HY_EV_HORA:
		return hora(c, i);
	case HY_EV_RYUKYOKU:
		ryukyoku(c, i);
		break;
	case HY_EV_END_KYOKU:
		if (e->phase != HY_PH_KYOKU_END)
			illegal(c, i, "the kyoku is not over");
		break;
	default:
		break;
	}
	return i;
}

hy_status hy_replay_game(const hy_game *g, hy_replay_report *rep, hy_diag *d)
{
	if (!g || !rep)
		return hy_diag_set(d, HY_EUSAGE, 0, "replay: no game or report");
	rctx *c = &(rctx){0};
	c->g = g;
	c->rep = rep;
	c->stop = HY_OK;
	hy_rules r;
	hy_rules_default(&r);
	hy_engine_init(&c->e, &r, NULL);
	rep->games++;
	for (size_t i = 0; i < g->n && c->stop == HY_OK; i++) {
		if (rep->before) {
			const hy_event *ev = &g->ev[i];
			int live = c->in_kyoku && !c->skipping && ev->type != HY_EV_START_KYOKU &&
				   ev->type != HY_EV_START_GAME && ev->type != HY_EV_END_GAME;
			hy_status s = rep->before(rep->ctx, &c->e, g, i, live);
			if (s != HY_OK)
				return s;
		}
		rep->events++;
		i = step(c, i);
	}
	if (c->stop == HY_OK && rep->before)
		return rep->before(rep->ctx, &c->e, g, g->n, 0);
	return c->stop;
}
