/* Any log document → games: detects the format of a document by content
 * and hands it to the right parser (mjai JSON lines, Tenhou mjlog XML,
 * tenhou.net/6 JSON, or our own event stream).
 *
 * The document driver is the module lib/docs: it sits above the parsers it
 * dispatches to (mjai, tenhou) and the event stream (events), so that events
 * depends on core and io only. Its symbols keep the name of its one
 * concern, the source of games (hy_source_*, HY_SOURCE_*), which they had
 * before the driver left lib/events. */
#ifndef HY_DOCS_SOURCE_H
#define HY_DOCS_SOURCE_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"
#include "events/event.h"
#include <stdint.h>

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

/* Like hy_source_parse for an event stream read sequentially from f (a
 * pipe): constant memory however long the stream. */
hy_status hy_source_parse_events_file(const char *name, FILE *f, const hy_game_sink *sink,
				      hy_diag *d);

/* Every document of paths (the input layer: files, directories, stdin,
 * compressed files and archives), each parsed by content, games to the sink.
 * When standard input is the only input and holds an event stream, it is
 * read sequentially in constant memory. A document that cannot be
 * recognised, or a damaged container (truncated gzip, corrupt archive), goes
 * to sink->bad like a bad game (HY_OK from it skips it); a path that cannot
 * be opened or read at all (HY_EIO: missing, unreadable, a read error) is
 * never skipped: it stops the run with d naming it, whatever the sink says.
 * *docs (if not NULL) counts the documents read. Returns HY_OK, or the
 * status that stopped the run with d describing it — unless the sink stopped
 * it (a status from game/bad), which reported for itself. */
hy_status hy_source_parse_paths(const char *const *paths, size_t npaths,
				const hy_game_sink *sink, uint64_t *docs, hy_diag *d);

#endif
