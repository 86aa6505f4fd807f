/* Activation storage helpers for any backend (backend.h hy_nn_act). */
#include "nn/backend.h"

#include <string.h>

size_t hy_nn_act_size(const hy_nn_backend *be, const hy_nn_ctx *c)
{
	return be->act_size ? be->act_size(c) : sizeof(float);
}

void hy_nn_act_put(const hy_nn_backend *be, const hy_nn_ctx *c, size_t n, const float *host,
	hy_nn_act *dst)
{
	if (be->act_put)
		be->act_put(c, n, host, dst);
	else
		be->to_dev(dst, host, n * sizeof *host);
}

void hy_nn_act_get(const hy_nn_backend *be, const hy_nn_ctx *c, size_t n, const hy_nn_act *src,
	float *host)
{
	if (be->act_get)
		be->act_get(c, n, src, host);
	else
		be->to_host(host, src, n * sizeof *host);
}

void hy_nn_act_from_f32(const hy_nn_backend *be, const hy_nn_ctx *c, size_t n,
	const float *src, hy_nn_act *dst)
{
	if (be->act_from_f32)
		be->act_from_f32(c, n, src, dst);
	else if (be->dev_copy)
		be->dev_copy(c, dst, src, n * sizeof *src);
	else
		memcpy(dst, src, n * sizeof *src);
}
