/* The CPU path chosen once per process (see cpupath.h). */
#include "nn/cpupath.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -1: not resolved yet; the first hy_nn_backend_cpu() fixes it */
static atomic_int chosen = -1;
static atomic_int handed_out;

/* auto (bench/RESULTS.md, "The CPU paths side by side"): oneDNN with bf16
 * inference where the CPU has native bf16, oneDNN in fp32 on AVX-512 (its
 * kernels ran faster end to end there), OpenBLAS on AVX2 and below (both
 * at the FMA ceiling; the reference is the simpler path) */
static int auto_path(void)
{
	int bf = 0;
	const char *isa = hy_nn_onednn_isa(&bf);
	if (!isa)
		return HY_NN_CPU_OPENBLAS;
	if (bf)
		return HY_NN_CPU_ONEDNN_BF16;
	return strncmp(isa, "avx512", 6) ? HY_NN_CPU_OPENBLAS : HY_NN_CPU_ONEDNN;
}

hy_status hy_nn_cpu_path_parse(const char *name, int *path, hy_diag *d)
{
	if (!name || !*name || !strcmp(name, "auto")) {
		*path = auto_path();
		return HY_OK;
	}
	if (!strcmp(name, "openblas")) {
		*path = HY_NN_CPU_OPENBLAS;
		return HY_OK;
	}
	const int bf = !strcmp(name, "onednn-bf16");
	if (bf || !strcmp(name, "onednn")) {
		if (!hy_nn_backend_cpu_onednn())
			return hy_diag_set(d, HY_EUSAGE, 0, "cpu path '%s': this build has no "
				"oneDNN (install libdnnl-dev and rebuild: 'make deps')", name);
		*path = bf ? HY_NN_CPU_ONEDNN_BF16 : HY_NN_CPU_ONEDNN;
		return HY_OK;
	}
	return hy_diag_set(d, HY_EUSAGE, 0, "unknown cpu path '%s': openblas, onednn, "
		"onednn-bf16 or auto", name);
}

hy_status hy_nn_cpu_path_set(const char *name, hy_diag *d)
{
	int p;
	hy_status st = hy_nn_cpu_path_parse(name, &p, d);
	if (st != HY_OK)
		return st;
	if (atomic_load(&handed_out) && atomic_load(&chosen) != p)
		return hy_diag_set(d, HY_EUSAGE, 0, "cpu path '%s' set after the backend was "
			"chosen", name);
	atomic_store(&chosen, p);
	return HY_OK;
}

int hy_nn_cpu_path(void)
{
	int p = atomic_load(&chosen);
	if (p >= 0)
		return p;
	const char *env = getenv("HYDRA_CPU_PATH");
	hy_diag d;
	hy_diag_init(&d, "HYDRA_CPU_PATH");
	if (hy_nn_cpu_path_parse(env, &p, &d) != HY_OK) {
		fprintf(stderr, "hydra: %s; using auto\n", d.msg);
		p = auto_path();
	}
	int expect = -1;
	if (!atomic_compare_exchange_strong(&chosen, &expect, p))
		p = expect; /* another thread resolved it first */
	return p;
}

const char *hy_nn_cpu_path_name(int path)
{
	return path == HY_NN_CPU_ONEDNN_BF16 ? "onednn-bf16"
	       : path == HY_NN_CPU_ONEDNN    ? "onednn"
					     : "openblas";
}

const char *hy_nn_cpu_path_describe(void)
{
	static char buf[96];
	const char *v = hy_nn_onednn_version();
	const char *isa = hy_nn_onednn_isa(NULL);
	int p = hy_nn_cpu_path();
	if (p != HY_NN_CPU_OPENBLAS)
		snprintf(buf, sizeof buf, "onednn %s %s inference on %s", v ? v : "",
			p == HY_NN_CPU_ONEDNN_BF16 ? "bf16" : "fp32", isa ? isa : "?");
	else
		snprintf(buf, sizeof buf, "openblas%s", v ? " (onednn built)" : "");
	return buf;
}

int hy_nn_cpu_path_onednn(void)
{
	return hy_nn_cpu_path() != HY_NN_CPU_OPENBLAS;
}

int hy_nn_cpu_infer_precision(void)
{
	return hy_nn_cpu_path() == HY_NN_CPU_ONEDNN_BF16 ? HY_NN_PREC_BF16 : HY_NN_PREC_FP32;
}

void hy_nn_ctx_init_infer(hy_nn_ctx *c, int threads)
{
	hy_nn_ctx_init(c, threads);
	c->precision = hy_nn_cpu_infer_precision();
}

const hy_nn_backend *hy_nn_backend_cpu(void)
{
	atomic_store(&handed_out, 1);
	return hy_nn_cpu_path_onednn() ? hy_nn_backend_cpu_onednn() : hy_nn_backend_cpu_openblas();
}

int hy_nn_backend_is_host(const hy_nn_backend *be)
{
	return be && (be == hy_nn_backend_cpu_openblas() || be == hy_nn_backend_cpu_onednn());
}
