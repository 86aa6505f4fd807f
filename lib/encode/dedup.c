/* The set of seen game ids (dedup.h): linear probing, grown at 1/2 load. */
#include "encode/dedup.h"

#include <stdlib.h>
#include <string.h>

void hy_dedup_init(hy_dedup *s)
{
	memset(s, 0, sizeof *s);
}

void hy_dedup_free(hy_dedup *s)
{
	free(s->slot);
	memset(s, 0, sizeof *s);
}

/* Slot of id, or of the empty slot where it would go. */
static size_t probe(const uint64_t *slot, size_t cap, uint64_t id)
{
	size_t i = (size_t)(id ^ id >> 32) & (cap - 1);
	while (slot[i] && slot[i] != id)
		i = (i + 1) & (cap - 1);
	return i;
}

static hy_status grow(hy_dedup *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *slot = calloc(cap, sizeof *slot);
	if (!slot)
		return HY_ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i])
			slot[probe(slot, cap, s->slot[i])] = s->slot[i];
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return HY_OK;
}

hy_status hy_dedup_add(hy_dedup *s, uint64_t id, int *fresh)
{
	if (id == 0) {
		*fresh = !s->has_zero;
		s->has_zero = 1;
		return HY_OK;
	}
	if (2 * (s->n + 1) > s->cap) {
		hy_status st = grow(s);
		if (st != HY_OK)
			return st;
	}
	size_t i = probe(s->slot, s->cap, id);
	*fresh = s->slot[i] == 0;
	if (*fresh) {
		s->slot[i] = id;
		s->n++;
	}
	return HY_OK;
}

size_t hy_dedup_count(const hy_dedup *s)
{
	return s->n + (size_t)s->has_zero;
}
