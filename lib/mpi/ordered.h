/* Items made by game across ranks, written in game order (ARCHITECTURE.md
 * §8): under mpirun rank r of N plays games r, r + N, r + 2N, ... of a run;
 * each rank keeps its items game by game, and after the games rank 0 is
 * given every game's items in game order — game i's from its own store or
 * from rank i mod N, sent as one message — to write them. Memory: a rank's
 * own items and one game's. Items are fixed-size records (e.g. samples).
 * A game with no items (an aborted one) still takes its place. */
#ifndef HY_MPI_ORDERED_H
#define HY_MPI_ORDERED_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "mpi/mpi.h"

typedef struct hy_mpi_ordered {
	size_t size;        /* bytes of an item */
	unsigned char *items;
	size_t n, cap;      /* items kept, capacity */
	size_t *gend;       /* gend[k]: end (in items) of this rank's k-th game */
	size_t ngames, capgames;
} hy_mpi_ordered;

/* An empty store of items of `size` bytes. */
void hy_mpi_ordered_init(hy_mpi_ordered *o, size_t size);
void hy_mpi_ordered_free(hy_mpi_ordered *o);

/* Keeps one item of the game being played (rank: for the message). */
hy_status hy_mpi_ordered_add(hy_mpi_ordered *o, const void *item, int rank, hy_diag *d);
/* Ends this rank's current game. */
hy_status hy_mpi_ordered_end_game(hy_mpi_ordered *o, int rank, hy_diag *d);

/* Called on rank 0 with game i's items in game order; HY_OK to go on. */
typedef hy_status (*hy_mpi_ordered_fn)(void *u, uint64_t game, const void *items, size_t n,
	hy_diag *d);

/* After every rank's `count` games (rank r's being r, r + N, ...): ranks
 * > 0 send theirs, rank 0 calls fn for games 0 .. count − 1 in order. Each
 * rank must have ended exactly its share of the games (hy_mpi_stride_count),
 * else HY_EDATA. */
hy_status hy_mpi_ordered_gather(hy_mpi_ordered *o, const hy_mpi *ds, uint64_t count,
	hy_mpi_ordered_fn fn, void *u, hy_diag *d);

#endif
