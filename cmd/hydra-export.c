/* hydra-export: a checkpoint's inference network as an ONNX model, and the
 * reference outputs it must reproduce (ARCHITECTURE.md §7). Option parsing
 * and wiring only: the graph is lib/export/onnx, the reference
 * lib/export/reference. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "core/version.h"
#include "data/source.h"
#include "export/onnx.h"
#include "export/reference.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "nn/checkpoint.h"
#include "nn/threads.h"
#include "samples/h5.h"
#include "samples/reader.h"


static int fail(hy_cli *cli, const hy_diag *d)
{
	hy_cli_diag(cli, d);
	return hy_status_exit(d->status ? d->status : HY_EIO);
}

/* The first `limit` samples of the inputs, gathered by hy_data_scan_model.
 * The scan goes on to the end of every input after the limit is reached:
 * only the end of a stream (its trailer and checksum, or the ABORT record
 * of a producer that failed) says that the samples taken are good. */
typedef struct gather {
	hy_sample *s;
	size_t have, limit;
} gather;

static int gather_batch(void *u, const hy_sample *s, size_t n)
{
	gather *g = u;
	size_t k = n < g->limit - g->have ? n : g->limit - g->have;
	memcpy(g->s + g->have, s, k * sizeof *s);
	g->have += k;
	return 0; /* read on to the end: the samples are checked there */
}

/* The samples must hold the observation the model was trained on
 * (obs_version, the checkpoint's): the check hydra-eval makes too. */
static hy_status read_samples(const char *const *paths, int npaths, size_t limit,
	int obs_version, hy_sample **out, size_t *n, hy_diag *d)
{
	static const char *const stdin_only[] = {"-"};
	if (!npaths) {
		paths = stdin_only;
		npaths = 1;
	}
	enum { BATCH = 64 };
	hy_sample *s = calloc(limit, sizeof *s), *buf = malloc(BATCH * sizeof *buf);
	if (!s || !buf) {
		free(s);
		free(buf);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory for %zu samples", limit);
	}
	gather g = {s, 0, limit};
	hy_status st = hy_data_scan_model(paths, (size_t)npaths, buf, BATCH, gather_batch, &g,
		obs_version, d);
	free(buf);
	size_t have = g.have;
	if (st == HY_OK && !have)
		st = hy_diag_set(d, HY_EDATA, 0, "no samples");
	if (st) {
		free(s);
		return st;
	}
	*out = s;
	*n = have;
	return HY_OK;
}

/* The rules between the options and the operands: 0, or a usage error. */
static int check_args(hy_cli *cli, int argc, char **argv, int reference, int weights,
	int64_t limit, const char *outpath)
{
	if (optind >= argc)
		return hy_cli_usage(cli, "no checkpoint given");
	if (!reference && argc - optind > 1)
		return hy_cli_usage(cli, "more than one checkpoint ('%s'): samples go with "
			"--reference", argv[optind + 1]);
	if (!reference && limit)
		return hy_cli_usage(cli, "--limit is an option of --reference");
	if (weights && reference)
		return hy_cli_usage(cli, "--weights and --reference are two outputs: give one");
	if (weights && (!outpath || strcmp(outpath, "-") == 0))
		return hy_cli_usage(cli, "--weights writes an HDF5 file: give -o FILE.h5");
	return 0;
}

/* --weights: the checkpoint without its moments (nn/checkpoint.h). */
static int write_weights(hy_cli *cli, const char *ckpt, const char *outpath)
{
	hy_diag d;
	hy_diag_init(&d, NULL);
	hy_nn_ckpt_reader *ck;
	if (hy_nn_ckpt_open(ckpt, &ck, &d))
		return fail(cli, &d);
	hy_cleanup_install();
	hy_status st = hy_nn_ckpt_save_weights(ck, outpath, &d);
	hy_nn_ckpt_close(ck);
	return st ? fail(cli, &d) : 0;
}

/* The checkpoint's network on the CPU, and its observation version; HY_OK,
 * or a status with d said (a model with the oracle planes is refused: the
 * exported graph takes the 85 public planes). */
static hy_status load_model(const char *ckpt, int threads, hy_nn_ctx *ctx, hy_nn_model *m,
	int *obs_version, hy_diag *d)
{
	hy_nn_ckpt_reader *ck; /* opened once (nn/checkpoint.h) */
	hy_status st = hy_nn_ckpt_open(ckpt, &ck, d);
	if (st)
		return st;
	if ((st = hy_nn_ckpt_obs_of(ck, obs_version, d)) == HY_OK && hy_nn_ckpt_arch_of(ck).oracle)
		st = hy_diag_set(d, HY_EUNSUP, 0, "'%s' has the 205 oracle planes (hydra-fit "
			"--oracle): the exported graph takes the 85 public planes; a teacher is not "
			"exported", ckpt);
	if (st) {
		hy_nn_ckpt_close(ck);
		return st;
	}
	hy_nn_ctx_init(ctx, threads);
	if ((st = hy_nn_model_init(m, hy_nn_ckpt_arch_of(ck), hy_nn_backend_cpu(), ctx, d))) {
		hy_nn_ckpt_close(ck);
		return st;
	}
	st = hy_nn_ckpt_load_from(ck, m, NULL, 1, d);
	hy_nn_ckpt_close(ck);
	if (st)
		hy_nn_model_free(m);
	return st;
}

