/* The game runner (see runner.h): slots of running tables, rounds of
 * "apply the answers and collect the next requests" (in parallel over the
 * slots; requests for concurrent rule policies are answered right there,
 * so such a table plays on until it needs a batched policy or its game
 * ends) and "ask every policy once" (its requests of every table in one
 * call), finished games buffered in a ring of `tables` entries and handed
 * to the sink in game order. */
#include "play/runner.h"
#include "core/grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "encode/encode.h"
#include "encode/hidden.h"
#include "engine/table.h"

void hy_play_opts_default(hy_play_opts *o)
{
	memset(o, 0, sizeof *o);
	o->count = 1;
	o->stride = 1;
	o->tables = 1;
	o->threads = 1;
	o->gae_lambda = 0.95f;
	o->gamma = 1.0f;
}

int hy_play_placement_points(int rank)
{
	static const int pts[4] = {90, 45, 0, -135};
	return rank >= 0 && rank < 4 ? pts[rank] : 0;
}

/* A game's recorded data: moved between a running slot and the ring of
 * finished games by swapping (allocations are reused). */
typedef struct gamebuf {
	hy_game log;
	hy_play_step *steps;
	size_t nsteps, cap;
} gamebuf;

typedef struct slot {
	hy_table t;
	gamebuf b;
	hy_obs_track trk;
	size_t fed;          /* log events seen by the tracker and the counters */
	uint64_t game;
	uint64_t k;          /* the run's k-th game: game = first + k·stride */
	int busy, starting;
	int pol[4];
	uint64_t ndec;       /* decision points so far (per-decision keys) */
	size_t kyoku_first;  /* first step of the open kyoku */
	int32_t kyoku_start[4], kyoku_end[4];
	uint16_t kstep;
	uint8_t called, riichi; /* seats with an open call / riichi this kyoku */
	hy_play_seat_stats stats[4];
	int aborted;
	hy_diag ad;          /* why it was aborted */
	/* this round */
	int nreq;
	int req_seat[4];
	uint64_t req_legal[4];
	long req_step[4];    /* recorded step of the request, or -1 */
	hy_choice ans[4];
	int done;            /* game over (or aborted) after this round's apply */
	hy_status err;       /* a runner failure (not a policy's): stops the run */
	hy_diag ed;
} slot;

typedef struct finished {
	int full;
	uint64_t k;          /* ordinal of the game in the run */
	hy_play_game g;
	gamebuf b;
} finished;

typedef struct runner {
	const hy_play_opts *o;
	hy_policy *const *pol;
	int npol;
	slot *s;
	finished *ring;
	int tables, threads;
	/* per-policy request gathering */
	hy_decision *req;
	hy_choice *out;
	int *req_slot, *req_i;
	size_t reqcap;
} runner;

/* Distance between the run's games (0 counts as 1). */
static uint64_t stride_of(const hy_play_opts *o)
{
	return o->stride ? o->stride : 1;
}

static int seat_policy(const runner *r, uint64_t game, int seat)
{
	if (!r->o->seat_policy)
		return 0;
	return r->o->seat_policy(r->o->seat_ctx, game, seat);
}

static void gamebuf_free(gamebuf *b)
{
	hy_game_free(&b->log);
	free(b->steps);
	memset(b, 0, sizeof *b);
}

static void gamebuf_swap(gamebuf *a, gamebuf *b)
{
	gamebuf t = *a;
	*a = *b;
	*b = t;
}

/* ------------------------------------------------------------ labels */

static int grow_steps(gamebuf *b)
{
	return HY_GROW(b->steps, b->cap, b->nsteps + 1, 256);
}


/* Final labels, rewards and GAE of a finished game's steps. */
static void finish_labels(const runner *r, slot *x)
{
	const hy_engine *e = &x->t.e;
	const int32_t *sc = e->final_scores;
	uint8_t rank[4], grp[4];
	hy_encode_final_labels(sc, rank, grp); /* as hydra-encode labels logs */
	hy_play_step *st = x->b.steps;
	size_t n = x->b.nsteps;
	for (size_t j = 0; j < n; j++) {
		hy_sample *s = &st[j].s;
		s->score = sc[s->seat];
		s->rank = rank[s->seat];
		s->grp = grp[s->seat];
		s->reward = 0.0f;
	}
	if (r->o->label_adv) { /* the labeller's advantages stand; no returns */
		size_t m = 0;
		for (size_t j = 0; j < n; j++)
			if (!st[j].dropped)
				st[m++] = st[j];
		x->b.nsteps = m;
		return;
	}
	double pts[4];
	for (int seat = 0; seat < 4; seat++)
		pts[seat] = hy_play_placement_points(rank[seat]) / 100.0;
	hy_play_gae(st, n, r->o->gamma, r->o->gae_lambda, pts);
}

