/* A game reviewed by a policy: the walk over a seat's decisions
 * (review.h). */
#include "review/review.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "hand/shanten.h"
#include "play/mjaibot.h"
#include "play/policies/readercheck.h"
#include "play/seatview.h"

void hy_review_init(hy_review *r)
{
	memset(r, 0, sizeof *r);
	r->threat_min = HY_REVIEW_THREAT;
}

void hy_review_set_reader(hy_review *r, struct hy_reader_check *rc, const char *name,
			  double threat)
{
	r->reader = rc;
	snprintf(r->reader_name, sizeof r->reader_name, "%s", rc && name ? name : "");
	r->threat_min = threat;
}

void hy_review_free(hy_review *r)
{
	free(r->dec);
	free(r->ky);
	r->dec = NULL;
	r->ky = NULL;
	r->n = r->cap = r->nky = r->capky = 0;
	/* the reader stays set: it is the caller's (hy_review_set_reader) */
}

int hy_review_seat_of(const hy_game *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *ev = &g->ev[i];
		if (ev->type != HY_EV_START_GAME)
			continue;
		if (!(ev->flags & HY_EVF_NAMES))
			return -1;
		int found = -1;
		for (int s = 0; s < 4; s++)
			if (ev->names[s] && strcmp(ev->names[s], name) == 0)
				found = found < 0 ? s : -2;
		return found;
	}
	return -1;
}

unsigned hy_review_known_seats(const hy_game *g)
{
	unsigned known = 15;
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *ev = &g->ev[i];
		if (ev->type != HY_EV_START_KYOKU)
			continue;
		for (int s = 0; s < 4; s++)
			for (int j = 0; j < 13; j++)
				if (ev->tehais[s][j] >= HY_TILE_UNKNOWN)
					known &= ~(1u << s);
	}
	return known;
}

/* ------------------------------------------------------------ labels */

static const char *tn(int t)
{
	const char *s = hy_tile_to_mjai(t);
	return s ? s : "?";
}

/* The action of index a in e for seat, with its label. */
static void describe(const hy_engine *e, int seat, int a, hy_review_act *out)
{
	memset(out, 0, sizeof *out);
	out->index = (int8_t)a;
	out->act.type = HY_ACT_NONE;
	if (hy_engine_action_of(e, seat, a, &out->act) != HY_OK)
		out->act.type = HY_ACT_NONE;
	const hy_action *x = &out->act;
	char *b = out->label;
	size_t n = sizeof out->label;
	if (a < HY_A_RIICHI) {
		snprintf(b, n, "discard %s", tn(a));
	} else if (a == HY_A_RIICHI) {
		snprintf(b, n, "riichi");
	} else if (a >= HY_A_CHI_LOW && a <= HY_A_PON) {
		snprintf(b, n, "%s %s (%s %s)", a == HY_A_PON ? "pon" : "chi", tn(x->tile),
			 tn(x->consumed[0]), tn(x->consumed[1]));
	} else if (a == HY_A_KAN) {
		const char *k = x->type == HY_ACT_ANKAN ? "ankan" : x->type == HY_ACT_KAKAN ? "kakan"
										      : "daiminkan";
		snprintf(b, n, "%s %s", k, tn(x->tile));
	} else if (a == HY_A_WIN) {
		snprintf(b, n, "%s", e->phase == HY_PH_TURN ? "tsumo" : "ron");
	} else if (a == HY_A_KYUUSHU) {
		snprintf(b, n, "kyuushu kyuuhai");
	} else {
		snprintf(b, n, "pass");
	}
}

/* ------------------------------------------------------------ the label of a decision */

enum { WAIT = -1, SKIP = -2 };

/* What the seat played at event i (its legal mask has a choice): an index,
 * WAIT (the event does not close the decision) or SKIP (no decision: the
 * seat's answer cannot be known). */
