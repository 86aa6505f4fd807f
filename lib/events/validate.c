/* Structural validation of a game's event order (see validate.h). */
#include "events/validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/tile.h"

typedef struct vctx {
	const hy_game *g;
	hy_diag *d;
} vctx;

/* Reports an error at event i: d->line = the event's line; when the event has
 * no line, the message names its position instead. */
static hy_status fail(vctx *c, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static hy_status fail(vctx *c, size_t i, const char *fmt, ...)
{
	const hy_event *e = &c->g->ev[i];
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *tn = hy_ev_type_name(e->type);
	if (!tn)
		tn = "event";
	if (e->line)
		return hy_diag_set(c->d, HY_EDATA, e->line, "%s: %s", tn, msg);
	return hy_diag_set(c->d, HY_EDATA, 0, "event %zu: %s: %s", i + 1, tn, msg);
}

static const char *tname(int t)
{
	const char *s = hy_tile_to_mjai(t);
	return s ? s : "(none)";
}

static int needs_kyoku(int t)
{
	return t >= HY_EV_TSUMO && t <= HY_EV_RYUKYOKU;
}

static int valid_seat(int s)
{
	return s >= 0 && s <= 3;
}

static int known_tile(int t)
{
	return t >= 0 && t < HY_TILE_UNKNOWN;
}

/* Per-event field checks that do not depend on the order. */
static hy_status check_fields(vctx *c, size_t i)
{
	const hy_event *e = &c->g->ev[i];
	int t = e->type;
	int has_actor = (t >= HY_EV_TSUMO && t <= HY_EV_ANKAN) || t == HY_EV_REACH ||
			t == HY_EV_REACH_ACCEPTED || t == HY_EV_HORA;
	if (has_actor && !valid_seat(e->actor))
		return fail(c, i, "missing or bad actor");
	if ((t == HY_EV_CHI || t == HY_EV_PON || t == HY_EV_DAIMINKAN || t == HY_EV_HORA) &&
	    !valid_seat(e->target))
		return fail(c, i, "missing or bad target");
	if (t >= HY_EV_CHI && t <= HY_EV_DAIMINKAN && e->target == e->actor)
		return fail(c, i, "target %d is the actor", e->target);
	if (t == HY_EV_CHI && e->target != (e->actor + 3) % 4)
		return fail(c, i, "target %d is not the player to the left of actor %d", e->target,
			    e->actor);
	if (t >= HY_EV_CHI && t <= HY_EV_ANKAN) {
		static const int want[] = {[HY_EV_CHI] = 2, [HY_EV_PON] = 2, [HY_EV_DAIMINKAN] = 3,
					   [HY_EV_KAKAN] = 3, [HY_EV_ANKAN] = 4};
		if (e->nconsumed != want[t])
			return fail(c, i, "consumed has %d tiles, expected %d", e->nconsumed,
				    want[t]);
		for (int k = 0; k < e->nconsumed; k++)
			if (!known_tile(e->consumed[k]))
				return fail(c, i, "consumed tile %d is not a known tile", k + 1);
		if (t != HY_EV_ANKAN && !known_tile(e->pai))
			return fail(c, i, "pai is not a known tile");
	}
	if (t == HY_EV_CHI) {
		int k[3] = {hy_tile_kind(e->consumed[0]), hy_tile_kind(e->consumed[1]),
			    hy_tile_kind(e->pai)};
		/* sort three */
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2 - a; b++)
				if (k[b] > k[b + 1]) {
					int x = k[b];
					k[b] = k[b + 1];
					k[b + 1] = x;
				}
		int run = k[0] < 27 && k[2] < 27 && hy_tile_suit(k[0]) == hy_tile_suit(k[2]) &&
			  k[1] == k[0] + 1 && k[2] == k[0] + 2;
		if (!run)
			return fail(c, i, "consumed %s %s and pai %s do not form a run",
				    tname(e->consumed[0]), tname(e->consumed[1]), tname(e->pai));
	} else if (t >= HY_EV_PON && t <= HY_EV_ANKAN) {
		int kind = hy_tile_kind(t == HY_EV_ANKAN ? e->consumed[0] : e->pai);
		int same = 1;
		for (int k = 0; k < e->nconsumed; k++)
			same &= hy_tile_kind(e->consumed[k]) == kind;
		if (!same) {
			char list[64];
			int off = 0;
			for (int k = 0; k < e->nconsumed; k++)
				off += snprintf(list + off, sizeof list - (size_t)off, "%s%s",
						k ? " " : "", tname(e->consumed[k]));
			if (t == HY_EV_ANKAN)
				return fail(c, i, "consumed %s are not of one kind", list);
			return fail(c, i, "consumed %s and pai %s are not of one kind", list,
				    tname(e->pai));
		}
	}
	if ((t == HY_EV_TSUMO || t == HY_EV_DAHAI) &&
	    !(known_tile(e->pai) || (t == HY_EV_TSUMO && e->pai == HY_TILE_UNKNOWN)))
		return fail(c, i, "missing or bad pai");
	if ((t == HY_EV_DORA || t == HY_EV_START_KYOKU) && !known_tile(e->dora_marker))
		return fail(c, i, "missing or bad dora_marker");
	if (t == HY_EV_START_KYOKU && !valid_seat(e->oya))
		return fail(c, i, "missing or bad oya");
	return HY_OK;
}

hy_status hy_game_validate(const hy_game *g, hy_diag *d)
{
	vctx c = {g, d};
	int has_end_kyoku = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->ev[i].type == HY_EV_END_KYOKU) {
			has_end_kyoku = 1;
			break;
		}
	int in_kyoku = 0, ended = 0;
	int pending_reach[4] = {0};
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		int t = e->type;
		if (t <= HY_EV_NONE || t >= HY_EV_TYPE_COUNT)
			return fail(&c, i, "unknown event type %d", t);
		if (ended)
			return fail(&c, i, "comes after end_game");
		hy_status s = check_fields(&c, i);
		if (s)
			return s;
		switch (t) {
		case HY_EV_START_GAME:
			if (i != 0)
				return fail(&c, i, "not the first event of the game");
			break;
		case HY_EV_START_KYOKU:
			if (in_kyoku && has_end_kyoku)
				return fail(&c, i, "previous kyoku has no end_kyoku");
			in_kyoku = 1;
			memset(pending_reach, 0, sizeof pending_reach);
			break;
		case HY_EV_END_KYOKU:
			if (!in_kyoku)
				return fail(&c, i, "outside a kyoku");
			in_kyoku = 0;
			break;
		case HY_EV_END_GAME:
			if (in_kyoku && has_end_kyoku)
				return fail(&c, i, "kyoku has no end_kyoku");
			in_kyoku = 0;
			ended = 1;
			break;
		default:
			if (needs_kyoku(t) && !in_kyoku)
				return fail(&c, i, "outside a kyoku");
			if (t == HY_EV_REACH) {
				pending_reach[e->actor] = 1;
			} else if (t == HY_EV_REACH_ACCEPTED) {
				if (!pending_reach[e->actor])
					return fail(&c, i, "no reach by actor %d before it",
						    e->actor);
				pending_reach[e->actor] = 0;
			}
			break;
		}
	}
	return HY_OK;
}