void hy_play_gae(hy_play_step *st, size_t n, double gamma, double lambda,
	const double *last_rew)
{
	for (int seat = 0; seat < 4; seat++) {
		double adv = 0, next_v = 0;
		int last = 1;
		for (size_t j = n; j-- > 0;) {
			hy_sample *s = &st[j].s;
			if (s->seat != seat)
				continue;
			double rew = last_rew ? 0 : s->reward;
			if (last && last_rew) {
				rew = last_rew[seat];
				s->reward = (float)rew;
			}
			last = 0;
			double delta = rew + gamma * next_v - s->value;
			adv = delta + gamma * lambda * adv;
			s->adv = (float)adv;
			s->ret = (float)(adv + s->value);
			next_v = s->value;
		}
	}
}

/* ------------------------------------------------------------ one slot */

static void set_err(slot *x, hy_status st, const hy_diag *d)
{
	if (x->err != HY_OK)
		return;
	x->err = st;
	if (d)
		x->ed = *d;
	else
		hy_diag_set(&x->ed, st, 0, "game %" PRIu64 ": out of memory", x->game + 1);
}

/* Feeds the new log events to the tracker and the counters. */
static void feed(runner *r, slot *x)
{
	hy_game *g = &x->b.log;
	(void)r;
	for (; x->fed < g->n; x->fed++) {
		const hy_event *ev = &g->ev[x->fed];
		int a = ev->actor;
		switch (ev->type) {
		case HY_EV_START_KYOKU:
			hy_obs_track_reset(&x->trk);
			memcpy(x->kyoku_start, ev->scores, sizeof x->kyoku_start);
			memcpy(x->kyoku_end, ev->scores, sizeof x->kyoku_end);
			x->kyoku_first = x->b.nsteps;
			x->kstep = 0;
			x->called = x->riichi = 0;
			continue;
		case HY_EV_HORA:
			if (a < 4) {
				x->stats[a].wins++;
				if (ev->target < 4 && ev->target != a)
					x->stats[ev->target].deal_ins++;
			}
			if (ev->flags & HY_EVF_SCORES)
				memcpy(x->kyoku_end, ev->scores, sizeof x->kyoku_end);
			break;
		case HY_EV_RYUKYOKU:
			if (ev->flags & HY_EVF_SCORES)
				memcpy(x->kyoku_end, ev->scores, sizeof x->kyoku_end);
			break;
		case HY_EV_CHI:
		case HY_EV_PON:
		case HY_EV_DAIMINKAN:
			if (a < 4)
				x->called |= (uint8_t)(1u << a);
			break;
		case HY_EV_REACH:
			if (a < 4)
				x->riichi |= (uint8_t)(1u << a);
			break;
		case HY_EV_END_KYOKU:
			for (size_t j = x->kyoku_first; j < x->b.nsteps; j++) {
				hy_sample *s = &x->b.steps[j].s;
				s->kyoku_delta = x->kyoku_end[s->seat] - x->kyoku_start[s->seat];
			}
			x->kyoku_first = x->b.nsteps;
			for (int s = 0; s < 4; s++) {
				x->stats[s].kyoku++;
				x->stats[s].calls += x->called >> s & 1;
				x->stats[s].riichi += x->riichi >> s & 1;
			}
			continue;
		default:
			break;
		}
		hy_obs_track_event(&x->trk, &x->t.e, ev);
	}
}

