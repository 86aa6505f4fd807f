/* One seat's view of a game with placeholder opponent hands (seatview.h). */
#include "play/seatview.h"

#include <string.h>

#include "core/tile.h"
#include "engine/replay.h"
#include "hand/shanten.h"

/* ------------------------------------------------------------ tile accounting */

/* Copies of a tile code in the game: red fives 1, plain fives 3, else 4. */
static int code_limit(int t)
{
	if (hy_tile_is_red(t))
		return 1;
	return hy_tile_red_of(t) >= 0 ? 3 : 4;
}

/* Copies of code t in a concealed hand. */
static int code_count(const hy_player *p, int t)
{
	if (hy_tile_is_red(t))
		return p->red[t - HY_TILE_5MR];
	int r = hy_tile_red_of(t);
	return p->cnt[t] - (r >= 0 ? p->red[t / 9] : 0);
}

/* The engine keeps the waits of 13-tile (3n+1) hands. */
static void refresh_waits(hy_player *p)
{
	if (p->nconc % 3 != 1)
		return;
	p->waits = hy_shanten(p->cnt, p->nmelds) == 0 ? hy_hand_waits(p->cnt, p->nmelds) : 0;
}

/* One placeholder `from` of p becomes `to`; the drawn marker follows when
 * the last copy of the drawn code goes. */
static void hand_swap(hy_player *p, int from, int to)
{
	hy_player_remove(p, from);
	hy_player_add(p, to);
	if (p->drawn == from && code_count(p, from) == 0)
		p->drawn = (uint8_t)to;
}

/* Every copy of every code the engine holds: concealed hands (placeholders
 * included), melds, rivers (a called tile sits in its meld) and the dora
 * indicators given so far. */
static void count_all(const hy_engine *e, int tot[HY_TILE_CODES])
{
	memset(tot, 0, HY_TILE_CODES * sizeof tot[0]);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		for (int t = 0; t < HY_TILE_UNKNOWN; t++)
			tot[t] += code_count(p, t);
		for (int i = 0; i < p->nmelds; i++)
			for (int j = 0; j < p->melds[i].ntiles; j++)
				if (p->melds[i].tiles[j] < HY_TILE_UNKNOWN)
					tot[p->melds[i].tiles[j]]++;
		for (int i = 0; i < p->nriver && i < 32; i++)
			if (!(p->river_flags[i] & HY_RIVER_CALLED) && p->river[i] < HY_TILE_UNKNOWN)
				tot[p->river[i]]++;
	}
	for (int i = 0; i < e->nind_known && i < 5; i++)
		if (e->dora_ind[i] < HY_TILE_UNKNOWN)
			tot[e->dora_ind[i]]++;
}

/* The code with the most unseen copies left (lowest on ties), other than
 * `not`; -1 when every copy is placed. */
static int spare_code(const int tot[HY_TILE_CODES], int not)
{
	int best = -1, most = 0;
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		int left = code_limit(t) - tot[t];
		if (t != not && left > most) {
			most = left;
			best = t;
		}
	}
	return best;
}

typedef uint8_t pins_t[4][HY_TILE_CODES];

/* Exchanges opponents' placeholders of any code held beyond its copies for
 * unseen codes; pinned tiles (those an event is about to reveal) stay. */
static hy_status fix_counts(hy_seatview *v, pins_t pins, hy_diag *d)
{
	int tot[HY_TILE_CODES];
	count_all(&v->e, tot);
	for (int t = 0; t < HY_TILE_UNKNOWN; t++) {
		while (tot[t] > code_limit(t)) {
			int victim = -1;
			for (int s = 0; s < 4 && victim < 0; s++) {
				const hy_player *p = &v->e.p[s];
				if (s != v->seat && code_count(p, t) > pins[s][t])
					victim = s;
			}
			int to = spare_code(tot, t);
			if (victim < 0 || to < 0)
				return hy_diag_set(d, HY_EDATA, 0, "more than %d copies of %s in play",
						   code_limit(t), hy_tile_to_mjai(t));
			hand_swap(&v->e.p[victim], t, to);
			refresh_waits(&v->e.p[victim]);
			tot[t]--;
			tot[to]++;
		}
	}
	return HY_OK;
}

/* Makes opponent s hold the n tiles `need` (codes; pinned in pins[s]) by
 * exchanging other placeholders of its hand for them; keep_drawn spares the
 * drawn tile. Then restores the per-code limits. */
