/* The grow-array idiom, written once: an array with a capacity that
 * doubles when it is full. */
#ifndef HY_CORE_GROW_H
#define HY_CORE_GROW_H

#include <stddef.h>

/* Makes room for at least `need` elements of `size` bytes in the array *v
 * of capacity *cap (both 0/NULL at first): the capacity doubles from
 * `first` until it holds need. 0 when there is room; −1 when memory or
 * the size's range runs out, *v and *cap unchanged. */
int hy_grow(void **v, size_t *cap, size_t need, size_t size, size_t first);

/* The capacity hy_grow would give: cap (or `first`) doubled until it holds
 * need; 0 when that overflows. For arrays that share one capacity, or a
 * buffer with a ceiling of its own. */
size_t hy_grow_cap(size_t cap, size_t need, size_t first);

/* hy_grow of a typed array: HY_GROW(g->ev, g->cap, g->n + 1, 256). */
#define HY_GROW(arr, cap, need, first) \
	hy_grow((void **)&(arr), &(cap), (need), sizeof *(arr), (first))

#endif