/* Writes the run's seed and the seat policies into start_game. */
static hy_status label_start(runner *r, slot *x, hy_diag *d)
{
	hy_game *g = &x->b.log;
	if (g->n == 0 || g->ev[0].type != HY_EV_START_GAME)
		return hy_diag_set(d, HY_EDATA, 0, "game %" PRIu64 ": log lacks start_game",
				   x->game + 1);
	hy_event *ev = &g->ev[0];
	for (int s = 0; s < 4; s++) {
		const char *nm = r->pol[x->pol[s]]->name;
		ev->names[s] = hy_game_strdup(g, nm, strlen(nm));
		if (!ev->names[s])
			return HY_ENOMEM;
	}
	ev->flags |= HY_EVF_NAMES;
	char extra[96];
	snprintf(extra, sizeof extra, "{\"seed\":[%" PRIu64 ",%" PRIu64 "]}", r->o->seed, x->game);
	ev->extra = hy_game_strdup(g, extra, strlen(extra));
	return ev->extra ? HY_OK : HY_ENOMEM;
}

static void start_slot(runner *r, slot *x)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_game_clear(&x->b.log);
	x->b.nsteps = 0;
	x->fed = 0;
	x->ndec = 0;
	x->aborted = 0;
	x->done = 0;
	x->nreq = 0;
	x->kyoku_first = 0;
	x->kstep = 0;
	memset(x->stats, 0, sizeof x->stats);
	hy_diag_init(&x->ad, NULL);
	for (int s = 0; s < 4; s++) {
		x->pol[s] = seat_policy(r, x->game, s);
		if (x->pol[s] < 0 || x->pol[s] >= r->npol) {
			hy_diag_set(&d, HY_EUSAGE, 0, "game %" PRIu64 ", seat %d: policy index %d "
				    "is out of range", x->game + 1, s, x->pol[s]);
			x->pol[s] = 0;
			set_err(x, HY_EUSAGE, &d);
			return;
		}
	}
	hy_status st = hy_game_set_source(&x->b.log, "selfplay", (uint32_t)x->game);
	if (st == HY_OK)
		st = hy_table_start(&x->t, NULL, r->o->seed, x->game, &x->b.log, &d);
	if (st == HY_OK)
		st = label_start(r, x, &d);
	if (st != HY_OK) {
		set_err(x, st, st == HY_ENOMEM ? NULL : &d);
		return;
	}
	feed(r, x);
}

/* Order of the deciding seats: from the seat after the actor (the
 * encoder's order in a call window; the actor alone on its turn). */
static int decider_order(const hy_engine *e, unsigned who, int seats[4])
{
	int n = 0;
	for (int k = 1; k <= 4; k++) {
		int s = (e->actor + k) % 4;
		if (who >> s & 1)
			seats[n++] = s;
	}
	return n;
}

/* The label policy's choice for seat s in the slot's current state (the
 * request make_request would build at this decision point) as sm's
 * action; with label_adv (taken: the index the seat took) the labeller's
 * value of that action is sm's advantage instead, and 2 is returned when
 * it has none (value NAN: the step is dropped); 1 (the game is aborted)
 * when it fails or answers an illegal index. */
static int teacher_label(runner *r, slot *x, int s, uint64_t legal, int taken, hy_sample *sm)
{
	hy_policy *p = r->o->label;
	hy_decision q;
	memset(&q, 0, sizeof q);
	q.e = &x->t.e;
	q.track = &x->trk;
	q.log = &x->b.log;
	q.tbl = &x->t;
	q.game = x->game;
	q.key = hy_policy_key(r->o->seed, x->game, x->ndec, s);
	q.legal = legal;
	q.seat = s;
	q.taken = taken + 1;
	hy_choice c;
	memset(&c, 0, sizeof c);
	c.index = -1;
	hy_diag pd;
	hy_diag_init(&pd, p->name);
	hy_status st = p->ops->decide(p, 1, &q, &c, &pd);
	if (st == HY_OK && (c.index < 0 || c.index >= HY_A_COUNT || !(legal >> c.index & 1))) {
		st = HY_EDATA;
		hy_diag_set(&pd, st, 0, "game %" PRIu64 ": labelling policy gave action %d, not "
			    "legal (mask %#" PRIx64 ")", x->game + 1, c.index, legal);
	}
	if (st != HY_OK) {
		set_err(x, st, &pd);
		return 1;
	}
	if (r->o->label_adv) {
		if (isnan(c.value))
			return 2;
		sm->adv = c.value;
		sm->ret = 0.0f;
		return 0;
	}
	sm->action = (uint8_t)c.index;
	return 0;
}

/* label_adv: the labeller's advantage of every recorded answer of this
 * round, asked before any answer is applied (they share the state); a
 * failure aborts the game (x->aborted). */
