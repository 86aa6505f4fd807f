/* The named-parameter table (ARCHITECTURE.md §7–8): one list of tensors that drives
 * allocation, initialisation, weight decay, checkpoints and tests. All
 * tensors live in one contiguous block (params, grads and both AdamW
 * moments share the offsets), so optimiser passes are flat loops. */
#ifndef HY_NN_PARAMS_H
#define HY_NN_PARAMS_H

#include <stddef.h>

#include "core/status.h"
#include "nn/rng.h"

enum { HY_NN_NAME_MAX = 64, HY_NN_MAX_DIMS = 4 };

typedef enum hy_nn_init {
	HY_NN_INIT_KAIMING, /* normal(0, √(2/fan_in)) × scale */
	HY_NN_INIT_ZERO,
	HY_NN_INIT_ONE,
} hy_nn_init;

typedef struct hy_nn_tensor {
	char name[HY_NN_NAME_MAX]; /* "blocks/07/conv1/weight" (no /params/ prefix) */
	int ndim;
	int shape[HY_NN_MAX_DIMS]; /* outermost first */
	size_t offset, size;       /* in floats, within the parameter block */
	hy_nn_init init;
	int fan_in;
	float scale;   /* multiplies the Kaiming draw (0.1 for head outputs) */
	int decay;     /* 1: AdamW weight decay applies (conv/linear weights) */
} hy_nn_tensor;

typedef struct hy_nn_params {
	hy_nn_tensor *t;
	int count;
	size_t cap;
	size_t total; /* floats */
} hy_nn_params;

void hy_nn_params_init(hy_nn_params *p);
void hy_nn_params_free(hy_nn_params *p);
/* Appends a tensor; returns its index or −1 (out of memory). Offsets are
 * rounded up to 16 floats (64 bytes). */
int hy_nn_params_add(hy_nn_params *p, const char *name, int ndim, const int *shape,
	hy_nn_init init, int fan_in, float scale, int decay);
/* Index of a tensor by name, or −1. */
int hy_nn_params_find(const hy_nn_params *p, const char *name);
/* Fills host memory `data` (p->total floats) per each tensor's init rule,
 * drawing in table order from r. */
void hy_nn_params_fill(const hy_nn_params *p, float *data, hy_rng *r);

#endif
