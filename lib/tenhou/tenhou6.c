/* tenhou.net/6 JSON → hy_game, through jansson.
 *
 * A game is one object {"name": [...], "rule": {...}, "log": [kyoku...],
 * "sc": [...]?} ("sc": final score and points per player, or score, points
 * and chips in the chip lobbies); an mjscore file holds one such object per
 * line, each with one kyoku, and is read as one game. A kyoku is
 *   [[round, honba, sticks], scores[4], dora[], ura[],
 *    haipai0, takes0, discards0, …, haipai3, takes3, discards3, result]
 * with tiles 11–19/21–29/31–39 (m/p/s), 41–47 (E S W N P F C), 51–53 (red
 * fives), 60 = tsumogiri, 0 = the slot a daiminkan leaves in the discards,
 * and calls as strings ("c275226", "12p1212", "m39393939", "r35",
 * "4646k4646", "424242a42"; the letter's position names the seat called
 * from, the tile right after it is the called / added one).
 *
 * The format keeps each player's takes and discards apart, so the order of
 * play is recovered by replaying the kyoku: after a discard the next actor
 * is a player whose next take calls that very tile from that seat (pon or
 * kan before chi), else the next seat draws. Where a call could belong to
 * either of two identical discards, both readings are tried (depth-first,
 * with the hands replayed by the builder's simulator) and the first that
 * consumes every take and discard and ends as the result says is kept.
 *
 * Provenance: e->line is the 1-based kyoku index in the game (for an
 * mjscore file, that is also its line). */
#include "tenhou/tenhou.h"
#include "core/grow.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "tenhou/builder.h"
#include "tenhou/internal.h"

enum { T6_TSUMO = 1, T6_CALL, T6_DAHAI, T6_REACH_DAHAI, T6_KAKAN, T6_ANKAN, T6_SKIP };
enum { P_TAKE = 0, P_CALL, P_DISCARD };
enum { STEP_LIMIT = 1000000 };

typedef struct t6_item {
	uint8_t kind;
	hy_tk_act act;
} t6_item;

typedef struct t6_player {
	t6_item *take, *disc;
	size_t nt, nd;
} t6_player;

typedef struct t6_state {
	uint16_t ti[4], di[4];
	uint8_t actor, phase;
	hy_tk_sim sim;
	size_t nacts;
} t6_state;

typedef struct t6_choice {
	t6_state st;
	uint8_t opts[4];
	uint8_t nopt, next;
} t6_choice;

static int t6_tile(json_int_t v)
{
	if (v >= 11 && v <= 19)
		return (int)v - 11;
	if (v >= 21 && v <= 29)
		return 9 + (int)v - 21;
	if (v >= 31 && v <= 39)
		return 18 + (int)v - 31;
	if (v >= 41 && v <= 47)
		return 27 + (int)v - 41;
	if (v >= 51 && v <= 53)
		return HY_TILE_5MR + (int)v - 51;
	return -1;
}

static void blank_act(hy_tk_act *a, int type, int actor, uint32_t line)
{
	memset(a, 0, sizeof *a);
	a->type = (uint8_t)type;
	a->actor = (uint8_t)actor;
	a->target = HY_NO_SEAT;
	a->pai = HY_TILE_NONE;
	memset(a->consumed, HY_TILE_NONE, sizeof a->consumed);
	a->line = line;
}

/* Parses a call string into it (kind and act); 0 if malformed. take: the
 * string is in the takes (chi/pon/daiminkan), else in the discards. */