static int played_at(const hy_engine *e, int seat, uint64_t mask, const hy_game *g, size_t i)
{
	const hy_event *ev = &g->ev[i];
	if (ev->type == HY_EV_DORA || ev->type == HY_EV_REACH_ACCEPTED)
		return WAIT;
	if ((e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI) && e->actor == seat) {
		switch (ev->type) {
		case HY_EV_DAHAI:
			return ev->actor == seat && ev->pai < HY_TILE_UNKNOWN ? ev->pai : SKIP;
		case HY_EV_REACH:
			return ev->actor == seat && e->phase == HY_PH_TURN ? HY_A_RIICHI : SKIP;
		case HY_EV_ANKAN:
		case HY_EV_KAKAN:
			return ev->actor == seat && e->phase == HY_PH_TURN ? HY_A_KAN : SKIP;
		case HY_EV_HORA:
			return ev->actor == seat ? HY_A_WIN : SKIP;
		case HY_EV_RYUKYOKU:
			return e->phase == HY_PH_TURN ? HY_A_KYUUSHU : SKIP;
		default:
			return SKIP;
		}
	}
	if (!(e->phase == HY_PH_CALL || e->phase == HY_PH_CHANKAN) || !(mask >> HY_A_PASS & 1))
		return SKIP;
	switch (ev->type) {
	case HY_EV_HORA:
		for (size_t j = i; j < g->n && g->ev[j].type == HY_EV_HORA; j++)
			if (g->ev[j].actor == seat)
				return HY_A_WIN;
		return SKIP; /* interrupted by someone's ron */
	case HY_EV_CHI:
	case HY_EV_PON:
	case HY_EV_DAIMINKAN: {
		if (ev->actor == seat) {
			hy_action act = {.type = ev->type == HY_EV_CHI   ? HY_ACT_CHI
						 : ev->type == HY_EV_PON ? HY_ACT_PON
									 : HY_ACT_DAIMINKAN,
					 .tile = ev->pai,
					 .nconsumed = ev->nconsumed};
			memcpy(act.consumed, ev->consumed, 4);
			int a = hy_engine_index_of(e, seat, &act);
			return a >= 0 ? a : SKIP;
		}
		if (ev->type == HY_EV_CHI)
			return HY_A_PASS; /* every option of the seat outranks a chi */
		/* a pon or kan by another: declined only if the seat could only ron */
		return (mask & ~(1ull << HY_A_PASS)) == 1ull << HY_A_WIN ? HY_A_PASS : SKIP;
	}
	case HY_EV_TSUMO:
		return HY_A_PASS;
	case HY_EV_RYUKYOKU:
		return e->live_left == 0 ? HY_A_PASS : SKIP;
	default:
		return SKIP;
	}
}

/* ------------------------------------------------------------ records */

static hy_status grow_dec(hy_review *r)
{
	return HY_GROW(r->dec, r->cap, r->n + 1, 64) ? HY_ENOMEM : HY_OK;
}

/* The concealed tiles of p (by kind, a red five before the plain ones),
 * leaving out one copy of `skip` (HY_TILE_NONE: none). */
static int hand_of(const hy_player *p, int skip, uint8_t out[14])
{
	int n = 0;
	for (int k = 0; k < HY_TILE_KINDS; k++) {
		int c = p->cnt[k], red = hy_tile_red_of(k);
		int reds = red >= 0 ? p->red[k / 9] : 0;
		for (int j = 0; j < c && n < 14; j++) {
			int t = j < reds ? red : k;
			if (t == skip) {
				skip = HY_TILE_NONE;
				continue;
			}
			out[n++] = (uint8_t)t;
		}
	}
	return n;
}

/* The situation of the seat's decision, from its view. */
static void situation(const hy_engine *e, int seat, hy_review_dec *x)
{
	const hy_player *me = &e->p[seat];
	x->seat = (uint8_t)seat;
	x->phase = e->phase;
	x->live_left = e->live_left;
	x->ndora = e->ndora < 5 ? e->ndora : 5;
	memcpy(x->dora_ind, e->dora_ind, sizeof x->dora_ind);
	x->honba = e->honba;
	x->kyotaku = e->kyotaku;
	int own = (e->phase == HY_PH_TURN || e->phase == HY_PH_RIICHI) && e->actor == seat;
	x->drawn = own && !e->after_call && me->drawn < HY_TILE_UNKNOWN ? me->drawn : HY_TILE_NONE;
	x->nhand = (uint8_t)hand_of(me, x->drawn, x->hand);
	x->offered = HY_TILE_NONE;
	x->offer_from = HY_NO_SEAT;
	if (e->phase == HY_PH_CALL || e->phase == HY_PH_CHANKAN) {
		x->offered = e->last_tile;
		x->offer_from = e->actor;
	}
	x->shanten = (int8_t)hy_shanten(me->cnt, me->nmelds);
	for (int s = 0; s < 4; s++) {
		const hy_player *p = &e->p[s];
		hy_review_seat *o = &x->pl[s];
		o->score = e->scores[s];
		o->riichi = p->riichi;
		o->nriver = p->nriver < 32 ? p->nriver : 32;
		memcpy(o->river, p->river, sizeof o->river);
		memcpy(o->river_flags, p->river_flags, sizeof o->river_flags);
		o->nmelds = p->nmelds < 4 ? p->nmelds : 4;
		memcpy(o->melds, p->melds, sizeof o->melds);
		memcpy(o->meld_called, p->meld_called, sizeof o->meld_called);
		memcpy(o->meld_from, p->meld_from, sizeof o->meld_from);
	}
}

