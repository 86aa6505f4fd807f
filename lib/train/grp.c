/* GRP data and training (see grp.h). */
#include "train/grp.h"
#include "core/grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode/encode.h"
#include "nn/rng.h"
#include "train/step.h"

void hy_grp_bounds_free(hy_grp_bounds *b)
{
	free(b->st);
	memset(b, 0, sizeof *b);
}

static hy_status push_state(hy_grp_bounds *b, const hy_grp_state *s)
{
	if (HY_GROW(b->st, b->cap, b->n + 1, 16))
		return HY_ENOMEM;
	b->st[b->n++] = *s;
	return HY_OK;
}

static void add_deltas(int32_t sc[4], const hy_event *ev)
{
	if (ev->flags & HY_EVF_SCORES)
		memcpy(sc, ev->scores, 4 * sizeof *sc);
	else if (ev->flags & HY_EVF_DELTAS)
		for (int s = 0; s < 4; s++)
			sc[s] += ev->deltas[s];
}

hy_status hy_grp_bounds_read(const hy_game *g, hy_grp_bounds *b, hy_diag *d)
{
	b->n = 0;
	int32_t sc[4] = {25000, 25000, 25000, 25000};
	int sticks = 0, end = 0;
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *ev = &g->ev[i];
		switch (ev->type) {
		case HY_EV_START_KYOKU: {
			hy_grp_state s;
			memset(&s, 0, sizeof s);
			if (ev->flags & HY_EVF_SCORES)
				memcpy(sc, ev->scores, sizeof sc);
			memcpy(s.scores, sc, sizeof sc);
			int wind = ev->bakaze >= 27 && ev->bakaze <= 30
				? ev->bakaze - 27 /* E S W N */
				: 0;
			int k = ev->kyoku >= 1 && ev->kyoku <= 4 ? ev->kyoku - 1 : 0;
			s.grand_kyoku = (uint8_t)(wind * 4 + k);
			s.honba = ev->honba;
			if (ev->flags & HY_EVF_KYOTAKU)
				sticks = ev->kyotaku;
			s.kyotaku = (uint8_t)(sticks < 255 ? sticks : 255);
			s.oya = ev->oya & 3;
			if (push_state(b, &s) != HY_OK)
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			break;
		}
		case HY_EV_REACH_ACCEPTED:
			if (ev->flags & HY_EVF_SCORES)
				memcpy(sc, ev->scores, sizeof sc);
			else if (ev->actor < 4)
				sc[ev->actor] -= 1000;
			sticks++;
			break;
		case HY_EV_HORA:
			add_deltas(sc, ev); /* the winner takes the sticks */
			sticks = 0;
			break;
		case HY_EV_RYUKYOKU:
			add_deltas(sc, ev);
			break;
		case HY_EV_END_GAME:
			end = 1;
			if (ev->flags & HY_EVF_SCORES) {
				memcpy(sc, ev->scores, sizeof sc);
				sticks = 0;
			}
			break;
		default:
			break;
		}
	}
	if (!end || b->n == 0)
		return hy_diag_set(d, HY_EDATA, 0, "%s", !end ? "no end_game: the final order is "
			"unknown" : "no start_kyoku");
	if (sticks > 0) { /* left on the table: to the first-placed seat */
		int top = 0;
		for (int s = 1; s < 4; s++)
			if (sc[s] > sc[top])
				top = s;
		sc[top] += 1000 * sticks;
	}
	memcpy(b->final, sc, sizeof sc);
	return HY_OK;
}

void hy_grp_data_init(hy_grp_data *D, int val_permille)
{
	memset(D, 0, sizeof *D);
	D->val_permille = val_permille;
}

void hy_grp_data_free(hy_grp_data *D)
{
	free(D->v);
	hy_grp_bounds_free(&D->b);
	memset(D, 0, sizeof *D);
}

hy_status hy_grp_data_add(hy_grp_data *D, const hy_game *g, hy_diag *d)
{
	hy_diag bd;
	hy_diag_init(&bd, NULL);
	hy_status st = hy_grp_bounds_read(g, &D->b, &bd);
	if (st == HY_EDATA) {
		D->incomplete++;
		return HY_OK;
	}
	if (st != HY_OK)
		return hy_diag_set(d, st, 0, "%s", bd.msg);
	uint64_t id = 0;
	if ((st = hy_encode_game_id(g, &id, d)) != HY_OK)
		return st;
	const int val = (int)(id % 1000) < D->val_permille;
	const int y = hy_grp_order_index(D->b.final);
	if (HY_GROW(D->v, D->cap, D->n + D->b.n, 1024))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu GRP samples)",
			D->n + D->b.n);
	for (size_t k = 0; k < D->b.n; k++) {
		hy_grp_sample *s = &D->v[D->n++];
		hy_grp_features(&D->b.st[k], s->x);
		s->y = (uint8_t)y;
		s->val = (uint8_t)val;
	}
	D->games++;
	D->val_games += (uint64_t)val;
	return HY_OK;
}

