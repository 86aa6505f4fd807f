/* The grow-array idiom (see grow.h). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

size_t hy_grow_cap(size_t cap, size_t need, size_t first)
{
	size_t c = cap ? cap : (first ? first : 1);
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return 0;
		c *= 2;
	}
	return c;
}

int hy_grow(void **v, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t c = hy_grow_cap(*cap, need, first);
	if (!c)
		return -1;
	if (size && c > SIZE_MAX / size)
		return -1;
	void *p = realloc(*v, c * size);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}
