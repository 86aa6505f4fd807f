/* Permutations as indices: the one lexicographic numbering that the GRP's
 * 24 final orders (encode.h, nn/grp.h) and the 6 suit permutations
 * (events/permute.h) share. */
#ifndef HY_CORE_PERM_H
#define HY_CORE_PERM_H

#include <stdint.h>

/* Lexicographic index of p, a permutation of (0, 1, ..., n−1) with
 * 1 ≤ n ≤ 8: 0 for the identity, n! − 1 for the reverse; −1 when p is not
 * a permutation of them. */
int hy_perm_index(const uint8_t *p, int n);

#endif
