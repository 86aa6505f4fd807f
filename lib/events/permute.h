/* Suit permutations (ARCHITECTURE.md §6): the six permutations π of the suits
 * (m, p, s) = (0, 1, 2), honours fixed, used to augment samples and — through
 * hy_game_permute_suits — to check that encoding commutes with them.
 *
 * Index: the permutations of (0,1,2) in lexicographic order of the tuple
 * (π(0), π(1), π(2)):
 *
 *   0 (0,1,2) identity      3 (1,2,0) m→p, p→s, s→m
 *   1 (0,2,1) p↔s           4 (2,0,1) m→s, p→m, s→p
 *   2 (1,0,2) m↔p           5 (2,1,0) m↔s
 *
 * π moves a suited tile of suit s and number n to suit π(s), number n; red
 * fives stay red (5mr/5pr/5sr = 34+s → 34+π(s)); honours, unknown (37) and
 * none (255) are unchanged. The inverse of 3 is 4 and vice versa; the
 * others are their own inverse. */
#ifndef HY_EVENTS_PERMUTE_H
#define HY_EVENTS_PERMUTE_H

#include <stdint.h>

#include "events/event.h"

enum { HY_SUIT_PERMS = 6 };

/* π(s) for suit s 0–2 of permutation p 0–5 (table, see above). */
extern const uint8_t hy_suit_perm_table[HY_SUIT_PERMS][3];

/* Index of the inverse permutation; -1 when p is out of range. */
int hy_suit_perm_inverse(int p);

/* Index of the composition "first a, then b" (x ↦ b(a(x))). */
int hy_suit_perm_compose(int a, int b);

/* Image of tile code t (0–36; others returned unchanged) under permutation
 * p (0–5; assumed valid). */
static inline uint8_t hy_tile_permute(int p, uint8_t t)
{
	if (t < 27)
		return (uint8_t)(9 * hy_suit_perm_table[p][t / 9] + t % 9);
	if (t >= 34 && t <= 36)
		return (uint8_t)(34 + hy_suit_perm_table[p][t - 34]);
	return t;
}

/* Applies permutation p to every tile of every event of g, in place: pai,
 * consumed[0..3], tehais (all 4 × 13), dora_marker and ura[0..4], also the
 * slots past the counts. Strings (names, `extra`) are left as they are.
 * HY_EUSAGE when p is not 0–5 (g unchanged). */
hy_status hy_game_permute_suits(hy_game *g, int p);

#endif