/* The most probable actions of x, most probable first (lowest index on
 * ties); after the first, only actions of probability above 0 (a rule
 * bot's list is its choice alone). */
static void rank_top(const hy_engine *e, int seat, hy_review_dec *x)
{
	uint64_t left = x->legal;
	x->ntop = 0;
	while (left && x->ntop < HY_REVIEW_TOP) {
		int best = -1;
		for (uint64_t m = left; m; m &= m - 1) {
			int a = __builtin_ctzll(m);
			if (best < 0 || x->prob[a] > x->prob[best])
				best = a;
		}
		if (x->ntop > 0 && !(x->prob[best] > 0))
			break;
		hy_review_act *t = &x->top[x->ntop++];
		describe(e, seat, best, t);
		t->prob = x->prob[best];
		left &= ~(1ull << best);
	}
}

/* The opponents who threaten the seat at x, by the reader (review.h). */
static hy_status threats(const hy_review *r, const hy_seatview *v, hy_review_dec *x,
			 hy_diag *d)
{
	double tau[4], q[4][34];
	hy_status st = hy_reader_check_read(r->reader, &v->e, &v->trk, v->seat, tau, q, d);
	if (st != HY_OK)
		return st;
	x->nthreat = 0;
	for (int o = 1; o < 4; o++) {
		int s = (v->seat + o) % 4;
		int riichi = v->e.p[s].riichi;
		if (!riichi && !(tau[s] >= r->threat_min))
			continue;
		hy_review_threat *t = &x->threat[x->nthreat++];
		t->seat = (uint8_t)s;
		t->riichi = (uint8_t)riichi;
		t->tenpai = (float)tau[s];
		for (int k = 0; k < HY_TILE_KINDS; k++)
			t->deal_in[k] = (float)(tau[s] * q[s][k]);
	}
	return HY_OK;
}

/* One decision of seat: the situation, the policy's answer, the action
 * played (index a, by event ev). */
static hy_status record(hy_review *r, const hy_seatview *v, const hy_game *log, hy_policy *p,
			int a, const hy_event *ev, size_t i, uint64_t ndec, hy_diag *d)
{
	if (grow_dec(r) != HY_OK)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_review_dec *x = &r->dec[r->n];
	memset(x, 0, sizeof *x);
	int seat = v->seat;
	situation(&v->e, seat, x);
	x->event = (uint32_t)i;
	x->legal = hy_seatview_legal(v);
	hy_decision q = {
		.e = &v->e,
		.track = &v->trk,
		.log = log,
		.table = 0,
		.game = r->game,
		.key = hy_policy_key(0, r->game, ndec, seat),
		.legal = x->legal,
		.seat = seat,
	};
	hy_choice c;
	hy_status st = hy_policy_decide_one(p, &q, &c, x->prob, d);
	if (st != HY_OK)
		return st;
	x->value = 100.0f * c.value;
	if (r->reader && (st = threats(r, v, x, d)) != HY_OK)
		return st;
	rank_top(&v->e, seat, x);
	describe(&v->e, seat, a, &x->played);
	x->played.prob = x->prob[a];
	/* a call as it was made (which red five it used) */
	if (ev->actor == seat && (ev->type == HY_EV_CHI || ev->type == HY_EV_PON ||
				  ev->type == HY_EV_DAIMINKAN) && ev->nconsumed >= 2) {
		memcpy(x->played.act.consumed, ev->consumed, 4);
		x->played.act.nconsumed = ev->nconsumed;
		x->played.act.tile = ev->pai;
		if (a != HY_A_KAN)
			snprintf(x->played.label, sizeof x->played.label, "%s %s (%s %s)",
				 a == HY_A_PON ? "pon" : "chi", tn(ev->pai), tn(ev->consumed[0]),
				 tn(ev->consumed[1]));
	}
	r->n++;
	return HY_OK;
}

