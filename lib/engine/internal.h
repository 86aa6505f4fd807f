/* Private to lib/engine: what engine.c (state, player tiles, the event
 * log), legal.c (legal actions, masks, index⇄action) and apply.c
 * (transitions) share. The small helpers are static inline because the
 * engine is hot in self-play; nothing here is visible outside lib/engine. */
#ifndef HY_ENGINE_INTERNAL_H
#define HY_ENGINE_INTERNAL_H

#include <stdint.h>

#include "core/tile.h"
#include "engine/engine.h"
#include "hand/shanten.h"

/* Call-window option bits (hy_engine.call_opts). */
enum {
	O_RON = 1,
	O_PON = 2,
	O_KAN = 4,
	O_CHI_LOW = 8,
	O_CHI_MID = 16,
	O_CHI_HIGH = 32,
};

/* (the kind of a valid tile code and the terminal-or-honour test are
 * core/tile.h's hy_tile_code_kind and hy_tile_is_yaochu) */

/* Plain copies of a kind in hand (a five's red excluded). */
static inline int plain_count(const hy_player *p, int k)
{
	int r = hy_tile_red_of(k);
	return p->cnt[k] - (r >= 0 ? p->red[k / 9] : 0);
}

/* Recomputes the waits after the hand changed (empty unless tenpai). */
static inline void update_waits(hy_player *p)
{
	p->waits = 0;
	if (hy_shanten(p->cnt, p->nmelds) == 0)
		p->waits = hy_hand_waits(p->cnt, p->nmelds);
}

/* Kuikae: the kinds a chi of called forbids discarding (the run starts at low). */
static inline uint64_t chi_forbid(int called, int low)
{
	/* low: lowest kind of the run. Called kind always; the far kind when
	 * the called tile is an end of the run. */
	uint64_t f = 1ull << called;
	int n = called % 9;
	if (called == low && n + 3 <= 8)
		f |= 1ull << (called + 3);
	if (called == low + 2 && n - 3 >= 0)
		f |= 1ull << (called - 3);
	return f;
}

/* Action index of a chi (HY_A_CHI_LOW + position of the called tile in the run). */
static inline int chi_index(const hy_action *a)
{
	int k = hy_tile_code_kind(a->tile);
	int x = hy_tile_code_kind(a->consumed[0]), y = hy_tile_code_kind(a->consumed[1]);
	int lo = k < x ? (k < y ? k : y) : (x < y ? x : y);
	return HY_A_CHI_LOW + (k - lo);
}

/* The event log: appends ev when there is a log and no earlier push failed
 * (a failure sets e->log_status). */
static inline void hy_engine_emit(hy_engine *e, const hy_event *ev)
{
	if (e->log && e->log_status == HY_OK && !hy_game_push(e->log, ev))
		e->log_status = HY_ENOMEM;
}

/* The same for an event made of its type, actor, target and tile (engine.c). */
void hy_engine_emit_simple(hy_engine *e, int type, int actor, int target, int pai);

/* The options (O_* bits) of each seat in the window on e->last_tile of
 * e->actor (legal.c): on the discard, or when chankan on the kan tile
 * (e->chankan_ankan: an ankan, which only kokushi may rob); opts[e->actor]
 * is 0. Returns the seats with an option, one bit each. */
unsigned hy_engine_window_options(const hy_engine *e, int chankan, uint8_t opts[4]);

#endif
