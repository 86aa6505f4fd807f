/* The binary event stream (formats/events.md is the normative spec). */
#include "events/stream.h"
#include "core/grow.h"

#include "core/le.h"
#include "io/frames.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ layout */

enum {
	REC_EVENT = 1,
	REC_TEXT = 2,
	REC_TRAILER = HY_FRAME_REC_TRAILER,

	TEXT_NAME0 = 0, /* 0–3: names[0..3] */
	TEXT_EXTRA = 4,
	TEXT_SOURCE = 5,
	TEXT_KINDS = 6,
	TEXT_CONTINUED = 1u << 0,
	TEXT_HDR = 12,
	TEXT_CHUNK = HY_EVS_RECORD_SIZE - TEXT_HDR, /* 116 */

	/* EVENT record offsets */
	EV_TYPE = 1,
	EV_FLAGS = 2,
	EV_GAME = 4,
	EV_LINE = 8,
	EV_ACTOR = 12,
	EV_TARGET = 13,
	EV_PAI = 14,
	EV_NCONSUMED = 15,
	EV_CONSUMED = 16,
	EV_TSUMOGIRI = 20,
	EV_BAKAZE = 21,
	EV_KYOKU = 22,
	EV_HONBA = 23,
	EV_KYOTAKU = 24,
	EV_OYA = 25,
	EV_DORA = 26,
	EV_NURA = 27,
	EV_URA = 28,
	EV_SCORES = 36,
	EV_DELTAS = 52,
	EV_TEHAIS = 68,
	EV_END = 120,
};

#define TRAILER_MAGIC "HYEVEND" /* with its NUL: 8 bytes */

_Static_assert(sizeof HY_EVS_MAGIC - 1 == 8, "frame magic is 8 bytes");
_Static_assert(sizeof TRAILER_MAGIC == 8, "trailer magic is 8 bytes with its NUL");
_Static_assert(TEXT_CHUNK == 116 && TEXT_CHUNK <= 255, "chunk length fits a byte");
_Static_assert(EV_URA + 5 <= EV_SCORES, "ura fits before scores");
_Static_assert(EV_TEHAIS + 4 * 13 == EV_END && EV_END <= HY_EVS_RECORD_SIZE,
	       "event fields fit a record");
_Static_assert(sizeof(((hy_event *)0)->tehais) == 52, "tehais are 4 x 13 bytes");
_Static_assert(HY_EV_TYPE_COUNT <= 256, "event type fits a byte");

static const char *text_kind_name(unsigned kind)
{
	static const char *const names[TEXT_KINDS] = {"name0", "name1", "name2",
						      "name3", "extra", "source"};
	return kind < TEXT_KINDS ? names[kind] : "?";
}

int hy_evs_is_stream(const void *data, size_t len)
{
	/* a non-empty prefix of the magic counts: a stream cut inside its first
	 * header is a truncated stream (status 1), not another format */
	return data && len > 0 && memcmp(data, HY_EVS_MAGIC, len < 8 ? len : 8) == 0;
}

static const hy_frame_format evs_format = {
	.name = "event stream",
	.a_name = "an event stream",
	.count_noun = "record",
	.magic = HY_EVS_MAGIC,
	.trailer_magic = TRAILER_MAGIC,
	.version = HY_EVS_VERSION,
	.header_size = HY_EVS_HEADER_SIZE,
	.record_size = HY_EVS_RECORD_SIZE,
	.wbuf_size = 1u << 20, /* 8192 records */
	.rbuf_size = 1u << 18,
};

/* ------------------------------------------------------------ writer */

struct hy_evs_writer {
	hy_frame_writer fw;
};

hy_status hy_evs_writer_open(hy_evs_writer **wp, FILE *f)
{
	if (!wp)
		return HY_EUSAGE;
	*wp = NULL;
	if (!f)
		return HY_EUSAGE;
	hy_evs_writer *w = malloc(sizeof *w);
	if (!w)
		return HY_ENOMEM;
	if (hy_frame_writer_init(&w->fw, &evs_format, f) != HY_OK) {
		free(w);
		return HY_ENOMEM;
	}
	*wp = w;
	return HY_OK;
}

/* Room for one record (zeroed), or NULL on a write error (d filled). */
static inline uint8_t *w_record(hy_evs_writer *w, hy_diag *d)
{
	uint8_t *p = hy_frame_record(&w->fw, d);
	if (p)
		memset(p, 0, HY_EVS_RECORD_SIZE);
	return p;
}