static hy_status rig(hy_seatview *v, int s, const uint8_t *need, int n, int keep_drawn,
		     pins_t pins, hy_diag *d)
{
	hy_player *p = &v->e.p[s];
	for (int i = 0; i < n; i++) {
		if (need[i] >= HY_TILE_UNKNOWN)
			return hy_diag_set(d, HY_EDATA, 0, "seat %d reveals an unknown tile", s);
		pins[s][need[i]]++;
	}
	for (int i = 0; i < n; i++) {
		int t = need[i];
		while (code_count(p, t) < pins[s][t]) {
			int victim = -1;
			for (int u = 0; u < HY_TILE_UNKNOWN && victim < 0; u++) {
				int spare = code_count(p, u) - pins[s][u];
				if (keep_drawn && p->drawn == u)
					spare--;
				if (u != t && spare > 0)
					victim = u;
			}
			if (victim < 0)
				return hy_diag_set(d, HY_EDATA, 0,
						   "seat %d cannot hold the tiles it reveals", s);
			hand_swap(p, victim, t);
		}
	}
	refresh_waits(p);
	return fix_counts(v, pins, d);
}

/* ------------------------------------------------------------ transitions */

void hy_seatview_init(hy_seatview *v, int seat)
{
	memset(v, 0, sizeof *v);
	v->seat = seat & 3;
	v->give_seat = -1;
	hy_engine_init(&v->e, NULL, NULL);
	hy_obs_track_reset(&v->trk);
}

uint64_t hy_seatview_legal(const hy_seatview *v)
{
	return hy_engine_legal_mask(&v->e, v->seat);
}

void hy_seatview_obs(const hy_seatview *v, uint16_t obs[HY_OBS_SIZE])
{
	hy_obs_encode(&v->e, &v->trk, v->seat, obs);
}

static int in_window(const hy_engine *e)
{
	return e->phase == HY_PH_CALL || e->phase == HY_PH_CHANKAN;
}

/* Every seat still to answer the open window passes (except `keep`). */
static void pass_all(hy_engine *e, int keep)
{
	hy_action pass = {.type = HY_ACT_PASS};
	while (in_window(e)) {
		unsigned m = e->call_pending & ~(keep >= 0 ? 1u << keep : 0u);
		if (!m)
			break;
		hy_engine_apply(e, __builtin_ctz(m), &pass, NULL);
	}
}

/* The message of an event the view cannot apply. */
static hy_status reject(hy_seatview *v, const hy_event *ev, const char *why, hy_diag *d)
{
	char st[200];
	hy_engine_describe(&v->e, st, sizeof st);
	return hy_diag_set(d, HY_EDATA, ev->line, "seat %d view: %s (actor %d, pai %s): %s; state: %s",
			   v->seat, hy_ev_type_name(ev->type),
			   ev->actor < 4 ? ev->actor : -1,
			   ev->pai < HY_TILE_CODES ? hy_tile_to_mjai(ev->pai) : "-", why, st);
}

static hy_status start_kyoku(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	if (v->in_kyoku && !v->result)
		return reject(v, ev, "the kyoku before has no result (no hora or ryukyoku)", d);
	if (!(ev->flags & HY_EVF_TEHAIS))
		return reject(v, ev, "no hands given", d);
	for (int i = 0; i < 13; i++)
		if (ev->tehais[v->seat][i] >= HY_TILE_UNKNOWN)
			return reject(v, ev, "the seat's own hand is not known", d);
	hy_obs_track_reset(&v->trk);
	hy_replay_set_round(e, ev);
	/* placeholders: the unseen codes, spread (most copies left first) */
	int tot[HY_TILE_CODES] = {0};
	uint8_t hands[4][13];
	memcpy(hands[v->seat], ev->tehais[v->seat], 13);
	for (int i = 0; i < 13; i++)
		tot[hands[v->seat][i]]++;
	if (ev->dora_marker >= HY_TILE_UNKNOWN)
		return reject(v, ev, "bad dora indicator", d);
	tot[ev->dora_marker]++;
	for (int s = 0; s < 4; s++) {
		if (s == v->seat)
			continue;
		for (int i = 0; i < 13; i++) {
			int t = spare_code(tot, -1);
			if (t < 0)
				return reject(v, ev, "no tiles left for the other hands", d);
			hands[s][i] = (uint8_t)t;
			tot[t]++;
		}
	}
	hy_diag ed;
	hy_diag_init(&ed, NULL);
	if (hy_engine_start_kyoku(e, (const uint8_t(*)[13])hands, ev->dora_marker, &ed) != HY_OK)
		return reject(v, ev, ed.msg, d);
	v->in_kyoku = 1;
	v->snap_ok = 0;
	v->give_seat = -1;
	v->result = v->winners = v->win_tsumo = v->reach_acc = 0;
	return HY_OK;
}

