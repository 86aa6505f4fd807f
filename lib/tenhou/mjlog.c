/* Tenhou mjlog XML → hy_game, through expat.
 *
 * The document is one game: <mjloggm> with GO (rules), UN (names), then per
 * kyoku INIT, draws T/U/V/W<id>, discards D/E/F/G<id>, N (calls, bit-packed
 * meld code m), REACH, DORA, and AGARI / RYUUKYOKU (the last one carries
 * owari = final scores; sc and owari hold two values per player, or three in
 * the chip lobbies, whose chip column is not used). Each kyoku is collected
 * into an hy_tk_kyoku and handed to the shared builder (builder.h), which
 * places dora and reach_accepted the mjai way; the DORA and REACH step="2"
 * tags' own positions are therefore not used.
 *
 * Provenance: a mjlog is one long line, so e->line and diagnostics carry the
 * 1-based index of the XML element (start tags counted from <mjloggm> = 1)
 * instead of a line number. */
#include "tenhou/tenhou.h"

#include <errno.h>
#include <expat.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "tenhou/builder.h"
#include "tenhou/internal.h"

typedef struct ml_ctx {
	XML_Parser p;
	hy_diag *d;
	hy_status st;
	uint32_t tag;
	int root;
	int aka;
	hy_game *g;
	int started;
	const char *names[4];
	int have_names;
	hy_tk_kyoku k;
	int in_kyoku;
	int last_draw[4];
	int32_t after[4];
	int sticks;
	int nkyoku;
	int owari;
	int32_t owari_scores[4];
	int done;           /* a result with owari was seen                */
} ml_ctx;

static void fail(ml_ctx *c, hy_status s, const char *fmt, const char *arg)
{
	if (c->st)
		return;
	c->st = hy_diag_set(c->d, s, c->tag, fmt, arg);
	XML_StopParser(c->p, XML_FALSE);
}

static const char *attr(const XML_Char **atts, const char *name)
{
	for (int i = 0; atts[i]; i += 2)
		if (strcmp(atts[i], name) == 0)
			return atts[i + 1];
	return NULL;
}

/* Parses up to max comma-separated integers (decimals like "-23.0" are cut
 * at the point); returns the count or -1 on a syntax error. */
static int int_list(const char *s, long *out, int max)
{
	int n = 0;
	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	if (!*s)
		return 0;
	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (end == s || errno)
			return -1;
		if (*end == '.') {
			end++;
			while (*end >= '0' && *end <= '9')
				end++;
		}
		if (n == max)
			return -1;
		out[n++] = v;
		s = end;
		if (*s == 0)
			return n;
		if (*s != ',')
			return -1;
		s++;
	}
}

/* Scores in mjlog are in hundreds of points; a value beyond this would not
 * fit the 32-bit score fields once multiplied (10⁹ points is far beyond any
 * real game). */
enum { SCORE100_MAX = 10000000 };

static int int_attr(const XML_Char **atts, const char *name, long lo, long hi, long *v)
{
	long x;
	const char *s = attr(atts, name);
	if (int_list(s, &x, 1) != 1 || x < lo || x > hi)
		return 0;
	*v = x;
	return 1;
}

static int tile_code(const ml_ctx *c, long id)
{
	if (id < 0 || id > 135)
		return -1;
	return c->aka ? hy_tile_from_136((int)id) : (int)(id / 4);
}