static hy_status w_text(hy_evs_writer *w, unsigned kind, uint32_t game, const char *s,
			hy_diag *d)
{
	size_t len = strlen(s);
	if (len > UINT32_MAX)
		return hy_frame_wfail(&w->fw, d, HY_EUSAGE,
				      "game %u: %s text of %zu bytes is too long", game,
				      text_kind_name(kind), len);
	size_t off = 0;
	do {
		size_t n = len - off < TEXT_CHUNK ? len - off : TEXT_CHUNK;
		uint8_t *p = w_record(w, d);
		if (!p)
			return w->fw.err;
		p[0] = REC_TEXT;
		p[1] = (uint8_t)kind;
		p[2] = off + n < len ? TEXT_CONTINUED : 0;
		p[3] = (uint8_t)n;
		hy_put_u32le(p + 4, game);
		hy_put_u32le(p + 8, (uint32_t)len);
		memcpy(p + TEXT_HDR, s + off, n);
		off += n;
	} while (off < len);
	return HY_OK;
}

static void w_event(uint8_t *p, const hy_event *e, uint32_t game)
{
	p[0] = REC_EVENT;
	p[EV_TYPE] = e->type;
	hy_put_u16le(p + EV_FLAGS, e->flags);
	hy_put_u32le(p + EV_GAME, game);
	hy_put_u32le(p + EV_LINE, e->line);
	p[EV_ACTOR] = e->actor;
	p[EV_TARGET] = e->target;
	p[EV_PAI] = e->pai;
	p[EV_NCONSUMED] = e->nconsumed;
	memcpy(p + EV_CONSUMED, e->consumed, 4);
	p[EV_TSUMOGIRI] = e->tsumogiri;
	p[EV_BAKAZE] = e->bakaze;
	p[EV_KYOKU] = e->kyoku;
	p[EV_HONBA] = e->honba;
	p[EV_KYOTAKU] = e->kyotaku;
	p[EV_OYA] = e->oya;
	p[EV_DORA] = e->dora_marker;
	p[EV_NURA] = e->nura;
	memcpy(p + EV_URA, e->ura, 5);
	for (int i = 0; i < 4; i++) {
		hy_put_u32le(p + EV_SCORES + 4 * i, (uint32_t)e->scores[i]);
		hy_put_u32le(p + EV_DELTAS + 4 * i, (uint32_t)e->deltas[i]);
	}
	for (int s = 0; s < 4; s++)
		memcpy(p + EV_TEHAIS + 13 * s, e->tehais[s], 13);
}

hy_status hy_evs_write_game(hy_evs_writer *w, const hy_game *g, hy_diag *d)
{
	if (!w || !g)
		return HY_EUSAGE;
	hy_status s = hy_frame_writer_check(&w->fw, d);
	if (s)
		return s;
	/* Check first, so that a bad game leaves the frame unchanged. */
	for (size_t i = 0; i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		if (e->type >= HY_EV_TYPE_COUNT || e->nconsumed > 4 || e->nura > 5)
			return hy_frame_wfail(&w->fw, d, HY_EUSAGE,
					      "game %u, event %zu: cannot be stored (type %u, "
					      "nconsumed %u, nura %u)",
					      g->index, i + 1, e->type, e->nconsumed, e->nura);
	}
	s = w_text(w, TEXT_SOURCE, g->index, g->source ? g->source : "", d);
	for (size_t i = 0; s == HY_OK && i < g->n; i++) {
		const hy_event *e = &g->ev[i];
		uint8_t *p = w_record(w, d);
		if (!p)
			return w->fw.err;
		w_event(p, e, g->index);
		for (unsigned k = 0; s == HY_OK && k < 4; k++)
			if (e->names[k])
				s = w_text(w, TEXT_NAME0 + k, g->index, e->names[k], d);
		if (s == HY_OK && e->extra)
			s = w_text(w, TEXT_EXTRA, g->index, e->extra, d);
	}
	return s;
}

hy_status hy_evs_writer_close(hy_evs_writer *w, hy_diag *d)
{
	if (!w)
		return HY_EUSAGE;
	hy_status s = hy_frame_writer_close(&w->fw, d);
	free(w);
	return s;
}

void hy_evs_writer_abort(hy_evs_writer *w, const char *why)
{
	if (!w)
		return;
	hy_frame_writer_abort(&w->fw, why);
	free(w);
}

/* ------------------------------------------------------------ reader */

struct hy_evs_reader {
	hy_frame_reader fr;
	char *txt; /* text being assembled */
	size_t txtcap;
};

static hy_status r_open(hy_evs_reader **rp, hy_evs_reader *r, hy_status s)
{
	if (s) {
		hy_evs_reader_close(r);
		return s;
	}
	*rp = r;
	return HY_OK;
}

