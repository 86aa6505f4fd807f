/* The CUDA entry points of a build without the CUDA backend (no nvcc,
 * cuDNN or cuBLAS found, or NO_CUDA=1): each says so, so that callers
 * (hydra-fit's --device) need no conditional compilation. */
#ifndef HY_HAVE_CUDA
#include "nn/cuda/cuda.h"

#include <string.h>

static const char why[] = "this build has no CUDA backend (built without nvcc, cuDNN and "
			  "cuBLAS, or with NO_CUDA=1)";

int hy_nn_cuda_built(void)
{
	return 0;
}

hy_status hy_nn_cuda_probe(int device, hy_nn_cuda_info *info, hy_diag *d)
{
	if (info)
		memset(info, 0, sizeof *info);
	return hy_diag_set(d, HY_EUNSUP, 0, "%s", why);
}

int hy_nn_cuda_count(void)
{
	return 0;
}

const hy_nn_backend *hy_nn_backend_cuda(void)
{
	return NULL;
}

hy_status hy_nn_cuda_ctx_init(hy_nn_ctx *c, const hy_nn_cuda_cfg *cfg, hy_diag *d)
{
	memset(c, 0, sizeof *c);
	return hy_diag_set(d, HY_EUNSUP, 0, "%s", why);
}

void hy_nn_cuda_ctx_free(hy_nn_ctx *c)
{
}

size_t hy_nn_cuda_report(const hy_nn_ctx *c, char *buf, size_t n)
{
	if (n)
		buf[0] = '\0';
	return 0;
}

int hy_nn_cuda_conv_timings(const hy_nn_ctx *c)
{
	return 0;
}

size_t hy_nn_cuda_peak_bytes(const hy_nn_ctx *c)
{
	return 0;
}

void hy_nn_cuda_graph_counts(const hy_nn_ctx *c, int *captured, int *replayed, int *failed)
{
	*captured = *replayed = *failed = 0;
}

hy_status hy_nn_cuda_check_bf16(const hy_nn_ctx *c, unsigned long long *mismatches,
	unsigned int *first, hy_diag *d)
{
	*mismatches = 0;
	*first = 0xffffffffu;
	return hy_diag_set(d, HY_EUNSUP, 0, "%s", why);
}
#else
typedef int hy_nn_cuda_none_unused; /* ISO C: no empty translation unit */
#endif
