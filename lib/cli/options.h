/* The options several programs share, each parsed one way so that every
 * program gives the same answer (ARCHITECTURE.md §10): -j/--threads,
 * -S/--seed, --device, --precision (-q/-v are cli.h's). A parser returns
 * HY_OK, or HY_EUSAGE with the message ("bad --threads '0': 1 to 1024");
 * its hy_cli_opt_ twin prints that as a usage error and returns 2 (0 when
 * the argument is good). */
#ifndef HY_CLI_OPTIONS_H
#define HY_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "core/status.h"
#include "nn/cuda/cuda.h"

enum { HY_CLI_THREADS_MAX = 1024 };

/* -j, --threads N: 1 to 1024. */
hy_status hy_cli_parse_threads(const char *arg, int *n, hy_diag *d);
/* The default of -j: the CPUs this process may use (its affinity mask,
 * capped by a cgroup quota: nn/threads.h). */
int hy_cli_threads_default(void);

/* -S, --seed S: decimal or 0x hexadecimal, 0 to max (UINT64_MAX; INT64_MAX
 * where the seed is written into JSON logs as a signed number). */
hy_status hy_cli_parse_seed(const char *arg, uint64_t max, uint64_t *seed, hy_diag *d);

/* --device DEV: auto, cpu, cuda or cuda:N (N 0 to 1023), by the one parser
 * of the name (nn/cuda/cuda.h hy_nn_device_parse). */
hy_status hy_cli_parse_device(const char *arg, hy_diag *d);

/* --precision P: bf16 or fp32 (*prec: HY_NN_PREC_BF16 or _FP32). */
hy_status hy_cli_parse_precision(const char *arg, int *prec, hy_diag *d);

/* The shared options as rows of an options table (cli/opts.h HY_OPT_CALL):
 * -j into int *dest; --seed into uint64_t *dest, up to 2^64 − 1 or (_63)
 * 2^63 − 1; --device into const char **dest. */
int hy_cli_row_threads(hy_cli *c, const char *arg, void *dest);
int hy_cli_row_seed(hy_cli *c, const char *arg, void *dest);
int hy_cli_row_seed63(hy_cli *c, const char *arg, void *dest);
int hy_cli_row_device(hy_cli *c, const char *arg, void *dest);
/* --cpu-path openblas|onednn|onednn-bf16|auto: sets the process's CPU path at once
 * (nn/cpupath.h; dest unused). */
int hy_cli_row_cpu_path(hy_cli *c, const char *arg, void *dest);
/* --cpu-path's help, the same in every program that has it */
#define HY_CLI_CPU_PATH_HELP                                                               \
	"the CPU's engine: openblas, onednn (fp32),\n"                                    \
	"onednn-bf16 (bf16 inference, fp32 training) or auto\n"                          \
	"(the default: onednn-bf16 where the CPU has\n"                                  \
	"avx512_bf16 or AMX, onednn on other AVX-512 CPUs,\n"                            \
	"openblas elsewhere; or HYDRA_CPU_PATH)"
/* --precision into int *dest (HY_NN_PREC_*). */
int hy_cli_row_precision(hy_cli *c, const char *arg, void *dest);

int hy_cli_opt_threads(const hy_cli *c, const char *arg, int *n);
int hy_cli_opt_seed(const hy_cli *c, const char *arg, uint64_t max, uint64_t *seed);
int hy_cli_opt_device(const hy_cli *c, const char *arg, const char **dev);
int hy_cli_opt_precision(const hy_cli *c, const char *arg, int *prec);

/* The backend a --device name asks for (nn/cuda/cuda.h hy_nn_device_pick):
 * "cpu" the CPU; "cuda" or "cuda:N" that GPU, or "prog: requested device
 * unavailable: --device NAME: REASON" and 4 (exit status) when it is not
 * usable; "auto" the GPU when usable, else the CPU with the reason in why
 * (whyn bytes). Returns 0 or 4. */
int hy_cli_device_pick(hy_cli *c, const char *name, int *cuda, int *ordinal, char *why,
	size_t whyn);

/* The device a program's models run on, resolved once before any input is
 * read (parsed and probed: "auto" the GPU when usable, else the CPU; name
 * NULL: a CPU-only program) into *out, for the program to hand down
 * (play/policy.h hy_policy_opts.dev). With -v, one line of what runs
 * where: "prog: device cpu (auto: no usable GPU: REASON), 2 threads of 2
 * usable CPUs". Returns 0, 4 (unavailable: hy_cli_device_pick) or 2 (a
 * bad name). hy_cli_device_check: the same, the result not kept. */
int hy_cli_device_resolve(hy_cli *c, const char *name, int threads, hy_nn_device *out);
int hy_cli_device_check(hy_cli *c, const char *name, int threads);
/* That -v line for a device already chosen (cuda, ordinal; why: auto's
 * reason for the CPU, or NULL); threads 0: a resumed run's, as its
 * checkpoint recorded. */
void hy_cli_setup_info(hy_cli *c, int cuda, int ordinal, const char *why, int threads);

#endif
