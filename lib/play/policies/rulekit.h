/* Private to lib/play: what the rule bots (baseline.c, rulebot.c) read
 * from the engine state the same way — public facts of one seat's view.
 * Every function here reads only what that seat can see. */
#ifndef HY_PLAY_RULEKIT_H
#define HY_PLAY_RULEKIT_H

#include <stdint.h>

#include "engine/engine.h"

/* Kinds visible to the seat outside its own concealed hand: rivers (not
 * the called-away tiles, which sit in melds), every meld, revealed dora
 * indicators. */
void hy_rk_visible_counts(const hy_engine *e, uint8_t vis[34]);
/* The kind of a seat's wind (27–30). */
int hy_rk_seat_wind(const hy_engine *e, int seat);
/* A dragon, the round wind or the seat's wind. */
int hy_rk_is_value_honour(const hy_engine *e, int seat, int k);
/* Kinds that may be discarded: plain index k or the red index of its five. */
uint64_t hy_rk_discard_kinds(uint64_t legal);
/* Action index discarding one tile of kind k: the plain copy when there is
 * one (red fives are kept), else the red one. */
int hy_rk_discard_index(const hy_player *p, uint64_t legal, int k);
/* Tie-break key of discarding kind k: lower is discarded first (non-dora
 * before dora, isolated before connected, guest honours, value honours,
 * terminals, 2/8, middle tiles, lower kind). */
uint32_t hy_rk_keep_key(const hy_engine *e, int seat, int k);
/* Dora kinds among the revealed indicators, counted (a kind can be dora
 * twice). */
void hy_rk_dora_counts(const hy_engine *e, uint8_t dora[34]);

#endif