static int parse_call(const char *s, int actor, int take, uint32_t line, t6_item *it)
{
	size_t n = strlen(s);
	int letter = -1, pos = -1;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9') {
			if (letter >= 0)
				return 0;
			letter = s[i];
			pos = (int)i;
		}
	if (letter < 0 || (n - 1) % 2)
		return 0;
	int tiles[4], nt = 0, called = -1;
	for (int i = 0; i < (int)n;) {
		if (i == pos) {
			i++;
			continue;
		}
		if (nt == 4 || i + 1 >= (int)n || i + 1 == pos || s[i] < '0' || s[i] > '9' ||
		    s[i + 1] < '0' || s[i + 1] > '9')
			return 0;
		if (i == pos + 1)
			called = nt;
		int t = t6_tile((s[i] - '0') * 10 + (s[i + 1] - '0'));
		if (letter == 'r' && s[i] == '6' && s[i + 1] == '0')
			t = HY_TILE_NONE;
		if (t < 0)
			return 0;
		tiles[nt++] = t;
		i += 2;
	}
	hy_tk_act *a = &it->act;
	int type, off = -1;
	switch (letter) {
	case 'c': type = HY_EV_CHI; off = pos == 0 && nt == 3 ? 3 : -1; break;
	case 'p': type = HY_EV_PON; off = nt != 3 ? -1 : pos == 0 ? 3 : pos == 2 ? 2 : pos == 4 ? 1 : -1; break;
	case 'm': type = HY_EV_DAIMINKAN; off = nt != 4 ? -1 : pos == 0 ? 3 : pos == 2 ? 2 : pos == 6 ? 1 : -1; break;
	case 'k': type = HY_EV_KAKAN; off = nt == 4 && pos % 2 == 0 && pos <= 6 ? 0 : -1; break;
	case 'a': type = HY_EV_ANKAN; off = nt == 4 ? 0 : -1; break;
	case 'r': type = HY_EV_DAHAI; off = nt == 1 && pos == 0 ? 0 : -1; break;
	default: return 0;
	}
	if (off < 0 || (take != (letter == 'c' || letter == 'p' || letter == 'm')))
		return 0;
	blank_act(a, type, actor, line);
	if (letter == 'r') {
		it->kind = T6_REACH_DAHAI;
		a->pai = (uint8_t)tiles[0];
		a->tsumogiri = tiles[0] == HY_TILE_NONE;
		return 1;
	}
	if (letter == 'a') {
		it->kind = T6_ANKAN;
		for (int i = 0; i < 4; i++)
			a->consumed[i] = (uint8_t)tiles[i];
		a->nconsumed = 4;
		return 1;
	}
	if (called < 0)
		return 0;
	it->kind = letter == 'k' ? T6_KAKAN : T6_CALL;
	if (letter != 'k')
		a->target = (uint8_t)((actor + off) % 4);
	a->pai = (uint8_t)tiles[called];
	for (int i = 0; i < nt; i++)
		if (i != called)
			a->consumed[a->nconsumed++] = (uint8_t)tiles[i];
	return 1;
}

static int parse_items(json_t *arr, int actor, int take, uint32_t line, t6_item **out, size_t *n)
{
	size_t sz = json_array_size(arr);
	*out = NULL;
	*n = 0;
	if (!json_is_array(arr))
		return 0;
	t6_item *items = calloc(sz ? sz : 1, sizeof *items);
	if (!items)
		return -1;
	for (size_t i = 0; i < sz; i++) {
		json_t *v = json_array_get(arr, i);
		t6_item *it = &items[i];
		if (json_is_integer(v)) {
			json_int_t x = json_integer_value(v);
			int t = t6_tile(x);
			if (take) {
				if (t < 0)
					goto bad;
				it->kind = T6_TSUMO;
				blank_act(&it->act, HY_EV_TSUMO, actor, line);
				it->act.pai = (uint8_t)t;
			} else if (x == 0) {
				it->kind = T6_SKIP;
			} else {
				if (t < 0 && x != 60)
					goto bad;
				it->kind = T6_DAHAI;
				blank_act(&it->act, HY_EV_DAHAI, actor, line);
				it->act.tsumogiri = x == 60;
				it->act.pai = x == 60 ? HY_TILE_NONE : (uint8_t)t;
			}
		} else if (json_is_string(v)) {
			if (!parse_call(json_string_value(v), actor, take, line, it))
				goto bad;
		} else {
			goto bad;
		}
	}
	*out = items;
	*n = sz;
	return 1;
bad:
	free(items);
	return 0;
}

static int exhausted(const t6_state *s, const t6_player *pl)
{
	for (int p = 0; p < 4; p++)
		if (s->ti[p] < pl[p].nt || s->di[p] < pl[p].nd)
			return 0;
	return 1;
}

/* Does the result fit a kyoku that ends after actor a's tsumo (after_take)
 * or discard / kan? */
static int result_fits(const hy_tk_kyoku *k, int a, int after_take)
{
	if (k->end == HY_TK_RYUKYOKU)
		return 1;
	for (int h = 0; h < k->nhora; h++) {
		const hy_tk_hora *w = &k->hora[h];
		if (after_take ? (w->actor != a || w->target != a) : (w->target != a || w->actor == a))
			return 0;
	}
	return k->nhora > 0;
}

