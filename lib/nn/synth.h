/* Synthetic samples for tests and benchmarks: random but well-formed
 * (the label legal in the mask, labels in range), drawn from an explicit
 * RNG so that a seed reproduces them. */
#ifndef HY_NN_SYNTH_H
#define HY_NN_SYNTH_H

#include "nn/rng.h"
#include "samples/sample.h"

void hy_nn_synth_samples(hy_rng *r, hy_sample *s, int n);

#endif
