/* hy_game → Tenhou mjlog XML (writer.h), the inverse of mjlog.c.
 *
 * mjlog names physical tiles (136-ids, 4·kind + copy; copy 0 of each five
 * is the red one), so the writer gives every tile of a kyoku an id as it
 * enters play — the deal, each draw, each indicator — from the copies of its
 * kind still free (a red five copy 0, a plain five copies 1–3), and follows
 * the ids through the hands: a discard takes the drawn id when the event
 * says tsumogiri (the parser calls a discard tsumogiri exactly when its id
 * is the last draw's), else another copy of the tile when there is one; a
 * call takes the discard's id and copies from the caller's hand, and is
 * packed into Tenhou's meld code m (the decoder is decode_meld in mjlog.c).
 * DORA tags stand where the events have them (the parser places the dora
 * events by rule, not by tag); REACH step 2 carries the scores after the
 * deposit; each result carries sc (scores before it, deltas, in 100s) and
 * the last one owari (final scores in 100s and Tenhou's points). */
#include "tenhou/writer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "core/tile.h"
#include "tenhou/builder.h"
#include "tenhou/wscan.h"

enum { MAX_HAND = 18 };

typedef struct mw_pon {
	uint8_t kind, from, called_id, ids[3];
} mw_pon;

typedef struct mw {
	FILE *f;
	const hy_game *g;
	hy_diag *d;
	size_t i;                 /* event being written (messages) */
	uint8_t used[136];
	int hand[4][MAX_HAND], nhand[4];
	int last_draw[4];         /* id, or -1 */
	int disc_actor, disc_id;  /* the discard (or kakan tile) just made */
	mw_pon pons[4][4];
	int npon[4];
	int32_t sc[4];            /* running scores */
	int ura[5], nura;         /* ids of the ura indicators shown */
	int honba, sticks;
	int err;                  /* a write failed */
} mw;

static hy_status fail(mw *w, hy_status s, const char *why)
{
	const hy_event *e = &w->g->ev[w->i];
	return hy_diag_set(w->d, s, e->line, "event %zu (%s) cannot be written as mjlog: %s",
			   w->i + 1, hy_ev_type_name(e->type), why);
}

static void out(mw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(mw *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(w->f, fmt, ap) < 0)
		w->err = 1;
	va_end(ap);
}

/* A free id for tile code t, marked used; -1 when its copies are gone. */
static int alloc_id(mw *w, int t)
{
	int k = hy_tile_kind(t);
	if (k < 0)
		return -1;
	int red = hy_tile_red_of(k) >= 0;
	int lo = hy_tile_is_red(t) ? 0 : red ? 1 : 0, hi = hy_tile_is_red(t) ? 0 : 3;
	for (int c = lo; c <= hi; c++)
		if (!w->used[4 * k + c]) {
			w->used[4 * k + c] = 1;
			return 4 * k + c;
		}
	return -1;
}

/* Index in p's hand of an id of tile code t (avoid: an id not to take
 * when another will do), or -1. */
static int find_in_hand(const mw *w, int p, int t, int avoid)
{
	int j = -1;
	for (int i = 0; i < w->nhand[p]; i++)
		if (hy_tile_from_136(w->hand[p][i]) == t) {
			if (w->hand[p][i] != avoid)
				return i;
			j = i;
		}
	return j;
}

static int take_from_hand(mw *w, int p, int t, int avoid)
{
	int j = find_in_hand(w, p, t, avoid);
	if (j < 0)
		return -1;
	int id = w->hand[p][j];
	w->hand[p][j] = w->hand[p][--w->nhand[p]];
	return id;
}

static int add_to_hand(mw *w, int p, int id)
{
	if (w->nhand[p] == MAX_HAND)
		return 0;
	w->hand[p][w->nhand[p]++] = id;
	return 1;
}

static void out_ids(mw *w, const int *ids, int n)
{
	for (int i = 0; i < n; i++)
		out(w, "%s%d", i ? "," : "", ids[i]);
}

static void sort_ids(int *a, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
			int x = a[j];
			a[j] = a[j - 1];
			a[j - 1] = x;
		}
}

