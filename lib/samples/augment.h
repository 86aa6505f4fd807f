/* Suit-permutation augmentation of samples (ARCHITECTURE.md §6). Permutations are
 * indexed 0–5 as in events/permute.h (0 = identity).
 *
 * Applying permutation π to a sample:
 *   - obs: in every channel except 40–42, the cell of tile kind 9s+n moves
 *     to 9π(s)+n (honour cells stay); the red-five planes move whole:
 *     plane 40+s → 40+π(s);
 *   - action and mask: indices 0–26 as tile kinds, 34+s → 34+π(s) (red
 *     fives stay red); 27–33 and 37–45 unchanged;
 *   - opp_waits: each 34-bit mask permuted as tile kinds;
 *   - every other field unchanged (game id, seat, outcome labels, …). */
#ifndef HY_SAMPLES_AUGMENT_H
#define HY_SAMPLES_AUGMENT_H

#include <stdint.h>

#include "core/status.h"
#include "samples/sample.h"

/* out = π_p(in). in and out may be the same sample. HY_EUSAGE when p is not
 * 0–5 (out untouched). Identity (p = 0) copies bit for bit. */
hy_status hy_augment_sample(const hy_sample *in, hy_sample *out, int p);

/* Permutes a 34-bit tile-kind mask, and a 46-bit action mask. */
uint64_t hy_augment_kind_mask(uint64_t m, int p);
uint64_t hy_augment_action_mask(uint64_t m, int p);
/* Image of an action index (0–45; others unchanged). */
uint8_t hy_augment_action(uint8_t a, int p);

/* The permutation `--perms random --seed S` gives the samples of game id g:
 * splitmix64(S ^ splitmix64(g)) mod 6, splitmix64 as in formats/samples.md. */
int hy_augment_random_perm(uint64_t seed, uint64_t game);

#endif
