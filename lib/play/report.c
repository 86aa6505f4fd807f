/* Tables and JSON objects of hydra-eval (see report.h). */
#include "play/report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

static hy_status io_status(FILE *f, hy_diag *d)
{
	if (ferror(f))
		return hy_diag_set(d, HY_EIO, 0, "write error: %s", strerror(errno ? errno : EIO));
	return HY_OK;
}

/* "%.*f" or "-" for a number that does not exist. */
static const char *num(char *buf, size_t n, double x, int prec)
{
	if (!isfinite(x))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*f", prec, x);
	return buf;
}

static void interval_row(FILE *f, const char *label, const hy_arena_interval *iv, int prec,
			 uint64_t seeds, double conf)
{
	char m[64], lo[64], hi[64], h[64];
	fprintf(f, "%-18s%-10s", label, num(m, sizeof m, iv->mean, prec));
	if (isfinite(iv->half))
		fprintf(f, "+- %-9s %.4g%% CI [%s, %s]", num(h, sizeof h, iv->half, prec),
			100 * conf, num(lo, sizeof lo, iv->lo, prec), num(hi, sizeof hi, iv->hi,
			prec));
	else
		fprintf(f, "interval not available (%llu seed%s)", (unsigned long long)seeds,
			seeds == 1 ? "" : "s");
	fputc('\n', f);
}

static void rates_row(FILE *f, const char *label, const hy_arena_rates *r)
{
	char a[32], b[32], c[32], e[32];
	fprintf(f, "  %-16s%-10llu%-9s%-9s%-9s%s\n", label, (unsigned long long)r->kyoku,
		num(a, sizeof a, r->win, 4), num(b, sizeof b, r->deal_in, 4),
		num(c, sizeof c, r->call, 4), num(e, sizeof e, r->riichi, 4));
}

/* How a checkpoint plays, between pre and post: "greedy" or "temperature
 * 0.5"; "" for a policy that is not a checkpoint (t < 0). */
static const char *temp_words(double t, const char *pre, const char *post, char *buf, size_t n)
{
	if (t < 0)
		snprintf(buf, n, "%s", "");
	else if (t == 0)
		snprintf(buf, n, "%sgreedy%s", pre, post);
	else
		snprintf(buf, n, "%stemperature %g%s", pre, t, post);
	return buf;
}

/* A temperature for JSON: null for a policy that is not a checkpoint. */
static json_t *jtemp(double t)
{
	return t < 0 ? json_null() : json_real(t);
}

hy_status hy_report_arena_table(FILE *f, const hy_report_arena_info *info,
				const hy_arena_summary *s, hy_diag *d)
{
	static const char *const ord[4] = {"1st", "2nd", "3rd", "4th"};
	char buf[64];
	char ct[48], ot[48];
	fprintf(f, "%-18s%s%s\n", "challenger", info->challenger,
		temp_words(info->chal_temp, " (", ")", ct, sizeof ct));
	fprintf(f, "%-18s%s (3 seats%s)\n", "opponent", info->opponent,
		temp_words(info->opp_temp, ", ", "", ot, sizeof ot));
	fprintf(f, "%-18s%llu (master seed %llu), 4 rotations each\n", "seeds",
		(unsigned long long)s->seeds, info->seed);
	fprintf(f, "%-18s%llu counted, %llu aborted", "games", (unsigned long long)s->games,
		(unsigned long long)s->aborted);
	if (s->seeds_excluded)
		fprintf(f, " (%llu seed%s left out)", (unsigned long long)s->seeds_excluded,
			s->seeds_excluded == 1 ? "" : "s");
	if (s->unplayed)
		fprintf(f, ", %llu not played", (unsigned long long)s->unplayed);
	fputc('\n', f);
	interval_row(f, "average rank", &s->rank, 4, s->seeds_counted, s->conf);
	interval_row(f, "placement points", &s->points, 2, s->seeds_counted, s->conf);
	if (info->seq) {
		const hy_arena_seq *q = info->seq;
		if (info->decided)
			fprintf(f, "%-18sdecided after %llu of at most %llu seeds (look %d of %d): the "
				"interval excludes 2.5\n", "sequential",
				(unsigned long long)q->look[info->looks - 1],
				(unsigned long long)q->look[q->n - 1], info->looks, q->n);
		else
			fprintf(f, "%-18snot decided at %llu seeds (%d looks): the interval holds "
				"2.5\n", "sequential", (unsigned long long)q->look[info->looks - 1],
				info->looks);
		fprintf(f, "%-18seach look at %.4g%%, so 95%% over the %d looks (Bonferroni)\n", "",
			100 * q->conf, q->n);
	}
	if (isfinite(s->t))
		fprintf(f, "%-18sStudent t %.4f, %llu df, over per-seed means\n", "interval",
			s->t, (unsigned long long)(s->seeds_counted - 1));
	fprintf(f, "%-18s%s\n", "average score", num(buf, sizeof buf, s->score, 0));
	fprintf(f, "%-18s", "ranks");
	for (int i = 0; i < 4; i++) {
		double share = s->games ? 100.0 * (double)s->rank_count[i] / (double)s->games : NAN;
		fprintf(f, "%s %llu (%s%s)%s", ord[i], (unsigned long long)s->rank_count[i],
			num(buf, sizeof buf, share, 1), isfinite(share) ? "%" : "", i < 3 ? "  " : "\n");
	}
	fprintf(f, "%-18s%-10s%-9s%-9s%-9s%s\n", "per kyoku", "kyoku", "win", "deal-in", "call",
		"riichi");
	rates_row(f, "challenger", &s->chal);
	rates_row(f, "opponents", &s->opp);
	if (info->elapsed_s > 0)
		fprintf(f, "%-18s%.1f (%llu games in %.1f s)\n", "games/s",
			(double)(s->games + s->aborted) / info->elapsed_s,
			(unsigned long long)(s->games + s->aborted), info->elapsed_s);
	return io_status(f, d);
}

