/* Self-play walls (ARCHITECTURE.md §9), reproducible from a master seed.
 *
 * Byte layout (normative; golden walls in tests/unit/test_engine.c pin it):
 *   game key  = SHA-256( "hydra/game" (10 ASCII bytes, no NUL)
 *                        ‖ u64le(seed) ‖ u64le(game index) )
 *   kyoku key = SHA-256( game key (32 bytes) ‖ u8(grand kyoku) ‖ u8(honba) )
 *               grand kyoku = 4·round wind + kyoku (E1 = 0, S4 = 7, W1 = 8)
 *   stream    = block 0 ‖ block 1 ‖ …, block i = SHA-256(kyoku key ‖ u64le(i)),
 *               read as consecutive u32le words (8 per block)
 *   shuffle   = Fisher–Yates over a[0..135] = physical tiles 0..135 in
 *               order: for i = 135 down to 1, j = uniform in [0, i] by
 *               rejection (bound = i + 1; draw words w until
 *               w < 2^32 − (2^32 mod bound); j = w mod bound); swap a[i], a[j]
 *   layout    = a[0..3]   replacement (rinshan) tiles, drawn in that order
 *               a[4..8]   dora indicators (a[4] first)
 *               a[9..13]  ura indicators (a[9] under a[4])
 *               a[14..65] the deal: 13 tiles to each seat, dealer first,
 *                         counter-clockwise, seat (dealer + i) gets
 *                         a[14 + 13i .. 26 + 13i]
 *               a[66..135] the 70 live draws, a[66] first
 * Physical tile p is tile code hy_tile_from_136(p) (copy 0 of a five red). */
#ifndef HY_ENGINE_WALL_H
#define HY_ENGINE_WALL_H

#include <stdint.h>

#include "core/status.h"

enum {
	HY_WALL_RINSHAN = 0,
	HY_WALL_DORA = 4,
	HY_WALL_URA = 9,
	HY_WALL_DEAL = 14,
	HY_WALL_LIVE = 66,
	HY_WALL_SIZE = 136,
};

hy_status hy_wall_game_key(uint64_t seed, uint64_t game_index, uint8_t key[32], hy_diag *d);
hy_status hy_wall_kyoku_key(const uint8_t game_key[32], int grand_kyoku, int honba,
			    uint8_t key[32], hy_diag *d);
/* The shuffled physical tiles (0–135) of a kyoku key. */
hy_status hy_wall_shuffle(const uint8_t kyoku_key[32], uint8_t wall[HY_WALL_SIZE], hy_diag *d);

#endif
