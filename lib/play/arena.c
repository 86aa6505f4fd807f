/* The duplicate arena: seat rotation, result records, statistics with
 * confidence intervals from per-seed means, and the four runner passes. */
#include "play/arena.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi.h"

int hy_arena_challenger_seat(int rotation)
{
	return rotation;
}

int hy_arena_seat_policy(int rotation, int seat)
{
	return seat == hy_arena_challenger_seat(rotation) ? HY_ARENA_CHALLENGER : HY_ARENA_OPPONENT;
}

hy_status hy_arena_acc_init(hy_arena_acc *a, uint64_t nseeds, hy_diag *d)
{
	memset(a, 0, sizeof *a);
	if (nseeds == 0 || nseeds > SIZE_MAX / (HY_ARENA_ROTATIONS * sizeof *a->res))
		return hy_diag_set(d, HY_EUSAGE, 0, "bad number of seeds %llu",
				   (unsigned long long)nseeds);
	a->res = calloc((size_t)nseeds * HY_ARENA_ROTATIONS, sizeof *a->res);
	a->scratch = malloc((size_t)nseeds * 2 * sizeof *a->scratch);
	if (!a->res || !a->scratch) {
		hy_arena_acc_free(a);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	a->nseeds = nseeds;
	return HY_OK;
}

void hy_arena_acc_free(hy_arena_acc *a)
{
	free(a->res);
	free(a->scratch);
	memset(a, 0, sizeof *a);
}

hy_status hy_arena_record(hy_arena_acc *a, uint64_t seed, int rotation,
			  const hy_arena_result *r, hy_diag *d)
{
	if (seed >= a->nseeds || rotation < 0 || rotation >= HY_ARENA_ROTATIONS)
		return hy_diag_set(d, HY_EUSAGE, 0, "arena: seed %llu rotation %d out of range",
				   (unsigned long long)seed, rotation);
	if (r->state != HY_ARENA_PLAYED && r->state != HY_ARENA_ABORTED)
		return hy_diag_set(d, HY_EUSAGE, 0, "arena: result without a state");
	if (r->state == HY_ARENA_PLAYED && r->rank > 3)
		return hy_diag_set(d, HY_EUSAGE, 0, "arena: rank %d out of range", r->rank);
	hy_arena_result *slot = &a->res[seed * HY_ARENA_ROTATIONS + (uint64_t)rotation];
	if (slot->state != HY_ARENA_UNPLAYED)
		return hy_diag_set(d, HY_EUSAGE, 0, "arena: seed %llu rotation %d recorded twice",
				   (unsigned long long)seed, rotation);
	*slot = *r;
	return HY_OK;
}

static void add_counts(hy_arena_counts *c, const hy_play_seat_stats *s)
{
	c->kyoku += s->kyoku;
	c->wins += s->wins;
	c->deal_ins += s->deal_ins;
	c->calls += s->calls;
	c->riichi += s->riichi;
}

void hy_arena_result_of(const hy_play_game *g, int rotation, hy_arena_result *r)
{
	memset(r, 0, sizeof *r);
	if (g->aborted) {
		r->state = HY_ARENA_ABORTED;
		return;
	}
	int cs = hy_arena_challenger_seat(rotation);
	r->state = HY_ARENA_PLAYED;
	r->rank = g->rank[cs];
	r->score = g->final_scores[cs];
	add_counts(&r->chal, &g->stats[cs]);
	for (int s = 0; s < 4; s++)
		if (s != cs)
			add_counts(&r->opp, &g->stats[s]);
}

/* P(|T| <= x) for Student's t with df degrees of freedom: the finite series
 * of Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df) in
 * θ = atan(x / √df). */
static double t_central(double x, uint64_t df)
{
	double th = atan(x / sqrt((double)df));
	double c = cos(th), s = sin(th), c2 = c * c;
	if (df % 2 == 0) {
		double term = 1.0, sum = 1.0;
		for (uint64_t k = 2; k + 2 <= df; k += 2) {
			term *= c2 * (double)(k - 1) / (double)k;
			sum += term;
		}
		return s * sum;
	}
	if (df == 1)
		return 2.0 * th / M_PI;
	double term = c, sum = c;
	for (uint64_t k = 3; k + 2 <= df; k += 2) {
		term *= c2 * (double)(k - 1) / (double)k;
		sum += term;
	}
	return 2.0 / M_PI * (th + s * sum);
}

double hy_arena_t_quantile(double conf, uint64_t df)
{
	if (!(conf > 0 && conf < 1) || df == 0)
		return NAN;
	double lo = 0, hi = 1;
	while (t_central(hi, df) < conf && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (t_central(mid, df) < conf)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

void hy_arena_interval_at(const double *x, size_t n, double conf, hy_arena_interval *iv)
{
	iv->mean = iv->sd = iv->half = iv->lo = iv->hi = NAN;
	if (n == 0)
		return;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	iv->mean = sum / (double)n;
	if (n < HY_ARENA_MIN_SEEDS)
		return; /* 2 seeds give a t of 12.7 on one df: no honest interval */
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - iv->mean) * (x[i] - iv->mean);
	iv->sd = sqrt(ss / (double)(n - 1));
	iv->half = hy_arena_t_quantile(conf, n - 1) * iv->sd / sqrt((double)n);
	iv->lo = iv->mean - iv->half;
	iv->hi = iv->mean + iv->half;
}

void hy_arena_interval_of(const double *x, size_t n, hy_arena_interval *iv)
{
	hy_arena_interval_at(x, n, 0.95, iv);
}

static void rates_of(const hy_arena_counts *c, hy_arena_rates *r)
{
	r->kyoku = c->kyoku;
	double k = (double)c->kyoku;
	if (c->kyoku == 0) {
		r->win = r->deal_in = r->call = r->riichi = NAN;
		return;
	}
	r->win = (double)c->wins / k;
	r->deal_in = (double)c->deal_ins / k;
	r->call = (double)c->calls / k;
	r->riichi = (double)c->riichi / k;
}

static void sum_counts(hy_arena_counts *to, const hy_arena_counts *c)
{
	to->kyoku += c->kyoku;
	to->wins += c->wins;
	to->deal_ins += c->deal_ins;
	to->calls += c->calls;
	to->riichi += c->riichi;
}

void hy_arena_summarise(hy_arena_acc *a, hy_arena_summary *s)
{
	hy_arena_summarise_at(a, 0.95, s);
}

void hy_arena_summarise_at(hy_arena_acc *a, double conf, hy_arena_summary *s)
{
	memset(s, 0, sizeof *s);
	s->conf = conf;
	s->seeds = a->nseeds;
	double *mrank = a->scratch, *mpts = a->scratch + a->nseeds;
	hy_arena_counts chal = {0}, opp = {0};
	double score = 0;
	size_t n = 0;
	for (uint64_t k = 0; k < a->nseeds; k++) {
		const hy_arena_result *r = &a->res[k * HY_ARENA_ROTATIONS];
		int complete = 1, aborted = 0;
		for (int j = 0; j < HY_ARENA_ROTATIONS; j++) {
			aborted += r[j].state == HY_ARENA_ABORTED;
			s->unplayed += r[j].state == HY_ARENA_UNPLAYED;
			complete &= r[j].state == HY_ARENA_PLAYED;
		}
		s->aborted += (uint64_t)aborted;
		s->seeds_excluded += aborted > 0;
		if (!complete)
			continue;
		double rk = 0, pt = 0;
		for (int j = 0; j < HY_ARENA_ROTATIONS; j++) {
			rk += r[j].rank + 1;
			pt += hy_play_placement_points(r[j].rank);
			score += r[j].score;
			s->rank_count[r[j].rank]++;
			sum_counts(&chal, &r[j].chal);
			sum_counts(&opp, &r[j].opp);
		}
		mrank[n] = rk / HY_ARENA_ROTATIONS;
		mpts[n] = pt / HY_ARENA_ROTATIONS;
		n++;
	}
	s->seeds_counted = n;
	s->games = (uint64_t)n * HY_ARENA_ROTATIONS;
	hy_arena_interval_at(mrank, n, conf, &s->rank);
	hy_arena_interval_at(mpts, n, conf, &s->points);
	s->t = n >= HY_ARENA_MIN_SEEDS ? hy_arena_t_quantile(conf, n - 1) : NAN;
	s->score = s->games ? score / (double)s->games : NAN;
	rates_of(&chal, &s->chal);
	rates_of(&opp, &s->opp);
}

void hy_arena_seq_plan(uint64_t first, uint64_t max, hy_arena_seq *q)
{
	memset(q, 0, sizeof *q);
	if (first < 1)
		first = 1;
	for (uint64_t k = first; k < max && q->n < HY_ARENA_SEQ_MAX_LOOKS - 1; k *= 2)
		q->look[q->n++] = k;
	q->look[q->n++] = max;
	q->conf = 1.0 - 0.05 / q->n;
}

int hy_arena_decided(const hy_arena_summary *s)
{
	return s->rank.hi < 2.5 || s->rank.lo > 2.5; /* NaN: not decided */
}

/* ---------------------------------------------------------------- playing */

typedef struct pass_ctx {
	const hy_arena_opts *o;
	hy_arena_acc *a;
	int rotation;
} pass_ctx;

static int pass_seat(void *ctx, uint64_t game, int seat)
{
	(void)game;
	const pass_ctx *p = ctx;
	return hy_arena_seat_policy(p->rotation, seat);
}

static hy_status pass_sink(void *ctx, const hy_play_game *g, hy_diag *d)
{
	pass_ctx *p = ctx;
	hy_arena_result r;
	hy_arena_result_of(g, p->rotation, &r);
	hy_status st = hy_arena_record(p->a, g->game, p->rotation, &r, d);
	if (st)
		return st;
	if (p->o->on_game)
		return p->o->on_game(p->o->ctx, g->game, p->rotation, g, d);
	return HY_OK;
}

hy_status hy_arena_run(const hy_arena_opts *o, hy_policy *challenger, hy_policy *opponent,
		       hy_arena_acc *a, hy_diag *d)
{
	const uint64_t stride = o->stride ? o->stride : 1;
	if (o->nseeds == 0 || a->nseeds != o->nseeds || o->tables < 1 || o->threads < 1 ||
	    (o->count ? o->first >= o->nseeds ||
				o->count - 1 > (o->nseeds - 1 - o->first) / stride
		      : o->first || stride != 1))
		return hy_diag_set(d, HY_EUSAGE, 0, "arena: bad options");
	hy_policy *pol[2];
	pol[HY_ARENA_CHALLENGER] = challenger;
	pol[HY_ARENA_OPPONENT] = opponent;
	for (int r = 0; r < HY_ARENA_ROTATIONS; r++) {
		pass_ctx p = {.o = o, .a = a, .rotation = r};
		hy_play_opts po;
		hy_play_opts_default(&po);
		po.seed = o->seed;
		po.first = o->first;
		po.count = o->count ? o->count : o->nseeds;
		po.stride = stride;
		po.tables = o->tables;
		po.threads = o->threads;
		po.record_steps = 0;
		po.seat_policy = pass_seat;
		po.seat_ctx = &p;
		po.allow_oracle = o->allow_oracle;
		hy_status st = hy_play_run(&po, pol, 2, pass_sink, &p, d);
		if (st)
			return st;
	}
	return HY_OK;
}

/* Copies the results of seeds r, r + size, ... between the accumulator
 * and a packed buffer of their count (to_acc: into the accumulator). */
static void stride_copy(hy_arena_acc *a, int r, int size, hy_arena_result *packed, int to_acc)
{
	uint64_t n = hy_mpi_stride_count(r, size, a->nseeds);
	for (uint64_t k = 0; k < n; k++) {
		hy_arena_result *x = &a->res[((uint64_t)r + k * (uint64_t)size) * HY_ARENA_ROTATIONS];
		hy_arena_result *y = &packed[k * HY_ARENA_ROTATIONS];
		if (to_acc)
			memcpy(x, y, HY_ARENA_ROTATIONS * sizeof *x);
		else
			memcpy(y, x, HY_ARENA_ROTATIONS * sizeof *x);
	}
}

hy_status hy_arena_gather(const hy_mpi *ds, hy_arena_acc *a, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	const size_t per = HY_ARENA_ROTATIONS * sizeof *a->res;
	/* rank 1 has the most seeds of the ranks that send */
	size_t most = (size_t)hy_mpi_stride_count(1, ds->size, a->nseeds);
	hy_arena_result *buf = malloc(most ? most * per : 1);
	if (!buf)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu arena results)",
			most * HY_ARENA_ROTATIONS);
	size_t cap = most * per, n = 0;
	hy_status st = HY_OK;
	if (ds->rank > 0) {
		size_t mine = (size_t)hy_mpi_stride_count(ds->rank, ds->size, a->nseeds);
		stride_copy(a, ds->rank, ds->size, buf, 0);
		st = hy_mpi_send_msg(ds, 0, buf, mine * per, d);
		free(buf);
		return st;
	}
	void *p = buf;
	for (int r = 1; r < ds->size && !st; r++) {
		size_t want = (size_t)hy_mpi_stride_count(r, ds->size, a->nseeds) * per;
		if ((st = hy_mpi_recv_msg(ds, r, &p, &cap, &n, d)))
			break;
		if (n != want)
			st = hy_diag_set(d, HY_EDATA, 0, "arena: rank %d sent %zu bytes of results, "
				"expected %zu", r, n, want);
		else
			stride_copy(a, r, ds->size, p, 1);
	}
	free(p);
	return st;
}
