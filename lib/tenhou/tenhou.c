/* Tenhou logs: content detection and dispatch to the two front ends. */
#include "tenhou/tenhou.h"

#include <string.h>

#include "tenhou/internal.h"

int hy_tenhou_hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

static int starts(const char *s, size_t len, size_t i, const char *lit)
{
	size_t n = strlen(lit);
	return len - i >= n && memcmp(s + i, lit, n) == 0;
}

int hy_tenhou_detect(const char *data, size_t len)
{
	size_t i = 0;
	if (!data)
		return HY_TENHOU_NONE;
	if (starts(data, len, 0, "\xef\xbb\xbf"))
		i = 3;
	i = skip_ws(data, len, i);
	if (starts(data, len, i, "<?xml")) {
		const char *end = memmem(data + i, len - i, "?>", 2);
		if (!end)
			return HY_TENHOU_NONE;
		i = skip_ws(data, len, (size_t)(end - data) + 2);
	}
	if (starts(data, len, i, "<mjloggm"))
		return HY_TENHOU_MJLOG;
	if (i >= len || data[i] != '{')
		return HY_TENHOU_NONE;
	/* tenhou.net/6: a "log" key in the first line (the first object of an
	 * mjscore file, or the whole one-line object) */
	const char *nl = memchr(data + i, '\n', len - i);
	size_t end = nl ? (size_t)(nl - data) : len;
	for (size_t j = i; j + 5 <= end; j++) {
		if (memcmp(data + j, "\"log\"", 5) != 0)
			continue;
		size_t k = skip_ws(data, end, j + 5);
		if (k < end && data[k] == ':')
			return HY_TENHOU_JSON6;
	}
	return HY_TENHOU_NONE;
}

hy_status hy_tenhou_deliver(hy_game *g, hy_status st, const hy_game_sink *sink, hy_diag *d)
{
	switch (st) {
	case HY_OK:
		return sink->game ? sink->game(sink->ctx, g) : HY_OK;
	case HY_EDATA:
	case HY_EUNSUP:
	case HY_ETRUNC:
	case HY_EFORMAT: {
		if (!sink->bad)
			return st;
		/* a bad game is skipped whole: none of its kyoku is delivered */
		return sink->bad(sink->ctx, d);
	}
	default:
		return st;
	}
}

hy_status hy_tenhou_parse_doc(const char *source, const char *data, size_t len,
			      const hy_game_sink *sink, hy_diag *d)
{
	hy_diag local;
	if (!d)
		d = &local;
	hy_diag_init(d, source);
	if (!sink || (!data && len))
		return hy_diag_set(d, HY_EUSAGE, 0, "hy_tenhou_parse_doc: no sink or data");
	switch (hy_tenhou_detect(data, len)) {
	case HY_TENHOU_MJLOG:
		return hy_tenhou_parse_mjlog(source, data, len, sink, d);
	case HY_TENHOU_JSON6:
		return hy_tenhou_parse_json6(source, data, len, sink, d);
	default:
		return hy_diag_set(d, HY_EFORMAT, 0, "not a Tenhou log (mjlog XML or tenhou.net/6 JSON)");
	}
}