/* A real, or null when it does not exist. */
static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static int put(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *jinterval(const hy_arena_interval *iv)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (put(o, "mean", jnum(iv->mean)) || put(o, "sd_seed_means", jnum(iv->sd)) ||
	    put(o, "half_width", jnum(iv->half)) || put(o, "lo", jnum(iv->lo)) ||
	    put(o, "hi", jnum(iv->hi))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *jrates(const hy_arena_rates *r)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (put(o, "kyoku", json_integer((json_int_t)r->kyoku)) || put(o, "win", jnum(r->win)) ||
	    put(o, "deal_in", jnum(r->deal_in)) || put(o, "call", jnum(r->call)) ||
	    put(o, "riichi", jnum(r->riichi))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static hy_status dump(FILE *f, json_t *o, hy_diag *d)
{
	if (!o)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	int rc = json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (rc)
		return hy_diag_set(d, HY_EIO, 0, "write error");
	fputc('\n', f);
	return io_status(f, d);
}

hy_status hy_report_arena_json(FILE *f, const hy_report_arena_info *info,
			       const hy_arena_summary *s, hy_diag *d)
{
	json_t *o = json_object(), *rc = json_array(), *rates = json_object();
	double gps = info->elapsed_s > 0 ? (double)(s->games + s->aborted) / info->elapsed_s : NAN;
	int bad = !o || !rc || !rates;
	for (int i = 0; !bad && i < 4; i++)
		bad = json_array_append_new(rc, json_integer((json_int_t)s->rank_count[i])) != 0;
	if (!bad)
		bad = put(rates, "challenger", jrates(&s->chal)) ||
		      put(rates, "opponents", jrates(&s->opp));
	if (bad) {
		json_decref(o);
		json_decref(rc);
		json_decref(rates);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	/* rc and rates belong to o from here (set_new takes them even when it
	 * fails), so one decref of o frees everything */
	if (put(o, "challenger", json_string(info->challenger)) |
	    put(o, "opponent", json_string(info->opponent)) |
	    put(o, "challenger_temperature", jtemp(info->chal_temp)) |
	    put(o, "opponent_temperature", jtemp(info->opp_temp)) |
	    put(o, "seed", json_integer((json_int_t)info->seed)) |
	    put(o, "seeds", json_integer((json_int_t)s->seeds)) |
	    put(o, "seeds_counted", json_integer((json_int_t)s->seeds_counted)) |
	    put(o, "games", json_integer((json_int_t)s->games)) |
	    put(o, "aborted", json_integer((json_int_t)s->aborted)) |
	    put(o, "seeds_excluded", json_integer((json_int_t)s->seeds_excluded)) |
	    put(o, "unplayed", json_integer((json_int_t)s->unplayed)) |
	    put(o, "confidence", json_real(s->conf)) | put(o, "t", jnum(s->t)) |
	    put(o, "rank", jinterval(&s->rank)) | put(o, "points", jinterval(&s->points)) |
	    put(o, "score", jnum(s->score)) | put(o, "rank_count", rc) |
	    put(o, "rates", rates) | put(o, "elapsed_s", jnum(info->elapsed_s)) |
	    put(o, "games_per_s", jnum(gps))) {
		json_decref(o);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	if (info->seq) { /* looks: the seeds after each look made */
		const hy_arena_seq *q = info->seq;
		json_t *sq = json_object(), *lk = json_array();
		for (int i = 0; sq && lk && i < info->looks; i++)
			if (json_array_append_new(lk, json_integer((json_int_t)q->look[i])))
				break;
		if (!sq || !lk || put(sq, "decided", json_boolean(info->decided)) |
			put(sq, "looks", lk) | put(sq, "max_looks", json_integer(q->n)) |
			put(sq, "max_seeds", json_integer((json_int_t)q->look[q->n - 1])) |
			put(sq, "look_confidence", json_real(q->conf)) | put(o, "sequential", sq)) {
			json_decref(o);
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		}
	}
	return dump(f, o, d);
}

hy_status hy_report_dseval_table(FILE *f, const char *model, const hy_dseval_result *r,
				 hy_diag *d)
{
	char a[32], b[32];
	fprintf(f, "%-10s%s (%d blocks x %d channels)\n", "model", model, r->arch.blocks,
		r->arch.channels);
	fprintf(f, "%-10s%llu\n", "samples", (unsigned long long)r->n);
	fprintf(f, "%-10s%-10s%-9s%s\n", "action", "samples", "top-1", "top-3");
	for (int t = 0; t < HY_DSEVAL_TYPES; t++)
		fprintf(f, "%-10s%-10llu%-9s%s\n", hy_dseval_type_name(t),
			(unsigned long long)r->count[t], num(a, sizeof a, r->acc1[t], 4),
			num(b, sizeof b, r->acc3[t], 4));
	fprintf(f, "%-10s%-10llu%-9s%s\n", "all", (unsigned long long)r->n,
		num(a, sizeof a, r->acc1_all, 4), num(b, sizeof b, r->acc3_all, 4));
	fprintf(f, "the model's top-1 (columns) by the label's type (rows)\n%-10s", "");
	for (int t = 0; t < HY_DSEVAL_TYPES; t++)
		fprintf(f, t + 1 < HY_DSEVAL_TYPES ? "%-9s" : "%s\n", hy_dseval_type_name(t));
	for (int t = 0; t < HY_DSEVAL_TYPES; t++) {
		fprintf(f, "  %-8s", hy_dseval_type_name(t));
		for (int u = 0; u < HY_DSEVAL_TYPES; u++)
			fprintf(f, u + 1 < HY_DSEVAL_TYPES ? "%-9llu" : "%llu\n",
				(unsigned long long)r->confusion[t][u]);
	}
	static const char *const miss_text[HY_DSEVAL_MISSES] = {
		"the other copy of the same five",
		"no riichi: both keep the minimum shanten",
		"no riichi: only the label's keeps it",
		"no riichi: only the model's keeps it",
		"no riichi: neither keeps it",
		"a riichi: both safe",
		"a riichi: only the label's safe (the model pushes)",
		"a riichi: only the model's safe (the model folds)",
		"a riichi: neither safe",
	};
	uint64_t nmiss = 0;
	for (int m = 0; m < HY_DSEVAL_MISSES; m++)
		nmiss += r->miss[m];
	fprintf(f, "discard misses (the model's top-1 another discard): %llu\n",
		(unsigned long long)nmiss);
	for (int m = 0; m < HY_DSEVAL_MISSES; m++)
		fprintf(f, "  %-52s%-9llu%s\n", miss_text[m], (unsigned long long)r->miss[m],
			num(a, sizeof a, nmiss ? (double)r->miss[m] / (double)nmiss : NAN, 4));
	const char *names[6] = {"total", "policy", "value", "grp", "tenpai", "danger"};
	double v[6] = {r->total, r->policy, r->value, r->grp, r->tenpai, r->danger};
	fprintf(f, "%-10s", "loss");
	for (int i = 0; i < 6; i++)
		fprintf(f, i < 5 ? "%-9s" : "%s\n", names[i]);
	fprintf(f, "%-10s", "");
	for (int i = 0; i < 6; i++)
		fprintf(f, i < 5 ? "%-9s" : "%s\n", num(a, sizeof a, v[i], 4));
	char c[32];
	fprintf(f, "waits read: %llu cells (sample, opponent, kind), %llu winning; log-loss %s "
		"per cell (base rate %s), AUC %s\n", (unsigned long long)r->rd_cells,
		(unsigned long long)r->rd_wins, num(a, sizeof a, r->rd_logloss, 5),
		num(b, sizeof b, r->rd_base, 5), num(c, sizeof c, r->rd_auc, 4));
	return io_status(f, d);
}

/* A finished object, or NULL (everything freed) when any value failed. */
static json_t *jacc(uint64_t n, double top1, double top3)
{
	json_t *e = json_object();
	if (e && !(put(e, "samples", json_integer((json_int_t)n)) | put(e, "top1", jnum(top1)) |
		   put(e, "top3", jnum(top3))))
		return e;
	json_decref(e);
	return NULL;
}

hy_status hy_report_dseval_json(FILE *f, const char *model, const hy_dseval_result *r,
				hy_diag *d)
{
	json_t *o = json_object(), *acc = json_object(), *loss = json_object();
	json_t *rd = json_object();
	int bad = !o || !acc || !loss || !rd;
	json_t *conf = json_object(), *miss = json_object();
	bad |= !conf || !miss;
	for (int t = 0; !bad && t < HY_DSEVAL_TYPES; t++) {
		bad = put(acc, hy_dseval_type_name(t), jacc(r->count[t], r->acc1[t], r->acc3[t]));
		json_t *row = json_object();
		int rb = bad || !row;
		for (int u = 0; !rb && u < HY_DSEVAL_TYPES; u++)
			rb = put(row, hy_dseval_type_name(u),
				 json_integer((json_int_t)r->confusion[t][u]));
		if (rb) {
			json_decref(row);
			bad = 1;
		} else {
			bad = put(conf, hy_dseval_type_name(t), row); /* takes row */
		}
	}
	for (int m = 0; !bad && m < HY_DSEVAL_MISSES; m++)
		bad = put(miss, hy_dseval_miss_name(m), json_integer((json_int_t)r->miss[m]));
	if (!bad)
		bad = put(acc, "all", jacc(r->n, r->acc1_all, r->acc3_all)) |
		      put(loss, "total", jnum(r->total)) | put(loss, "policy", jnum(r->policy)) |
		      put(loss, "value", jnum(r->value)) | put(loss, "grp", jnum(r->grp)) |
		      put(loss, "tenpai", jnum(r->tenpai)) | put(loss, "danger", jnum(r->danger));
	if (!bad) /* rd is filled before o takes it */
		bad = put(rd, "cells", json_integer((json_int_t)r->rd_cells)) |
		      put(rd, "wins", json_integer((json_int_t)r->rd_wins)) |
		      put(rd, "log_loss", jnum(r->rd_logloss)) | put(rd, "base", jnum(r->rd_base)) |
		      put(rd, "auc", jnum(r->rd_auc));
	if (bad) {
		json_decref(o);
		json_decref(acc);
		json_decref(loss);
		json_decref(conf);
		json_decref(miss);
		json_decref(rd);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	/* acc, loss, conf, miss and rd belong to o from here (set_new takes them even when it
	 * fails), so one decref of o frees everything */
	if (put(o, "model", json_string(model)) | put(o, "blocks", json_integer(r->arch.blocks)) |
	    put(o, "channels", json_integer(r->arch.channels)) |
	    put(o, "samples", json_integer((json_int_t)r->n)) | put(o, "accuracy", acc) |
	    put(o, "loss", loss) | put(o, "confusion", conf) | put(o, "discard_misses", miss) | put(o, "tenpai_labels", json_integer((json_int_t)r->n_tenpai)) |
	    put(o, "danger_labels", json_integer((json_int_t)r->n_danger)) | put(o, "waits", rd)) {
		json_decref(o);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	return dump(f, o, d);
}
