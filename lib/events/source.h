/* Any log document → games: detects the format of a document by content
 * and hands it to the right parser (mjai JSON lines, Tenhou mjlog XML,
 * tenhou.net/6 JSON, or our own event stream). */
#ifndef HY_EVENTS_SOURCE_H
#define HY_EVENTS_SOURCE_H

#include <stddef.h>

#include "core/status.h"
#include "events/event.h"

typedef enum hy_source_kind {
	HY_SOURCE_UNKNOWN = 0,
	HY_SOURCE_MJAI,
	HY_SOURCE_EVENTS,
	HY_SOURCE_MJLOG,
	HY_SOURCE_TENHOU6,
	HY_SOURCE_EMPTY,
} hy_source_kind;

hy_source_kind hy_source_detect(const char *data, size_t len);
const char *hy_source_kind_name(hy_source_kind k);

/* Parses a whole document; games go to the sink (see event.h for the
 * keep-going protocol). An empty document (only whitespace) yields no game.
 * An unrecognised one is HY_EFORMAT. For an event stream a damaged frame
 * ends the document (after `bad`, if it returns HY_OK). */
hy_status hy_source_parse(const char *name, const char *data, size_t len,
			  const hy_game_sink *sink, hy_diag *d);

#endif