/* The kyoku ends with the result the event gives. */
static void finish(hy_seatview *v, const hy_event *ev, int kind)
{
	hy_engine *e = &v->e;
	if (e->phase == HY_PH_KYOKU_END && e->res.kind == HY_RES_EXHAUSTIVE) {
		for (int s = 0; s < 4; s++)
			e->scores[s] -= e->res.deltas[s]; /* from placeholder hands */
		memset(e->res.deltas, 0, sizeof e->res.deltas); /* once (double ron) */
	}
	if (e->phase != HY_PH_KYOKU_END) {
		memset(&e->res, 0, sizeof e->res);
		e->res.kind = (uint8_t)kind;
	}
	if (ev->flags & HY_EVF_SCORES)
		memcpy(e->scores, ev->scores, sizeof e->scores);
	else if (ev->flags & HY_EVF_DELTAS)
		for (int s = 0; s < 4; s++)
			e->scores[s] += ev->deltas[s];
	if (kind == HY_RES_HORA)
		e->kyotaku = 0;
	e->phase = HY_PH_KYOKU_END;
	e->call_pending = 0;
}

static hy_status draw(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	pass_all(e, -1);
	if (e->phase != HY_PH_DRAW || ev->actor != e->actor)
		return reject(v, ev, "not this seat's draw", d);
	int t = ev->pai;
	pins_t pins = {{0}};
	if (ev->actor != v->seat) {
		int tot[HY_TILE_CODES];
		count_all(e, tot);
		t = spare_code(tot, -1);
		if (t < 0)
			return reject(v, ev, "no tile left to draw", d);
	} else if (t >= HY_TILE_UNKNOWN) {
		return reject(v, ev, "the seat's own draw is not known", d);
	}
	hy_diag ed;
	hy_diag_init(&ed, NULL);
	if (hy_engine_draw(e, t, &ed) != HY_OK)
		return reject(v, ev, ed.msg, d);
	return fix_counts(v, pins, d);
}

/* Re-points an opponent's drawn marker to another code it holds. */
static void move_drawn(hy_player *p, int not)
{
	for (int t = 0; t < HY_TILE_UNKNOWN; t++)
		if (t != not && code_count(p, t) > 0) {
			p->drawn = (uint8_t)t;
			return;
		}
}

static hy_status discard(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	int a = ev->actor, y = ev->pai;
	if (a != e->actor || (e->phase != HY_PH_TURN && e->phase != HY_PH_RIICHI))
		return reject(v, ev, "not this seat's turn", d);
	if (y >= HY_TILE_UNKNOWN)
		return reject(v, ev, "unknown tile", d);
	hy_action act = {.type = HY_ACT_DISCARD, .tile = (uint8_t)y};
	if (a == v->seat) {
		if (!hy_engine_is_legal(e, a, &act))
			return reject(v, ev, "not among the seat's legal actions", d);
	} else {
		hy_player *p = &e->p[a];
		pins_t pins = {{0}};
		int tg = (ev->flags & HY_EVF_TSUMOGIRI) && ev->tsumogiri && p->drawn != HY_TILE_NONE;
		if (tg) {
			if (code_count(p, y) == 0) {
				int old = p->drawn;
				hand_swap(p, old, y);
			}
			p->drawn = (uint8_t)y;
			pins[a][y] = 1;
			hy_status s = fix_counts(v, pins, d);
			if (s != HY_OK)
				return s;
		} else {
			if (p->drawn == y && code_count(p, y) == 1)
				move_drawn(p, y);
			uint8_t need = (uint8_t)y;
			hy_status s = rig(v, a, &need, 1, 1, pins, d);
			if (s != HY_OK)
				return s;
			if (p->drawn == y && code_count(p, y) == 1)
				move_drawn(p, y);
		}
	}
	v->snap = *e;
	v->snap_ok = 1;
	v->nsnap_ind = 0;
	hy_obs_track_event(&v->trk, e, ev);
	hy_engine_apply(e, a, &act, NULL);
	v->give_seat = a;
	v->give_tile = (uint8_t)y;
	v->give_kan = 0;
	return HY_OK;
}