static int add(hy_tk_kyoku *k, t6_state *s, const hy_tk_act *a0, int *oom)
{
	hy_tk_act a = *a0;
	if (hy_tk_sim_apply(&s->sim, &a))
		return 0;
	if (!hy_tk_kyoku_push(k, &a)) {
		*oom = 1;
		return 0;
	}
	return 1;
}

/* Applies option o (seat 0–3: that seat calls; 4+seat: that seat draws). */
static void take_option(t6_state *s, int o)
{
	s->actor = (uint8_t)(o & 3);
	s->phase = o >= 4 ? P_TAKE : P_CALL;
}

/* Orders the players' actions into k->acts. 1 ok, 0 no consistent order,
 * -1 out of memory. */
static int order_kyoku(hy_tk_kyoku *k, const t6_player *pl)
{
	size_t maxc = 1;
	for (int p = 0; p < 4; p++)
		maxc += pl[p].nd;
	t6_choice *stack = malloc(maxc * sizeof *stack);
	if (!stack)
		return -1;
	size_t nst = 0;
	int oom = 0, result = 0;
	t6_state s;
	memset(&s, 0, sizeof s);
	hy_tk_sim_start(&s.sim, k);
	s.actor = k->oya;
	s.phase = P_TAKE;
	k->nacts = 0;
	for (long steps = 0; steps < STEP_LIMIT; steps++) {
		int ok = 1, done = 0;
		int a = s.actor;
		const t6_player *P = &pl[a];
		if (s.phase == P_TAKE || s.phase == P_CALL) {
			const t6_item *it = s.ti[a] < P->nt ? &P->take[s.ti[a]] : NULL;
			if (!it || it->kind != (s.phase == P_TAKE ? T6_TSUMO : T6_CALL) ||
			    !add(k, &s, &it->act, &oom)) {
				ok = 0;
			} else {
				s.ti[a]++;
				if (it->act.type == HY_EV_DAIMINKAN) {
					if (s.di[a] >= P->nd || P->disc[s.di[a]].kind != T6_SKIP)
						ok = 0;
					s.di[a]++;
					s.phase = P_TAKE;
				} else if (it->kind == T6_TSUMO && s.di[a] >= P->nd) {
					done = 1;
					ok = exhausted(&s, pl) && result_fits(k, a, 1);
				} else {
					s.phase = P_DISCARD;
				}
			}
		} else {
			const t6_item *it = s.di[a] < P->nd ? &P->disc[s.di[a]] : NULL;
			if (!it || it->kind == T6_SKIP) {
				ok = 0;
			} else {
				s.di[a]++;
				if (it->kind == T6_REACH_DAHAI) {
					hy_tk_act r;
					blank_act(&r, HY_EV_REACH, a, it->act.line);
					ok = add(k, &s, &r, &oom);
				}
				ok = ok && add(k, &s, &it->act, &oom);
				if (ok && exhausted(&s, pl)) {
					done = 1;
					ok = result_fits(k, a, 0);
				} else if (ok && (it->kind == T6_KAKAN || it->kind == T6_ANKAN)) {
					s.phase = P_TAKE; /* replacement draw */
				} else if (ok) {
					uint8_t opts[4], n = 0;
					uint8_t pai = k->acts[k->nacts - 1].pai;
					for (int ord = 1; ord >= 0; ord--)
						for (int b = 0; b < 4; b++) {
							const t6_item *c = s.ti[b] < pl[b].nt ? &pl[b].take[s.ti[b]] : NULL;
							if (b == a || !c || c->kind != T6_CALL ||
							    c->act.target != a || c->act.pai != pai ||
							    (c->act.type != HY_EV_CHI) != ord)
								continue;
							opts[n++] = (uint8_t)b;
						}
					opts[n++] = (uint8_t)(4 + (a + 1) % 4);
					if (n > 1) {
						t6_choice *c = &stack[nst++];
						c->st = s;
						c->st.nacts = k->nacts;
						memcpy(c->opts, opts, n);
						c->nopt = n;
						c->next = 1;
					}
					take_option(&s, opts[0]);
				}
			}
		}
		if (oom) {
			result = -1;
			break;
		}
		if (ok && done) {
			result = 1;
			break;
		}
		if (ok)
			continue;
		/* backtrack */
		while (nst > 0 && stack[nst - 1].next >= stack[nst - 1].nopt)
			nst--;
		if (nst == 0)
			break;
		t6_choice *c = &stack[nst - 1];
		s = c->st;
		k->nacts = c->st.nacts;
		take_option(&s, c->opts[c->next++]);
	}
	free(stack);
	return result;
}

