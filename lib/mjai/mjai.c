/* mjai JSON lines ⇄ hy_event. Reading goes through jansson; writing formats
 * the known fields by hand (the hot path of `mjai-parse --json`) and splices
 * the verbatim `extra` object text in at the end. */
#include "mjai/mjai.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/tile.h"
#include "events/validate.h"

/* ------------------------------------------------------------ reading */

typedef struct pctx {
	hy_game *g;
	hy_diag *d;
	uint32_t line;
	const char *tname; /* type as written in the line, for messages */
} pctx;

static hy_status bad_type(pctx *c, const char *key, const char *what)
{
	return hy_diag_set(c->d, HY_EDATA, c->line, "%s: field '%s' is not %s", c->tname, key,
			   what);
}

static hy_status get_int(pctx *c, const char *key, json_t *v, long long lo, long long hi,
			 long long *out)
{
	if (!json_is_integer(v))
		return bad_type(c, key, "an integer");
	long long x = json_integer_value(v);
	if (x < lo || x > hi)
		return hy_diag_set(c->d, HY_EDATA, c->line, "%s %lld out of range %lld-%lld", key,
				   x, lo, hi);
	*out = x;
	return HY_OK;
}

static hy_status get_u8(pctx *c, const char *key, json_t *v, int lo, int hi, uint8_t *out)
{
	long long x = 0;
	hy_status s = get_int(c, key, v, lo, hi, &x);
	if (s == HY_OK)
		*out = (uint8_t)x;
	return s;
}

/* A tile string; "?" only where allow_unknown. */
static hy_status get_tile(pctx *c, const char *key, json_t *v, int allow_unknown, uint8_t *out)
{
	if (!json_is_string(v))
		return bad_type(c, key, "a tile string");
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	int t = hy_tile_from_mjai(s, n);
	if (t < 0 || (t == HY_TILE_UNKNOWN && !allow_unknown))
		return hy_diag_set(c->d, HY_EDATA, c->line, "bad tile '%.32s'", s);
	*out = (uint8_t)t;
	return HY_OK;
}

/* An array of tiles: exactly `want` (want >= 0) or at most `max`. */
static hy_status get_tiles(pctx *c, const char *key, json_t *v, int want, int max,
			   int allow_unknown, uint8_t *out, uint8_t *count)
{
	if (!json_is_array(v))
		return bad_type(c, key, "an array of tiles");
	size_t n = json_array_size(v);
	if (want >= 0 && n != (size_t)want)
		return hy_diag_set(c->d, HY_EDATA, c->line, "%s: %s has %zu tiles, expected %d",
				   c->tname, key, n, want);
	if (want < 0 && n > (size_t)max)
		return hy_diag_set(c->d, HY_EDATA, c->line,
				   "%s: %s has %zu tiles, expected at most %d", c->tname, key, n,
				   max);
	for (size_t i = 0; i < n; i++) {
		hy_status s = get_tile(c, key, json_array_get(v, i), allow_unknown, &out[i]);
		if (s)
			return s;
	}
	if (count)
		*count = (uint8_t)n;
	return HY_OK;
}

static hy_status get_4ints(pctx *c, const char *key, json_t *v, int32_t out[4])
{
	if (!json_is_array(v))
		return bad_type(c, key, "an array of 4 integers");
	size_t n = json_array_size(v);
	if (n != 4)
		return hy_diag_set(c->d, HY_EDATA, c->line, "%s: %s has %zu values, expected 4",
				   c->tname, key, n);
	for (size_t i = 0; i < 4; i++) {
		long long x = 0;
		hy_status s = get_int(c, key, json_array_get(v, i), INT32_MIN, INT32_MAX, &x);
		if (s)
			return s;
		out[i] = (int32_t)x;
	}
	return HY_OK;
}