/* Tenhou score lists count in 100s. */
static int hundreds(int32_t v, long *h)
{
	if (v % 100)
		return 0;
	*h = v / 100;
	return 1;
}

static hy_status start_kyoku(mw *w, const hy_event *e)
{
	long ten[4];
	memset(w->used, 0, sizeof w->used);
	memset(w->npon, 0, sizeof w->npon);
	w->disc_actor = -1;
	w->nura = 0;
	for (int p = 0; p < 4; p++) {
		if (!hundreds(e->scores[p], &ten[p]))
			return fail(w, HY_EUNSUP, "a score that is not a multiple of 100");
		w->nhand[p] = 0;
		w->last_draw[p] = -1;
		for (int k = 0; k < 13; k++) {
			int id = alloc_id(w, e->tehais[p][k]);
			if (id < 0)
				return fail(w, HY_EUNSUP, "a fifth copy of a tile");
			add_to_hand(w, p, id);
		}
	}
	int dora = alloc_id(w, e->dora_marker);
	if (dora < 0)
		return fail(w, HY_EUNSUP, "a fifth copy of the dora indicator");
	memcpy(w->sc, e->scores, sizeof w->sc);
	w->honba = e->honba;
	w->sticks = e->kyotaku;
	out(w, "<INIT seed=\"%d,%d,%d,0,0,%d\" ten=\"%ld,%ld,%ld,%ld\" oya=\"%d\"",
	    hy_tw_round(e), e->honba, e->kyotaku, dora, ten[0], ten[1], ten[2], ten[3], e->oya);
	for (int p = 0; p < 4; p++) {
		int ids[13];
		memcpy(ids, w->hand[p], sizeof ids);
		sort_ids(ids, 13);
		out(w, " hai%d=\"", p);
		out_ids(w, ids, 13);
		out(w, "\"");
	}
	out(w, "/>");
	return HY_OK;
}

/* Meld code of a chi by actor of called id c with hand ids a, b. */
static long chi_code(int c, int a, int b)
{
	int ids[3] = {c, a, b};
	sort_ids(ids, 3);
	int k = ids[0] / 4, r = 0;
	for (int i = 0; i < 3; i++)
		if (ids[i] == c)
			r = i;
	int t = (k / 9) * 7 + k % 9;
	return (long)(t * 3 + r) << 10 | 0x4 | (ids[0] % 4) << 3 | (ids[1] % 4) << 5 |
	       (ids[2] % 4) << 7 | 3;
}

/* Meld code of a pon (kakan = 0) or kakan (kakan = 1) of the pon's ids. */
static long pon_code(const mw_pon *pn, int kakan)
{
	int ids[3] = {pn->ids[0], pn->ids[1], pn->ids[2]}, unused = 0, r = 0;
	sort_ids(ids, 3);
	for (int c = 0; c < 4; c++)
		if (ids[0] % 4 != c && ids[1] % 4 != c && ids[2] % 4 != c)
			unused = c;
	for (int i = 0; i < 3; i++)
		if (ids[i] == pn->called_id)
			r = i;
	return (long)(pn->kind * 3 + r) << 9 | (kakan ? 0x10 : 0x8) | unused << 5 | pn->from;
}