static hy_status call(hy_seatview *v, const hy_event *ev, int type, hy_diag *d)
{
	hy_engine *e = &v->e;
	int c = ev->actor;
	hy_action act = {.type = (uint8_t)type, .tile = ev->pai, .nconsumed = ev->nconsumed};
	memcpy(act.consumed, ev->consumed, 4);
	if (c != v->seat) {
		/* replay the discard with the caller holding the called tiles
		 * (without them the window may have closed already) */
		if (!v->snap_ok)
			return reject(v, ev, "the discard to call is not known", d);
		int disc = v->snap.actor;
		if (c == disc || ev->pai != e->last_tile ||
		    (ev->target < 4 && ev->target != disc))
			return reject(v, ev, "not the tile just discarded", d);
		*e = v->snap;
		for (int i = 0; i < v->nsnap_ind; i++)
			hy_engine_feed_indicator(e, v->snap_ind[i], NULL);
		pins_t pins = {{0}};
		pins[disc][act.tile]++;
		hy_status s = rig(v, c, act.consumed, act.nconsumed, 0, pins, d);
		if (s != HY_OK)
			return s;
		hy_action dis = {.type = HY_ACT_DISCARD, .tile = act.tile};
		hy_engine_apply(e, disc, &dis, NULL);
		if (e->phase != HY_PH_CALL)
			return reject(v, ev, "the replayed discard opened no call window", d);
	}
	if (e->phase != HY_PH_CALL || c == e->actor)
		return reject(v, ev, "no call window for this seat", d);
	if (ev->pai != e->last_tile || (ev->target < 4 && ev->target != e->actor))
		return reject(v, ev, "not the tile just discarded", d);
	if (!hy_engine_is_legal(e, c, &act))
		return reject(v, ev, "not among the caller's legal actions", d);
	pass_all(e, c);
	hy_obs_track_event(&v->trk, e, ev); /* the call's time (obs plane 74+o) */
	hy_engine_apply(e, c, &act, NULL);
	v->snap_ok = 0;
	return HY_OK;
}

static hy_status kan_self(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	int a = ev->actor;
	pass_all(e, -1);
	if (a != e->actor || e->phase != HY_PH_TURN)
		return reject(v, ev, "not this seat's turn", d);
	int ankan = ev->type == HY_EV_ANKAN;
	hy_action act = {.type = ankan ? HY_ACT_ANKAN : HY_ACT_KAKAN, .tile = ev->pai,
			 .nconsumed = ev->nconsumed};
	memcpy(act.consumed, ev->consumed, 4);
	if (ankan) {
		if (ev->nconsumed != 4 || ev->consumed[0] >= HY_TILE_UNKNOWN)
			return reject(v, ev, "bad consumed tiles", d);
		act.tile = (uint8_t)hy_tile_kind(ev->consumed[0]);
	}
	if (a != v->seat) {
		pins_t pins = {{0}};
		hy_status s = ankan ? rig(v, a, act.consumed, 4, 0, pins, d)
				    : rig(v, a, &act.tile, 1, 0, pins, d);
		if (s != HY_OK)
			return s;
	}
	if (!hy_engine_is_legal(e, a, &act)) {
		if (a == v->seat)
			return reject(v, ev, "not among the seat's legal actions", d);
		/* an opponent's kan in riichi or with a placeholder hand the
		 * engine would not allow: apply it as the log says */
		const hy_player *p = &e->p[a];
		int k = hy_tile_kind(act.tile), pon = 0;
		for (int i = 0; i < p->nmelds; i++)
			pon |= p->melds[i].type == HY_MELD_PON && hy_tile_kind(p->melds[i].tiles[0]) == k;
		if (k < 0 || (ankan ? p->cnt[k] != 4 || p->nmelds >= 4 : !p->cnt[k] || !pon))
			return reject(v, ev, "the seat cannot make this kan", d);
	}
	hy_obs_track_event(&v->trk, e, ev);
	hy_engine_apply(e, a, &act, NULL);
	v->give_seat = a;
	v->give_tile = act.tile;
	v->give_kan = ankan ? 2 : 1;
	return HY_OK;
}

