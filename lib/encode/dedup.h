/* Duplicate games (ARCHITECTURE.md §6): the set of game ids
 * (hy_encode_game_id, a hash of the play) already seen in one run, so that
 * hydra-encode writes each game once, however many copies of it the inputs
 * hold — the same file twice, an mjlog and its tenhou.net/6 twin, a copy in
 * an archive. An open-addressing hash set of u64; the ids are SHA-256
 * prefixes, spread evenly, so the id itself is the hash. */
#ifndef HY_ENCODE_DEDUP_H
#define HY_ENCODE_DEDUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct hy_dedup {
	uint64_t *slot; /* 0 marks an empty slot; id 0 is kept in has_zero */
	size_t cap, n;  /* cap a power of two (0 before the first add)      */
	int has_zero;
} hy_dedup;

void hy_dedup_init(hy_dedup *s);
void hy_dedup_free(hy_dedup *s);

/* Adds id to the set: *fresh = 1 when it was not there, 0 when it was.
 * HY_ENOMEM (the set unchanged) when it cannot grow. */
hy_status hy_dedup_add(hy_dedup *s, uint64_t id, int *fresh);

/* Number of distinct ids in the set. */
size_t hy_dedup_count(const hy_dedup *s);

#endif
