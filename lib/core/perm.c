/* Permutation indices (see perm.h). */
#include "core/perm.h"

int hy_perm_index(const uint8_t *p, int n)
{
	if (n < 1 || n > 8)
		return -1;
	unsigned seen = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] >= n || (seen >> p[i] & 1))
			return -1;
		seen |= 1u << p[i];
	}
	/* each place: how many later entries are smaller, times (n−1−i)! */
	int idx = 0;
	for (int i = 0; i < n - 1; i++) {
		int smaller = 0;
		for (int j = i + 1; j < n; j++)
			smaller += p[j] < p[i];
		idx = idx * (n - i) + smaller;
	}
	return idx;
}
