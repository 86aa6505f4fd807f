/* A seeded PRNG with explicit state (xoshiro256**, seeded by splitmix64):
 * no globals; the state is four words, saved in checkpoints. */
#ifndef HY_NN_RNG_H
#define HY_NN_RNG_H

#include <stdint.h>

typedef struct hy_rng {
	uint64_t s[4];
} hy_rng;

void hy_rng_seed(hy_rng *r, uint64_t seed);
uint64_t hy_rng_u64(hy_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double hy_rng_uniform(hy_rng *r);
/* Uniform integer in [0, n), n > 0, unbiased. */
uint64_t hy_rng_below(hy_rng *r, uint64_t n);
/* Standard normal (Box–Muller; one value per call, no cached state). */
double hy_rng_normal(hy_rng *r);

#endif
