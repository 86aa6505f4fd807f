/* Internal to lib/tenhou: the two front ends and their shared helpers. */
#ifndef HY_TENHOU_INTERNAL_H
#define HY_TENHOU_INTERNAL_H

#include <stddef.h>

#include "core/status.h"
#include "events/event.h"

/* Value of a hex digit, or -1. */
int hy_tenhou_hexval(int ch);

/* Front ends: d is never NULL here. */
hy_status hy_tenhou_parse_mjlog(const char *source, const char *data, size_t len,
				const hy_game_sink *sink, hy_diag *d);
hy_status hy_tenhou_parse_json6(const char *source, const char *data, size_t len,
				const hy_game_sink *sink, hy_diag *d);

/* Hands a parsed game to the sink according to st, the parse status:
 * HY_OK → sink->game; HY_EDATA / HY_EUNSUP / HY_ETRUNC / HY_EFORMAT → d
 * goes to sink->bad (a NULL bad, or one returning non-OK, stops with that
 * status); a bad game is skipped whole, none of its kyoku delivered.
 * Other statuses are returned as they are. */
hy_status hy_tenhou_deliver(hy_game *g, hy_status st, const hy_game_sink *sink, hy_diag *d);

#endif