static hy_status get_tehais(pctx *c, json_t *v, hy_event *e)
{
	if (!json_is_array(v))
		return bad_type(c, "tehais", "an array of 4 hands");
	size_t n = json_array_size(v);
	if (n != 4)
		return hy_diag_set(c->d, HY_EDATA, c->line, "%s: tehais has %zu hands, expected 4",
				   c->tname, n);
	for (int p = 0; p < 4; p++) {
		json_t *h = json_array_get(v, (size_t)p);
		if (!json_is_array(h))
			return bad_type(c, "tehais", "an array of 4 hands");
		if (json_array_size(h) != 13)
			return hy_diag_set(c->d, HY_EDATA, c->line,
					   "%s: tehais[%d] has %zu tiles, expected 13", c->tname,
					   p, json_array_size(h));
		for (int i = 0; i < 13; i++) {
			hy_status s = get_tile(c, "tehais", json_array_get(h, (size_t)i), 1,
					       &e->tehais[p][i]);
			if (s)
				return s;
		}
	}
	e->flags |= HY_EVF_TEHAIS;
	return HY_OK;
}

/* names: 4 strings → names[]; an array of strings of another length (akochan
 * writes []) is not representable there and is kept in extra. 1 = known,
 * 0 = leave to extra. */
static hy_status get_names(pctx *c, json_t *v, hy_event *e, int *known)
{
	if (!json_is_array(v))
		return bad_type(c, "names", "an array of strings");
	size_t n = json_array_size(v);
	for (size_t i = 0; i < n; i++)
		if (!json_is_string(json_array_get(v, i)))
			return bad_type(c, "names", "an array of strings");
	*known = n == 4;
	if (!*known)
		return HY_OK;
	for (int i = 0; i < 4; i++) {
		json_t *s = json_array_get(v, (size_t)i);
		e->names[i] = hy_game_strdup(c->g, json_string_value(s), json_string_length(s));
		if (!e->names[i])
			return hy_diag_set(c->d, HY_ENOMEM, c->line, "out of memory");
	}
	e->flags |= HY_EVF_NAMES;
	return HY_OK;
}

/* Bits of the fields seen, to check the required ones. */
enum {
	F_ACTOR = 1 << 0,
	F_TARGET = 1 << 1,
	F_PAI = 1 << 2,
	F_CONSUMED = 1 << 3,
	F_ORA = 1 << 4,
	F_DORA = 1 << 5,
};

static int consumed_count(int type)
{
	switch (type) {
	case HY_EV_CHI:
	case HY_EV_PON:
		return 2;
	case HY_EV_DAIMINKAN:
	case HY_EV_KAKAN:
		return 3;
	case HY_EV_ANKAN:
		return 4;
	default:
		return 0;
	}
}

