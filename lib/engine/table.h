/* Self-play: one table playing one game on the walls of ARCHITECTURE.md §9.
 *
 *   hy_table_start(t, rules, seed, game, log, d);
 *   while (t->e.phase != HY_PH_GAME_END) {
 *       unsigned who = hy_engine_deciders(&t->e);
 *       for each seat s in who:
 *           idx = policy(hy_engine_legal_mask(&t->e, s), hy_table_observe(...));
 *           hy_table_act(t, s, idx, d);
 *   }
 *
 * hy_table_act applies the decision and then everything that needs no
 * decision (draws, indicators, the next kyoku's deal), so that after it the
 * table is again waiting for decisions or over. Nothing is allocated per
 * step (the optional mjai log grows by hy_game_push). */
#ifndef HY_ENGINE_TABLE_H
#define HY_ENGINE_TABLE_H

#include <stdint.h>

#include "engine/engine.h"
#include "engine/wall.h"

typedef struct hy_table {
	hy_engine e;
	uint64_t seed, game;
	uint8_t game_key[32];
	uint8_t wall[HY_WALL_SIZE];  /* tile codes of the current kyoku, wall.h layout */
	uint8_t live_next;           /* next live draw (index into wall) */
	uint8_t rinshan_next;        /* next replacement tile */
	uint32_t nkyoku;             /* kyoku played */
	uint32_t nsteps;             /* decisions applied */
} hy_table;

hy_status hy_table_start(hy_table *t, const hy_rules *r, uint64_t seed, uint64_t game,
			 hy_game *log, hy_diag *d);
/* Applies legal index `index` of seat (hy_engine_action_of), then advances. */
hy_status hy_table_act(hy_table *t, int seat, int index, hy_diag *d);
/* Same with a concrete action. */
hy_status hy_table_act_concrete(hy_table *t, int seat, const hy_action *a, hy_diag *d);

/* What one seat may see. */
typedef struct hy_view {
	uint8_t seat, phase, bakaze, kyoku, honba, kyotaku, oya, live_left;
	int32_t scores[4];
	uint8_t ndora;
	uint8_t dora_ind[5];
	uint8_t cnt[34];     /* own concealed tiles */
	uint8_t red[3];
	uint8_t drawn;       /* own drawn tile or HY_TILE_NONE */
	uint8_t last_tile;   /* tile in a call window */
	uint8_t actor;
	uint8_t nconc[4];    /* concealed tile counts of every seat */
	uint8_t riichi[4];
	uint8_t nmelds[4];
	hy_meld melds[4][4];
	uint8_t nriver[4];
	uint8_t river[4][32];
	uint8_t river_flags[4][32];
	uint64_t legal;      /* own 46-index mask */
} hy_view;

void hy_engine_observe(const hy_engine *e, int seat, hy_view *v);

/* Tiles not yet seen by anyone: the wall remainder plus unrevealed dead
 * wall (for invariant tests): per tile code. */
void hy_table_count_hidden(const hy_table *t, uint8_t cnt[HY_TILE_CODES]);

#endif
