/* hy_game → tenhou.net/6 JSON (writer.h), the inverse of tenhou6.c.
 *
 * Each kyoku becomes [[round, honba, sticks], scores, dora[], ura[],
 * haipai, takes, discards × 4 seats, result]: the draws and the chi / pon /
 * daiminkan strings go to the caller's takes, the discards (60 for
 * tsumogiri, "r…" for a riichi discard, 0 for the slot a daiminkan leaves)
 * and the kakan / ankan strings to its discards. A call string places its
 * letter where Tenhou does, which names the seat called from: before the
 * called tile for the left seat, after the first tile for the opposite one,
 * before the last tile for the right one (a kakan repeats its pon's string
 * with 'k' and the added tile). The reader recovers the order of play by
 * replaying (tenhou6.c). */
#include "tenhou/writer.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "tenhou/builder.h"
#include "tenhou/wscan.h"

typedef struct t6w {
	const hy_game *g;
	hy_diag *d;
	size_t i;
	json_t *take[4], *disc[4];
	char pon[4][4][16];   /* a seat's pon strings, by kind slot */
	uint8_t pon_kind[4][4];
	int npon[4];
	int reach[4];         /* the next discard of the seat is its riichi discard */
	json_t *dora, *ura, *result;
} t6w;

static hy_status fail(t6w *w, const char *why)
{
	const hy_event *e = &w->g->ev[w->i];
	return hy_diag_set(w->d, HY_EUNSUP, e->line,
			   "event %zu (%s) cannot be written as tenhou.net/6: %s", w->i + 1,
			   hy_ev_type_name(e->type), why);
}

/* Tenhou's tile number: 11–19, 21–29, 31–39, 41–47, reds 51–53. */
static int t6_num(int t)
{
	if (hy_tile_is_red(t))
		return 51 + t - HY_TILE_5MR;
	if (t < 27)
		return 11 + 10 * (t / 9) + t % 9;
	return 41 + t - 27;
}

static int append(json_t *a, json_t *v)
{
	return v && json_array_append_new(a, v) == 0;
}

static int append_int(json_t *a, int v)
{
	return append(a, json_integer(v));
}

/* "AA" × n with letter L before tile `at` (at == n: after the last). */
static void call_str(char *buf, char letter, const uint8_t *tiles, int n, int at)
{
	char *p = buf;
	for (int i = 0; i <= n; i++) {
		if (i == at)
			*p++ = letter;
		if (i < n)
			p += sprintf(p, "%02d", t6_num(tiles[i]));
	}
	*p = 0;
}

static hy_status call(t6w *w, const hy_event *e)
{
	int a = e->actor;
	char s[16];
	uint8_t t[5];
	if (a > 3 || e->nconsumed > 4)
		return fail(w, "no actor");
	uint8_t c[4];
	memcpy(c, e->consumed, e->nconsumed);
	hy_tk_sort_tiles(c, e->nconsumed);
	if (e->type == HY_EV_ANKAN) {
		if (e->nconsumed != 4)
			return fail(w, "an ankan without 4 tiles");
		call_str(s, 'a', c, 4, 3); /* "424242a42" */
		return append(w->disc[a], json_string(s)) ? HY_OK : HY_ENOMEM;
	}
	if (e->type == HY_EV_KAKAN) {
		int k = hy_tile_kind(e->pai);
		for (int i = 0; i < w->npon[a]; i++)
			if (w->pon_kind[a][i] == k) {
				/* the pon's string, 'p' → 'k' + the added tile */
				char *pp = strchr(w->pon[a][i], 'p');
				snprintf(s, sizeof s, "%.*sk%02d%s", (int)(pp - w->pon[a][i]), w->pon[a][i],
					 t6_num(e->pai), pp + 1);
				return append(w->disc[a], json_string(s)) ? HY_OK : HY_ENOMEM;
			}
		return fail(w, "a kakan without its pon");
	}
	int from = (e->target - a + 4) % 4; /* 3 left, 2 opposite, 1 right */
	int need = e->type == HY_EV_DAIMINKAN ? 3 : 2;
	if (e->target > 3 || from == 0 || e->nconsumed != need || e->pai >= HY_TILE_UNKNOWN)
		return fail(w, "a call without its target, tile or consumed tiles");
	if (e->type == HY_EV_CHI && from != 3)
		return fail(w, "a chi not from the left");
	/* called tile at 0 (left), 1 (opposite) or last (right) */
	int at = from == 3 ? 0 : from == 2 ? 1 : need;
	for (int i = 0, j = 0; i <= need; i++)
		t[i] = i == at ? e->pai : c[j++];
	char L = e->type == HY_EV_CHI ? 'c' : e->type == HY_EV_PON ? 'p' : 'm';
	call_str(s, L, t, need + 1, at);
	if (!append(w->take[a], json_string(s)))
		return HY_ENOMEM;
	if (e->type == HY_EV_PON && w->npon[a] < 4) {
		memcpy(w->pon[a][w->npon[a]], s, sizeof s);
		w->pon_kind[a][w->npon[a]++] = (uint8_t)hy_tile_kind(e->pai);
	}
	if (e->type == HY_EV_DAIMINKAN && !append_int(w->disc[a], 0))
		return HY_ENOMEM;
	return HY_OK;
}

