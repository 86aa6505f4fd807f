/* Internal to lib/tenhou: what both writers (writer.h) need to know of a
 * game before writing it, and the checks they share. */
#ifndef HY_TENHOU_WSCAN_H
#define HY_TENHOU_WSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "events/event.h"

enum { HY_TW_DRAW = 0, HY_TW_KYUUSHU, HY_TW_RON3, HY_TW_REACH4 };

typedef struct hy_tw_scan {
	size_t last_result;     /* index of the game's last hora / ryukyoku */
	int32_t final[4];       /* final scores: end_game's, else the last
				   kyoku's with the sticks left to the top */
	int nkyoku;
} hy_tw_scan;

/* Checks that g can be written (writer.h) and fills w. fmt names the
 * format in messages ("mjlog"). HY_EUNSUP with d naming the event. */
hy_status hy_tw_scan_game(const hy_game *g, const char *fmt, hy_tw_scan *w, hy_diag *d);

/* Kind of the ryukyoku at index i (HY_TW_*), from the events before it:
 * after a draw, kyuushu; after a riichi discard not accepted, a triple ron;
 * after a fourth accepted riichi, four riichi; else an exhaustive draw (or a
 * draw the events do not tell apart). */
int hy_tw_draw_kind(const hy_game *g, size_t i);

/* Round 0–15 (4·wind + kyoku − 1) of a start_kyoku. */
int hy_tw_round(const hy_event *e);

#endif