static void adv_labels(runner *r, slot *x)
{
	for (int i = 0; i < x->nreq && !x->aborted; i++) {
		if (x->req_step[i] < 0)
			continue;
		hy_play_step *ps = &x->b.steps[x->req_step[i]];
		int lab = teacher_label(r, x, x->req_seat[i], x->req_legal[i], x->ans[i].index,
					&ps->s);
		ps->dropped = lab == 2;
	}
}

/* Plays forced moves and collects the next requests (recording their
 * steps); returns 1 when the slot is finished or failed, else 0. */
static int collect(runner *r, slot *x)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	for (;;) {
		feed(r, x);
		const hy_engine *e = &x->t.e;
		if (e->phase == HY_PH_GAME_END) {
			if (r->o->record_steps)
				finish_labels(r, x);
			x->done = 1;
			return 1;
		}
		int seats[4];
		int n = decider_order(e, hy_engine_deciders(e), seats);
		if (n == 0) {
			hy_diag_set(&d, HY_EDATA, 0, "game %" PRIu64 ": the table waits for nobody",
				    x->game + 1);
			set_err(x, HY_EDATA, &d);
			return 1;
		}
		if (n == 1) {
			uint64_t legal = hy_engine_legal_mask(e, seats[0]);
			if (__builtin_popcountll(legal) == 1) {
				hy_status st = hy_table_act(&x->t, seats[0], __builtin_ctzll(legal), &d);
				if (st != HY_OK) {
					set_err(x, st, &d);
					return 1;
				}
				continue;
			}
		}
		for (int i = 0; i < n; i++) {
			int s = seats[i];
			uint64_t legal = hy_engine_legal_mask(e, s);
			x->req_seat[i] = s;
			x->req_legal[i] = legal;
			x->req_step[i] = -1;
			x->ans[i].index = -1;
			x->ans[i].act.type = HY_ACT_NONE;
			x->ans[i].why[0] = '\0';
			if (r->o->record_steps && __builtin_popcountll(legal) >= 2) {
				if (grow_steps(&x->b) != 0) {
					set_err(x, HY_ENOMEM, NULL);
					return 1;
				}
				hy_play_step *ps = &x->b.steps[x->b.nsteps];
				hy_sample *sm = &ps->s;
				memset((char *)sm + sizeof sm->obs, 0, sizeof *sm - sizeof sm->obs);
				hy_obs_encode(e, &x->trk, s, sm->obs);
				sm->mask = legal;
				sm->action = (uint8_t)__builtin_ctzll(legal);
				sm->game = 0;
				for (int b = 7; b >= 0; b--)
					sm->game = sm->game << 8 | x->t.game_key[b];
				sm->seat = (uint8_t)s;
				sm->grand_kyoku = (uint8_t)(e->bakaze * 4 + e->kyoku);
				sm->honba = e->honba;
				sm->step = x->kstep++;
				hy_encode_opp_labels(e, s, sm);
				if (r->o->hidden)
					hy_encode_hidden(&x->t, s, sm);
				if (r->o->label && !r->o->label_adv &&
				    teacher_label(r, x, s, legal, -1, sm) != 0)
					return 1;
				ps->policy = (uint8_t)x->pol[s];
				ps->dropped = 0;
				x->req_step[i] = (long)x->b.nsteps++;
			}
		}
		x->nreq = n;
		x->ndec++; /* one decision point: every seat's key counts it once */
		return 0;
	}
}

static void abort_game(slot *x, const hy_diag *d)
{
	if (x->aborted)
		return;
	x->aborted = 1;
	x->ad = *d;
	x->ad.game = x->game > UINT32_MAX ? UINT32_MAX : (uint32_t)x->game;
}

/* Takes answer c of policy p for request i of slot x: aborts the game for
 * a missing (failed) or illegal answer. */