static hy_status reach(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	hy_action act = {.type = HY_ACT_RIICHI};
	if (ev->actor != e->actor || e->phase != HY_PH_TURN)
		return reject(v, ev, "not this seat's turn", d);
	if (ev->actor == v->seat && !hy_engine_is_legal(e, v->seat, &act))
		return reject(v, ev, "not among the seat's legal actions", d);
	hy_obs_track_event(&v->trk, e, ev);
	hy_engine_apply(e, ev->actor, &act, NULL);
	return HY_OK;
}

static hy_status reach_accepted(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	const hy_engine *e = &v->e;
	int a = ev->actor;
	if (a > 3)
		return reject(v, ev, "no actor", d);
	if (!e->p[a].riichi || (v->reach_acc >> a & 1))
		return reject(v, ev, "no reach of this seat to accept", d);
	if (e->phase == HY_PH_RIICHI && e->actor == a)
		return reject(v, ev, "the reach's discard has not been made", d);
	/* the engine accepts the declaration when its window closes */
	v->reach_acc |= (uint8_t)(1u << a);
	return HY_OK;
}

/* A win. Its tile: the winner's own draw on its turn (target = actor) or
 * the tile the target just discarded or added to a kan; a second win only
 * as another seat's ron on the same tile (double ron). The seat's own win
 * must be legal in the engine (its hand is known: a winning hand with a
 * yaku, not furiten), judged on the state before the first win. */
static hy_status hora(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	int a = ev->actor, tg = ev->target, tsumo = a == tg;
	if (tg > 3)
		return reject(v, ev, "no target", d);
	if (v->result == HY_EV_RYUKYOKU)
		return reject(v, ev, "the kyoku already ended in a ryukyoku", d);
	if (v->result == HY_EV_HORA &&
	    (tsumo || v->win_tsumo || (v->winners >> a & 1) || __builtin_popcount(v->winners) >= 2))
		return reject(v, ev, "a second win can only be another seat's ron on the same tile", d);
	if (!v->result && (e->phase == HY_PH_NEW_KYOKU || e->phase == HY_PH_GAME_END))
		return reject(v, ev, "nothing to win on", d);
	if (!v->result)
		v->pre_win = *e;
	const hy_engine *at = &v->pre_win;
	int tile;
	if (tsumo) {
		if (at->phase != HY_PH_TURN || at->actor != a || at->after_call)
			return reject(v, ev, "not a draw of this seat to win on", d);
		tile = a == v->seat ? at->p[a].drawn : ev->pai;
		if (ev->pai < HY_TILE_UNKNOWN && ev->pai != tile)
			return reject(v, ev, "not the tile the seat drew", d);
	} else {
		if (v->give_seat != tg)
			return reject(v, ev, "the target did not just discard or add to a kan", d);
		tile = v->give_tile;
		int same = v->give_kan == 2 ? hy_tile_kind(ev->pai) == hy_tile_kind(tile)
					    : ev->pai == tile;
		if (ev->pai < HY_TILE_UNKNOWN && !same)
			return reject(v, ev, "not the tile the target just gave", d);
	}
	if (a == v->seat) {
		hy_action act = {.type = tsumo ? HY_ACT_TSUMO : HY_ACT_RON, .tile = (uint8_t)tile};
		if (!hy_engine_is_legal(at, a, &act))
			return reject(v, ev,
				      "the seat's hand does not win on this tile (no winning "
				      "shape, no yaku, or furiten)", d);
	}
	finish(v, ev, HY_RES_HORA);
	v->result = HY_EV_HORA;
	v->winners |= (uint8_t)(1u << a);
	v->win_tsumo = (uint8_t)tsumo;
	return HY_OK;
}

/* A draw: nine terminals on the seat's first turn, or the end the engine
 * reaches itself (wall empty, four winds, four riichi, four kans), or three
 * rons on the tile just given (the placeholder hands cannot win). */
static hy_status ryukyoku(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	if (v->result)
		return reject(v, ev, "the kyoku has already ended", d);
	if (e->phase == HY_PH_TURN) {
		int a = e->actor;
		hy_action act = {.type = HY_ACT_KYUUSHU};
		if ((ev->flags & HY_EVF_ACTOR) && ev->actor != a)
			return reject(v, ev, "not this seat's turn", d);
		if (a == v->seat ? !hy_engine_is_legal(e, a, &act)
				 : !e->first_go || e->p[a].nriver || e->after_call)
			return reject(v, ev, "no nine-terminal draw here", d);
		finish(v, ev, HY_RES_KYUUSHU);
	} else {
		int three_rons = v->give_seat >= 0;
		if (in_window(e))
			pass_all(e, -1);
		if (e->phase != HY_PH_KYOKU_END && !three_rons)
			return reject(v, ev,
				      "nothing ends the kyoku here (wall not empty, no abortive "
				      "draw)", d);
		finish(v, ev, HY_RES_SANCHAHOU);
	}
	v->result = HY_EV_RYUKYOKU;
	return HY_OK;
}