/* The event of the game at i as `seat` saw it, into the view. */
static hy_status feed(hy_seatview *v, hy_game *log, const hy_event *ev, size_t i,
		      const hy_game *g, hy_diag *d)
{
	hy_diag_init(d, g->source);
	d->game = g->index;
	hy_status st = hy_mjaibot_view_event(log, ev, v->seat, d);
	if (st == HY_OK)
		st = hy_seatview_event(v, &log->ev[log->n - 1], d);
	if (st != HY_OK) {
		char msg[sizeof d->msg];
		snprintf(msg, sizeof msg, "%s", d->msg);
		const char *tname = hy_ev_type_name(ev->type);
		hy_diag_set(d, st, ev->line, "seat %d's view, event %zu (%s): %s", v->seat, i + 1,
			    tname ? tname : "?", msg);
	}
	return st;
}

/* The decisions of one seat. */
static hy_status walk(hy_review *r, const hy_game *g, int seat, hy_policy *p, hy_diag *d)
{
	hy_seatview *v = malloc(sizeof *v);
	if (!v)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_seatview_init(v, seat);
	hy_game log;
	hy_game_init(&log);
	hy_status st = HY_OK;
	uint64_t ndec = 0;
	size_t done_until = 0; /* a double ron's second hora is not a second decision */
	for (size_t i = 0; i < g->n && st == HY_OK; i++) {
		const hy_event *ev = &g->ev[i];
		uint64_t mask = v->in_kyoku ? hy_seatview_legal(v) : 0;
		if (i >= done_until && __builtin_popcountll(mask) >= 2) {
			int a = played_at(&v->e, seat, mask, g, i);
			if (a >= 0 && !(mask >> a & 1)) {
				hy_diag_init(d, g->source);
				d->game = g->index;
				st = hy_diag_set(d, HY_EDATA, ev->line,
						 "event %zu: seat %d's action %d is not legal (mask %#llx)",
						 i + 1, seat, a, (unsigned long long)mask);
				break;
			}
			if (a >= 0) {
				st = record(r, v, &log, p, a, ev, i, ndec++, d);
				if (st != HY_OK)
					break;
				if (ev->type == HY_EV_HORA)
					for (done_until = i; done_until < g->n &&
							     g->ev[done_until].type == HY_EV_HORA;
					     done_until++)
						;
			}
		}
		st = feed(v, &log, ev, i, g, d);
	}
	if (st == HY_OK && seat == __builtin_ctz(r->seats))
		memcpy(r->final_scores, v->e.scores, sizeof r->final_scores);
	hy_game_free(&log);
	free(v);
	return st;
}

/* ------------------------------------------------------------ kyoku */

static hy_status add_kyoku(hy_review *r, const hy_event *ev)
{
	if (HY_GROW(r->ky, r->capky, r->nky + 1, 16))
		return HY_ENOMEM;
	hy_review_kyoku *k = &r->ky[r->nky++];
	memset(k, 0, sizeof *k);
	k->bakaze = ev->bakaze >= 27 && ev->bakaze <= 30 ? (uint8_t)(ev->bakaze - 27) : 0;
	k->kyoku = ev->kyoku;
	k->honba = ev->honba;
	k->kyotaku = ev->kyotaku;
	k->oya = ev->oya;
	memcpy(k->scores, ev->scores, sizeof k->scores);
	return HY_OK;
}

static void add_result(hy_review_kyoku *k, const hy_event *ev)
{
	char part[96];
	if (ev->type == HY_EV_HORA) {
		int pts = (ev->flags & HY_EVF_DELTAS) && ev->actor < 4 ? ev->deltas[ev->actor] : 0;
		if (ev->target == ev->actor || ev->target > 3)
			snprintf(part, sizeof part, "tsumo by seat %d", ev->actor);
		else
			snprintf(part, sizeof part, "ron by seat %d on seat %d", ev->actor, ev->target);
		if (pts)
			snprintf(part + strlen(part), sizeof part - strlen(part), " (%+d)", pts);
	} else {
		snprintf(part, sizeof part, "draw (ryukyoku)");
	}
	size_t len = strlen(k->result);
	snprintf(k->result + len, sizeof k->result - len, "%s%s", len ? "; " : "", part);
	if (ev->flags & HY_EVF_DELTAS)
		for (int s = 0; s < 4; s++)
			k->deltas[s] += ev->deltas[s];
}