hy_status hy_evs_reader_open_mem(hy_evs_reader **rp, const char *source, const void *data,
				 size_t len)
{
	if (!rp || (!data && len))
		return HY_EUSAGE;
	*rp = NULL;
	hy_evs_reader *r = calloc(1, sizeof *r);
	if (!r)
		return HY_ENOMEM;
	return r_open(rp, r, hy_frame_reader_init_mem(&r->fr, &evs_format, source, data, len));
}

hy_status hy_evs_reader_open_file(hy_evs_reader **rp, const char *source, FILE *f)
{
	if (!rp || !f)
		return HY_EUSAGE;
	*rp = NULL;
	hy_evs_reader *r = calloc(1, sizeof *r);
	if (!r)
		return HY_ENOMEM;
	return r_open(rp, r, hy_frame_reader_init_file(&r->fr, &evs_format, source, f, NULL, 0));
}

void hy_evs_reader_close(hy_evs_reader *r)
{
	if (!r)
		return;
	hy_frame_reader_fini(&r->fr);
	free(r->txt);
	free(r);
}

uint64_t hy_evs_reader_records(const hy_evs_reader *r)
{
	return r ? r->fr.records : 0;
}

static hy_status r_event(hy_evs_reader *r, const uint8_t *p, hy_game *g, hy_diag *d)
{
	uint64_t rec = r->fr.records + 1;
	hy_event e;
	memset(&e, 0, sizeof e);
	e.type = p[EV_TYPE];
	if (e.type >= HY_EV_TYPE_COUNT)
		return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, g->index,
			      "bad event record: event type %u is out of range (0-%d)", e.type,
			      HY_EV_TYPE_COUNT - 1);
	e.nconsumed = p[EV_NCONSUMED];
	if (e.nconsumed > 4)
		return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, g->index,
			      "bad event record: nconsumed %u is over 4", e.nconsumed);
	e.nura = p[EV_NURA];
	if (e.nura > 5)
		return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, g->index,
			      "bad event record: nura %u is over 5", e.nura);
	e.flags = hy_get_u16le(p + EV_FLAGS);
	e.line = hy_get_u32le(p + EV_LINE);
	e.actor = p[EV_ACTOR];
	e.target = p[EV_TARGET];
	e.pai = p[EV_PAI];
	memcpy(e.consumed, p + EV_CONSUMED, 4);
	e.tsumogiri = p[EV_TSUMOGIRI];
	e.bakaze = p[EV_BAKAZE];
	e.kyoku = p[EV_KYOKU];
	e.honba = p[EV_HONBA];
	e.kyotaku = p[EV_KYOTAKU];
	e.oya = p[EV_OYA];
	e.dora_marker = p[EV_DORA];
	memcpy(e.ura, p + EV_URA, 5);
	for (int i = 0; i < 4; i++) {
		e.scores[i] = hy_get_i32le(p + EV_SCORES + 4 * i);
		e.deltas[i] = hy_get_i32le(p + EV_DELTAS + 4 * i);
	}
	for (int s = 0; s < 4; s++)
		memcpy(e.tehais[s], p + EV_TEHAIS + 13 * s, 13);
	if (!hy_game_push(g, &e))
		return hy_frame_rfail(&r->fr, d, HY_ENOMEM, rec, g->index, "out of memory");
	hy_frame_consume(&r->fr);
	return HY_OK;
}

/* Reads the TEXT record at p and its continuations into r->txt; *kind and
 * *len tell what was read, *game the game index it carries. */