int main(int argc, char **argv)
{
	hy_nn_threads_init(argv); /* first: may start the program again (nn/threads.h) */
	hy_h5_init();             /* before any HDF5 call (samples/h5.h) */
	hy_cli cli;
	hy_cli_init(&cli, "hydra-export");
	const char *outpath = NULL;
	int reference = 0, weights = 0, threads = hy_cli_threads_default();
	int64_t limit = 0; /* 0: not given (100) */
	const hy_opt table[] = { /* cli/opts.h */
		{.type = HY_OPT_TEXT, .help = "usage: hydra-export [options] CKPT\n"
			 "       hydra-export --reference [options] CKPT [PATH...]\n"
			 "       hydra-export --weights -o FILE.h5 CKPT\n"
			 "Writes the inference network of a checkpoint of hydra-fit as an ONNX model\n"
			 "(opset 17): inputs obs [N,85,34] float and legal [N,46] bool; outputs\n"
			 "policy_logits [N,46] (-inf where illegal), value [N], grp_logits [N,24],\n"
			 "tenpai_logits [N,3] and danger_logits [N,3,34].\n"
			 "With --reference it runs the checkpoint's own forward pass instead (the\n"
			 "CPU, fp32) on samples (streams or shards; PATH - or none: stdin) and writes\n"
			 "one JSON line per sample with the graph's inputs and the outputs the ONNX\n"
			 "model must reproduce. With --weights it writes the checkpoint without its\n"
			 "optimiser moments (a third of the size; it plays, reads and starts a run\n"
			 "with --init, and cannot be resumed): the files models/ ships.\n"},
		{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &outpath,
		 .arg = "FILE", .help = "where to write (default: standard output; the ONNX\n"
			 "model is never written to a terminal)"},
		{.name = "reference", .type = HY_OPT_FLAG, .dest = &reference,
		 .help = "write the reference outputs instead of the model"},
		{.name = "weights", .type = HY_OPT_FLAG, .dest = &weights,
		 .help = "write the checkpoint with its weights alone (HDF5)"},
		{.name = "limit", .type = HY_OPT_I64, .dest = &limit, .min = 1, .max = 100000,
		 .range = "1 to 100000",
		 .arg = "N", .help = "with --reference: the first N samples (default 100)"},
		{.name = "threads", .key = 'j', .type = HY_OPT_CALL, .dest = &threads, .call = hy_cli_row_threads,
		 .arg = "N", .help = "CPU threads of the forward pass (default: the CPUs\n"
			 "this process may use)"},
		HY_OPT_DOC_COMMON("no notices (errors still go to stderr)",
				  "say the device and the threads"),
		{.type = HY_OPT_TEXT, .help = "\n"
			 "Exit status: 0 ok, 1 bad data, I/O error or a build without the ONNX\n"
			 "exporter, 2 usage, 3 format or version mismatch (not a checkpoint)."},
		{.type = HY_OPT_END},
	};
	int first, rc = hy_cli_parse_opts(&cli, table, 25, argc, argv, &first);
	if (rc >= 0)
		return rc;
	optind = first;
	if ((rc = check_args(&cli, argc, argv, reference, weights, limit, outpath)))
		return rc;
	if (!limit)
		limit = 100;
	int to_stdout = !outpath || strcmp(outpath, "-") == 0;
	if (!reference && to_stdout &&
		hy_cli_stdout_binary(&cli, "a binary ONNX model", "use -o FILE.onnx or a pipe"))
		return 2;
	if (hy_cli_paths(&cli, (const char *const *)argv + optind, (size_t)(argc - optind),
		"path"))
		return 2;
	if (reference && hy_cli_stdin(&cli, (const char *const *)argv + optind + 1,
		(size_t)(argc - optind - 1), 1, "sample streams or shards"))
		return 2;
	hy_cli_device_check(&cli, NULL, threads); /* -v: the CPU and its threads */
	const char *ckpt = argv[optind];
	hy_diag d;
	hy_diag_init(&d, NULL);
	if (weights)
		return write_weights(&cli, ckpt, outpath);
	if (!reference && !hy_export_onnx_built()) { /* before loading anything */
		hy_export_onnx_save(NULL, NULL, NULL, -1, &d); /* says why */
		return fail(&cli, &d);
	}
	signal(SIGPIPE, SIG_DFL);
	hy_cleanup_install();

	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_diag_init(&d, NULL); /* the checkpoint's messages name it */
	int obs_version;
	if (load_model(ckpt, threads, &ctx, &m, &obs_version, &d))
		return fail(&cli, &d);
	hy_status st;
	if (!reference) {
		hy_diag_init(&d, to_stdout ? NULL : outpath);
		st = hy_export_onnx_save(outpath, &m, HY_VERSION, obs_version, &d);
	} else {
		hy_sample *s = NULL;
		size_t n = 0;
		st = read_samples((const char *const *)argv + optind + 1, argc - optind - 1,
			(size_t)limit, obs_version, &s, &n, &d);
		hy_output o;
		if (st == HY_OK) {
			hy_diag_init(&d, to_stdout ? NULL : outpath);
			st = hy_output_open(&o, outpath, &d);
		}
		if (st == HY_OK) {
			st = hy_export_reference(&m, s, n, o.f, &d);
			if (st == HY_OK)
				st = hy_output_commit(&o, &d);
			else
				hy_output_abort(&o);
		}
		free(s);
	}
	hy_nn_model_free(&m);
	return st ? fail(&cli, &d) : 0;
}
