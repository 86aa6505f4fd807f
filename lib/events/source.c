#include "events/source.h"

#include <string.h>

#include "events/stream.h"
#include "events/validate.h"
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
		return HY_SOURCE_MJAI;
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

static hy_status parse_stream(const char *name, const char *data, size_t len,
			      const hy_game_sink *sink, hy_diag *d)
{
	hy_evs_reader *r;
	hy_status s = hy_evs_reader_open_mem(&r, name, data, len);
	if (s != HY_OK)
		return hy_diag_set(d, s, 0, "%s", hy_status_str(s));
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
	case HY_SOURCE_EVENTS:
		return parse_stream(name, data, len, sink, d);
	case HY_SOURCE_MJLOG:
	case HY_SOURCE_TENHOU6:
		return hy_tenhou_parse_doc(name, data, len, sink, d);
	case HY_SOURCE_MJAI:
		return hy_mjai_parse_doc(name, data, len, sink, d);
	default:
		return hy_diag_set(d, HY_EFORMAT, 0,
				   "unrecognised input format (expected mjai JSON lines, "
				   "Tenhou mjlog XML, tenhou.net/6 JSON or an event stream)");
	}
}
