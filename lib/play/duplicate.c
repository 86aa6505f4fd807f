/* Duplicate self-play's advantages; see duplicate.h. */
#include "play/duplicate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One seat's kyoku in one game of the group. */
struct hy_dup_kyoku {
	uint8_t game, seat, grand_kyoku, honba;
	double reward;   /* sum of the rewards of its steps */
	double base;     /* the others' mean reward (valid with nbase > 0) */
	int nbase;
};

void hy_dup_init(hy_dup *u)
{
	memset(u, 0, sizeof *u);
}

void hy_dup_free(hy_dup *u)
{
	free(u->s);
	free(u->slot);
	free(u->k);
	hy_dup_init(u);
}

hy_status hy_dup_push(hy_dup *u, const hy_sample *x, hy_diag *d)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 1024;
		hy_sample *s = realloc(u->s, cap * sizeof *s);
		if (!s)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu steps in a duplicate "
					   "group)", u->n);
		u->s = s;
		uint8_t *g = realloc(u->slot, cap);
		if (!g)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu steps in a duplicate "
					   "group)", u->n);
		u->slot = g;
		u->cap = cap;
	}
	u->s[u->n] = *x;
	u->slot[u->n] = (uint8_t)u->game;
	u->n++;
	return HY_OK;
}

void hy_dup_end_game(hy_dup *u)
{
	u->game++;
}

/* The entry of step x of game g, made when new; NULL when out of memory.
 * A seat's steps of one kyoku follow each other among its own steps, so
 * the search from the end meets the entry within a few tries. */
static hy_dup_kyoku *entry(hy_dup *u, int g, const hy_sample *x)
{
	for (size_t i = u->nk; i-- > 0;) {
		hy_dup_kyoku *k = &u->k[i];
		if (k->game == g && k->seat == x->seat && k->grand_kyoku == x->grand_kyoku &&
		    k->honba == x->honba)
			return k;
	}
	if (u->nk == u->capk) {
		size_t cap = u->capk ? 2 * u->capk : 64;
		hy_dup_kyoku *k = realloc(u->k, cap * sizeof *k);
		if (!k)
			return NULL;
		u->k = k;
		u->capk = cap;
	}
	hy_dup_kyoku *k = &u->k[u->nk++];
	memset(k, 0, sizeof *k);
	k->game = (uint8_t)g;
	k->seat = x->seat;
	k->grand_kyoku = x->grand_kyoku;
	k->honba = x->honba;
	return k;
}

hy_status hy_dup_finish(hy_dup *u, size_t *out, hy_diag *d)
{
	*out = 0;
	u->nk = 0;
	/* each step's kyoku: the rewards summed */
	for (size_t i = 0; i < u->n; i++) {
		hy_dup_kyoku *k = entry(u, u->slot[i], &u->s[i]);
		if (!k)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (duplicate group)");
		k->reward += u->s[i].reward;
	}
	/* the baselines: the same seat's same kyoku in the other games */
	for (size_t a = 0; a < u->nk; a++) {
		hy_dup_kyoku *k = &u->k[a];
		double sum = 0;
		int n = 0;
		for (size_t b = 0; b < u->nk; b++) {
			const hy_dup_kyoku *o = &u->k[b];
			if (o->game != k->game && o->seat == k->seat &&
			    o->grand_kyoku == k->grand_kyoku && o->honba == k->honba) {
				sum += o->reward;
				n++;
			}
		}
		k->nbase = n;
		k->base = n ? sum / n : 0;
		if (n) {
			double adv = k->reward - k->base;
			u->st.kyoku++;
			u->st.sum_r += k->reward;
			u->st.sum_r2 += k->reward * k->reward;
			u->st.sum_a2 += adv * adv;
		} else {
			u->st.lone++;
		}
	}
	/* the advantages, and the steps without a baseline dropped */
	size_t m = 0;
	for (size_t i = 0; i < u->n; i++) {
		const hy_dup_kyoku *k = entry(u, u->slot[i], &u->s[i]);
		if (!k->nbase) {
			u->st.dropped++;
			continue;
		}
		u->s[m] = u->s[i];
		u->s[m].adv = (float)(k->reward - k->base);
		m++;
	}
	u->st.steps += m;
	*out = m;
	return HY_OK;
}

void hy_dup_clear(hy_dup *u)
{
	u->n = 0;
	u->nk = 0;
	u->game = 0;
}

double hy_dup_reward_sd(const hy_dup_stats *st)
{
	if (!st->kyoku)
		return 0;
	double n = (double)st->kyoku, mean = st->sum_r / n;
	double var = st->sum_r2 / n - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

double hy_dup_adv_rms(const hy_dup_stats *st)
{
	return st->kyoku ? sqrt(st->sum_a2 / (double)st->kyoku) : 0;
}