/* One key of a known type: 1 handled, 0 unknown (→ extra), <0 error in *st. */
static int field(pctx *c, hy_event *e, const char *k, json_t *v, unsigned *seen, hy_status *st)
{
	int t = e->type;
	hy_status s = HY_OK;
	int call = t >= HY_EV_CHI && t <= HY_EV_ANKAN;
	if (!strcmp(k, "scores")) {
		s = get_4ints(c, k, v, e->scores);
		e->flags |= HY_EVF_SCORES;
	} else if (!strcmp(k, "deltas")) {
		s = get_4ints(c, k, v, e->deltas);
		e->flags |= HY_EVF_DELTAS;
	} else if (!strcmp(k, "actor")) {
		int has = (t >= HY_EV_TSUMO && t <= HY_EV_ANKAN) || t == HY_EV_REACH ||
			  t == HY_EV_REACH_ACCEPTED || t == HY_EV_HORA || t == HY_EV_RYUKYOKU;
		if (!has)
			return 0;
		s = get_u8(c, k, v, 0, 3, &e->actor);
		*seen |= F_ACTOR;
		if (t == HY_EV_RYUKYOKU)
			e->flags |= HY_EVF_ACTOR;
	} else if (!strcmp(k, "target")) {
		if (!(call && t != HY_EV_ANKAN) && t != HY_EV_HORA)
			return 0;
		s = get_u8(c, k, v, 0, 3, &e->target);
		*seen |= F_TARGET;
	} else if (!strcmp(k, "pai")) {
		if (!(t == HY_EV_TSUMO || t == HY_EV_DAHAI || (call && t != HY_EV_ANKAN) ||
		      t == HY_EV_HORA))
			return 0;
		s = get_tile(c, k, v, t == HY_EV_TSUMO, &e->pai);
		*seen |= F_PAI;
	} else if (!strcmp(k, "consumed")) {
		if (!call)
			return 0;
		s = get_tiles(c, k, v, consumed_count(t), 0, 0, e->consumed, &e->nconsumed);
		*seen |= F_CONSUMED;
	} else if (!strcmp(k, "tsumogiri")) {
		if (t != HY_EV_DAHAI)
			return 0;
		if (!json_is_boolean(v))
			s = bad_type(c, k, "a boolean");
		e->tsumogiri = json_is_true(v);
		e->flags |= HY_EVF_TSUMOGIRI;
	} else if (!strcmp(k, "ura_markers") || !strcmp(k, "uradora_markers")) {
		if (t != HY_EV_HORA)
			return 0;
		if (e->flags & HY_EVF_URA)
			return 0; /* both spellings: keep the second verbatim */
		s = get_tiles(c, k, v, -1, 5, 0, e->ura, &e->nura);
		e->flags |= HY_EVF_URA | (k[3] == 'd' ? HY_EVF_URA_ALIAS : 0);
	} else if (!strcmp(k, "dora_marker")) {
		if (t != HY_EV_START_KYOKU && t != HY_EV_DORA)
			return 0;
		s = get_tile(c, k, v, 0, &e->dora_marker);
		*seen |= F_DORA;
	} else if (t == HY_EV_START_KYOKU) {
		if (!strcmp(k, "bakaze")) {
			s = get_tile(c, k, v, 0, &e->bakaze);
			if (!s && (e->bakaze < 27 || e->bakaze > 30))
				s = hy_diag_set(c->d, HY_EDATA, c->line, "bad bakaze '%s'",
						json_string_value(v));
			e->flags |= HY_EVF_BAKAZE;
		} else if (!strcmp(k, "kyoku")) {
			s = get_u8(c, k, v, 1, 4, &e->kyoku);
			e->flags |= HY_EVF_KYOKU;
		} else if (!strcmp(k, "honba")) {
			s = get_u8(c, k, v, 0, 255, &e->honba);
			e->flags |= HY_EVF_HONBA;
		} else if (!strcmp(k, "kyotaku")) {
			s = get_u8(c, k, v, 0, 255, &e->kyotaku);
			e->flags |= HY_EVF_KYOTAKU;
		} else if (!strcmp(k, "oya")) {
			s = get_u8(c, k, v, 0, 3, &e->oya);
			*seen |= F_ORA;
		} else if (!strcmp(k, "tehais")) {
			s = get_tehais(c, v, e);
		} else {
			return 0;
		}
	} else if (t == HY_EV_START_GAME && !strcmp(k, "names")) {
		int known = 0;
		s = get_names(c, v, e, &known);
		if (!s && !known)
			return 0;
	} else {
		return 0;
	}
	if (s) {
		*st = s;
		return -1;
	}
	return 1;
}

static hy_status check_required(pctx *c, const hy_event *e, unsigned seen)
{
	unsigned need = 0;
	switch (e->type) {
	case HY_EV_START_KYOKU:
		need = F_ORA | F_DORA;
		break;
	case HY_EV_TSUMO:
	case HY_EV_DAHAI:
		need = F_ACTOR | F_PAI;
		break;
	case HY_EV_CHI:
	case HY_EV_PON:
	case HY_EV_DAIMINKAN:
		need = F_ACTOR | F_TARGET | F_PAI | F_CONSUMED;
		break;
	case HY_EV_KAKAN:
		need = F_ACTOR | F_PAI | F_CONSUMED;
		break;
	case HY_EV_ANKAN:
		need = F_ACTOR | F_CONSUMED;
		break;
	case HY_EV_DORA:
		need = F_DORA;
		break;
	case HY_EV_REACH:
	case HY_EV_REACH_ACCEPTED:
		need = F_ACTOR;
		break;
	case HY_EV_HORA:
		need = F_ACTOR | F_TARGET;
		break;
	default:
		break;
	}
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{F_ACTOR, "actor"},	  {F_TARGET, "target"}, {F_PAI, "pai"},
		{F_CONSUMED, "consumed"}, {F_ORA, "oya"},	{F_DORA, "dora_marker"},
	};
	unsigned miss = need & ~seen;
	for (size_t i = 0; miss && i < sizeof names / sizeof names[0]; i++)
		if (miss & names[i].bit)
			return hy_diag_set(c->d, HY_EDATA, c->line, "%s: missing field '%s'",
					   c->tname, names[i].name);
	return HY_OK;
}