static hy_status discard(t6w *w, const hy_event *e)
{
	int a = e->actor;
	if (a > 3)
		return fail(w, "no actor");
	int v = (e->flags & HY_EVF_TSUMOGIRI) && e->tsumogiri ? 60 : t6_num(e->pai);
	int ok;
	if (w->reach[a]) {
		char s[8];
		snprintf(s, sizeof s, "r%02d", v);
		ok = append(w->disc[a], json_string(s));
		w->reach[a] = 0;
	} else {
		ok = append_int(w->disc[a], v);
	}
	return ok ? HY_OK : HY_ENOMEM;
}

static json_t *int4(const int32_t v[4])
{
	return json_pack("[iiii]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2],
			 (json_int_t)v[3]);
}

static hy_status result(t6w *w, const hy_event *e)
{
	static const int32_t zero[4] = {0, 0, 0, 0};
	const int32_t *dl = e->flags & HY_EVF_DELTAS ? e->deltas : zero;
	if (e->type == HY_EV_RYUKYOKU) {
		static const char *const name[] = {"流局", "九種九牌", "三家和了", "四家立直"};
		w->result = json_pack("[so]", name[hy_tw_draw_kind(w->g, w->i)], int4(dl));
		return w->result ? HY_OK : HY_ENOMEM;
	}
	if (!w->result && !(w->result = json_pack("[s]", "和了")))
		return HY_ENOMEM;
	char pts[32];
	snprintf(pts, sizeof pts, "%d点", (int)dl[e->actor]);
	if (!append(w->result, int4(dl)) ||
	    !append(w->result, json_pack("[iiis]", (json_int_t)e->actor, (json_int_t)e->target,
					 (json_int_t)e->actor, pts)))
		return HY_ENOMEM;
	if ((e->flags & HY_EVF_URA) && json_array_size(w->ura) == 0)
		for (int k = 0; k < e->nura && k < 5; k++)
			if (!append_int(w->ura, t6_num(e->ura[k])))
				return HY_ENOMEM;
	return HY_OK;
}

static void kyoku_free(t6w *w)
{
	for (int p = 0; p < 4; p++) {
		json_decref(w->take[p]);
		json_decref(w->disc[p]);
		w->take[p] = w->disc[p] = NULL;
	}
	json_decref(w->dora);
	json_decref(w->ura);
	json_decref(w->result);
	w->dora = w->ura = w->result = NULL;
}

