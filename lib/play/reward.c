/* Per-kyoku GRP rewards and their running normalisation (see reward.h). */
#include "play/reward.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "io/output.h"

const double hy_reward_pts[4] = {0.90, 0.45, 0.0, -1.35};

void hy_reward_kyoku(const hy_grp *m, const hy_grp_bounds *b, double (*r)[4], double prior[4])
{
	uint8_t rank[4];
	hy_grp_order_ranks(hy_grp_order_index(b->final), rank);
	double e[4], next[4];
	for (size_t k = 0; k < b->n; k++) {
		hy_grp_expected(m, &b->st[k], hy_reward_pts, e);
		if (k == 0)
			memcpy(prior, e, sizeof e);
		if (k > 0)
			for (int s = 0; s < 4; s++)
				r[k - 1][s] = e[s] - next[s];
		memcpy(next, e, sizeof e);
	}
	if (b->n > 0)
		for (int s = 0; s < 4; s++)
			r[b->n - 1][s] = hy_reward_pts[rank[s]] - next[s];
}

static float scaled(double x, double scale, double clip)
{
	x /= scale;
	return (float)(x > clip ? clip : x < -clip ? -clip : x);
}

hy_status hy_reward_place(const hy_grp_bounds *b, const double (*r)[4], double scale,
	double clip, hy_play_step *steps, size_t n, hy_diag *d)
{
	/* last[k][seat]: the seat's last step in kyoku k, or −1 */
	long *last = malloc((b->n ? b->n : 1) * 4 * sizeof *last);
	if (!last)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu kyoku)", b->n);
	for (size_t i = 0; i < b->n * 4; i++)
		last[i] = -1;
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		hy_sample *s = &steps[j].s;
		s->reward = 0.0f;
		while (k < b->n && !(b->st[k].grand_kyoku == s->grand_kyoku &&
				     b->st[k].honba == s->honba))
			k++;
		if (k == b->n || s->seat > 3) {
			free(last);
			return hy_diag_set(d, HY_EDATA, 0, "step %zu (grand kyoku %d, honba %d, seat "
				"%d) matches no start_kyoku of the game", j, s->grand_kyoku, s->honba,
				s->seat);
		}
		last[k * 4 + s->seat] = (long)j;
	}
	/* each seat's running sum of r up to a kyoku in which it decided goes
	 * on its last decision there; the remainder after its last one, too */
	for (int seat = 0; seat < 4; seat++) {
		double pending = 0, tail = 0;
		long at = -1;
		for (size_t q = 0; q < b->n; q++) {
			pending += r[q][seat];
			if (last[q * 4 + seat] >= 0) {
				at = last[q * 4 + seat];
				steps[at].s.reward = scaled(pending, scale, clip);
				tail = pending;
				pending = 0;
			}
		}
		if (at >= 0 && pending != 0)
			steps[at].s.reward = scaled(tail + pending, scale, clip);
	}
	free(last);
	return HY_OK;
}

/* ------------------------------------------------------------ normaliser */

void hy_reward_norm_add(hy_reward_norm *n, double x)
{
	n->count++;
	double dlt = x - n->mean;
	n->mean += dlt / (double)n->count;
	n->m2 += dlt * (x - n->mean);
}

double hy_reward_norm_std(const hy_reward_norm *n)
{
	return n->count ? sqrt(n->m2 / (double)n->count) : NAN;
}

double hy_reward_norm_scale(const hy_reward_norm *n)
{
	double s = hy_reward_norm_std(n);
	return n->count >= 2 && s >= 1e-6 ? s : 1.0;
}

#define STATE_MAGIC "hydra-reward-state"
enum { STATE_VERSION = 1 };

hy_status hy_reward_norm_load(const char *path, hy_reward_norm *n, int *found, hy_diag *d)
{
	memset(n, 0, sizeof *n);
	*found = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return HY_OK;
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	}
	static const char *const key[4] = {STATE_MAGIC, "count", "mean", "m2"};
	char line[256];
	hy_status st = HY_OK;
	int ln = 0;
	for (; ln < 4 && st == HY_OK; ln++) {
		if (!fgets(line, sizeof line, f)) {
			st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': line %d: missing (a reward state "
				"has 4 lines)", path, ln + 1);
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		size_t kl = strlen(key[ln]);
		if (strncmp(line, key[ln], kl) || line[kl] != ' ') {
			st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': line %d: expected '%s VALUE'%s", path,
				ln + 1, key[ln], ln == 0 ? " (not a reward state file)" : "");
			break;
		}
		const char *v = line + kl + 1;
		uint64_t u = 0;
		double x = 0;
		if (ln == 0) {
			if (hy_parse_u64(v, 10, &u) || u < 1)
				st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': line 1: bad version '%s'", path, v);
			else if (u > STATE_VERSION)
				st = hy_diag_set(d, HY_EVERSION, 0, "'%s': reward state version %s, this "
					"build reads 1", path, v);
		} else if (ln == 1) {
			if (hy_parse_u64(v, 10, &u))
				st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': line 2: bad count '%s'", path, v);
			n->count = u;
		} else if (hy_parse_double(v, &x) || !isfinite(x) || (ln == 3 && x < 0)) {
			st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': line %d: bad %s '%s'", path, ln + 1,
				key[ln], v);
		} else if (ln == 2) {
			n->mean = x;
		} else {
			n->m2 = x;
		}
	}
	if (st == HY_OK && fgets(line, sizeof line, f))
		st = hy_diag_set(d, HY_EFORMAT, 0, "'%s': line 5: unexpected text after the state",
			path);
	fclose(f);
	if (st == HY_OK)
		*found = 1;
	else
		memset(n, 0, sizeof *n);
	return st;
}