static hy_status call(mw *w, const hy_event *e)
{
	int a = e->actor, ids[4], n = 0;
	if (a > 3)
		return fail(w, HY_EUNSUP, "no actor");
	int need = e->type == HY_EV_CHI || e->type == HY_EV_PON ? 2 : e->type == HY_EV_DAIMINKAN ? 3
		 : e->type == HY_EV_KAKAN ? 3 : 4;
	if (e->nconsumed != need)
		return fail(w, HY_EUNSUP, "a call with the wrong number of consumed tiles");
	if (e->type == HY_EV_KAKAN) {
		int id = take_from_hand(w, a, e->pai, -1);
		mw_pon *pn = NULL;
		for (int i = 0; i < w->npon[a]; i++)
			if (w->pons[a][i].kind == hy_tile_kind(e->pai))
				pn = &w->pons[a][i];
		if (id < 0 || !pn)
			return fail(w, HY_EUNSUP, "a kakan without its tile or its pon");
		out(w, "<N who=\"%d\" m=\"%ld\"/>", a, pon_code(pn, 1));
		w->last_draw[a] = -1;
		w->disc_actor = a;
		w->disc_id = id;
		return HY_OK;
	}
	for (int k = 0; k < e->nconsumed; k++) {
		int id = take_from_hand(w, a, e->consumed[k], -1);
		if (id < 0)
			return fail(w, HY_EUNSUP, "a consumed tile the caller does not hold");
		ids[n++] = id;
	}
	w->last_draw[a] = -1;
	if (e->type == HY_EV_ANKAN) {
		int k = ids[0] / 4;
		for (int i = 1; i < 4; i++)
			if (ids[i] / 4 != k)
				return fail(w, HY_EUNSUP, "an ankan of different tiles");
		out(w, "<N who=\"%d\" m=\"%ld\"/>", a, (long)(4 * k) << 8);
		return HY_OK;
	}
	int from = (e->target - a + 4) % 4;
	if (e->target > 3 || w->disc_actor != e->target || from == 0 ||
	    hy_tile_from_136(w->disc_id) != e->pai)
		return fail(w, HY_EUNSUP, "a call of a tile that was not just discarded");
	int c = w->disc_id;
	w->disc_actor = -1;
	long m;
	if (e->type == HY_EV_CHI) {
		if (from != 3 || ids[0] / 4 / 9 != c / 4 / 9 || c / 4 >= 27)
			return fail(w, HY_EUNSUP, "a chi not from the left or not a run");
		m = chi_code(c, ids[0], ids[1]);
		int k[3] = {c / 4, ids[0] / 4, ids[1] / 4};
		sort_ids(k, 3);
		if (k[1] != k[0] + 1 || k[2] != k[1] + 1 || k[0] % 9 > 6)
			return fail(w, HY_EUNSUP, "a chi that is not a run");
	} else if (e->type == HY_EV_PON) {
		if (ids[0] / 4 != c / 4 || ids[1] / 4 != c / 4 || w->npon[a] == 4)
			return fail(w, HY_EUNSUP, "a pon of different tiles");
		mw_pon *pn = &w->pons[a][w->npon[a]++];
		pn->kind = (uint8_t)(c / 4);
		pn->from = (uint8_t)from;
		pn->called_id = (uint8_t)c;
		pn->ids[0] = (uint8_t)c;
		pn->ids[1] = (uint8_t)ids[0];
		pn->ids[2] = (uint8_t)ids[1];
		m = pon_code(pn, 0);
	} else {
		for (int i = 0; i < 3; i++)
			if (ids[i] / 4 != c / 4)
				return fail(w, HY_EUNSUP, "a daiminkan of different tiles");
		m = (long)c << 8 | from;
	}
	out(w, "<N who=\"%d\" m=\"%ld\"/>", a, m);
	return HY_OK;
}

static hy_status discard(mw *w, const hy_event *e)
{
	int a = e->actor;
	if (a > 3)
		return fail(w, HY_EUNSUP, "no actor");
	int ld = w->last_draw[a], id;
	int given = e->flags & HY_EVF_TSUMOGIRI;
	int drawn_same = ld >= 0 && hy_tile_from_136(ld) == e->pai;
	if (drawn_same && (!given || e->tsumogiri)) { /* the drawn id itself */
		int j = 0;
		while (w->hand[a][j] != ld)
			j++;
		w->hand[a][j] = w->hand[a][--w->nhand[a]];
		id = ld;
	} else if (given && e->tsumogiri) {
		return fail(w, HY_EUNSUP, "a tsumogiri discard that is not the drawn tile");
	} else if ((id = take_from_hand(w, a, e->pai, ld)) < 0) {
		return fail(w, HY_EUNSUP, "a discard of a tile the player does not hold");
	} else if (id == ld) {
		return fail(w, HY_EUNSUP, "a discard marked not tsumogiri of the drawn tile's only copy");
	}
	out(w, "<%c%d/>", "DEFG"[a], id);
	w->last_draw[a] = -1;
	w->disc_actor = a;
	w->disc_id = id;
	return HY_OK;
}

