/* Tenhou logs → hy_game: mjlog XML (<mjloggm ...>, plain; gzip is undone by
 * the input layer) and tenhou.net/6 JSON (one object with "log", or one
 * kyoku object per line as in mjscore files). The events produced are exactly
 * those of an mjai log of the same game (see issue 3 and formats/events.md):
 * start_game with names, start_kyoku with scores and all four tehais, tsumo,
 * dahai with tsumogiri, calls with consumed, reach / reach_accepted, dora
 * with mjai timing, hora (deltas incl. honba and sticks, ura_markers),
 * ryukyoku, end_kyoku, end_game. Three-player logs give HY_EUNSUP. */
#ifndef HY_TENHOU_TENHOU_H
#define HY_TENHOU_TENHOU_H

#include <stddef.h>

#include "core/status.h"
#include "events/event.h"

enum { HY_TENHOU_NONE = 0, HY_TENHOU_MJLOG = 1, HY_TENHOU_JSON6 = 2 };

/* Sniffs a document: HY_TENHOU_MJLOG, HY_TENHOU_JSON6 or HY_TENHOU_NONE. */
int hy_tenhou_detect(const char *data, size_t len);

/* Parses a whole document (one game per mjlog / tenhou.net/6 object; an
 * mjscore file with one kyoku per line is one game) and hands games to the
 * sink. Truncated logs: HY_ETRUNC naming the game; with the sink's `bad`
 * returning HY_OK, the complete kyoku are delivered (the game then has no
 * end_game) and the dropped part is reported through `bad` first. */
hy_status hy_tenhou_parse_doc(const char *source, const char *data, size_t len,
			      const hy_game_sink *sink, hy_diag *d);

#endif
