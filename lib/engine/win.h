/* Private to lib/engine: the engine's only link to the hand scorer. */
#ifndef HY_ENGINE_WIN_H
#define HY_ENGINE_WIN_H

#include "engine/engine.h"

/* 1 if seat wins on tile (tsumo when from == seat, the tile already in the
 * hand; ron otherwise) with at least one yaku, under the engine's current
 * state; fills w when not NULL. bump: this winner takes honba and sticks
 * (the first winner from the discarder's right). chankan: robbing a kan. */
int hy_engine_win_eval(const hy_engine *e, int seat, int from, int tile, int chankan,
		       int bump, hy_win *w);

#endif
