/* The score of a reading of the waits (see readscore.h). */
#include "play/readscore.h"

#include <math.h>

void hy_read_tally_add(hy_read_tally *t, double p, int y)
{
	p = p < 1e-4 ? 1e-4 : p > 1 - 1e-4 ? 1 - 1e-4 : p;
	t->ll_sum -= y ? log(p) : log(1 - p);
	t->cells++;
	t->wins += (uint64_t)(y != 0);
	int b = (int)(p * HY_READ_BINS);
	b = b >= HY_READ_BINS ? HY_READ_BINS - 1 : b;
	(y ? t->pos : t->neg)[b]++;
}

void hy_read_tally_merge(hy_read_tally *to, const hy_read_tally *from)
{
	to->ll_sum += from->ll_sum;
	to->cells += from->cells;
	to->wins += from->wins;
	for (int b = 0; b < HY_READ_BINS; b++) {
		to->pos[b] += from->pos[b];
		to->neg[b] += from->neg[b];
	}
}

double hy_read_tally_logloss(const hy_read_tally *t)
{
	return t->cells ? t->ll_sum / (double)t->cells : NAN;
}

double hy_read_tally_base(const hy_read_tally *t)
{
	double q = t->cells ? (double)t->wins / (double)t->cells : NAN;
	return q > 0 && q < 1 ? -(q * log(q) + (1 - q) * log(1 - q)) : NAN;
}

double hy_read_tally_auc(const hy_read_tally *t)
{
	double np = (double)t->wins, nn = (double)(t->cells - t->wins), below = 0, sum = 0;
	if (np <= 0 || nn <= 0)
		return NAN;
	for (int b = 0; b < HY_READ_BINS; b++) {
		sum += (double)t->pos[b] * (below + 0.5 * (double)t->neg[b]);
		below += (double)t->neg[b];
	}
	return sum / (np * nn);
}
