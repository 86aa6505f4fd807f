/* Any log document to games: the format detected by content and handed to its
 * parser (source.h). */
#include "docs/source.h"

#include <jansson.h>
#include <string.h>

#include "events/stream.h"
#include "events/validate.h"
#include "io/input.h"
#include "mjai/mjai.h"
#include "tenhou/tenhou.h"

static const char *skip_space(const char *p, const char *end)
{
	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* The first JSON value of a document (NULL if it is not valid JSON). Only
 * that value is read, however long the document. */
static json_t *first_json(const char *p, const char *end)
{
	json_error_t err;
	return json_loadb(p, (size_t)(end - p), JSON_DISABLE_EOF_CHECK, &err);
}

/* A document starting with '{' that is not tenhou.net/6: mjai JSON lines
 * when its first object has a "type" (every mjai event does). JSON that
 * does not parse is left to the mjai reader, which names the bad line; a
 * well-formed object without "type" (an mjx State, a config file...) is no
 * log we know. */
static hy_source_kind json_kind(const char *p, const char *end)
{
	json_t *o = first_json(p, end);
	int mjai = !o || json_object_get(o, "type") != NULL;
	json_decref(o);
	return mjai ? HY_SOURCE_MJAI : HY_SOURCE_UNKNOWN;
}

/* An mjx State (mjx-project's JSON of one kyoku's full state per line:
 * "hiddenState", "publicObservation", "privateObservations",
 * "roundTerminal"): named in the message, since it looks like a log. */
static int is_mjx_state(const char *data, size_t len)
{
	const char *end = data + len, *p = skip_space(data, end);
	if (p == end || *p != '{')
		return 0;
	json_t *o = first_json(p, end);
	int yes = json_is_object(o) && json_object_get(o, "publicObservation") &&
		  json_object_get(o, "hiddenState");
	json_decref(o);
	return yes;
}

hy_source_kind hy_source_detect(const char *data, size_t len)
{
	if (hy_evs_is_stream(data, len))
		return HY_SOURCE_EVENTS;
	const char *end = data + len, *p = skip_space(data, end);
	if (p == end)
		return HY_SOURCE_EMPTY;
	switch (hy_tenhou_detect(data, len)) {
	case HY_TENHOU_MJLOG:
		return HY_SOURCE_MJLOG;
	case HY_TENHOU_JSON6:
		return HY_SOURCE_TENHOU6;
	default:
		break;
	}
	if (*p == '{')
		return json_kind(p, end);
	return HY_SOURCE_UNKNOWN;
}

const char *hy_source_kind_name(hy_source_kind k)
{
	switch (k) {
	case HY_SOURCE_MJAI: return "mjai JSON lines";
	case HY_SOURCE_EVENTS: return "event stream";
	case HY_SOURCE_MJLOG: return "Tenhou mjlog XML";
	case HY_SOURCE_TENHOU6: return "tenhou.net/6 JSON";
	case HY_SOURCE_EMPTY: return "empty";
	default: return "unknown";
	}
}

/* Games of an open event-stream reader to the sink; closes the reader. */
static hy_status parse_stream(hy_evs_reader *r, const hy_game_sink *sink, hy_diag *d)
{
	hy_status s;
	hy_game g;
	hy_game_init(&g);
	for (;;) {
		s = hy_evs_read_game(r, &g, d);
		if (s == HY_STOP) {
			s = HY_OK;
			break;
		}
		if (s == HY_OK) {
			/* a stream may come from elsewhere: check order as for logs */
			hy_diag vd;
			hy_diag_init(&vd, g.source);
			vd.game = g.index;
			s = hy_game_validate(&g, &vd);
			if (s != HY_OK) {
				*d = vd;
				if (sink->bad && sink->bad(sink->ctx, d) == HY_OK)
					continue;
				break;
			}
			s = sink->game(sink->ctx, &g);
			if (s != HY_OK)
				break;
			continue;
		}
		/* damaged stream: the rest of this document cannot be trusted */
		if (sink->bad && sink->bad(sink->ctx, d) == HY_OK)
			s = HY_OK;
		break;
	}
	hy_game_free(&g);
	hy_evs_reader_close(r);
	return s;
}

hy_status hy_source_parse(const char *name, const char *data, size_t len,
			  const hy_game_sink *sink, hy_diag *d)
{
	hy_diag_init(d, name);
	switch (hy_source_detect(data, len)) {
	case HY_SOURCE_EMPTY:
		return HY_OK;
	case HY_SOURCE_EVENTS: {
		hy_evs_reader *r;
		hy_status s = hy_evs_reader_open_mem(&r, name, data, len);
		if (s != HY_OK)
			return hy_diag_set(d, s, 0, "%s", hy_status_str(s));
		return parse_stream(r, sink, d);
	}
	case HY_SOURCE_MJLOG:
	case HY_SOURCE_TENHOU6:
		return hy_tenhou_parse_doc(name, data, len, sink, d);
	case HY_SOURCE_MJAI:
		return hy_mjai_parse_doc(name, data, len, sink, d);
	default:
		return hy_diag_set(d, HY_EFORMAT, 0,
				   "unrecognised input format%s (expected mjai JSON lines, "
				   "Tenhou mjlog XML, tenhou.net/6 JSON or an event stream)",
				   is_mjx_state(data, len)
					   ? ": an mjx State JSON (one kyoku's full state per "
					     "line) is not a game log"
					   : "");
	}
}

hy_status hy_source_parse_events_file(const char *name, FILE *f, const hy_game_sink *sink,
				      hy_diag *d)
{
	hy_diag_init(d, name);
	hy_evs_reader *r;
	hy_status s = hy_evs_reader_open_file(&r, name, f);
	if (s != HY_OK)
		return hy_diag_set(d, s, 0, "%s", hy_status_str(s));
	return parse_stream(r, sink, d);
}

/* A document-level problem (unknown format, damaged container) goes to
 * `bad` like a bad game; HY_OK from it means skip and go on. */
static hy_status doc_problem(const hy_game_sink *sink, hy_status s, hy_diag *d)
{
	if (s == HY_ENOMEM || !sink->bad)
		return s;
	if (!d->status)
		d->status = s;
	return sink->bad(sink->ctx, d) == HY_OK ? HY_OK : s;
}

/* Wraps a sink to tell "the sink said stop" from a document's own failure. */
typedef struct watched {
	const hy_game_sink *inner;
	int stopped;
} watched;

static hy_status watched_game(void *ctx, hy_game *g)
{
	watched *w = ctx;
	hy_status s = w->inner->game(w->inner->ctx, g);
	w->stopped |= s != HY_OK;
	return s;
}

static hy_status watched_bad(void *ctx, const hy_diag *d)
{
	watched *w = ctx;
	hy_status s = w->inner->bad ? w->inner->bad(w->inner->ctx, d)
				    : (d->status ? d->status : HY_EDATA);
	w->stopped |= s != HY_OK;
	return s;
}

hy_status hy_source_parse_paths(const char *const *paths, size_t npaths,
				const hy_game_sink *outer, uint64_t *docs, hy_diag *d)
{
	watched w = {outer, 0};
	const hy_game_sink wrapped = {watched_game, watched_bad, &w}, *sink = &wrapped;
	hy_input *in;
	hy_status s = hy_input_open(&in, paths, npaths);
	if (s != HY_OK)
		return hy_diag_set(d, s, 0, "%s", hy_status_str(s));
	int only_stdin = npaths == 0 || (npaths == 1 && strcmp(paths[0], "-") == 0);
	if (only_stdin) {
		const char *head;
		size_t got;
		if (hy_input_peek_stdin(in, 8, &head, &got) == HY_OK && hy_evs_is_stream(head, got)) {
			FILE *f = hy_input_stdin_file(in);
			if (!f) {
				hy_input_close(in);
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			}
			if (docs)
				++*docs;
			s = hy_source_parse_events_file("-", f, sink, d);
			fclose(f);
			hy_input_close(in);
			return s;
		}
	}
	for (;;) {
		hy_doc doc;
		hy_diag_init(d, NULL);
		s = hy_input_next(in, &doc, d);
		if (s == HY_STOP) {
			s = HY_OK;
			break;
		}
		if (s == HY_EIO)
			break; /* a path that cannot be opened or read: never a bad game */
		if (s != HY_OK) {
			if ((s = doc_problem(sink, s, d)) != HY_OK)
				break;
			continue;
		}
		if (docs)
			++*docs;
		s = hy_source_parse(doc.name, doc.data, doc.len, sink, d);
		if (s == HY_OK)
			continue;
		if (w.stopped)
			break; /* the sink said stop and has reported for itself */
		if (!d->msg[0])
			hy_diag_set(d, s, 0, "%s", hy_status_str(s));
		if ((s = doc_problem(sink, s, d)) != HY_OK)
			break;
	}
	hy_input_close(in);
	return s;
}
