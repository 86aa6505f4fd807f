/* A review as JSON (json.h), built with jansson. */
#include "review/json.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/tile.h"
#include "hand/agari.h"

/* Every json_* constructor below may return NULL on ENOMEM: the _new
 * setters take NULL values as a failure (they return -1), and `ok` keeps
 * the first one. */
typedef struct jb {
	int ok;
} jb;

static void put(jb *b, json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) != 0)
		b->ok = 0;
}

static void add(jb *b, json_t *a, json_t *v)
{
	if (!v || json_array_append_new(a, v) != 0)
		b->ok = 0;
}

/* A string that may not be UTF-8 (a path, a player's name): bytes outside
 * UTF-8 make it "?". */
static json_t *str(const char *s)
{
	json_t *v = json_string(s);
	return v ? v : json_string("?");
}

static json_t *tile(int t)
{
	const char *s = t < HY_TILE_CODES ? hy_tile_to_mjai(t) : NULL;
	return s ? json_string(s) : json_null();
}

static json_t *tiles(jb *b, const uint8_t *t, int n)
{
	json_t *a = json_array();
	for (int i = 0; a && i < n; i++)
		add(b, a, tile(t[i]));
	return a;
}

static json_t *ints4(jb *b, const int32_t v[4])
{
	json_t *a = json_array();
	for (int i = 0; a && i < 4; i++)
		add(b, a, json_integer(v[i]));
	return a;
}

static const char *act_type(int t)
{
	static const char *const n[] = {"none",   "dahai",     "reach", "chi",
					"pon",    "daiminkan", "ankan", "kakan",
					"hora",   "hora",      "ryukyoku", "none"};
	return t >= 0 && t < (int)(sizeof n / sizeof n[0]) ? n[t] : "none";
}

static json_t *action(jb *b, const hy_review_act *x)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(b, o, "index", json_integer(x->index));
	put(b, o, "type", json_string(act_type(x->act.type)));
	int pai = x->act.type == HY_ACT_NONE || x->act.type == HY_ACT_PASS ||
			  x->act.type == HY_ACT_RIICHI || x->act.type == HY_ACT_KYUUSHU
		  ? HY_TILE_NONE
		  : x->act.tile;
	put(b, o, "pai", tile(pai));
	put(b, o, "consumed", tiles(b, x->act.consumed, x->act.nconsumed > 4 ? 4 : x->act.nconsumed));
	put(b, o, "label", json_string(x->label));
	put(b, o, "prob", json_real(x->prob));
	return o;
}

static const char *phase_name(int ph)
{
	switch (ph) {
	case HY_PH_TURN: return "turn";
	case HY_PH_RIICHI: return "riichi";
	case HY_PH_CALL: return "call";
	case HY_PH_CHANKAN: return "chankan";
	default: return "?";
	}
}

static json_t *player(jb *b, const hy_review_seat *p)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(b, o, "score", json_integer(p->score));
	put(b, o, "riichi", json_boolean(p->riichi != 0));
	put(b, o, "river", tiles(b, p->river, p->nriver));
	char fl[33];
	for (int i = 0; i < p->nriver; i++)
		fl[i] = (char)('0' + (p->river_flags[i] & 7));
	fl[p->nriver] = '\0';
	put(b, o, "river_flags", json_string(fl));
	json_t *ms = json_array();
	for (int i = 0; ms && i < p->nmelds; i++) {
		const hy_meld *m = &p->melds[i];
		json_t *mo = json_object();
		if (!mo) {
			b->ok = 0;
			break;
		}
		put(b, mo, "type", json_string(hy_meld_type_name(m->type)));
		put(b, mo, "tiles", tiles(b, m->tiles, m->ntiles > 4 ? 4 : m->ntiles));
		put(b, mo, "called", tile(p->meld_called[i]));
		put(b, mo, "from", p->meld_from[i] < 4 ? json_integer(p->meld_from[i]) : json_null());
		add(b, ms, mo);
	}
	put(b, o, "melds", ms);
	return o;
}

/* The threatening opponents of x: seat, riichi, the reader's tenpai and
 * the deal-in probability of each tile kind (4 decimals). */
static json_t *threats(jb *b, const hy_review_dec *x)
{
	json_t *a = json_array();
	for (int i = 0; a && i < x->nthreat; i++) {
		const hy_review_threat *t = &x->threat[i];
		json_t *o = json_object(), *p = json_array();
		if (!o || !p) {
			json_decref(o);
			json_decref(p);
			b->ok = 0;
			break;
		}
		put(b, o, "seat", json_integer(t->seat));
		put(b, o, "riichi", json_boolean(t->riichi != 0));
		put(b, o, "tenpai", json_real(round(1e4 * t->tenpai) / 1e4));
		for (int k = 0; k < HY_TILE_KINDS; k++)
			add(b, p, json_real(round(1e4 * t->deal_in[k]) / 1e4));
		put(b, o, "deal_in", p);
		add(b, a, o);
	}
	return a;
}