/* Parses; *type_out gets the event type as soon as it is known (even when a
 * field is bad), so that the document splitter can see start_game lines. */
static hy_status parse_event(hy_game *g, const char *text, size_t len, uint32_t line,
			     hy_event *e, hy_diag *d, int *type_out)
{
	json_error_t err;
	*type_out = HY_EV_NONE;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!o)
		return hy_diag_set(d, HY_EDATA, line, "invalid JSON: %s (column %d)", err.text,
				   err.column);
	hy_status s = HY_OK;
	json_t *extra = NULL;
	char tname[40];
	pctx c = {g, d, line, tname};
	if (!json_is_object(o)) {
		s = hy_diag_set(d, HY_EDATA, line, "not a JSON object");
		goto out;
	}
	json_t *tv = json_object_get(o, "type");
	if (!tv) {
		s = hy_diag_set(d, HY_EDATA, line, "missing field 'type'");
		goto out;
	}
	if (!json_is_string(tv)) {
		s = hy_diag_set(d, HY_EDATA, line, "field 'type' is not a string");
		goto out;
	}
	const char *ts = json_string_value(tv);
	size_t tl = json_string_length(tv);
	hy_ev_type type = hy_ev_type_from_name(ts, tl);
	if (type == HY_EV_NONE) {
		s = hy_diag_set(d, HY_EDATA, line, "unknown event type '%.40s'", ts);
		goto out;
	}
	*type_out = type;
	snprintf(tname, sizeof tname, "%s", ts);
	hy_event_blank(e, type);
	e->line = line;
	if (tl == 3)
		e->flags |= HY_EVF_KAN_ALIAS;
	unsigned seen = 0;
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		if (v == tv)
			continue;
		int r = field(&c, e, key, v, &seen, &s);
		if (r < 0)
			goto out;
		if (r == 0) {
			if (!extra && !(extra = json_object())) {
				s = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
				goto out;
			}
			if (json_object_set(extra, key, v)) {
				s = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
				goto out;
			}
		}
	}
	if ((s = check_required(&c, e, seen)))
		goto out;
	if (extra) {
		char *txt = json_dumps(extra, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!txt) {
			s = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
			goto out;
		}
		e->extra = hy_game_strdup(g, txt, strlen(txt));
		free(txt);
		if (!e->extra)
			s = hy_diag_set(d, HY_ENOMEM, line, "out of memory");
	}
out:
	json_decref(extra);
	json_decref(o);
	return s;
}

hy_status hy_mjai_parse_event(hy_game *g, const char *text, size_t len, uint32_t line,
			      hy_event *e, hy_diag *d)
{
	int type;
	return parse_event(g, text, len, line, e, d, &type);
}

/* ------------------------------------------------------------ documents */

static int blank_line(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}

typedef struct docstate {
	const char *source;
	const hy_game_sink *sink;
	hy_diag *d;
	hy_game g;
	hy_game scratch;
	uint32_t index; /* index of the current game               */
	int open;       /* the current game has at least one line  */
	int bad;        /* the current game failed: skipping        */
} docstate;

static hy_status report_bad(docstate *st)
{
	st->d->game = st->index;
	hy_status s = st->d->status ? st->d->status : HY_EDATA;
	if (!st->sink->bad || s == HY_ENOMEM)
		return s;
	hy_status r = st->sink->bad(st->sink->ctx, st->d);
	if (r == HY_OK)
		st->bad = 1;
	return r;
}