static void take_answer(slot *x, int i, hy_choice c, const hy_policy *p, hy_status st,
			const hy_diag *pd)
{
	hy_diag dd;
	if (c.index < 0) {
		if (c.why[0]) { /* this request's own reason (several may fail at once) */
			hy_diag_init(&dd, pd && pd->source[0] ? pd->source : p->name);
			hy_diag_set(&dd, st ? st : HY_EDATA, 0, "%s", c.why);
			pd = &dd;
		} else if (st == HY_OK) {
			hy_diag_init(&dd, p->name);
			hy_diag_set(&dd, HY_EDATA, 0, "policy gave no answer");
			pd = &dd;
		}
		abort_game(x, pd);
		return;
	}
	if (c.index >= HY_A_COUNT || !(x->req_legal[i] >> c.index & 1)) {
		hy_diag_init(&dd, p->name);
		hy_diag_set(&dd, HY_EDATA, 0, "seat %d: action %d is not legal (mask %#" PRIx64 ")",
			    x->req_seat[i], c.index, x->req_legal[i]);
		abort_game(x, &dd);
		return;
	}
	if (c.act.type != HY_ACT_NONE &&
	    (!hy_engine_is_legal(&x->t.e, x->req_seat[i], &c.act) ||
	     hy_engine_index_of(&x->t.e, x->req_seat[i], &c.act) != c.index)) {
		hy_diag_init(&dd, p->name);
		hy_diag_set(&dd, HY_EDATA, 0, "seat %d: the action given is not a legal action of "
			    "index %d", x->req_seat[i], c.index);
		abort_game(x, &dd);
		return;
	}
	x->ans[i] = c;
}

/* Fills a request: the key is (seed, game, decision point, seat), so a seat's
 * randomness does not depend on which policies sit at the other seats. */
static void make_request(const runner *r, slot *x, int t, int i, hy_decision *q)
{
	int s = x->req_seat[i];
	q->e = &x->t.e;
	q->track = &x->trk;
	q->log = &x->b.log;
	q->tbl = &x->t;
	q->table = (uint64_t)t;
	q->game = x->game;
	q->key = hy_policy_key(r->o->seed, x->game, x->ndec, s);
	q->legal = x->req_legal[i];
	q->seat = s;
	q->taken = 0;
	q->probs = NULL;
}

/* 1 if every pending request of the slot is for a concurrent policy. */
static int all_concurrent(const runner *r, const slot *x)
{
	for (int i = 0; i < x->nreq; i++)
		if (!r->pol[x->pol[x->req_seat[i]]]->concurrent)
			return 0;
	return 1;
}

/* Answers the slot's requests right here (concurrent policies only), in
 * the order ask() would: by policy index, then seat order. */
static void decide_inline(runner *r, slot *x, int t)
{
	for (int pi = 0; pi < r->npol && !x->aborted; pi++) {
		hy_decision q[4];
		hy_choice out[4];
		int idx[4], m = 0;
		for (int i = 0; i < x->nreq; i++) {
			if (x->pol[x->req_seat[i]] != pi)
				continue;
			make_request(r, x, t, i, &q[m]);
			out[m].index = -1;
			out[m].logp = 0;
			out[m].value = 0;
			out[m].act.type = HY_ACT_NONE;
			out[m].why[0] = '\0';
			idx[m++] = i;
		}
		if (m == 0)
			continue;
		hy_policy *p = r->pol[pi];
		hy_diag pd;
		hy_diag_init(&pd, p->name);
		hy_status st = p->ops->decide(p, (size_t)m, q, out, &pd);
		if (st != HY_OK) {
			int failed = 0;
			for (int k = 0; k < m; k++)
				failed += out[k].index < 0;
			if (st == HY_ENOMEM || failed == 0) {
				set_err(x, st, &pd);
				return;
			}
		}
		for (int k = 0; k < m; k++)
			take_answer(x, idx[k], out[k], p, st, &pd);
	}
}

/* Applies the pending answers, plays forced moves, collects the next
 * requests (recording their steps) and, while they are all for concurrent
 * (rule) policies, answers them at once: a table of rule policies plays
 * its whole game here. */
