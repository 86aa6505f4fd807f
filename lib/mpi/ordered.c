/* Items made by game across ranks, written in game order (see ordered.h). */
#include "mpi/ordered.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void hy_mpi_ordered_init(hy_mpi_ordered *o, size_t size)
{
	memset(o, 0, sizeof *o);
	o->size = size;
}

void hy_mpi_ordered_free(hy_mpi_ordered *o)
{
	free(o->items);
	free(o->gend);
	memset(o, 0, sizeof *o);
}

hy_status hy_mpi_ordered_add(hy_mpi_ordered *o, const void *item, int rank, hy_diag *d)
{
	if (hy_grow((void **)&o->items, &o->cap, o->n + 1, o->size, 1024))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (rank %d: %zu items)", rank,
			o->n);
	memcpy(o->items + o->n * o->size, item, o->size);
	o->n++;
	return HY_OK;
}

hy_status hy_mpi_ordered_end_game(hy_mpi_ordered *o, int rank, hy_diag *d)
{
	if (HY_GROW(o->gend, o->capgames, o->ngames + 1, 256))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (rank %d: %zu games)", rank,
			o->ngames);
	o->gend[o->ngames++] = o->n;
	return HY_OK;
}

/* The items of this rank's k-th game. */
static const void *game_items(const hy_mpi_ordered *o, size_t k, size_t *n)
{
	size_t a = k ? o->gend[k - 1] : 0;
	*n = o->gend[k] - a;
	return o->items + a * o->size;
}

hy_status hy_mpi_ordered_gather(hy_mpi_ordered *o, const hy_mpi *ds, uint64_t count,
	hy_mpi_ordered_fn fn, void *u, hy_diag *d)
{
	const uint64_t want = hy_mpi_stride_count(ds->rank, ds->size, count);
	if (o->ngames != want)
		return hy_diag_set(d, HY_EDATA, 0, "rank %d of %d: %zu games kept, expected %"
			PRIu64, ds->rank, ds->size, o->ngames, want);
	hy_status st = HY_OK;
	size_t n = 0;
	if (ds->rank > 0) {
		for (size_t k = 0; k < o->ngames && st == HY_OK; k++) {
			const void *x = game_items(o, k, &n);
			st = hy_mpi_send_msg(ds, 0, x, n * o->size, d);
		}
		return st;
	}
	const uint64_t size = (uint64_t)ds->size;
	void *buf = NULL;
	size_t cap = 0;
	for (uint64_t i = 0; i < count && st == HY_OK; i++) {
		int r = (int)(i % size);
		const void *x;
		if (r == 0) {
			x = game_items(o, (size_t)(i / size), &n);
		} else {
			if ((st = hy_mpi_recv_msg(ds, r, &buf, &cap, &n, d)) != HY_OK)
				break;
			if (n % o->size) {
				st = hy_diag_set(d, HY_EDATA, 0, "rank %d sent %zu bytes: not whole "
					"items of %zu", r, n, o->size);
				break;
			}
			x = buf;
			n /= o->size;
		}
		st = fn(u, i, x, n, d);
	}
	free(buf);
	return st;
}