void hy_grp_train_defaults(hy_grp_train_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->hidden = HY_GRP_HIDDEN;
	c->epochs = 30;
	c->batch = 256;
	c->lr = 1e-3f;
	c->wd = 1e-4f;
}

/* The samples of one side (val 0/1) as contiguous x and y. */
static hy_status gather(const hy_grp_data *D, int val, float **x, uint8_t **y, size_t *n)
{
	size_t k = 0;
	for (size_t i = 0; i < D->n; i++)
		k += D->v[i].val == val;
	*n = k;
	*x = malloc((k ? k : 1) * HY_GRP_NIN * sizeof **x);
	*y = malloc(k ? k : 1);
	if (!*x || !*y)
		return HY_ENOMEM;
	k = 0;
	for (size_t i = 0; i < D->n; i++)
		if (D->v[i].val == val) {
			memcpy(*x + k * HY_GRP_NIN, D->v[i].x, sizeof D->v[i].x);
			(*y)[k++] = D->v[i].y;
		}
	return HY_OK;
}

/* The GRP as a learner of the one step (train/step.h). Its loss pass
 * computes the gradients in the same sweep (nn/grp.h hy_grp_loss), so the
 * backward is empty. */
typedef struct grp_learner {
	hy_train_learner L;
	hy_grp *m;
	const float *x;
	const uint8_t *y;
	size_t hits;
} grp_learner;

static hy_status grp_loss(hy_train_learner *L, int k, hy_nn_losses *l, hy_diag *d)
{
	grp_learner *q = (grp_learner *)L;
	size_t h = 0;
	l->grp = l->total = hy_grp_loss(q->m, q->x, q->y, (size_t)k, 1, &h);
	l->n = k;
	q->hits += h;
	return HY_OK;
}

static void grp_backward(hy_train_learner *L, int k)
{
	(void)L, (void)k; /* done by grp_loss */
}

static void grp_update(hy_train_learner *L, const hy_nn_optim_cfg *opt, int64_t *step,
	hy_nn_step_info *info)
{
	hy_grp *m = ((grp_learner *)L)->m;
	info->lr = hy_nn_lr_at(opt, m->step);
	info->grad_norm = hy_grp_adamw(m, opt, info->lr);
	*step = m->step;
}

/* The calibration of the trained model on the validation samples: its
 * log-loss and top-1 beside the uniform and the training orders'
 * frequencies (Laplace-smoothed). */
static void calibrate(hy_grp *m, const hy_grp_data *D, const uint8_t *ty, size_t nt,
	const float *vx, const uint8_t *vy, size_t nv, hy_grp_calib *cal)
{
	double freq[HY_GRP_NOUT];
	for (int k = 0; k < HY_GRP_NOUT; k++)
		freq[k] = 1.0; /* Laplace */
	for (size_t i = 0; i < nt; i++)
		freq[ty[i]] += 1.0;
	int mode = 0;
	for (int k = 0; k < HY_GRP_NOUT; k++) {
		freq[k] /= (double)nt + HY_GRP_NOUT;
		mode = freq[k] > freq[mode] ? k : mode;
	}
	cal->samples = nv;
	cal->games = D->val_games;
	cal->uniform = log((double)HY_GRP_NOUT);
	cal->loss = cal->top1 = cal->empirical = cal->emp_top1 = NAN;
	if (nv) {
		size_t vh = 0, eh = 0;
		cal->loss = hy_grp_loss(m, vx, vy, nv, 0, &vh);
		cal->top1 = (double)vh / (double)nv;
		double el = 0;
		for (size_t i = 0; i < nv; i++) {
			el -= log(freq[vy[i]]);
			eh += vy[i] == mode;
		}
		cal->empirical = el / (double)nv;
		cal->emp_top1 = (double)eh / (double)nv;
	}
}

