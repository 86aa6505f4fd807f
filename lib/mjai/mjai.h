/* mjai JSON lines ⇄ hy_event (jansson).
 *
 * Reading accepts the dialects seen in the wild: `uradora_markers` for
 * `ura_markers`, type `kan` for `daiminkan`, optional `tsumogiri`, `scores`,
 * `deltas`, `kyotaku`, `honba`; any field a type does not define (`meta`,
 * `logs`, `possible_actions`, `seed`, `yakus`, ...) is kept verbatim in
 * hy_event.extra, so writing reproduces every field. Aliases are remembered
 * by flags and written back as given. */
#ifndef HY_MJAI_MJAI_H
#define HY_MJAI_MJAI_H

#include <stdio.h>

#include "core/status.h"
#include "events/event.h"

/* Parses one JSON text (one line, len bytes) into e; strings go into g's
 * storage. The event's structure is checked (known type, tiles, seat
 * ranges, consumed count per type, required fields); HY_EDATA with a
 * message on failure. e->line is set to `line`. */
hy_status hy_mjai_parse_event(hy_game *g, const char *text, size_t len, uint32_t line,
			      hy_event *e, hy_diag *d);

/* Splits a document of mjai JSON lines into games (a game begins at each
 * start_game; lines before the first one form a fragment game), parses and
 * validates each (hy_game_validate) and hands it to the sink. Blank lines are
 * skipped. On a bad line the diagnostic names `source:line`; with the sink's
 * `bad` returning HY_OK the rest of that game is skipped up to the next
 * start_game. Games are numbered from 0 within the document. */
hy_status hy_mjai_parse_doc(const char *source, const char *data, size_t len,
			    const hy_game_sink *sink, hy_diag *d);

/* Writes one event as a single compact JSON line (no trailing newline) into
 * buf; returns the length, or -1 if it does not fit. Field order: type, then
 * the mjai order of the type's fields, then the extra fields. */
int hy_mjai_format_event(const hy_event *e, char *buf, size_t size);
/* Writes all events of g as JSON lines. HY_EIO on a write error. */
hy_status hy_mjai_write_game(FILE *f, const hy_game *g);

#endif