/* sc="score,delta,…" in 100s: scores before the result, its deltas. */
static hy_status result_sc(mw *w, const hy_event *e)
{
	long s[4], dl[4];
	for (int p = 0; p < 4; p++) {
		int32_t delta = e->flags & HY_EVF_DELTAS ? e->deltas[p] : 0;
		if (!hundreds(w->sc[p], &s[p]) || !hundreds(delta, &dl[p]))
			return fail(w, HY_EUNSUP, "a score or delta that is not a multiple of 100");
		w->sc[p] += delta;
	}
	out(w, " sc=\"%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld\"", s[0], dl[0], s[1], dl[1], s[2], dl[2],
	    s[3], dl[3]);
	return HY_OK;
}

/* owari="final,points,…": final scores in 100s and Tenhou's points
 * ((score − 30000) / 1000 + uma 20, 10, −10, −20, the 20 of oka to the
 * first; ranks by score, ties by seat). */
static hy_status owari(mw *w, const hy_tw_scan *ws)
{
	static const int uma[4] = {40, 10, -10, -20};
	long f[4];
	out(w, " owari=\"");
	for (int p = 0; p < 4; p++) {
		if (!hundreds(ws->final[p], &f[p]))
			return fail(w, HY_EUNSUP, "a final score that is not a multiple of 100");
		int rank = 0;
		for (int o = 0; o < 4; o++)
			rank += ws->final[o] > ws->final[p] || (ws->final[o] == ws->final[p] && o < p);
		double pts = (ws->final[p] - 30000) / 1000.0 + uma[rank];
		out(w, "%s%ld,%.1f", p ? "," : "", f[p], pts);
	}
	out(w, "\"");
	return HY_OK;
}

static hy_status hora(mw *w, const hy_event *e, const hy_tw_scan *ws)
{
	int a = e->actor, win;
	if (e->target == a) {
		win = w->last_draw[a];
		if (win < 0)
			return fail(w, HY_EUNSUP, "a tsumo without the winner's draw");
	} else {
		if (w->disc_actor != e->target)
			return fail(w, HY_EUNSUP, "a ron not on the target's discard or kan");
		win = w->disc_id;
	}
	int ids[MAX_HAND + 1], n = w->nhand[a];
	memcpy(ids, w->hand[a], (size_t)n * sizeof *ids);
	if (e->target != a)
		ids[n++] = win;
	sort_ids(ids, n);
	int32_t gain = e->flags & HY_EVF_DELTAS ? e->deltas[a] : 0;
	out(w, "<AGARI ba=\"%d,%d\" hai=\"", w->honba, w->sticks);
	out_ids(w, ids, n);
	out(w, "\" machi=\"%d\" ten=\"0,%" PRId32 ",0\" yaku=\"\" doraHai=\"\"", win, gain);
	if ((e->flags & HY_EVF_URA) && e->nura) {
		/* the kyoku's ura indicators: ids given once (a double ron's
		 * second winner shows the same tiles) */
		int nu = e->nura < 5 ? e->nura : 5;
		for (int k = w->nura; k < nu; k++)
			if ((w->ura[w->nura++] = alloc_id(w, e->ura[k])) < 0)
				return fail(w, HY_EUNSUP, "a fifth copy of an ura indicator");
		out(w, " doraHaiUra=\"");
		out_ids(w, w->ura, nu);
		out(w, "\"");
	}
	out(w, " who=\"%d\" fromWho=\"%d\"", a, e->target);
	hy_status st = result_sc(w, e);
	if (st)
		return st;
	w->sticks = 0;
	if (w->i == ws->last_result && (st = owari(w, ws)))
		return st;
	out(w, "/>");
	return HY_OK;
}

static hy_status ryukyoku(mw *w, const hy_event *e, const hy_tw_scan *ws)
{
	static const char *const type[] = {NULL, "yao9", "ron3", "reach4"};
	const char *t = type[hy_tw_draw_kind(w->g, w->i)];
	out(w, "<RYUUKYOKU");
	if (t)
		out(w, " type=\"%s\"", t);
	out(w, " ba=\"%d,%d\"", w->honba, w->sticks);
	hy_status st = result_sc(w, e);
	if (st)
		return st;
	if (w->i == ws->last_result && (st = owari(w, ws)))
		return st;
	out(w, "/>");
	return HY_OK;
}