static void step_slot(runner *r, slot *x, int t)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (x->starting) {
		x->starting = 0;
		start_slot(r, x);
		if (x->err != HY_OK)
			return;
	}
	for (;;) {
		if (!x->aborted && r->o->label_adv)
			adv_labels(r, x);
		if (x->aborted) {
			x->done = 1;
			return;
		}
		for (int i = 0; i < x->nreq; i++) {
			/* the policy's exact action when it named one (checked legal
			 * and of this index in take_answer), else the index's */
			const hy_choice *c = &x->ans[i];
			hy_status st = c->act.type != HY_ACT_NONE
					       ? hy_table_act_concrete(&x->t, x->req_seat[i], &c->act, &d)
					       : hy_table_act(&x->t, x->req_seat[i], c->index, &d);
			if (st != HY_OK) {
				set_err(x, st, &d);
				return;
			}
			if (x->req_step[i] >= 0) {
				hy_sample *s = &x->b.steps[x->req_step[i]].s;
				if (!r->o->label || r->o->label_adv)
					s->action = (uint8_t)x->ans[i].index;
				s->logp = x->ans[i].logp;
				s->value = x->ans[i].value;
			}
		}
		x->nreq = 0;
		if (collect(r, x) != 0)
			return;
		if (!all_concurrent(r, x))
			return;
		decide_inline(r, x, t);
		if (x->err != HY_OK)
			return;
	}
}

/* ------------------------------------------------------------ rounds */

static hy_status reserve_req(runner *r, size_t n)
{
	if (n <= r->reqcap)
		return HY_OK;
	size_t cap = hy_grow_cap(r->reqcap, n, 64); /* four arrays, one capacity */
	if (!cap)
		return HY_ENOMEM;
	hy_decision *q = realloc(r->req, cap * sizeof *q);
	if (q)
		r->req = q;
	hy_choice *o = realloc(r->out, cap * sizeof *o);
	if (o)
		r->out = o;
	int *a = realloc(r->req_slot, cap * sizeof *a);
	if (a)
		r->req_slot = a;
	int *b = realloc(r->req_i, cap * sizeof *b);
	if (b)
		r->req_i = b;
	if (!q || !o || !a || !b)
		return HY_ENOMEM;
	r->reqcap = cap;
	return HY_OK;
}

/* Asks policy pi for every request of its seats; answers land in the slots. */
static hy_status ask(runner *r, int pi, hy_diag *d)
{
	size_t n = 0;
	for (int t = 0; t < r->tables; t++) {
		slot *x = &r->s[t];
		if (!x->busy || x->done || x->aborted)
			continue;
		for (int i = 0; i < x->nreq; i++)
			if (x->pol[x->req_seat[i]] == pi)
				n++;
	}
	if (n == 0)
		return HY_OK;
	if (reserve_req(r, n) != HY_OK)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu decisions)", n);
	n = 0;
	for (int t = 0; t < r->tables; t++) {
		slot *x = &r->s[t];
		if (!x->busy || x->done || x->aborted)
			continue;
		for (int i = 0; i < x->nreq; i++) {
			int s = x->req_seat[i];
			if (x->pol[s] != pi)
				continue;
			make_request(r, x, t, i, &r->req[n]);
			r->out[n].index = -1;
			r->out[n].logp = 0;
			r->out[n].value = 0;
			r->out[n].act.type = HY_ACT_NONE;
			r->out[n].why[0] = '\0';
			r->req_slot[n] = t;
			r->req_i[n] = i;
			n++;
		}
	}
	hy_policy *p = r->pol[pi];
	hy_diag pd;
	hy_diag_init(&pd, p->name);
	hy_status st = HY_OK;
	int parts = p->concurrent ? r->threads : 1;
	if ((size_t)parts > n / 8)
		parts = (int)(n / 8) > 1 ? (int)(n / 8) : 1;
	if (parts <= 1) {
		st = p->ops->decide(p, n, r->req, r->out, &pd);
	} else {
		hy_status pst[64];
		hy_diag pdd[64];
		if (parts > 64)
			parts = 64;
		size_t chunk = (n + (size_t)parts - 1) / (size_t)parts;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
		for (int c = 0; c < parts; c++) {
			size_t a = (size_t)c * chunk, b = a + chunk < n ? a + chunk : n;
			hy_diag_init(&pdd[c], p->name);
			pst[c] = a < b ? p->ops->decide(p, b - a, r->req + a, r->out + a, &pdd[c])
				       : HY_OK;
		}
		for (int c = 0; c < parts; c++)
			if (pst[c] != HY_OK && st == HY_OK) {
				st = pst[c];
				pd = pdd[c];
			}
	}
	if (st == HY_ENOMEM)
		return hy_diag_set(d, HY_ENOMEM, 0, "policy '%s': out of memory", p->name);
	if (st != HY_OK) {
		size_t failed = 0;
		for (size_t k = 0; k < n; k++)
			failed += r->out[k].index < 0;
		if (failed == 0) { /* a failure of the policy itself, not of one game */
			if (d)
				*d = pd;
			return st;
		}
	}
	for (size_t k = 0; k < n; k++)
		take_answer(&r->s[r->req_slot[k]], r->req_i[k], r->out[k], p, st, &pd);
	return HY_OK;
}

