/* Engine benchmark: full games on one core with the uniform random legal
 * policy (no log, nothing allocated per step), then replay-check speed on
 * the same games' mjai logs.
 *
 *   engine_bench [games [seed]]      (defaults 2000, 1)
 *
 * Prints games/s, kyoku/s and decisions/s of self-play, and games/s and
 * events/s of hy_replay_game. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/replay.h"
#include "engine/table.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int pick(uint64_t mask, uint64_t *rng)
{
	int r = (int)(rng_next(rng) % (uint64_t)__builtin_popcountll(mask));
	while (r--)
		mask &= mask - 1;
	return __builtin_ctzll(mask);
}

static int play(hy_table *t, uint64_t seed, uint64_t game, uint64_t *rng, hy_game *log,
		hy_diag *d)
{
	if (hy_table_start(t, NULL, seed, game, log, d) != HY_OK)
		return -1;
	while (t->e.phase != HY_PH_GAME_END) {
		int s = __builtin_ctz(hy_engine_deciders(&t->e));
		int a = pick(hy_engine_legal_mask(&t->e, s), rng);
		if (hy_table_act(t, s, a, d) != HY_OK)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long ngames = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (ngames <= 0) {
		fprintf(stderr, "engine_bench: bad game count\n");
		return 2;
	}
	hy_table *t = malloc(sizeof *t);
	if (!t)
		return 1;
	hy_diag d;
	hy_diag_init(&d, "engine_bench");
	uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
	uint64_t kyoku = 0, steps = 0;
	double t0 = now();
	for (long g = 0; g < ngames; g++) {
		if (play(t, seed, (uint64_t)g, &rng, NULL, &d) != 0) {
			fprintf(stderr, "engine_bench: game %ld: %s\n", g, d.msg);
			return 1;
		}
		kyoku += t->nkyoku;
		steps += t->nsteps;
	}
	double dt = now() - t0;
	printf("self-play (random policy, 1 core): %ld hanchan in %.3f s: %.0f games/s, %.0f kyoku/s, "
	       "%.2f M decisions/s (%.1f kyoku/game)\n",
	       ngames, dt, ngames / dt, kyoku / dt, steps / dt / 1e6, (double)kyoku / ngames);

	/* replay-check speed on logged games */
	long nlog = ngames < 500 ? ngames : 500;
	hy_game *logs = calloc((size_t)nlog, sizeof *logs);
	if (!logs)
		return 1;
	rng = seed + 7;
	uint64_t events = 0;
	for (long g = 0; g < nlog; g++) {
		hy_game_init(&logs[g]);
		if (play(t, seed, (uint64_t)g, &rng, &logs[g], &d) != 0 || t->e.log_status != HY_OK) {
			fprintf(stderr, "engine_bench: logged game %ld failed\n", g);
			return 1;
		}
		events += logs[g].n;
	}
	hy_replay_report rep = {0};
	int reps = 4;
	t0 = now();
	for (int r = 0; r < reps; r++)
		for (long g = 0; g < nlog; g++)
			if (hy_replay_game(&logs[g], &rep, &d) != HY_OK)
				return 1;
	dt = now() - t0;
	printf("replay check (1 core): %ld games x %d in %.3f s: %.0f games/s, %.2f M events/s; "
	       "%" PRIu64 " illegal, %" PRIu64 " mismatches\n",
	       nlog, reps, dt, nlog * reps / dt, events * reps / dt / 1e6, rep.illegal,
	       rep.mismatch);
	for (long g = 0; g < nlog; g++)
		hy_game_free(&logs[g]);
	free(logs);
	free(t);
	return rep.illegal || rep.mismatch ? 1 : 0;
}
