/* Shanten speed: hy_shanten_all, hy_shanten_standard and hy_shanten_discards
 * per call on random 14-tile hands (each drawn from a freshly shuffled
 * 136-tile wall, fixed seed), one core, clock_gettime over ≥ 1 s each.
 * Usage: shanten_bench [hands] (default 1048576: the hands do not fit in
 * cache, so table look-ups are not flattered by repetition). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hand/shanten.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { F_ALL, F_STANDARD, F_DISCARDS };

static double bench(const uint8_t (*h)[34], size_t n, int which, long *sink)
{
	double t0 = now(), t;
	size_t calls = 0;
	long acc = 0;
	do {
		for (size_t i = 0; i < n; i++) {
			if (which == F_ALL) {
				hy_shanten_forms f = hy_shanten_all(h[i], 0);
				acc += f.min + f.standard;
			} else if (which == F_STANDARD) {
				acc += hy_shanten_standard(h[i], 0);
			} else {
				int8_t out[34];
				acc += hy_shanten_discards(h[i], 0, out) + out[i % 34];
			}
		}
		calls += n;
		t = now();
	} while (t - t0 < 1.0);
	*sink += acc;
	return (t - t0) / (double)calls * 1e9;
}

int main(int argc, char **argv)
{
	size_t n = 1u << 20;
	if (argc > 1) {
		char *end;
		unsigned long v = strtoul(argv[1], &end, 10);
		if (*end || v == 0 || v > 100000000ul) {
			fprintf(stderr, "shanten_bench: bad hand count '%s'\n", argv[1]);
			return 2;
		}
		n = v;
	}
	uint8_t (*h)[34] = calloc(n, sizeof *h);
	if (!h) {
		fprintf(stderr, "shanten_bench: out of memory\n");
		return 1;
	}
	uint64_t s = 20240601;
	for (size_t i = 0; i < n; i++) {
		uint8_t wall[136];
		for (int j = 0; j < 136; j++)
			wall[j] = (uint8_t)(j / 4);
		for (int j = 0; j < 14; j++) {
			int r = j + (int)(rng_next(&s) % (uint64_t)(136 - j));
			uint8_t t = wall[r];
			wall[r] = wall[j];
			wall[j] = t;
			h[i][t]++;
		}
	}
	double t0 = now();
	long sink = hy_shanten(h[0], 0); /* builds the tables */
	double init = now() - t0;
	printf("shanten tables: %.1f ms to build (first call)\n", init * 1e3);
	printf("shanten_all: %.1f ns/call (14-tile random hands, 1 core)\n", bench(h, n, F_ALL, &sink));
	printf("shanten_standard: %.1f ns/call (14-tile random hands, 1 core)\n",
	       bench(h, n, F_STANDARD, &sink));
	printf("shanten_discards: %.1f ns/call (14-tile random hands, hand + every discard, 1 core)\n",
	       bench(h, n, F_DISCARDS, &sink));
	/* The same work as the batch, as independent calls (one per held kind). */
	double t1 = now(), t;
	size_t calls = 0;
	do {
		for (size_t i = 0; i < n; i++) {
			uint8_t c[34];
			memcpy(c, h[i], 34);
			for (int k = 0; k < 34; k++)
				if (c[k]) {
					c[k]--;
					sink += hy_shanten(c, 0);
					c[k]++;
				}
		}
		calls += n;
		t = now();
	} while (t - t1 < 1.0);
	printf("shanten discards as single calls: %.1f ns/hand (for comparison)\n",
	       (t - t1) / (double)calls * 1e9);
	fprintf(stderr, "(checksum %ld, %zu hands)\n", sink, n);
	free(h);
	return 0;
}