static void game_over_calls(runner *r, int t, slot *x)
{
	int seen = 0;
	for (int s = 0; s < 4; s++) {
		int pi = x->pol[s];
		if (seen >> pi & 1 || pi >= 31)
			continue;
		seen |= 1 << pi;
		hy_policy *p = r->pol[pi];
		if (!p->ops->game_over)
			continue;
		hy_diag d;
		hy_diag_init(&d, p->name);
		hy_status st = p->ops->game_over(p, (uint64_t)t, x->game, &x->b.log, &d);
		if (st != HY_OK)
			abort_game(x, &d);
	}
}

/* Moves a finished slot's game into the ring. */
static void retire(runner *r, int t, slot *x)
{
	game_over_calls(r, t, x);
	finished *f = &r->ring[x->k % (uint64_t)r->tables];
	gamebuf_swap(&f->b, &x->b);
	f->full = 1;
	f->k = x->k;
	hy_play_game *g = &f->g;
	memset(g, 0, sizeof *g);
	g->game = x->game;
	memcpy(g->seat_policy, x->pol, sizeof g->seat_policy);
	g->log = &f->b.log;
	memcpy(g->final_scores, x->t.e.final_scores, sizeof g->final_scores);
	memcpy(g->rank, x->t.e.rank, sizeof g->rank);
	memcpy(g->stats, x->stats, sizeof g->stats);
	g->aborted = x->aborted;
	if (x->aborted) {
		g->d = x->ad;
		f->b.nsteps = 0;
	} else {
		hy_diag_init(&g->d, NULL);
	}
	g->steps = f->b.steps;
	g->nsteps = r->o->record_steps ? f->b.nsteps : 0;
	x->busy = 0;
	x->done = 0;
	x->nreq = 0;
}

static hy_status check_opts(const hy_play_opts *o, hy_policy *const *pol, int npol, hy_diag *d)
{
	if (o->tables < 1 || o->tables > 1 << 16)
		return hy_diag_set(d, HY_EUSAGE, 0, "tables must be 1 to 65536");
	if (npol < 1 || npol > 31)
		return hy_diag_set(d, HY_EUSAGE, 0, "1 to 31 policies");
	for (int i = 0; i < npol; i++)
		if (!pol[i] || !pol[i]->ops || !pol[i]->ops->decide)
			return hy_diag_set(d, HY_EUSAGE, 0, "policy %d is not open", i);
	if (o->seed > (uint64_t)INT64_MAX)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "seed %" PRIu64 " is above 2^63-1 (mjai logs carry it as a "
				   "JSON integer)",
				   o->seed);
	const uint64_t stride = stride_of(o);
	if (o->count && (o->count - 1) > (UINT64_MAX - o->first) / stride)
		return hy_diag_set(d, HY_EUSAGE, 0, "game range overflows");
	if (o->record_steps && !(o->gamma >= 0 && o->gamma <= 1 && o->gae_lambda >= 0 &&
				 o->gae_lambda <= 1))
		return hy_diag_set(d, HY_EUSAGE, 0, "gamma and lambda must be in [0, 1]");
	if (o->label && !(o->label->ops && o->label->ops->decide && o->label->concurrent))
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "the labelling policy must be a rule policy (random, baseline, "
				   "rulebot, search: or qlabel:): it is asked from every table's "
				   "thread");
	if (o->label_adv && !(o->label && o->label->advantage && o->record_steps))
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "advantage labels need an advantage labeller (qlabel:) and "
				   "recorded steps");
	if (o->label && o->label->advantage && !o->label_adv)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "'%s' gives advantages, not action labels: use it with "
				   "advantage labels (--label-adv)", o->label->name);
	if (o->label && o->label->oracle && !o->label->advantage)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "'%s' reads the hidden tiles: not a teacher", o->label->name);
	if (o->label_adv && o->reward)
		return hy_diag_set(d, HY_EUSAGE, 0,
				   "advantage labels replace the rewards: not with a reward");
	for (int i = 0; i < npol; i++)
		if (pol[i]->oracle && !o->allow_oracle)
			return hy_diag_set(d, HY_EUSAGE, 0,
					   "policy '%s' reads the hidden tiles: it labels "
					   "(--label-by), it does not play (hydra-eval --oracle "
					   "plays it as a diagnostic)",
					   pol[i]->name);
	if (o->seat_policy)
		for (uint64_t k = 0; k < o->count && k < 4; k++)
			for (int s = 0; s < 4; s++) {
				uint64_t g = o->first + k * stride;
				int pi = o->seat_policy(o->seat_ctx, g, s);
				if (pi < 0 || pi >= npol)
					return hy_diag_set(d, HY_EUSAGE, 0,
							   "seat policy %d of game %" PRIu64
							   " is out of range",
							   pi, g + 1);
			}
	return HY_OK;
}