static json_t *decision(jb *b, const hy_review *r, size_t id)
{
	const hy_review_dec *x = &r->dec[id];
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(b, o, "id", json_integer((json_int_t)id));
	put(b, o, "kyoku", json_integer(x->kyoku));
	put(b, o, "event", json_integer(x->event));
	put(b, o, "seat", json_integer(x->seat));
	put(b, o, "phase", json_string(phase_name(x->phase)));
	put(b, o, "live_left", json_integer(x->live_left));
	put(b, o, "honba", json_integer(x->honba));
	put(b, o, "kyotaku", json_integer(x->kyotaku));
	put(b, o, "dora_markers", tiles(b, x->dora_ind, x->ndora));
	put(b, o, "hand", tiles(b, x->hand, x->nhand));
	put(b, o, "drawn", tile(x->drawn));
	if (x->offered < HY_TILE_CODES) {
		json_t *of = json_object();
		if (of) {
			put(b, of, "pai", tile(x->offered));
			put(b, of, "from", json_integer(x->offer_from));
		}
		put(b, o, "offered", of);
	} else {
		put(b, o, "offered", json_null());
	}
	put(b, o, "shanten", json_integer(x->shanten));
	json_t *pl = json_array();
	for (int s = 0; pl && s < 4; s++)
		add(b, pl, player(b, &x->pl[s]));
	put(b, o, "players", pl);
	put(b, o, "played", action(b, &x->played));
	json_t *top = json_array();
	for (int i = 0; top && i < x->ntop; i++)
		add(b, top, action(b, &x->top[i]));
	put(b, o, "top", top);
	json_t *pr = json_array();
	for (uint64_t m = x->legal; pr && m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		add(b, pr, json_pack("[i,f]", a, (double)x->prob[a]));
	}
	put(b, o, "probs", pr);
	put(b, o, "value", r->has_value && isfinite(x->value) ? json_real(x->value) : json_null());
	put(b, o, "agree", json_boolean(x->ntop && x->top[0].index == x->played.index));
	put(b, o, "low", json_boolean(x->played.prob < HY_REVIEW_LOW));
	put(b, o, "cost", json_real(hy_review_cost(x)));
	if (r->reader)
		put(b, o, "threats", threats(b, x));
	return o;
}

static json_t *stats(jb *b, const hy_review *r, int seat)
{
	hy_review_stats s;
	hy_review_stats_of(r, seat, &s);
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (seat >= 0)
		put(b, o, "seat", json_integer(seat));
	put(b, o, "decisions", json_integer((json_int_t)s.decisions));
	put(b, o, "agree", json_integer((json_int_t)s.agree));
	put(b, o, "agreement", json_real(s.agreement));
	put(b, o, "mean_prob", json_real(s.mean_prob));
	put(b, o, "low", json_integer((json_int_t)s.low));
	return o;
}

static json_t *summary(jb *b, const hy_review *r)
{
	json_t *o = stats(b, r, -1);
	if (!o)
		return NULL;
	json_t *ps = json_array();
	for (int s = 0; ps && s < 4; s++)
		if (r->seats >> s & 1)
			add(b, ps, stats(b, r, s));
	put(b, o, "per_seat", ps);
	size_t idx[HY_REVIEW_COSTLIEST];
	size_t n = hy_review_costliest(r, idx, HY_REVIEW_COSTLIEST);
	json_t *c = json_array();
	for (size_t i = 0; c && i < n; i++)
		add(b, c, json_pack("{s:I,s:f}", "decision", (json_int_t)idx[i], "cost",
				    hy_review_cost(&r->dec[idx[i]])));
	put(b, o, "costliest", c);
	return o;
}

static json_t *kyoku(jb *b, const hy_review *r, size_t k)
{
	static const char *const winds[] = {"E", "S", "W", "N"};
	const hy_review_kyoku *x = &r->ky[k];
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(b, o, "id", json_integer((json_int_t)k));
	put(b, o, "bakaze", json_string(winds[x->bakaze & 3]));
	put(b, o, "kyoku", json_integer(x->kyoku));
	put(b, o, "honba", json_integer(x->honba));
	put(b, o, "kyotaku", json_integer(x->kyotaku));
	put(b, o, "oya", json_integer(x->oya));
	put(b, o, "scores", ints4(b, x->scores));
	put(b, o, "deltas", ints4(b, x->deltas));
	put(b, o, "result", json_string(x->result));
	put(b, o, "first", json_integer(x->first));
	put(b, o, "decisions", json_integer(x->n));
	return o;
}

hy_status hy_review_json(const hy_review *r, char **out, size_t *len, hy_diag *d)
{
	jb b = {1};
	*out = NULL;
	json_t *o = json_object();
	if (!o)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	put(&b, o, "format", json_string("hydra-review/1"));
	put(&b, o, "source", str(r->source));
	put(&b, o, "game", json_integer(r->game));
	put(&b, o, "policy", str(r->policy));
	put(&b, o, "has_value", json_boolean(r->has_value));
	json_t *seats = json_array(), *names = json_array();
	for (int s = 0; seats && s < 4; s++)
		if (r->seats >> s & 1)
			add(&b, seats, json_integer(s));
	for (int s = 0; names && s < 4; s++)
		add(&b, names, str(r->names[s]));
	put(&b, o, "seats", seats);
	put(&b, o, "names", names);
	put(&b, o, "low_threshold", json_real(HY_REVIEW_LOW));
	put(&b, o, "reader", r->reader ? str(r->reader_name) : json_null());
	put(&b, o, "threat_threshold", json_real(r->threat_min));
	put(&b, o, "final_scores", ints4(&b, r->final_scores));
	put(&b, o, "summary", summary(&b, r));
	json_t *ky = json_array();
	for (size_t k = 0; ky && k < r->nky; k++)
		add(&b, ky, kyoku(&b, r, k));
	put(&b, o, "kyoku", ky);
	json_t *ds = json_array();
	for (size_t i = 0; ds && i < r->n && b.ok; i++)
		add(&b, ds, decision(&b, r, i));
	put(&b, o, "decisions", ds);
	char *txt = b.ok ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
	json_decref(o);
	if (!txt)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (the review's JSON)");
	*out = txt;
	*len = strlen(txt);
	return HY_OK;
}