/* Ends the current game: validate and deliver (unless it was bad). */
static hy_status finish_game(docstate *st)
{
	if (!st->open || st->bad)
		return HY_OK;
	if (hy_game_validate(&st->g, st->d) != HY_OK)
		return report_bad(st);
	return st->sink->game ? st->sink->game(st->sink->ctx, &st->g) : HY_OK;
}

static hy_status begin_game(docstate *st)
{
	if (st->open)
		st->index++;
	st->open = 1;
	st->bad = 0;
	hy_game_clear(&st->g);
	if (hy_game_set_source(&st->g, st->source, st->index) != HY_OK)
		return hy_diag_set(st->d, HY_ENOMEM, 0, "out of memory");
	return HY_OK;
}

static hy_status doc_line(docstate *st, const char *p, size_t n, uint32_t line)
{
	hy_event e;
	int type = HY_EV_NONE;
	hy_status s;
	/* A line that may begin a game is looked at first on its own (strings
	 * into a scratch game), so that the previous game can be finished
	 * before this line's strings go into the reused hy_game. */
	if (!st->open || memmem(p, n, "start_game", 10)) {
		hy_diag scratch;
		hy_diag_init(&scratch, st->source);
		hy_game_clear(&st->scratch);
		(void)parse_event(&st->scratch, p, n, line, &e, &scratch, &type);
		hy_game_clear(&st->scratch);
		if (type == HY_EV_START_GAME || !st->open) {
			if ((s = finish_game(st)) != HY_OK)
				return s;
			if ((s = begin_game(st)) != HY_OK)
				return s;
		}
	}
	if (st->bad)
		return HY_OK; /* skipping the rest of a bad game */
	s = parse_event(&st->g, p, n, line, &e, st->d, &type);
	if (s != HY_OK)
		return report_bad(st);
	if (!hy_game_push(&st->g, &e))
		return hy_diag_set(st->d, HY_ENOMEM, line, "out of memory");
	return HY_OK;
}

hy_status hy_mjai_parse_doc(const char *source, const char *data, size_t len,
			    const hy_game_sink *sink, hy_diag *d)
{
	hy_diag local;
	docstate st = {0};
	if (!d)
		d = &local;
	hy_diag_init(d, source);
	st.source = source;
	st.sink = sink;
	st.d = d;
	hy_game_init(&st.g);
	hy_game_init(&st.scratch);

	const char *p = data, *end = data + len;
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	uint32_t line = 0;
	hy_status s = HY_OK;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n && !blank_line(p, n)) {
			s = doc_line(&st, p, n, line);
			if (s != HY_OK)
				goto out;
		}
		p = nl ? nl + 1 : end;
	}
	s = finish_game(&st);
out:
	hy_game_free(&st.g);
	hy_game_free(&st.scratch);
	return s;
}

/* ------------------------------------------------------------ writing */

typedef struct wbuf {
	char *p, *end;
	int over;
} wbuf;

static inline void put(wbuf *w, const char *s, size_t n)
{
	if ((size_t)(w->end - w->p) < n) {
		w->over = 1;
		w->p = w->end;
		return;
	}
	memcpy(w->p, s, n);
	w->p += n;
}

#define PUTS(w, lit) put((w), (lit), sizeof(lit) - 1)

static void put_int(wbuf *w, long long x)
{
	char tmp[24];
	int i = sizeof tmp;
	unsigned long long u = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (x < 0)
		tmp[--i] = '-';
	put(w, tmp + i, sizeof tmp - (size_t)i);
}

static void put_tile(wbuf *w, int t)
{
	const char *s = hy_tile_to_mjai(t);
	if (!s)
		s = "?";
	put(w, "\"", 1);
	put(w, s, strlen(s));
	put(w, "\"", 1);
}

static void put_tiles(wbuf *w, const uint8_t *t, int n)
{
	put(w, "[", 1);
	for (int i = 0; i < n; i++) {
		if (i)
			put(w, ",", 1);
		put_tile(w, t[i]);
	}
	put(w, "]", 1);
}