hy_status hy_reward_norm_save(const char *path, const hy_reward_norm *n, hy_fileset *fs,
	hy_diag *d)
{
	hy_output o;
	hy_status st = hy_output_open(&o, path, d);
	if (st != HY_OK)
		return st;
	if (fprintf(o.f, "%s %d\ncount %llu\nmean %.17g\nm2 %.17g\n", STATE_MAGIC, STATE_VERSION,
		    (unsigned long long)n->count, n->mean, n->m2) < 0) {
		hy_output_abort(&o);
		return hy_diag_set(d, HY_EIO, 0, "cannot write '%s': %s", path, strerror(errno));
	}
	return fs ? hy_output_finish(&o, fs, d) : hy_output_commit(&o, d);
}

/* ------------------------------------------------------------ the hook */

hy_status hy_reward_grp_open(hy_reward_grp *x, const char *path, hy_diag *d)
{
	memset(x, 0, sizeof *x);
	x->clip = 5.0;
	return hy_grp_load(path, &x->m, d);
}

void hy_reward_grp_close(hy_reward_grp *x)
{
	hy_grp_free(&x->m);
	hy_grp_bounds_free(&x->b);
	free(x->r);
	memset(x, 0, sizeof *x);
}

/* The kyoku boundaries of game g into *b, the engine's final scores, and
 * room for a reward per kyoku and seat in *r. `what` names the reward in
 * messages. */
static hy_status bounds_of(const hy_play_game *g, hy_grp_bounds *b, double (**r)[4],
	size_t *rcap, const char *what, hy_diag *d)
{
	hy_diag bd;
	hy_diag_init(&bd, NULL);
	hy_status st = hy_grp_bounds_read(g->log, b, &bd);
	if (st != HY_OK)
		return hy_diag_set(d, st, 0, "game %llu: %s rewards: %s",
			(unsigned long long)g->game + 1, what, bd.msg);
	memcpy(b->final, g->final_scores, sizeof b->final); /* the engine's */
	if (b->n > *rcap) {
		double(*nr)[4] = realloc(*r, b->n * sizeof *nr);
		if (!nr)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu kyoku)", b->n);
		*r = nr;
		*rcap = b->n;
	}
	return HY_OK;
}

hy_status hy_reward_grp_apply(void *ctx, const hy_play_game *g, hy_play_step *steps,
	hy_diag *d)
{
	hy_reward_grp *x = ctx;
	hy_diag bd;
	hy_diag_init(&bd, NULL);
	hy_status st = bounds_of(g, &x->b, &x->r, &x->rcap, "GRP", d);
	if (st != HY_OK)
		return st;
	double prior[4];
	hy_reward_kyoku(&x->m, &x->b, x->r, prior);
	for (size_t k = 0; k < x->b.n; k++)
		for (int s = 0; s < 4; s++)
			hy_reward_norm_add(&x->norm, x->r[k][s]);
	st = hy_reward_place(&x->b, (const double(*)[4])x->r, hy_reward_norm_scale(&x->norm),
		x->clip, steps, g->nsteps, &bd);
	if (st != HY_OK)
		return hy_diag_set(d, st, 0, "game %llu: GRP rewards: %s",
			(unsigned long long)g->game + 1, bd.msg);
	x->games++;
	return HY_OK;
}

void hy_reward_score_close(hy_reward_score *x)
{
	hy_grp_bounds_free(&x->b);
	free(x->r);
	memset(x, 0, sizeof *x);
}

hy_status hy_reward_score_apply(void *ctx, const hy_play_game *g, hy_play_step *steps,
	hy_diag *d)
{
	hy_reward_score *x = ctx;
	hy_status st = bounds_of(g, &x->b, &x->r, &x->rcap, "kyoku", d);
	if (st != HY_OK)
		return st;
	for (size_t k = 0; k < x->b.n; k++) {
		const int32_t *next = k + 1 < x->b.n ? x->b.st[k + 1].scores : x->b.final;
		for (int s = 0; s < 4; s++)
			x->r[k][s] = (double)(next[s] - x->b.st[k].scores[s]);
	}
	hy_diag bd;
	hy_diag_init(&bd, NULL);
	st = hy_reward_place(&x->b, (const double(*)[4])x->r, HY_REWARD_SCORE_SCALE,
		HY_REWARD_SCORE_CLIP, steps, g->nsteps, &bd);
	if (st != HY_OK)
		return hy_diag_set(d, st, 0, "game %llu: kyoku rewards: %s",
			(unsigned long long)g->game + 1, bd.msg);
	x->games++;
	return HY_OK;
}