hy_status hy_grp_train(const hy_grp_train_cfg *c, const hy_grp_data *D, hy_grp *m,
	void (*epoch)(void *u, const hy_grp_epoch *e), void *u, hy_grp_calib *cal, hy_diag *d)
{
	memset(cal, 0, sizeof *cal);
	if (c->epochs < 1 || c->batch < 1)
		return hy_diag_set(d, HY_EUSAGE, 0, "GRP training needs epochs and batch >= 1");
	float *tx = NULL, *vx = NULL, *bx = NULL, *best = NULL;
	uint8_t *ty = NULL, *vy = NULL, *by = NULL;
	size_t *order = NULL, nt = 0, nv = 0;
	hy_status st = hy_grp_init(m, c->hidden, c->seed, d);
	if (st != HY_OK)
		return st;
	if (gather(D, 0, &tx, &ty, &nt) != HY_OK || gather(D, 1, &vx, &vy, &nv) != HY_OK) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu GRP samples)", D->n);
		goto out;
	}
	if (nt == 0) {
		st = hy_diag_set(d, HY_EDATA, 0, "no training games (%" PRIu64 " complete games, %"
			PRIu64 " for validation)", D->games, D->val_games);
		goto out;
	}
	const size_t B = (size_t)c->batch < nt ? (size_t)c->batch : nt;
	order = malloc(nt * sizeof *order);
	bx = malloc(B * HY_GRP_NIN * sizeof *bx);
	by = malloc(B);
	best = malloc(m->table.total * sizeof *best);
	if (!order || !bx || !by || !best) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu GRP samples)", nt);
		goto out;
	}
	for (size_t i = 0; i < nt; i++)
		order[i] = i;
	const int64_t spe = (int64_t)((nt + B - 1) / B);
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, spe * c->epochs);
	oc.lr = c->lr;
	oc.lr_min = c->lr / 10;
	oc.wd = c->wd;
	oc.warmup = oc.total / 20 > 1 ? oc.total / 20 : 1;
	hy_rng r;
	hy_rng_seed(&r, c->seed ^ 0x67727021u); /* data order apart from the init's draws */
	double best_loss = INFINITY;
	memcpy(best, m->p, m->table.total * sizeof *best);
	cal->best_epoch = c->epochs;
	for (int ep = 1; ep <= c->epochs; ep++) {
		for (size_t i = nt; i > 1; i--) { /* Fisher–Yates */
			size_t j = (size_t)hy_rng_below(&r, i);
			size_t t = order[i - 1];
			order[i - 1] = order[j];
			order[j] = t;
		}
		double tl = 0;
		grp_learner q = {.L = {.loss = grp_loss, .backward = grp_backward,
			.update = grp_update}, .m = m, .x = bx, .y = by};
		for (size_t a = 0; a < nt; a += B) {
			size_t nb = a + B <= nt ? B : nt - a;
			for (size_t k = 0; k < nb; k++) {
				memcpy(bx + k * HY_GRP_NIN, tx + order[a + k] * HY_GRP_NIN,
					HY_GRP_NIN * sizeof *bx);
				by[k] = ty[order[a + k]];
			}
			hy_nn_losses l;
			hy_nn_step_info info;
			int64_t step = m->step;
			memset(&l, 0, sizeof l);
			if ((st = hy_train_step(&q.L, NULL, (int)nb, &oc, &step, &l, &info, d)))
				goto out;
			tl += l.grp * (double)nb;
		}
		const size_t hits = q.hits;
		hy_grp_epoch e = {.epoch = ep, .step = m->step, .train_loss = tl / (double)nt,
			.train_top1 = (double)hits / (double)nt, .val_loss = NAN, .val_top1 = NAN};
		if (nv) {
			size_t vh = 0;
			e.val_loss = hy_grp_loss(m, vx, vy, nv, 0, &vh);
			e.val_top1 = (double)vh / (double)nv;
			if (e.val_loss < best_loss) {
				best_loss = e.val_loss;
				cal->best_epoch = ep;
				memcpy(best, m->p, m->table.total * sizeof *best);
			}
		}
		if (epoch)
			epoch(u, &e);
	}
	if (nv)
		memcpy(m->p, best, m->table.total * sizeof *best);
	calibrate(m, D, ty, nt, vx, vy, nv, cal);
out:
	free(tx);
	free(ty);
	free(vx);
	free(vy);
	free(bx);
	free(by);
	free(order);
	free(best);
	if (st != HY_OK)
		hy_grp_free(m);
	return st;
}