/* n integers (reals accepted, cut toward zero: the result columns of `sc`
 * are like 63.8), each within ±10⁹: scores, deltas and round fields,
 * checked before any narrowing so that 1e30 or 2³²+25000 is an error, not 0
 * or 25000. */
static int int_array(json_t *a, long *out, size_t n)
{
	if (!json_is_array(a) || json_array_size(a) != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(a, i);
		if (json_is_integer(v)) {
			json_int_t x = json_integer_value(v);
			if (x < -1000000000 || x > 1000000000)
				return 0;
			out[i] = (long)x;
		} else if (json_is_real(v)) {
			double x = json_real_value(v);
			if (!(x >= -1e9 && x <= 1e9)) /* NaN fails too */
				return 0;
			out[i] = (long)x;
		} else {
			return 0;
		}
	}
	return 1;
}

static int tile_array(json_t *a, uint8_t *out, size_t max, uint8_t *n)
{
	if (!json_is_array(a) || json_array_size(a) > max)
		return 0;
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *v = json_array_get(a, i);
		int t = json_is_integer(v) ? t6_tile(json_integer_value(v)) : -1;
		if (t < 0)
			return 0;
		out[i] = (uint8_t)t;
	}
	*n = (uint8_t)json_array_size(a);
	return 1;
}

static hy_status parse_result(json_t *res, hy_tk_kyoku *k, const char *rn, hy_diag *d)
{
	uint32_t line = k->line;
	const char *kind = json_string_value(json_array_get(res, 0));
	if (!json_is_array(res) || !kind)
		return hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad result", rn);
	k->end_line = line;
	if (strcmp(kind, "和了") == 0) {
		k->end = HY_TK_HORA;
		for (size_t i = 1; i + 1 < json_array_size(res); i += 2) {
			long dl[4], who, from;
			json_t *info = json_array_get(res, i + 1);
			if (k->nhora == 3 || !int_array(json_array_get(res, i), dl, 4) ||
			    !json_is_array(info) || json_array_size(info) < 2 ||
			    !json_is_integer(json_array_get(info, 0)) ||
			    !json_is_integer(json_array_get(info, 1)))
				return hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad win record", rn);
			who = (long)json_integer_value(json_array_get(info, 0));
			from = (long)json_integer_value(json_array_get(info, 1));
			if (who < 0 || who > 3 || from < 0 || from > 3)
				return hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad seat in a win", rn);
			hy_tk_hora *h = &k->hora[k->nhora++];
			h->actor = (uint8_t)who;
			h->target = (uint8_t)from;
			h->line = line;
			for (int p = 0; p < 4; p++)
				h->deltas[p] = (int32_t)dl[p];
		}
		if (k->nhora == 0)
			return hy_diag_set(d, HY_EDATA, line, "kyoku %s: win without a winner", rn);
		return HY_OK;
	}
	k->end = HY_TK_RYUKYOKU;
	k->ryu_ron3 = strcmp(kind, "三家和了") == 0;
	if (json_array_size(res) >= 2) {
		long dl[4];
		if (!int_array(json_array_get(res, 1), dl, 4))
			return hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad draw deltas", rn);
		for (int p = 0; p < 4; p++)
			k->ryu_deltas[p] = (int32_t)dl[p];
	}
	return HY_OK;
}