static hy_status r_text(hy_evs_reader *r, const uint8_t *p, unsigned *kind, size_t *len,
			uint32_t *game, hy_diag *d)
{
	*kind = p[1];
	*game = hy_get_u32le(p + 4);
	uint32_t total = hy_get_u32le(p + 8);
	const char *kname = text_kind_name(*kind);
	uint32_t g = *game;
	if (*kind >= TEXT_KINDS)
		return hy_frame_rfail(&r->fr, d, HY_EDATA, r->fr.records + 1, g,
			      "bad text record: kind %u is out of range (0-%d)", *kind,
			      TEXT_KINDS - 1);
	size_t have = 0;
	for (;;) {
		uint64_t rec = r->fr.records + 1;
		unsigned n = p[3];
		int more = p[2] & TEXT_CONTINUED;
		if (n > TEXT_CHUNK)
			return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, g,
				      "bad text record (%s): chunk length %u is over %d", kname,
				      n, TEXT_CHUNK);
		if (n > total - have || (more && (n != TEXT_CHUNK || have + n == total)) ||
		    (!more && have + n != total))
			return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, g,
				      "bad text record (%s): chunk of %u bytes at %zu does not "
				      "fit a %s string of %lu bytes",
				      kname, n, have, more ? "continued" : "final",
				      (unsigned long)total);
		if (memchr(p + TEXT_HDR, 0, n))
			return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, g,
				      "bad text record (%s): NUL byte in text", kname);
		if (HY_GROW(r->txt, r->txtcap, have + n + 1, 256))
			return hy_frame_rfail(&r->fr, d, HY_ENOMEM, rec, g, "out of memory");
		memcpy(r->txt + have, p + TEXT_HDR, n);
		have += n;
		hy_frame_consume(&r->fr);
		if (!more)
			break;
		hy_status s = hy_frame_next(&r->fr, g, &p, d);
		if (s)
			return s;
		if (p[0] == HY_FRAME_REC_ABORT)
			return hy_frame_aborted(&r->fr, p, g, d);
		if (p[0] != REC_TEXT || p[1] != *kind || hy_get_u32le(p + 4) != g ||
		    hy_get_u32le(p + 8) != total)
			return hy_frame_rfail(&r->fr, d, HY_EDATA, r->fr.records + 1, g,
				      "bad text record: continuation of the %s string expected",
				      kname);
	}
	*len = have;
	return HY_OK;
}

hy_status hy_evs_read_game(hy_evs_reader *r, hy_game *g, hy_diag *d)
{
	if (!r || !g)
		return HY_EUSAGE;
	if (r->fr.err) {
		hy_frame_rdiag(&r->fr, d);
		return r->fr.err;
	}
	hy_game_clear(g);
	int have_game = 0;
	uint8_t seen = 0; /* text kinds given for the last event */
	for (;;) {
		uint32_t gi = have_game ? g->index : UINT32_MAX;
		const uint8_t *p;
		hy_status st = hy_frame_next(&r->fr, gi, &p, d);
		if (st)
			return st;
		uint64_t rec = r->fr.records + 1;
		switch (p[0]) {
		case HY_FRAME_REC_ABORT:
			return hy_frame_aborted(&r->fr, p, gi, d);
		case REC_TRAILER: {
			hy_status s = hy_frame_trailer(&r->fr, p, d);
			if (s)
				return s;
			if (have_game)
				return HY_OK;
			break;
		}
		case REC_TEXT: {
			if (p[1] == TEXT_SOURCE && have_game)
				return HY_OK; /* the next game starts here */
			unsigned kind = 0;
			size_t len = 0;
			uint32_t tg = 0;
			hy_status s = r_text(r, p, &kind, &len, &tg, d);
			if (s)
				return s;
			if (kind == TEXT_SOURCE) {
				g->index = tg;
				g->source = hy_game_strdup(g, r->txt, len);
				if (!g->source)
					return hy_frame_rfail(&r->fr, d, HY_ENOMEM, rec, tg, "out of memory");
				have_game = 1;
				break;
			}
			if (!have_game || g->n == 0)
				return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, gi,
					      "bad text record (%s): no event before it in its game",
					      text_kind_name(kind));
			if (tg != g->index)
				return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, gi,
					      "bad text record (%s): game index %lu differs from "
					      "the game's %lu",
					      text_kind_name(kind), (unsigned long)tg,
					      (unsigned long)g->index);
			if (seen & (1u << kind))
				return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, gi,
					      "bad text record (%s): given twice for one event",
					      text_kind_name(kind));
			seen |= (uint8_t)(1u << kind);
			const char *str = hy_game_strdup(g, r->txt, len);
			if (!str)
				return hy_frame_rfail(&r->fr, d, HY_ENOMEM, rec, gi, "out of memory");
			hy_event *e = &g->ev[g->n - 1];
			if (kind == TEXT_EXTRA)
				e->extra = str;
			else
				e->names[kind - TEXT_NAME0] = str;
			break;
		}
		case REC_EVENT: {
			if (!have_game)
				return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, UINT32_MAX,
					      "bad event record: no source record before it "
					      "in its frame");
			uint32_t eg = hy_get_u32le(p + EV_GAME);
			if (eg != g->index)
				return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, gi,
					      "bad event record: game index %lu differs from the "
					      "game's %lu",
					      (unsigned long)eg, (unsigned long)g->index);
			hy_status s = r_event(r, p, g, d);
			if (s)
				return s;
			seen = 0;
			break;
		}
		default:
			return hy_frame_rfail(&r->fr, d, HY_EDATA, rec, gi, "unknown record type %u", p[0]);
		}
	}
}