/* The kyoku from its start_kyoku at w->i to its end; appends it to log. */
static hy_status kyoku(t6w *w, json_t *log)
{
	const hy_event *sk = &w->g->ev[w->i];
	hy_status st = HY_OK;
	memset(w->npon, 0, sizeof w->npon);
	memset(w->reach, 0, sizeof w->reach);
	for (int p = 0; p < 4; p++) {
		w->take[p] = json_array();
		w->disc[p] = json_array();
	}
	w->dora = json_array();
	w->ura = json_array();
	w->result = NULL;
	if (!w->dora || !w->ura || !append_int(w->dora, t6_num(sk->dora_marker)))
		return HY_ENOMEM;
	for (w->i++; w->i < w->g->n && !st; w->i++) {
		const hy_event *e = &w->g->ev[w->i];
		if (e->type == HY_EV_START_KYOKU || e->type == HY_EV_END_GAME)
			break;
		switch (e->type) {
		case HY_EV_TSUMO:
			st = e->actor > 3 ? fail(w, "no actor")
			     : append_int(w->take[e->actor], t6_num(e->pai)) ? HY_OK : HY_ENOMEM;
			break;
		case HY_EV_DAHAI:
			st = discard(w, e);
			break;
		case HY_EV_REACH:
			if (e->actor > 3)
				st = fail(w, "no actor");
			else
				w->reach[e->actor] = 1;
			break;
		case HY_EV_CHI:
		case HY_EV_PON:
		case HY_EV_DAIMINKAN:
		case HY_EV_KAKAN:
		case HY_EV_ANKAN:
			st = call(w, e);
			break;
		case HY_EV_DORA:
			st = append_int(w->dora, t6_num(e->dora_marker)) ? HY_OK : HY_ENOMEM;
			break;
		case HY_EV_HORA:
		case HY_EV_RYUKYOKU:
			st = result(w, e);
			break;
		default:
			break;
		}
	}
	w->i--; /* the caller's loop steps past the last event read */
	if (st)
		return st;
	json_t *k = json_array();
	if (!k)
		return HY_ENOMEM;
	int ok = append(k, json_pack("[iii]", (json_int_t)hy_tw_round(sk), (json_int_t)sk->honba,
				     (json_int_t)sk->kyotaku)) &&
		 append(k, int4(sk->scores)) && append(k, json_incref(w->dora)) &&
		 append(k, json_incref(w->ura));
	for (int p = 0; p < 4 && ok; p++) {
		uint8_t h[13];
		memcpy(h, sk->tehais[p], 13);
		hy_tk_sort_tiles(h, 13);
		json_t *ha = json_array();
		ok = append(k, ha);
		for (int j = 0; j < 13 && ok; j++)
			ok = append_int(ha, t6_num(h[j]));
		ok = ok && append(k, json_incref(w->take[p])) && append(k, json_incref(w->disc[p]));
	}
	ok = ok && append(k, json_incref(w->result)) && json_array_append_new(log, k) == 0;
	if (!ok) {
		json_decref(k);
		return HY_ENOMEM;
	}
	return HY_OK;
}

hy_status hy_tenhou_write_json6(FILE *f, const hy_game *g, hy_diag *d)
{
	hy_tw_scan ws;
	hy_status st = hy_tw_scan_game(g, "tenhou.net/6", &ws, d);
	if (st)
		return st;
	t6w w;
	memset(&w, 0, sizeof w);
	w.g = g;
	w.d = d;
	const hy_event *sg = &g->ev[0];
	json_t *names = json_array(), *log = json_array(), *sc = json_array();
	int ok = names && log && sc;
	for (int p = 0; p < 4 && ok; p++)
		ok = append(names, json_string((sg->flags & HY_EVF_NAMES) && sg->names[p] ?
					       sg->names[p] : ""));
	for (w.i = 1; w.i < g->n && ok && !st; w.i++)
		if (g->ev[w.i].type == HY_EV_START_KYOKU) {
			st = kyoku(&w, log);
			kyoku_free(&w);
		}
	/* "sc": final score and Tenhou's points per seat (mjlog_write.c's owari) */
	static const int uma[4] = {40, 10, -10, -20};
	for (int p = 0; p < 4 && ok && !st; p++) {
		int rank = 0;
		for (int o = 0; o < 4; o++)
			rank += ws.final[o] > ws.final[p] || (ws.final[o] == ws.final[p] && o < p);
		ok = append(sc, json_integer(ws.final[p])) &&
		     append(sc, json_real((ws.final[p] - 30000) / 1000.0 + uma[rank]));
	}
	json_t *root = NULL;
	if (ok && !st)
		root = json_pack("{s[ss]s:os{s:s,s:i}s:os:o}", "title", "", "", "name",
				 json_incref(names), "rule", "disp", "般南喰赤", "aka", 1, "log",
				 json_incref(log), "sc", json_incref(sc));
	json_decref(names);
	json_decref(log);
	json_decref(sc);
	if (st == HY_ENOMEM)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	if (st)
		return st;
	if (!root)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	json_decref(root);
	if (!text)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
	free(text);
	return bad ? hy_diag_set(d, HY_EIO, 0, "write error") : HY_OK;
}