/* Decodes a meld code of seat who into an action; 0 on a bad code. */
static int decode_meld(const ml_ctx *c, int who, long m, hy_tk_act *a)
{
	int ids[4], n = 0;
	int from = (int)(m & 3);
	memset(a, 0, sizeof *a);
	a->actor = (uint8_t)who;
	a->target = (uint8_t)((who + from) % 4);
	a->pai = HY_TILE_NONE;
	memset(a->consumed, HY_TILE_NONE, sizeof a->consumed);
	if (m < 0 || m > 0xffff)
		return 0;
	if (m & 0x4) { /* chi */
		int t = (int)(m >> 10), r = t % 3;
		t /= 3;
		if (t >= 21 || from != 3)
			return 0;
		int base = (t / 7) * 9 + t % 7;
		for (int i = 0; i < 3; i++)
			ids[i] = 4 * (base + i) + (int)((m >> (3 + 2 * i)) & 3);
		a->type = HY_EV_CHI;
		a->pai = (uint8_t)tile_code(c, ids[r]);
		for (int i = 0; i < 3; i++)
			if (i != r)
				a->consumed[n++] = (uint8_t)tile_code(c, ids[i]);
		a->nconsumed = 2;
		return 1;
	}
	if (m & 0x18) { /* pon (0x8) or kakan (0x10) */
		int unused = (int)((m >> 5) & 3), t = (int)(m >> 9), r = t % 3;
		t /= 3;
		if (t >= 34 || from == 0)
			return 0;
		for (int i = 0, j = 0; i < 4; i++)
			if (i != unused)
				ids[j++] = 4 * t + i;
		if (m & 0x8) {
			a->type = HY_EV_PON;
			a->pai = (uint8_t)tile_code(c, ids[r]);
			for (int i = 0; i < 3; i++)
				if (i != r)
					a->consumed[n++] = (uint8_t)tile_code(c, ids[i]);
			a->nconsumed = 2;
		} else {
			a->type = HY_EV_KAKAN;
			a->target = HY_NO_SEAT;
			a->pai = (uint8_t)tile_code(c, 4 * t + unused);
			for (int i = 0; i < 3; i++)
				a->consumed[i] = (uint8_t)tile_code(c, ids[i]);
			a->nconsumed = 3;
		}
		return 1;
	}
	if (m & 0x20) /* nukidora: three-player only */
		return 0;
	int hai = (int)(m >> 8), t = hai / 4;
	if (hai > 135)
		return 0;
	if (from == 0) {
		a->type = HY_EV_ANKAN;
		a->target = HY_NO_SEAT;
		for (int i = 0; i < 4; i++)
			a->consumed[i] = (uint8_t)tile_code(c, 4 * t + i);
		a->nconsumed = 4;
	} else {
		a->type = HY_EV_DAIMINKAN;
		a->pai = (uint8_t)tile_code(c, hai);
		for (int i = 0; i < 4; i++)
			if (4 * t + i != hai)
				a->consumed[n++] = (uint8_t)tile_code(c, 4 * t + i);
		a->nconsumed = 3;
	}
	return 1;
}

static void push_act(ml_ctx *c, hy_tk_act *a)
{
	a->line = c->tag;
	if (!hy_tk_kyoku_push(&c->k, a))
		fail(c, HY_ENOMEM, "%s", "out of memory");
}

static int start_game(ml_ctx *c)
{
	if (c->started)
		return 1;
	hy_event e;
	hy_event_blank(&e, HY_EV_START_GAME);
	e.line = 1;
	if (c->have_names) {
		e.flags |= HY_EVF_NAMES;
		memcpy(e.names, c->names, sizeof e.names);
	}
	if (!hy_game_push(c->g, &e)) {
		fail(c, HY_ENOMEM, "%s", "out of memory");
		return 0;
	}
	c->started = 1;
	return 1;
}

/* Hands the collected kyoku to the builder. */
static void flush_kyoku(ml_ctx *c)
{
	if (!c->in_kyoku || c->st)
		return;
	c->in_kyoku = 0;
	hy_status s = hy_tk_emit_kyoku(c->g, &c->k, c->after, &c->sticks, c->d);
	if (s) {
		c->st = s;
		XML_StopParser(c->p, XML_FALSE);
		return;
	}
	c->nkyoku++;
}

static char *pct_decode(hy_game *g, const char *s)
{
	size_t n = strlen(s), j = 0;
	char *buf = malloc(n + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n &&
		    (hi = hy_tenhou_hexval(s[i + 1])) >= 0 && (lo = hy_tenhou_hexval(s[i + 2])) >= 0) {
			buf[j++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			buf[j++] = s[i];
		}
	}
	const char *r = hy_game_strdup(g, buf, j);
	free(buf);
	return (char *)r;
}