static void put_4ints(wbuf *w, const int32_t *v)
{
	put(w, "[", 1);
	for (int i = 0; i < 4; i++) {
		if (i)
			put(w, ",", 1);
		put_int(w, v[i]);
	}
	put(w, "]", 1);
}

static void put_str(wbuf *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	put(w, "\"", 1);
	for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
		unsigned char ch = *q;
		if (ch == '"' || ch == '\\') {
			char esc[2] = {'\\', (char)ch};
			put(w, esc, 2);
		} else if (ch < 0x20) {
			char esc[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
			put(w, esc, 6);
		} else {
			put(w, (const char *)q, 1);
		}
	}
	put(w, "\"", 1);
}

static void put_seat(wbuf *w, const char *key_lit, size_t klen, int seat)
{
	put(w, key_lit, klen);
	put_int(w, seat);
}

#define SEAT(w, lit, v) put_seat((w), (lit), sizeof(lit) - 1, (v))

/* Splices the members of the extra object text in after the known fields. */
static void put_extra(wbuf *w, const char *x)
{
	size_t n = strlen(x);
	while (n && (x[n - 1] == ' ' || x[n - 1] == '\n' || x[n - 1] == '\t' || x[n - 1] == '\r'))
		n--;
	while (n && (*x == ' ' || *x == '\n' || *x == '\t' || *x == '\r'))
		x++, n--;
	if (n < 2 || x[0] != '{' || x[n - 1] != '}')
		return;
	x++;
	n -= 2;
	while (n && (*x == ' ' || *x == '\n' || *x == '\t' || *x == '\r'))
		x++, n--;
	if (!n)
		return;
	put(w, ",", 1);
	put(w, x, n);
}

/* start_kyoku's own fields, in mjai's order. */
static void start_kyoku_fields(wbuf *wp, const hy_event *e)
{
	if (e->flags & HY_EVF_BAKAZE) {
		PUTS(wp, ",\"bakaze\":");
		put_tile(wp, e->bakaze);
	}
	PUTS(wp, ",\"dora_marker\":");
	put_tile(wp, e->dora_marker);
	if (e->flags & HY_EVF_KYOKU)
		SEAT(wp, ",\"kyoku\":", e->kyoku);
	if (e->flags & HY_EVF_HONBA)
		SEAT(wp, ",\"honba\":", e->honba);
	if (e->flags & HY_EVF_KYOTAKU)
		SEAT(wp, ",\"kyotaku\":", e->kyotaku);
	SEAT(wp, ",\"oya\":", e->oya);
	if (e->flags & HY_EVF_SCORES) {
		PUTS(wp, ",\"scores\":");
		put_4ints(wp, e->scores);
	}
	if (e->flags & HY_EVF_TEHAIS) {
		PUTS(wp, ",\"tehais\":[");
		for (int p = 0; p < 4; p++) {
			if (p)
				put(wp, ",", 1);
			put_tiles(wp, e->tehais[p], 13);
		}
		put(wp, "]", 1);
	}
}

/* The fields any event may carry, after its own: deltas, ura markers (a
 * hora's, under the name the log gave), scores (but start_kyoku's), extra. */
static void common_fields(wbuf *wp, const hy_event *e)
{
	const int t = e->type;
	if (e->flags & HY_EVF_DELTAS) {
		PUTS(wp, ",\"deltas\":");
		put_4ints(wp, e->deltas);
	}
	if (t == HY_EV_HORA && (e->flags & HY_EVF_URA)) {
		if (e->flags & HY_EVF_URA_ALIAS)
			PUTS(wp, ",\"uradora_markers\":");
		else
			PUTS(wp, ",\"ura_markers\":");
		put_tiles(wp, e->ura, e->nura > 5 ? 5 : e->nura);
	}
	if ((e->flags & HY_EVF_SCORES) && t != HY_EV_START_KYOKU) {
		PUTS(wp, ",\"scores\":");
		put_4ints(wp, e->scores);
	}
	if (e->extra)
		put_extra(wp, e->extra);
}