/* One kyoku array → k (acts in play order). */
static hy_status parse_kyoku(json_t *kj, hy_tk_kyoku *k, uint32_t line, hy_diag *d)
{
	long meta[3], sc[4];
	char rn[16] = "?";
	t6_player pl[4];
	hy_status st = HY_OK;
	memset(pl, 0, sizeof pl);
	hy_tk_kyoku_reset(k);
	k->line = line;
	size_t n = json_array_size(kj);
	if (!json_is_array(kj))
		return hy_diag_set(d, HY_EDATA, line, "kyoku %u is not an array", line);
	if (n == 14 || (n >= 2 && json_array_size(json_array_get(kj, 1)) == 3))
		return hy_diag_set(d, HY_EUNSUP, line, "three-player (sanma) logs are not supported");
	if (n < 16 || !int_array(json_array_get(kj, 0), meta, 3) || meta[0] < 0 || meta[0] > 15 ||
	    meta[1] < 0 || meta[1] > 255 || meta[2] < 0 || meta[2] > 255)
		return hy_diag_set(d, HY_EDATA, line, "kyoku %u: bad header", line);
	k->round = (uint8_t)meta[0];
	k->honba = (uint8_t)meta[1];
	k->kyotaku = (uint8_t)meta[2];
	k->oya = (uint8_t)(meta[0] % 4);
	hy_tk_round_name(k->round, k->honba, rn, sizeof rn);
	if (n == 16)
		return hy_diag_set(d, HY_ETRUNC, line, "truncated log: kyoku %s has no result", rn);
	if (n != 17 || !int_array(json_array_get(kj, 1), sc, 4) ||
	    !tile_array(json_array_get(kj, 2), k->dora, 5, &k->ndora) ||
	    !tile_array(json_array_get(kj, 3), k->ura, 5, &k->nura))
		return hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad scores or indicators", rn);
	for (int p = 0; p < 4; p++) {
		uint8_t nh;
		k->scores[p] = (int32_t)sc[p];
		if (!tile_array(json_array_get(kj, 4 + 3 * p), k->tehais[p], 13, &nh) || nh != 13)
			return hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad starting hand of seat %d", rn, p);
	}
	if ((st = parse_result(json_array_get(kj, 16), k, rn, d)))
		return st;
	for (int p = 0; p < 4 && !st; p++) {
		int r1 = parse_items(json_array_get(kj, 5 + 3 * p), p, 1, line, &pl[p].take, &pl[p].nt);
		int r2 = r1 > 0 ? parse_items(json_array_get(kj, 6 + 3 * p), p, 0, line, &pl[p].disc, &pl[p].nd) : 0;
		if (r1 < 0 || r2 < 0)
			st = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
		else if (!r1 || !r2 || pl[p].nt > 200 || pl[p].nd > 200)
			st = hy_diag_set(d, HY_EDATA, line, "kyoku %s: bad takes or discards of seat %d", rn, p);
	}
	if (!st) {
		int r = order_kyoku(k, pl);
		if (r < 0)
			st = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
		else if (r == 0)
			st = hy_diag_set(d, HY_EDATA, line,
					 "kyoku %s: no order of the draws, calls and discards fits the log", rn);
	}
	for (int p = 0; p < 4; p++) {
		free(pl[p].take);
		free(pl[p].disc);
	}
	return st;
}

static int has_sanma_rule(json_t *obj)
{
	const char *disp = json_string_value(json_object_get(json_object_get(obj, "rule"), "disp"));
	if (disp && strstr(disp, "三"))
		return 1;
	json_t *names = json_object_get(obj, "name");
	return json_is_array(names) && json_array_size(names) == 3;
}