static void on_init(ml_ctx *c, const XML_Char **atts)
{
	long seed[6], ten[4], v;
	flush_kyoku(c);
	if (c->st || !start_game(c))
		return;
	hy_tk_kyoku_reset(&c->k);
	if (int_list(attr(atts, "seed"), seed, 6) != 6 || seed[0] < 0 || seed[0] > 15 ||
	    seed[1] < 0 || seed[1] > 255 || seed[2] < 0 || seed[2] > 255)
		return fail(c, HY_EDATA, "INIT: bad seed '%s'", attr(atts, "seed") ? attr(atts, "seed") : "");
	int nten = int_list(attr(atts, "ten"), ten, 4);
	const char *h3 = attr(atts, "hai3");
	if (nten == 3 || (nten == 4 && (!h3 || !*h3)))
		return fail(c, HY_EUNSUP, "%s", "three-player (sanma) logs are not supported");
	if (nten != 4)
		return fail(c, HY_EDATA, "%s", "INIT: bad ten");
	for (int p = 0; p < 4; p++)
		if (ten[p] < -SCORE100_MAX || ten[p] > SCORE100_MAX)
			return fail(c, HY_EDATA, "INIT: ten value %s is out of range (±10^7)",
				    attr(atts, "ten"));
	if (!int_attr(atts, "oya", 0, 3, &v))
		return fail(c, HY_EDATA, "%s", "INIT: bad oya");
	c->k.round = (uint8_t)seed[0];
	c->k.honba = (uint8_t)seed[1];
	c->k.kyotaku = (uint8_t)seed[2];
	c->k.oya = (uint8_t)v;
	c->k.line = c->tag;
	int t = tile_code(c, seed[5]);
	if (t < 0)
		return fail(c, HY_EDATA, "%s", "INIT: bad dora indicator");
	c->k.dora[c->k.ndora++] = (uint8_t)t;
	for (int p = 0; p < 4; p++) {
		static const char *const hn[4] = {"hai0", "hai1", "hai2", "hai3"};
		long ids[13];
		c->k.scores[p] = (int32_t)ten[p] * 100;
		if (int_list(attr(atts, hn[p]), ids, 13) != 13)
			return fail(c, HY_EDATA, "INIT: %s is not 13 tiles", hn[p]);
		for (int i = 0; i < 13; i++) {
			if ((t = tile_code(c, ids[i])) < 0)
				return fail(c, HY_EDATA, "INIT: bad tile in %s", hn[p]);
			c->k.tehais[p][i] = (uint8_t)t;
		}
		c->last_draw[p] = -1;
	}
	c->in_kyoku = 1;
}

/* A per-player score list (sc, owari): 8 values, two per player, or 12 in
 * the chip lobbies, three per player (the third is the chip count or its
 * change, not used). Returns the stride, or 0 on a bad list. */
static int score_list(const char *s, long out[12])
{
	int n = int_list(s, out, 12);
	for (int i = 0; i < n; i++)
		if (out[i] < -SCORE100_MAX || out[i] > SCORE100_MAX)
			return 0; /* ×100 would not fit the score fields */
	return n == 8 ? 2 : n == 12 ? 3 : 0;
}

/* Common checks of AGARI / RYUUKYOKU; returns 0 after failing. */
static int result_common(ml_ctx *c, const XML_Char **atts, int32_t deltas[4])
{
	long sc[12];
	int k;
	memset(deltas, 0, 4 * sizeof *deltas);
	if (!c->in_kyoku) {
		fail(c, HY_EDATA, "%s", "result outside a kyoku");
		return 0;
	}
	const char *s = attr(atts, "sc");
	if (s) {
		if (!(k = score_list(s, sc))) {
			fail(c, HY_EDATA, "bad sc '%s' (8 or 12 values, each within ±10^7)", s);
			return 0;
		}
		for (int p = 0; p < 4; p++)
			deltas[p] = (int32_t)sc[k * p + 1] * 100;
	}
	const char *o = attr(atts, "owari");
	if (o) {
		long ow[12];
		if (!(k = score_list(o, ow))) {
			fail(c, HY_EDATA, "bad owari '%s' (8 or 12 values, each within ±10^7)", o);
			return 0;
		}
		for (int p = 0; p < 4; p++)
			c->owari_scores[p] = (int32_t)ow[k * p] * 100;
		c->owari = 1;
	}
	if (!c->k.end_line)
		c->k.end_line = c->tag;
	return 1;
}

static void on_agari(ml_ctx *c, const XML_Char **atts)
{
	long who, from;
	hy_tk_hora h;
	memset(&h, 0, sizeof h);
	if (!result_common(c, atts, h.deltas))
		return;
	if (c->k.end == HY_TK_RYUKYOKU || c->k.nhora == 3)
		return fail(c, HY_EDATA, "%s", "AGARI after the kyoku ended");
	if (!int_attr(atts, "who", 0, 3, &who) || !int_attr(atts, "fromWho", 0, 3, &from))
		return fail(c, HY_EDATA, "%s", "AGARI: bad who / fromWho");
	h.actor = (uint8_t)who;
	h.target = (uint8_t)from;
	h.line = c->tag;
	const char *u = attr(atts, "doraHaiUra");
	if (u && c->k.nura == 0) {
		long ids[5];
		int n = int_list(u, ids, 5);
		if (n < 0)
			return fail(c, HY_EDATA, "AGARI: bad doraHaiUra '%s'", u);
		for (int i = 0; i < n; i++) {
			int t = tile_code(c, ids[i]);
			if (t < 0)
				return fail(c, HY_EDATA, "AGARI: bad doraHaiUra '%s'", u);
			c->k.ura[i] = (uint8_t)t;
		}
		c->k.nura = (uint8_t)n;
	}
	c->k.hora[c->k.nhora++] = h;
	c->k.end = HY_TK_HORA;
}