static hy_status apply(hy_seatview *v, const hy_event *ev, hy_diag *d);

hy_status hy_seatview_event(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	v->nevents++;
	int t = ev->type;
	hy_status s = apply(v, ev, d);
	if (t != HY_EV_DAHAI && t != HY_EV_DORA && t != HY_EV_REACH_ACCEPTED)
		v->snap_ok = 0;
	if (t != HY_EV_DAHAI && t != HY_EV_KAKAN && t != HY_EV_ANKAN && t != HY_EV_DORA &&
	    t != HY_EV_REACH_ACCEPTED && t != HY_EV_HORA)
		v->give_seat = -1;
	return s;
}

static hy_status apply(hy_seatview *v, const hy_event *ev, hy_diag *d)
{
	hy_engine *e = &v->e;
	int t = ev->type;
	if (t == HY_EV_START_GAME) {
		hy_engine_init(e, NULL, NULL);
		hy_obs_track_reset(&v->trk);
		v->started = 1;
		v->in_kyoku = 0;
		return HY_OK;
	}
	if (e->phase == HY_PH_GAME_END)
		return reject(v, ev, "the game has ended", d);
	switch (t) {
	case HY_EV_START_KYOKU:
		return start_kyoku(v, ev, d);
	case HY_EV_END_KYOKU:
		if (!v->in_kyoku || !v->result)
			return reject(v, ev, "the kyoku has no result (no hora or ryukyoku)", d);
		v->in_kyoku = 0;
		return HY_OK;
	case HY_EV_END_GAME: /* a server may end a game at any time */
		if (ev->flags & HY_EVF_SCORES) {
			memcpy(e->scores, ev->scores, sizeof e->scores);
			memcpy(e->final_scores, ev->scores, sizeof e->scores);
		}
		e->phase = HY_PH_GAME_END;
		v->in_kyoku = 0;
		return HY_OK;
	default:
		break;
	}
	if (!v->in_kyoku)
		return reject(v, ev, "no kyoku in progress", d);
	if (t != HY_EV_DORA && t != HY_EV_REACH_ACCEPTED && t != HY_EV_RYUKYOKU &&
	    ev->actor > 3)
		return reject(v, ev, "no actor", d);
	switch (t) {
	case HY_EV_TSUMO:
		return draw(v, ev, d);
	case HY_EV_DAHAI:
		return discard(v, ev, d);
	case HY_EV_CHI:
		return call(v, ev, HY_ACT_CHI, d);
	case HY_EV_PON:
		return call(v, ev, HY_ACT_PON, d);
	case HY_EV_DAIMINKAN:
		return call(v, ev, HY_ACT_DAIMINKAN, d);
	case HY_EV_KAKAN:
	case HY_EV_ANKAN:
		return kan_self(v, ev, d);
	case HY_EV_REACH:
		return reach(v, ev, d);
	case HY_EV_REACH_ACCEPTED:
		return reach_accepted(v, ev, d);
	case HY_EV_DORA: {
		hy_diag ed;
		hy_diag_init(&ed, NULL);
		if (!hy_engine_indicators_wanted(e))
			return reject(v, ev, "no kan to reveal an indicator for", d);
		if (hy_engine_feed_indicator(e, ev->dora_marker, &ed) != HY_OK)
			return reject(v, ev, ed.msg, d);
		if (v->snap_ok && v->nsnap_ind < 5)
			v->snap_ind[v->nsnap_ind++] = ev->dora_marker;
		pins_t pins = {{0}};
		return fix_counts(v, pins, d);
	}
	case HY_EV_HORA:
		/* the window of a discard may have closed in the view (no
		 * placeholder hand could win on it): hora() checks the tile */
		return hora(v, ev, d);
	case HY_EV_RYUKYOKU:
		return ryukyoku(v, ev, d);
	default:
		return reject(v, ev, "unknown event", d);
	}
}