/* Names percent-encoded byte by byte, as Tenhou writes them. */
static void out_name(mw *w, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		out(w, "%%%02X", *p);
}

hy_status hy_tenhou_write_mjlog(FILE *f, const hy_game *g, hy_diag *d)
{
	hy_tw_scan ws;
	hy_status st = hy_tw_scan_game(g, "mjlog", &ws, d);
	if (st)
		return st;
	mw w;
	memset(&w, 0, sizeof w);
	w.f = f;
	w.g = g;
	w.d = d;
	const hy_event *sg = &g->ev[0];
	/* GO type 9: online, red fives, open tanyao, hanchan (0x01 | 0x08) */
	out(&w, "<mjloggm ver=\"2.3\"><SHUFFLE seed=\"\" ref=\"\"/><GO type=\"9\" lobby=\"0\"/>"
		"<UN");
	for (int p = 0; p < 4; p++) {
		out(&w, " n%d=\"", p);
		if ((sg->flags & HY_EVF_NAMES) && sg->names[p])
			out_name(&w, sg->names[p]);
		out(&w, "\"");
	}
	out(&w, " dan=\"0,0,0,0\" rate=\"1500.00,1500.00,1500.00,1500.00\" sx=\"C,C,C,C\"/>"
		"<TAIKYOKU oya=\"0\"/>");
	for (w.i = 1; w.i < g->n && !st; w.i++) {
		const hy_event *e = &g->ev[w.i];
		switch (e->type) {
		case HY_EV_START_KYOKU:
			st = start_kyoku(&w, e);
			break;
		case HY_EV_TSUMO: {
			int id = e->actor <= 3 ? alloc_id(&w, e->pai) : -1;
			if (id < 0 || !add_to_hand(&w, e->actor, id)) {
				st = fail(&w, HY_EUNSUP, "a fifth copy of a tile, or no actor");
				break;
			}
			w.last_draw[e->actor] = id;
			out(&w, "<%c%d/>", "TUVW"[e->actor], id);
			break;
		}
		case HY_EV_DAHAI:
			st = discard(&w, e);
			break;
		case HY_EV_CHI:
		case HY_EV_PON:
		case HY_EV_DAIMINKAN:
		case HY_EV_KAKAN:
		case HY_EV_ANKAN:
			st = call(&w, e);
			break;
		case HY_EV_DORA: {
			int id = alloc_id(&w, e->dora_marker);
			if (id < 0)
				st = fail(&w, HY_EUNSUP, "a fifth copy of the indicator");
			else
				out(&w, "<DORA hai=\"%d\"/>", id);
			break;
		}
		case HY_EV_REACH:
			if (e->actor > 3)
				st = fail(&w, HY_EUNSUP, "no actor");
			else
				out(&w, "<REACH who=\"%d\" step=\"1\"/>", e->actor);
			break;
		case HY_EV_REACH_ACCEPTED: {
			long t[4];
			if (e->actor > 3) {
				st = fail(&w, HY_EUNSUP, "no actor");
				break;
			}
			w.sc[e->actor] -= 1000;
			w.sticks++;
			int ok = 1;
			for (int p = 0; p < 4; p++)
				ok &= hundreds(w.sc[p], &t[p]);
			if (!ok)
				st = fail(&w, HY_EUNSUP, "a score that is not a multiple of 100");
			else
				out(&w, "<REACH who=\"%d\" ten=\"%ld,%ld,%ld,%ld\" step=\"2\"/>",
				    e->actor, t[0], t[1], t[2], t[3]);
			break;
		}
		case HY_EV_HORA:
			st = hora(&w, e, &ws);
			break;
		case HY_EV_RYUKYOKU:
			st = ryukyoku(&w, e, &ws);
			break;
		default: /* end_kyoku, end_game */
			break;
		}
	}
	out(&w, "</mjloggm>\n");
	if (!st && w.err)
		st = hy_diag_set(d, HY_EIO, 0, "write error");
	return st;
}