static void on_ryuukyoku(ml_ctx *c, const XML_Char **atts)
{
	if (!result_common(c, atts, c->k.ryu_deltas))
		return;
	if (c->k.end != HY_TK_NONE)
		return fail(c, HY_EDATA, "%s", "RYUUKYOKU after the kyoku ended");
	const char *t = attr(atts, "type");
	c->k.ryu_ron3 = t && strcmp(t, "ron3") == 0;
	c->k.end = HY_TK_RYUKYOKU;
}

static int digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void on_play(ml_ctx *c, const char *name, const XML_Char **atts)
{
	hy_tk_act a;
	memset(&a, 0, sizeof a);
	memset(a.consumed, HY_TILE_NONE, sizeof a.consumed);
	a.target = HY_NO_SEAT;
	a.pai = HY_TILE_NONE;
	if (!c->in_kyoku || c->k.end != HY_TK_NONE)
		return fail(c, HY_EDATA, "<%s> outside a kyoku's play", name);
	if (strchr("TUVW", name[0]) && digits(name + 1)) {
		long id = strtol(name + 1, NULL, 10);
		int p = name[0] - 'T', t = tile_code(c, id);
		if (t < 0)
			return fail(c, HY_EDATA, "bad tile id in <%s>", name);
		a.type = HY_EV_TSUMO;
		a.actor = (uint8_t)p;
		a.pai = (uint8_t)t;
		c->last_draw[p] = (int)id;
		return push_act(c, &a);
	}
	if (strchr("DEFG", name[0]) && digits(name + 1)) {
		long id = strtol(name + 1, NULL, 10);
		int p = name[0] - 'D', t = tile_code(c, id);
		if (t < 0)
			return fail(c, HY_EDATA, "bad tile id in <%s>", name);
		a.type = HY_EV_DAHAI;
		a.actor = (uint8_t)p;
		a.pai = (uint8_t)t;
		a.tsumogiri = c->last_draw[p] == (int)id;
		c->last_draw[p] = -1;
		return push_act(c, &a);
	}
	long who, v;
	if (!int_attr(atts, "who", 0, 3, &who))
		return fail(c, HY_EDATA, "<%s>: bad who", name);
	if (strcmp(name, "N") == 0) {
		if (!int_attr(atts, "m", 0, 0xffff, &v) || !decode_meld(c, (int)who, v, &a))
			return fail(c, HY_EDATA, "N: bad meld code '%s'",
				    attr(atts, "m") ? attr(atts, "m") : "");
		c->last_draw[who] = -1;
		return push_act(c, &a);
	}
	/* REACH */
	if (!int_attr(atts, "step", 1, 2, &v))
		return fail(c, HY_EDATA, "%s", "REACH: bad step");
	if (v == 1) {
		a.type = HY_EV_REACH;
		a.actor = (uint8_t)who;
		push_act(c, &a);
	}
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	ml_ctx *c = ud;
	long v;
	if (c->st)
		return;
	c->tag++;
	if (!c->root) {
		if (strcmp(name, "mjloggm") != 0)
			return fail(c, HY_EFORMAT, "root element <%s> is not <mjloggm>", name);
		c->root = 1;
		return;
	}
	if (c->done)
		return;
	switch (name[0]) {
	case 'G':
		if (strcmp(name, "GO") == 0) {
			if (!int_attr(atts, "type", 0, LONG_MAX, &v))
				return fail(c, HY_EDATA, "%s", "GO: bad type");
			if (v & 0x10)
				return fail(c, HY_EUNSUP, "%s",
					    "three-player (sanma) logs are not supported");
			c->aka = !(v & 0x02);
			return;
		}
		break;
	case 'U':
		if (strcmp(name, "UN") == 0) {
			if (c->have_names || !attr(atts, "n0"))
				return;
			for (int p = 0; p < 4; p++) {
				static const char *const nn[4] = {"n0", "n1", "n2", "n3"};
				const char *s = attr(atts, nn[p]);
				if (!(c->names[p] = pct_decode(c->g, s ? s : "")))
					return fail(c, HY_ENOMEM, "%s", "out of memory");
			}
			c->have_names = 1;
			return;
		}
		break;
	case 'I':
		if (strcmp(name, "INIT") == 0)
			return on_init(c, atts);
		break;
	case 'A':
		if (strcmp(name, "AGARI") == 0)
			return on_agari(c, atts);
		break;
	case 'R':
		if (strcmp(name, "RYUUKYOKU") == 0)
			return on_ryuukyoku(c, atts);
		if (strcmp(name, "REACH") == 0)
			return on_play(c, name, atts);
		break;
	case 'N':
		if (strcmp(name, "N") == 0)
			return on_play(c, name, atts);
		break;
	case 'D':
		if (strcmp(name, "DORA") == 0) {
			if (!c->in_kyoku || c->k.ndora == 5)
				return fail(c, HY_EDATA, "%s", "DORA outside a kyoku or a sixth one");
			int t = int_attr(atts, "hai", 0, 135, &v) ? tile_code(c, v) : -1;
			if (t < 0)
				return fail(c, HY_EDATA, "%s", "DORA: bad hai");
			c->k.dora[c->k.ndora++] = (uint8_t)t;
			return;
		}
		break;
	default:
		break;
	}
	if (strchr("TUVWDEFG", name[0]) && digits(name + 1))
		return on_play(c, name, atts);
	/* SHUFFLE, TAIKYOKU, BYE and anything unknown: nothing to do */
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	ml_ctx *c = ud;
	(void)name;
	if (c->owari && !c->done && c->in_kyoku && c->k.end != HY_TK_NONE)
		c->done = 1; /* further tags (there should be none) are ignored */
}

