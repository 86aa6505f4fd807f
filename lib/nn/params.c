/* The named-parameter table: layout, initialisation and lookups (params.h). */
#include "nn/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void hy_nn_params_init(hy_nn_params *p)
{
	memset(p, 0, sizeof *p);
}

void hy_nn_params_free(hy_nn_params *p)
{
	free(p->t);
	memset(p, 0, sizeof *p);
}

int hy_nn_params_add(hy_nn_params *p, const char *name, int ndim, const int *shape,
	hy_nn_init init, int fan_in, float scale, int decay)
{
	if (ndim < 1 || ndim > HY_NN_MAX_DIMS || strlen(name) >= HY_NN_NAME_MAX)
		return -1;
	if (HY_GROW(p->t, p->cap, (size_t)p->count + 1, 64))
		return -1;
	hy_nn_tensor *t = &p->t[p->count];
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	t->ndim = ndim;
	t->size = 1;
	for (int i = 0; i < ndim; i++) {
		t->shape[i] = shape[i];
		t->size *= (size_t)shape[i];
	}
	t->offset = (p->total + 15) / 16 * 16;
	p->total = t->offset + t->size;
	t->init = init;
	t->fan_in = fan_in;
	t->scale = scale;
	t->decay = decay;
	return p->count++;
}

int hy_nn_params_find(const hy_nn_params *p, const char *name)
{
	for (int i = 0; i < p->count; i++)
		if (!strcmp(p->t[i].name, name))
			return i;
	return -1;
}

void hy_nn_params_fill(const hy_nn_params *p, float *data, hy_rng *r)
{
	memset(data, 0, p->total * sizeof *data);
	for (int i = 0; i < p->count; i++) {
		const hy_nn_tensor *t = &p->t[i];
		float *d = data + t->offset;
		switch (t->init) {
		case HY_NN_INIT_KAIMING: {
			double sd = sqrt(2.0 / (t->fan_in > 0 ? t->fan_in : 1)) * t->scale;
			for (size_t j = 0; j < t->size; j++)
				d[j] = (float)(sd * hy_rng_normal(r));
			break;
		}
		case HY_NN_INIT_ONE:
			for (size_t j = 0; j < t->size; j++)
				d[j] = 1.0f;
			break;
		case HY_NN_INIT_ZERO:
			break;
		}
	}
}