/* The kyoku of g, and which decisions fall in each. */
static hy_status kyoku_table(hy_review *r, const hy_game *g, hy_diag *d)
{
	uint32_t *start = malloc((g->n + 1) * sizeof *start);
	if (!start)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *ev = &g->ev[i];
		if (ev->type == HY_EV_START_GAME && (ev->flags & HY_EVF_NAMES))
			for (int s = 0; s < 4; s++)
				snprintf(r->names[s], sizeof r->names[s], "%s",
					 ev->names[s] ? ev->names[s] : "");
		if (ev->type == HY_EV_START_KYOKU) {
			if (add_kyoku(r, ev) != HY_OK) {
				free(start);
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			}
			start[r->nky - 1] = (uint32_t)i;
		} else if ((ev->type == HY_EV_HORA || ev->type == HY_EV_RYUKYOKU) && r->nky) {
			add_result(&r->ky[r->nky - 1], ev);
		} else if (ev->type == HY_EV_END_GAME && (ev->flags & HY_EVF_SCORES)) {
			memcpy(r->final_scores, ev->scores, sizeof r->final_scores);
		}
	}
	size_t k = 0;
	for (size_t j = 0; j < r->n; j++) {
		while (k + 1 < r->nky && r->dec[j].event >= start[k + 1])
			k++;
		r->dec[j].kyoku = (uint32_t)k;
		if (r->ky[k].n++ == 0)
			r->ky[k].first = (uint32_t)j;
	}
	/* a kyoku without decisions starts where the next decision is */
	for (size_t q = 0; q < r->nky; q++)
		if (r->ky[q].n == 0)
			r->ky[q].first = q ? r->ky[q - 1].first + r->ky[q - 1].n : 0;
	free(start);
	return HY_OK;
}

/* Place in turn order of a decision in a call window (several seats
 * decide at one event): 1–3 from the discarder, as the encoder orders
 * them. */
static int turn_place(const hy_review_dec *x)
{
	return x->offer_from < 4 ? (x->seat - x->offer_from + 4) % 4 : x->seat;
}

static int by_event(const void *a, const void *b)
{
	const hy_review_dec *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return turn_place(x) - turn_place(y);
}

hy_status hy_review_game(hy_review *r, const hy_game *g, unsigned seats, hy_policy *p,
			 hy_diag *d)
{
	r->n = 0;
	r->nky = 0;
	memset(r->names, 0, sizeof r->names);
	memset(r->final_scores, 0, sizeof r->final_scores);
	seats &= 15;
	if (!seats)
		return hy_diag_set(d, HY_EUSAGE, 0, "no seat to review");
	snprintf(r->source, sizeof r->source, "%s", g->source ? g->source : "");
	r->game = g->index;
	snprintf(r->policy, sizeof r->policy, "%s", p->name);
	r->has_value = p->has_value;
	r->seats = seats;
	for (int s = 0; s < 4; s++) {
		if (!(seats >> s & 1))
			continue;
		hy_status st = walk(r, g, s, p, d);
		if (st != HY_OK)
			return st;
	}
	qsort(r->dec, r->n, sizeof *r->dec, by_event);
	return kyoku_table(r, g, d);
}

/* ------------------------------------------------------------ figures */

static int top1(const hy_review_dec *x)
{
	return x->ntop ? x->top[0].index : -1;
}

double hy_review_cost(const hy_review_dec *x)
{
	return x->ntop ? (double)x->top[0].prob - (double)x->played.prob : 0.0;
}

void hy_review_stats_of(const hy_review *r, int seat, hy_review_stats *s)
{
	memset(s, 0, sizeof *s);
	double sum = 0;
	for (size_t i = 0; i < r->n; i++) {
		const hy_review_dec *x = &r->dec[i];
		if (seat >= 0 && x->seat != seat)
			continue;
		s->decisions++;
		s->agree += top1(x) == x->played.index;
		s->low += x->played.prob < HY_REVIEW_LOW;
		sum += x->played.prob;
	}
	if (s->decisions) {
		s->agreement = (double)s->agree / (double)s->decisions;
		s->mean_prob = sum / (double)s->decisions;
	}
}

size_t hy_review_costliest(const hy_review *r, size_t *idx, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		double c = hy_review_cost(&r->dec[i]);
		if (c <= 0 || top1(&r->dec[i]) == r->dec[i].played.index)
			continue;
		/* insertion into idx[0..n), costliest first, game order on ties */
		size_t at = n;
		while (at > 0 && hy_review_cost(&r->dec[idx[at - 1]]) < c)
			at--;
		if (at >= max)
			continue;
		size_t end = n < max ? n : max - 1;
		memmove(idx + at + 1, idx + at, (end - at) * sizeof *idx);
		idx[at] = i;
		if (n < max)
			n++;
	}
	return n;
}