hy_status hy_tenhou_parse_mjlog(const char *source, const char *data, size_t len,
				const hy_game_sink *sink, hy_diag *d)
{
	ml_ctx c;
	hy_game g;
	char rn[16];
	memset(&c, 0, sizeof c);
	hy_game_init(&g);
	hy_tk_kyoku_init(&c.k);
	c.d = d;
	c.g = &g;
	c.aka = 1;
	if (d)
		d->game = 0;
	hy_status st = hy_game_set_source(&g, source, 0);
	if (st) {
		hy_game_free(&g);
		return hy_diag_set(d, st, 0, "out of memory");
	}
	c.p = XML_ParserCreate(NULL);
	if (!c.p) {
		hy_game_free(&g);
		return hy_diag_set(d, HY_ENOMEM, 0, "XML_ParserCreate failed");
	}
	XML_SetUserData(c.p, &c);
	XML_SetElementHandler(c.p, on_start, on_end);
	int truncated = 0;
	size_t off = 0;
	while (!c.st && off < len) {
		/* expat takes an int length */
		size_t n = len - off > (size_t)1 << 30 ? (size_t)1 << 30 : len - off;
		if (XML_Parse(c.p, data + off, (int)n, 0) == XML_STATUS_ERROR && !c.st)
			c.st = hy_diag_set(d, HY_EDATA, c.tag, "malformed XML: %s (byte %lu)",
					   XML_ErrorString(XML_GetErrorCode(c.p)),
					   (unsigned long)XML_GetCurrentByteIndex(c.p));
		off += n;
	}
	if (!c.st && XML_Parse(c.p, "", 0, 1) == XML_STATUS_ERROR && !c.st) {
		if (c.root)
			truncated = 1; /* the document stops inside <mjloggm> */
		else
			c.st = hy_diag_set(d, HY_EDATA, c.tag, "malformed XML: %s",
					   XML_ErrorString(XML_GetErrorCode(c.p)));
	}
	XML_ParserFree(c.p);
	if (!c.st && !c.root)
		c.st = hy_diag_set(d, HY_EFORMAT, 0, "no <mjloggm> element");
	if (!c.st && !start_game(&c))
		c.st = HY_ENOMEM;
	if (!c.st) {
		if (c.in_kyoku && c.k.end == HY_TK_NONE) {
			c.st = hy_diag_set(d, HY_ETRUNC, c.tag,
					   "truncated log: kyoku %s has no result%s",
					   hy_tk_round_name(c.k.round, c.k.honba, rn, sizeof rn),
					   truncated ? " (document cut short)" : "");
		} else {
			flush_kyoku(&c);
			if (!c.st && !c.owari)
				c.st = hy_diag_set(d, HY_ETRUNC, c.tag,
						   "truncated log: no end of game (owari) after %d kyoku",
						   c.nkyoku);
		}
		if (c.st == HY_ETRUNC && d)
			d->game = 0;
	}
	if (!c.st) {
		hy_event e;
		hy_event_blank(&e, HY_EV_END_GAME);
		e.line = c.tag;
		e.flags |= HY_EVF_SCORES;
		memcpy(e.scores, c.owari_scores, sizeof e.scores);
		if (!hy_game_push(&g, &e))
			c.st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	st = hy_tenhou_deliver(&g, c.st, sink, d);
	hy_tk_kyoku_free(&c.k);
	hy_game_free(&g);
	return st;
}