hy_status hy_play_run(const hy_play_opts *o, hy_policy *const *policies, int npolicies,
		      hy_play_sink sink, void *ctx, hy_diag *d)
{
	hy_status st = check_opts(o, policies, npolicies, d);
	if (st != HY_OK)
		return st;
	runner r;
	memset(&r, 0, sizeof r);
	r.o = o;
	r.pol = policies;
	r.npol = npolicies;
	r.tables = o->tables;
	if ((uint64_t)r.tables > o->count)
		r.tables = o->count ? (int)o->count : 1;
	r.threads = o->threads < 1 ? 1 : o->threads;
	r.s = calloc((size_t)r.tables, sizeof *r.s);
	r.ring = calloc((size_t)r.tables, sizeof *r.ring);
	if (!r.s || !r.ring) {
		free(r.s);
		free(r.ring);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%d tables)", r.tables);
	}
	for (int t = 0; t < r.tables; t++) {
		hy_game_init(&r.s[t].b.log);
		hy_game_init(&r.ring[t].b.log);
	}
	/* next, deliver: ordinals k of games, game = first + k·stride */
	const uint64_t end = o->count, stride = stride_of(o);
	uint64_t next = 0, deliver = 0;
	while (st == HY_OK && deliver < end) {
		/* refill idle slots with the next games, within the ring window */
		for (int t = 0; t < r.tables && next < end && next < deliver + (uint64_t)r.tables;
		     t++) {
			slot *x = &r.s[t];
			if (x->busy)
				continue;
			x->busy = 1;
			x->starting = 1;
			x->k = next++;
			x->game = o->first + x->k * stride;
		}
		/* apply answers and collect requests, in parallel over the slots */
#pragma omp parallel for num_threads(r.threads) schedule(dynamic, 1) if (r.threads > 1)
		for (int t = 0; t < r.tables; t++)
			if (r.s[t].busy)
				step_slot(&r, &r.s[t], t);
		for (int t = 0; t < r.tables; t++) {
			slot *x = &r.s[t];
			if (x->busy && x->err != HY_OK) {
				st = x->err;
				if (d)
					*d = x->ed;
				break;
			}
		}
		if (st != HY_OK)
			break;
		for (int t = 0; t < r.tables; t++)
			if (r.s[t].busy && r.s[t].done)
				retire(&r, t, &r.s[t]);
		/* hand finished games to the sink in order */
		while (st == HY_OK && deliver < end) {
			finished *f = &r.ring[deliver % (uint64_t)r.tables];
			if (!f->full || f->k != deliver)
				break;
			if (o->reward && o->record_steps && !f->g.aborted && f->b.nsteps) {
				/* in game order: a stateful reward sees the same sequence */
				st = o->reward(o->reward_ctx, &f->g, f->b.steps, d);
				if (st == HY_OK)
					hy_play_gae(f->b.steps, f->b.nsteps, o->gamma, o->gae_lambda,
						NULL);
			}
			if (st == HY_OK)
				st = sink(ctx, &f->g, d);
			f->full = 0;
			deliver++;
		}
		if (st != HY_OK)
			break;
		/* ask each policy once */
		for (int pi = 0; pi < r.npol && st == HY_OK; pi++)
			st = ask(&r, pi, d);
	}
	for (int t = 0; t < r.tables; t++) {
		gamebuf_free(&r.s[t].b);
		gamebuf_free(&r.ring[t].b);
	}
	free(r.s);
	free(r.ring);
	free(r.req);
	free(r.out);
	free(r.req_slot);
	free(r.req_i);
	return st;
}
