/* The league's seating; see league.h. */
#include "play/league.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* splitmix64 finaliser: a well-mixed 64-bit value of (seed, game, seat). */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t seat_hash(uint64_t seed, uint64_t game, int seat, uint64_t salt)
{
	return mix64(mix64(mix64(seed ^ 0x6c65616775650000ull ^ salt) + game) + (uint64_t)seat);
}

hy_status hy_league_init(hy_league *l, uint64_t seed, const double mix[3], int npool,
	int has_start, hy_diag *d)
{
	for (int i = 0; i < 3; i++)
		if (!(mix[i] >= 0) || !isfinite(mix[i]))
			return hy_diag_set(d, HY_EUSAGE, 0, "league mix weights must be finite and at "
				"least 0");
	if (npool < 0)
		return hy_diag_set(d, HY_EUSAGE, 0, "negative pool size");
	double self = mix[0], pool = npool ? mix[1] : 0, start = has_start ? mix[2] : 0;
	self += (npool ? 0 : mix[1]) + (has_start ? 0 : mix[2]);
	double sum = self + pool + start;
	if (!(sum > 0))
		return hy_diag_set(d, HY_EUSAGE, 0, "league mix weights sum to 0");
	l->seed = seed;
	l->w_self = self / sum;
	l->w_pool = pool / sum;
	l->w_start = start / sum;
	l->npool = npool;
	l->has_start = has_start;
	return HY_OK;
}

hy_status hy_league_parse_mix(const char *s, double mix[3], hy_diag *d)
{
	const char *p = s;
	for (int i = 0; i < 3; i++) {
		char *end;
		errno = 0;
		mix[i] = strtod(p, &end);
		if (end == p || errno || !isfinite(mix[i]) || mix[i] < 0 ||
			(i < 2 && *end != ',') || (i == 2 && *end))
			return hy_diag_set(d, HY_EUSAGE, 0, "bad league mix '%s' (want three weights "
				"SELF,POOL,START, e.g. 0.5,0.3,0.2)", s);
		p = end + 1;
	}
	return HY_OK;
}

int hy_league_seat(const hy_league *l, uint64_t game, int seat)
{
	if ((uint64_t)seat == game % 4)
		return 0;
	uint64_t h = seat_hash(l->seed, game, seat, 1);
	double u = (double)(h >> 11) * 0x1.0p-53;
	if (u < l->w_self)
		return 0;
	if (u < l->w_self + l->w_pool && l->npool > 0)
		return 1 + (int)(seat_hash(l->seed, game, seat, 2) % (uint64_t)l->npool);
	return l->has_start ? hy_league_start_index(l) : 0;
}
