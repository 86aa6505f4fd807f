/* hy_game → Tenhou logs: mjlog XML and tenhou.net/6 JSON (`mjai-parse
 * --format mjlog|tenhou6`; the formats are described in
 * formats/tenhou.md). The inverse of tenhou.h: a game written here
 * and read back by hy_tenhou_parse_doc gives the same play — the same
 * events, in the same order, with the same tiles, seats, scores and deltas
 * (and so the same game id, encode.h) — in the form every Tenhou log takes
 * (tehais and consumed tiles sorted, reach_accepted and hora without
 * scores, no unknown fields). tenhou.net/6 JSON opens in Tenhou's own viewer
 * (https://tenhou.net/6/#json=...).
 *
 * What a game must be to be written (else HY_EUNSUP naming the event; the
 * stream is then unspecified: write to a temporary output):
 *   - a whole game: start_game, then kyoku each ending in hora(s) or a
 *     ryukyoku (end_kyoku and end_game optional);
 *   - every hand known (no `?`), at most the 4 copies of a tile;
 *   - the dealer of kyoku k is seat k − 1 (Tenhou's seating);
 *   - for mjlog, scores and deltas in whole hundreds (mjlog counts in 100s).
 * Names are written (mjlog percent-encodes them); the win's fu, han and yaku,
 * which the events do not carry, are not (an mjlog AGARI gets ten="0,P,0"
 * with P the winner's gain, a tenhou.net/6 win the string "P点"). */
#ifndef HY_TENHOU_WRITER_H
#define HY_TENHOU_WRITER_H

#include <stdio.h>

#include "core/status.h"
#include "events/event.h"

/* Writes g as one mjlog document (<mjloggm ver="2.3">…</mjloggm>, no
 * newline inside, one at the end). HY_EIO on a write error. */
hy_status hy_tenhou_write_mjlog(FILE *f, const hy_game *g, hy_diag *d);

/* Writes g as one tenhou.net/6 object on one line ending in a newline
 * ({"title","name","rule","log","sc"}); several games give one object per
 * line, which hy_tenhou_parse_doc reads as several games (unless every one
 * of them has a single kyoku: such a file reads as one mjscore game). */
hy_status hy_tenhou_write_json6(FILE *f, const hy_game *g, hy_diag *d);

#endif