/* Converts objs[0..n) (one game) into g. */
static hy_status convert_game(json_t **objs, size_t n, hy_game *g, hy_diag *d)
{
	hy_event e;
	hy_tk_kyoku k;
	hy_status st = HY_OK;
	int32_t after[4] = {0, 0, 0, 0};
	int sticks = 0, nk = 0;
	for (size_t i = 0; i < n; i++)
		if (has_sanma_rule(objs[i]))
			return hy_diag_set(d, HY_EUNSUP, 0, "three-player (sanma) logs are not supported");
	hy_event_blank(&e, HY_EV_START_GAME);
	e.line = 1;
	json_t *names = json_object_get(objs[0], "name");
	if (json_is_array(names) && json_array_size(names) == 4) {
		e.flags |= HY_EVF_NAMES;
		for (int p = 0; p < 4; p++) {
			const char *s = json_string_value(json_array_get(names, (size_t)p));
			if (!s)
				s = "";
			if (!(e.names[p] = hy_game_strdup(g, s, strlen(s))))
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		}
	}
	if (!hy_game_push(g, &e))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_tk_kyoku_init(&k);
	for (size_t i = 0; i < n && !st; i++) {
		json_t *log = json_object_get(objs[i], "log");
		if (!json_is_array(log)) {
			st = hy_diag_set(d, HY_EDATA, (uint32_t)(n > 1 ? i + 1 : 0), "\"log\" is not an array");
			break;
		}
		for (size_t j = 0; j < json_array_size(log) && !st; j++) {
			uint32_t line = (uint32_t)(nk + 1);
			st = parse_kyoku(json_array_get(log, j), &k, line, d);
			if (!st)
				st = hy_tk_emit_kyoku(g, &k, after, &sticks, d);
			nk++;
		}
	}
	hy_tk_kyoku_free(&k);
	if (st)
		return st;
	if (nk == 0)
		return hy_diag_set(d, HY_ETRUNC, 0, "truncated log: no kyoku");
	hy_event_blank(&e, HY_EV_END_GAME);
	e.line = (uint32_t)nk;
	e.flags |= HY_EVF_SCORES;
	/* "sc": final score and result points per player, or score, points
	 * and chips in the chip lobbies (the chips are not used) */
	long sc[12];
	json_t *scj = json_object_get(objs[n - 1], "sc");
	int stride = int_array(scj, sc, 8) ? 2 : int_array(scj, sc, 12) ? 3 : 0;
	if (stride) {
		for (int p = 0; p < 4; p++)
			e.scores[p] = (int32_t)sc[stride * p];
	} else if (scj && !json_is_null(scj)) {
		return hy_diag_set(d, HY_EDATA, e.line,
				   "bad final scores \"sc\" (8 values, or 12 with chips)");
	} else {
		hy_tk_final_scores(after, sticks, e.scores);
	}
	if (!hy_game_push(g, &e))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	return HY_OK;
}

hy_status hy_tenhou_parse_json6(const char *source, const char *data, size_t len,
				const hy_game_sink *sink, hy_diag *d)
{
	json_t **objs = NULL;
	size_t nobj = 0, cap = 0, off = 0;
	uint32_t line = 1;
	hy_status st = HY_OK;
	while (off < len) {
		while (off < len && (data[off] == ' ' || data[off] == '\t' || data[off] == '\r' ||
				     data[off] == '\n' || data[off] == 0)) {
			if (data[off] == '\n')
				line++;
			off++;
		}
		if (off >= len)
			break;
		json_error_t err;
		json_t *o = json_loadb(data + off, len - off, JSON_DISABLE_EOF_CHECK, &err);
		if (!o) {
			st = hy_diag_set(d, HY_EDATA, line + (uint32_t)(err.line > 0 ? err.line - 1 : 0),
					 "bad JSON: %s", err.text);
			break;
		}
		if (!json_is_object(o) || !json_object_get(o, "log")) {
			json_decref(o);
			st = hy_diag_set(d, HY_EDATA, line, "not a tenhou.net/6 object (no \"log\")");
			break;
		}
		if (HY_GROW(objs, cap, nobj + 1, 16)) {
			json_decref(o);
			st = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
			break;
		}
		objs[nobj++] = o;
		for (size_t i = 0; i < (size_t)err.position && off + i < len; i++)
			if (data[off + i] == '\n')
				line++;
		off += (size_t)err.position;
	}
	if (!st && nobj == 0)
		st = hy_diag_set(d, HY_EDATA, 0, "no tenhou.net/6 object");
	if (st) {
		for (size_t i = 0; i < nobj; i++)
			json_decref(objs[i]);
		free(objs);
		return hy_tenhou_deliver(NULL, st, &(hy_game_sink){NULL, sink->bad, sink->ctx}, d);
	}
	/* one kyoku per object (mjscore): one game; else one game per object */
	int mjscore = nobj > 1;
	for (size_t i = 0; i < nobj; i++)
		if (json_array_size(json_object_get(objs[i], "log")) != 1)
			mjscore = 0;
	size_t ngames = mjscore ? 1 : nobj;
	hy_game g;
	hy_game_init(&g);
	for (size_t gi = 0; gi < ngames; gi++) {
		hy_game_clear(&g);
		if (hy_game_set_source(&g, source, (uint32_t)gi)) {
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			break;
		}
		hy_diag_init(d, source);
		d->game = (uint32_t)gi;
		st = convert_game(mjscore ? objs : &objs[gi], mjscore ? nobj : 1, &g, d);
		d->game = (uint32_t)gi;
		st = hy_tenhou_deliver(&g, st, sink, d);
		if (st)
			break;
	}
	hy_game_free(&g);
	for (size_t i = 0; i < nobj; i++)
		json_decref(objs[i]);
	free(objs);
	return st;
}
