/* Structural validation of a game's event order, for every input format:
 * start_game first (if present) and end_game last, start_kyoku … end_kyoku
 * nesting (a log with no end_kyoku events, as old mjai dialects write, is
 * accepted: a start_kyoku/hora/ryukyoku then ends the previous kyoku),
 * nothing between end_kyoku and the next start_kyoku but the game's end,
 * actor/target rules per type (target ≠ actor for calls), chi consumed tiles
 * forming a run with pai, pon/kan consumed of pai's kind. Rules legality
 * (is this discard possible?) is the engine's job, not this one. */
#ifndef HY_EVENTS_VALIDATE_H
#define HY_EVENTS_VALIDATE_H

#include "core/status.h"
#include "events/event.h"

/* HY_OK, or HY_EDATA with d->line set to the offending event's line. */
hy_status hy_game_validate(const hy_game *g, hy_diag *d);

#endif
