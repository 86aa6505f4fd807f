/* The shared options, parsed one way (options.h). */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

#include "core/num.h"
#include "nn/backend.h"
#include "nn/cpupath.h"
#include "nn/cuda/cuda.h"
#include "nn/threads.h"

hy_status hy_cli_parse_threads(const char *arg, int *n, hy_diag *d)
{
	int64_t v;
	if (hy_parse_i64(arg, 1, HY_CLI_THREADS_MAX, &v))
		return hy_diag_set(d, HY_EUSAGE, 0, "bad --threads '%s': 1 to %d", arg,
			HY_CLI_THREADS_MAX);
	*n = (int)v;
	return HY_OK;
}

int hy_cli_threads_default(void)
{
	int n = hy_nn_threads_default();
	return n < 1 ? 1 : n > HY_CLI_THREADS_MAX ? HY_CLI_THREADS_MAX : n;
}

hy_status hy_cli_parse_seed(const char *arg, uint64_t max, uint64_t *seed, hy_diag *d)
{
	uint64_t v;
	if (hy_parse_u64(arg, 0, &v) || v > max)
		return hy_diag_set(d, HY_EUSAGE, 0, "bad --seed '%s': 0 to 2^%d-1, decimal or 0x "
			"hex", arg, max == UINT64_MAX ? 64 : 63);
	*seed = v;
	return HY_OK;
}

hy_status hy_cli_parse_device(const char *arg, hy_diag *d)
{
	hy_nn_device_kind kind;
	int ordinal;
	return hy_nn_device_parse(arg, &kind, &ordinal, d); /* the one parser */
}

hy_status hy_cli_parse_precision(const char *arg, int *prec, hy_diag *d)
{
	if (!strcmp(arg, "bf16"))
		*prec = HY_NN_PREC_BF16;
	else if (!strcmp(arg, "fp32"))
		*prec = HY_NN_PREC_FP32;
	else
		return hy_diag_set(d, HY_EUSAGE, 0, "bad --precision '%s': bf16 or fp32", arg);
	return HY_OK;
}

/* 0, or the usage error of a failed parse and 2. */
static int opt_done(const hy_cli *c, hy_status st, const hy_diag *d)
{
	return st == HY_OK ? 0 : hy_cli_usage(c, "%s", d->msg);
}

int hy_cli_opt_threads(const hy_cli *c, const char *arg, int *n)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	return opt_done(c, hy_cli_parse_threads(arg, n, &d), &d);
}

int hy_cli_opt_seed(const hy_cli *c, const char *arg, uint64_t max, uint64_t *seed)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	return opt_done(c, hy_cli_parse_seed(arg, max, seed, &d), &d);
}

int hy_cli_opt_device(const hy_cli *c, const char *arg, const char **dev)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_cli_parse_device(arg, &d);
	if (st == HY_OK)
		*dev = arg;
	return opt_done(c, st, &d);
}

int hy_cli_opt_precision(const hy_cli *c, const char *arg, int *prec)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	return opt_done(c, hy_cli_parse_precision(arg, prec, &d), &d);
}

int hy_cli_device_pick(hy_cli *c, const char *name, int *cuda, int *ordinal, char *why,
	size_t whyn)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_status st = hy_nn_device_pick(name, cuda, ordinal, why, whyn, &d);
	if (st == HY_OK)
		return 0;
	hy_cli_diag(c, &d); /* "requested device unavailable: --device NAME: REASON" */
	return st == HY_EUNSUP ? 4 : hy_cli_try_help(c);
}

int hy_cli_device_check(hy_cli *c, const char *name, int threads)
{
	hy_nn_device dev;
	return hy_cli_device_resolve(c, name, threads, &dev);
}

int hy_cli_device_resolve(hy_cli *c, const char *name, int threads, hy_nn_device *out)
{
	char why[512] = "";
	out->cuda = out->ordinal = 0;
	int rc = hy_cli_device_pick(c, name ? name : "cpu", &out->cuda, &out->ordinal, why,
		sizeof why);
	if (rc)
		return rc;
	if (hy_cli_verbose(c))
		hy_cli_setup_info(c, out->cuda, out->ordinal, why, threads);
	return 0;
}

void hy_cli_setup_info(hy_cli *c, int cuda, int ordinal, const char *why, int threads)
{
	char dev[600], thr[64];
	if (cuda)
		snprintf(dev, sizeof dev, "cuda:%d", ordinal);
	else
		snprintf(dev, sizeof dev, "cpu%s%s%s", why && why[0] ? " (auto: no usable GPU: " : "",
			why ? why : "", why && why[0] ? ")" : "");
	if (threads > 0)
		snprintf(thr, sizeof thr, "%d thread%s", threads, threads == 1 ? "" : "s");
	else
		snprintf(thr, sizeof thr, "the checkpoint's threads");
	int n = hy_nn_threads_default();
	hy_cli_info(c, "device %s, %s of %d usable CPU%s%s%s", dev, thr, n, n == 1 ? "" : "s",
		cuda ? "" : ", cpu path ", cuda ? "" : hy_nn_cpu_path_describe());
}

int hy_cli_row_threads(hy_cli *c, const char *arg, void *dest)
{
	return hy_cli_opt_threads(c, arg, dest) ? 2 : 0;
}

int hy_cli_row_seed(hy_cli *c, const char *arg, void *dest)
{
	return hy_cli_opt_seed(c, arg, UINT64_MAX, dest) ? 2 : 0;
}

int hy_cli_row_seed63(hy_cli *c, const char *arg, void *dest)
{
	return hy_cli_opt_seed(c, arg, INT64_MAX, dest) ? 2 : 0;
}

int hy_cli_row_device(hy_cli *c, const char *arg, void *dest)
{
	return hy_cli_opt_device(c, arg, dest) ? 2 : 0;
}

int hy_cli_row_cpu_path(hy_cli *c, const char *arg, void *dest)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	(void)dest;
	if (hy_nn_cpu_path_set(arg, &d) != HY_OK) {
		hy_cli_usage(c, "--cpu-path: %s", d.msg);
		return 2;
	}
	return 0;
}

int hy_cli_row_precision(hy_cli *c, const char *arg, void *dest)
{
	return hy_cli_opt_precision(c, arg, dest) ? 2 : 0;
}