int hy_mjai_format_event(const hy_event *e, char *buf, size_t size)
{
	wbuf w = {buf, buf + size, 0};
	const char *tn = (e->flags & HY_EVF_KAN_ALIAS) && e->type == HY_EV_DAIMINKAN
				 ? "kan"
				 : hy_ev_type_name(e->type);
	if (!tn)
		return -1;
	PUTS(&w, "{\"type\":\"");
	put(&w, tn, strlen(tn));
	put(&w, "\"", 1);
	int t = e->type;
	switch (t) {
	case HY_EV_START_GAME:
		if (e->flags & HY_EVF_NAMES) {
			PUTS(&w, ",\"names\":[");
			for (int i = 0; i < 4; i++) {
				if (i)
					put(&w, ",", 1);
				put_str(&w, e->names[i] ? e->names[i] : "");
			}
			put(&w, "]", 1);
		}
		break;
	case HY_EV_START_KYOKU:
		start_kyoku_fields(&w, e);
		break;
	case HY_EV_TSUMO:
	case HY_EV_DAHAI:
		SEAT(&w, ",\"actor\":", e->actor);
		PUTS(&w, ",\"pai\":");
		put_tile(&w, e->pai);
		if (t == HY_EV_DAHAI && (e->flags & HY_EVF_TSUMOGIRI)) {
			if (e->tsumogiri)
				PUTS(&w, ",\"tsumogiri\":true");
			else
				PUTS(&w, ",\"tsumogiri\":false");
		}
		break;
	case HY_EV_CHI:
	case HY_EV_PON:
	case HY_EV_DAIMINKAN:
	case HY_EV_KAKAN:
	case HY_EV_ANKAN:
		SEAT(&w, ",\"actor\":", e->actor);
		if (e->target != HY_NO_SEAT && t != HY_EV_ANKAN)
			SEAT(&w, ",\"target\":", e->target);
		if (t != HY_EV_ANKAN) {
			PUTS(&w, ",\"pai\":");
			put_tile(&w, e->pai);
		}
		PUTS(&w, ",\"consumed\":");
		put_tiles(&w, e->consumed, e->nconsumed > 4 ? 4 : e->nconsumed);
		break;
	case HY_EV_DORA:
		PUTS(&w, ",\"dora_marker\":");
		put_tile(&w, e->dora_marker);
		break;
	case HY_EV_REACH:
	case HY_EV_REACH_ACCEPTED:
		SEAT(&w, ",\"actor\":", e->actor);
		break;
	case HY_EV_HORA:
		SEAT(&w, ",\"actor\":", e->actor);
		SEAT(&w, ",\"target\":", e->target);
		if (e->pai != HY_TILE_NONE) {
			PUTS(&w, ",\"pai\":");
			put_tile(&w, e->pai);
		}
		break;
	case HY_EV_RYUKYOKU:
		if (e->flags & HY_EVF_ACTOR)
			SEAT(&w, ",\"actor\":", e->actor);
		break;
	default:
		break;
	}
	common_fields(&w, e);
	put(&w, "}", 1);
	if (w.over || w.p - buf > (ptrdiff_t)INT32_MAX)
		return -1;
	return (int)(w.p - buf);
}

hy_status hy_mjai_write_game(FILE *f, const hy_game *g)
{
	char stack[8192];
	char *buf = stack, *heap = NULL;
	size_t cap = sizeof stack;
	hy_status s = HY_OK;
	for (size_t i = 0; i < g->n; i++) {
		int n;
		while ((n = hy_mjai_format_event(&g->ev[i], buf, cap - 1)) < 0) {
			if (cap >= ((size_t)1 << 30)) {
				s = HY_EUSAGE; /* unformattable event (bad type) */
				goto out;
			}
			cap = hy_grow_cap(cap, cap + 1, 0);
			char *nb = realloc(heap, cap);
			if (!nb) {
				s = HY_ENOMEM;
				goto out;
			}
			heap = buf = nb;
		}
		buf[n] = '\n';
		if (fwrite(buf, 1, (size_t)n + 1, f) != (size_t)n + 1) {
			s = HY_EIO;
			goto out;
		}
	}
out:
	free(heap);
	return s;
}
