/* hydra-augment: suit-permutation augmentation of sample streams and HDF5
 * shards (ARCHITECTURE.md §6). Option parsing and wiring only: the permutations are
 * lib/samples/augment, the formats lib/samples/{stream,shard,reader}. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
#include "events/permute.h"
#include "io/cleanup.h"
#include "samples/h5.h"
#include "io/output.h"
#include "samples/augment.h"
#include "samples/reader.h"
#include "samples/shard.h"
#include "samples/stream.h"


enum { MODE_LIST, MODE_RANDOM };

typedef struct run {
	int mode;
	int perms[64];
	int nperms;
	uint64_t seed;
	hy_sms_writer *sw;
	hy_shard_writer *hw;
	uint64_t in, out;
	int obs_version; /* of the inputs; -1 before the first is known */
} run;

static int parse_perms(run *r, const char *spec)
{
	if (strcmp(spec, "all") == 0) {
		r->mode = MODE_LIST;
		for (r->nperms = 0; r->nperms < HY_SUIT_PERMS; r->nperms++)
			r->perms[r->nperms] = r->nperms;
		return 0;
	}
	if (strcmp(spec, "random") == 0) {
		r->mode = MODE_RANDOM;
		return 0;
	}
	r->mode = MODE_LIST;
	r->nperms = 0;
	const char *p = spec;
	for (;;) {
		if (*p < '0' || *p > '5' || (p[1] != ',' && p[1] != '\0') ||
		    r->nperms == (int)(sizeof r->perms / sizeof r->perms[0]))
			return -1;
		r->perms[r->nperms++] = *p - '0';
		if (p[1] == '\0')
			return 0;
		p += 2;
	}
}

static hy_status emit(run *r, const hy_sample *s, hy_diag *d)
{
	/* samples with the hidden state (hydra-sp --hidden) stay a stream of
	 * the extension; a shard refuses them (hy_shard_write) */
	if (!r->hw && r->out == 0 && (s->flags & HY_SAMPLE_F_HIDDEN) &&
	    hy_sms_writer_set_hidden(r->sw, 1) != HY_OK)
		return hy_diag_set(d, HY_EUSAGE, 0, "cannot start a stream of the hidden state");
	r->out++;
	return r->hw ? hy_shard_write(r->hw, s, d) : hy_sms_write(r->sw, s, d);
}

/* The output keeps the inputs' observation version (sample.h), which
 * must be one: learnt at the first sample read (or at the end of an input
 * without samples), before the first write. */
static hy_status keep_obs_version(run *r, const hy_sample_reader *in, hy_diag *d)
{
	int was = r->obs_version;
	hy_status st = hy_sample_obs_agree(in, &r->obs_version, NULL, d);
	if (st || was == r->obs_version)
		return st;
	st = r->hw ? hy_shard_writer_set_obs_version(r->hw, r->obs_version, d)
		   : hy_sms_writer_set_obs_version(r->sw, (unsigned)r->obs_version);
	if (st && !d->msg[0])
		hy_diag_set(d, st, 0, "cannot record observation version %d", r->obs_version);
	return st;
}

static hy_status augment_one(run *r, const hy_sample *s, hy_diag *d)
{
	hy_sample t;
	if (r->mode == MODE_RANDOM) {
		hy_augment_sample(s, &t, hy_augment_random_perm(r->seed, s->game));
		return emit(r, &t, d);
	}
	for (int i = 0; i < r->nperms; i++) {
		hy_augment_sample(s, &t, r->perms[i]);
		hy_status st = emit(r, &t, d);
		if (st)
			return st;
	}
	return HY_OK;
}

/* Shell-like join of argv, for the shard's command_line attribute. */
static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += 4 * strlen(argv[i]) + 3;
	char *s = malloc(n), *p = s;
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			*p++ = ' ';
		const char *a = argv[i];
		int plain = *a != '\0';
		for (const char *c = a; *c; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "-_./,=:%+@", *c))
				plain = 0;
		if (plain) {
			p += sprintf(p, "%s", a);
			continue;
		}
		*p++ = '\'';
		for (const char *c = a; *c; c++) {
			if (*c == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* --perms and --format rows (cli/opts.h) */
static int opt_perms(hy_cli *cli, const char *arg, void *dest)
{
	if (parse_perms(dest, arg) != 0)
		return hy_cli_usage(cli, "bad --perms '%s': use all, random or a list of 0-5 such "
			"as 0,3,5", arg);
	return 0;
}

static int opt_format(hy_cli *cli, const char *arg, void *dest)
{
	if (strcmp(arg, "stream") != 0 && strcmp(arg, "shard") != 0)
		return hy_cli_usage(cli, "bad --format '%s': stream or shard", arg);
	*(const char **)dest = arg;
	return 0;
}

/* The options, where aug_table writes them: the run R and the rest. */
static run R;
static struct aug_args {
	const char *outpath, *format;
	int stats, seed_given;
} A;

static const hy_opt aug_table[] = {
	{.type = HY_OPT_TEXT, .help = "usage: hydra-augment [options] [PATH...]\n"
		 "Applies suit permutations (m, p, s; honours fixed) to training samples.\n"
		 "PATH is a sample stream or an HDF5 shard (told apart by content), or - for\n"
		 "stdin (the default). Writes a sample stream, or a shard with -o FILE.h5.\n"},
	{.name = "perms", .key = 'p', .type = HY_OPT_CALL, .dest = &R, .call = opt_perms,
	 .arg = "SPEC", .help = "all (the default): each sample in permutations 0-5;\n"
		 "random: one permutation per game, chosen from --seed\n"
		 "and the game id; or a list such as 0,3,5 (in order)"},
	{.name = "seed", .key = 'S', .type = HY_OPT_CALL, .dest = &R.seed, .call = hy_cli_row_seed,
	 .seen = &A.seed_given,
	 .arg = "S", .help = "seed for --perms random (decimal or 0x hex; default 0)"},
	{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &A.outpath,
	 .arg = "FILE", .help = "write to FILE (atomically) instead of stdout"},
	{.name = "format", .type = HY_OPT_CALL, .dest = &A.format, .call = opt_format,
	 .arg = "FMT", .help = "stream or shard (default: shard when FILE ends in .h5)"},
	{.name = "stats", .key = 's', .type = HY_OPT_FLAG, .dest = &A.stats,
	 .help = "print samples read and written to stderr"},
	HY_OPT_DOC_COMMON("no notices (errors still go to stderr)",
			  "as --stats"),
	{.type = HY_OPT_TEXT, .help = "\n"
		 "Permutations are numbered 0-5 in lexicographic order of (pi(m),pi(p),pi(s)):\n"
		 "0 identity, 1 p<>s, 2 m<>p, 3 m>p>s>m, 4 m>s>p>m, 5 m<>s.\n"
		 "Exit status: 0 ok, 1 bad data or I/O error, 2 usage, 3 format or\n"
		 "version mismatch."},
	{.type = HY_OPT_END},
};

/* Every input's samples, augmented, to the writer; the first failure's
 * status (said), HY_OK when every input ended whole. */
static hy_status augment_inputs(hy_cli *cli, const char *const *paths, int npaths,
	const char *out_name)
{
	hy_status st = HY_OK;
	hy_diag d;
	for (int i = 0; i < npaths && !st; i++) {
		hy_sample_reader *in = NULL;
		hy_diag_init(&d, NULL);
		st = hy_sample_reader_open(&in, paths[i], &d);
		if (st) {
			hy_cli_diag(cli, &d);
			break;
		}
		hy_sample s;
		uint64_t first = R.in;
		while ((st = hy_sample_read(in, &s, &d)) == HY_OK) {
			if (R.in == first && (st = keep_obs_version(&R, in, &d)) != HY_OK)
				break;
			R.in++;
			hy_diag wd;
			hy_diag_init(&wd, out_name);
			if ((st = augment_one(&R, &s, &wd)) != HY_OK) {
				hy_cli_diag(cli, &wd);
				break;
			}
		}
		if (st == HY_STOP)
			st = keep_obs_version(&R, in, &d);
		if (st && d.status)
			hy_cli_diag(cli, &d);
		hy_sample_reader_close(in);
	}
	return st;
}

int main(int argc, char **argv)
{
	hy_cli cli;
	hy_cli_init(&cli, "hydra-augment");
	R.obs_version = -1;
	parse_perms(&R, "all");
	int operands, prc = hy_cli_parse_opts(&cli, aug_table, 22, argc, argv, &operands);
	if (prc >= 0)
		return prc;
	optind = operands;
	if (A.seed_given && R.mode != MODE_RANDOM)
		return hy_cli_usage(&cli, "--seed needs --perms random");
	int to_stdout = !A.outpath || strcmp(A.outpath, "-") == 0;
	int shard = A.format ? strcmp(A.format, "shard") == 0 : !to_stdout && ends_with(A.outpath, ".h5");
	if (shard && to_stdout)
		return hy_cli_usage(&cli, "a shard cannot go to stdout: use -o FILE.h5");
	if (to_stdout && hy_cli_stdout_binary(&cli, "a binary sample stream", "use -o FILE or a pipe"))
		return 2;
	if (hy_cli_paths(&cli, (const char *const *)argv + optind, (size_t)(argc - optind),
		"input path") ||
		hy_cli_stdin(&cli, (const char *const *)argv + optind, (size_t)(argc - optind), 1,
		"sample streams or shards"))
		return 2;
	signal(SIGPIPE, SIG_DFL);
	hy_cleanup_install();
	hy_h5_init();

	int npaths = argc - optind;
	const char *stdin_only[] = {"-"};
	const char *const *paths = npaths ? (const char *const *)argv + optind : stdin_only;
	if (!npaths)
		npaths = 1;

	hy_diag d;
	hy_diag_init(&d, A.outpath);
	hy_output out;
	memset(&out, 0, sizeof out);
	hy_status st = HY_OK;
	char *cmdline = NULL;
	if (shard) {
		cmdline = join_args(argc, argv);
		const char **srcs = malloc((size_t)npaths * sizeof *srcs);
		if (!cmdline || !srcs) {
			free(srcs);
			free(cmdline);
			hy_cli_say(&cli, "out of memory");
			return 1;
		}
		for (int i = 0; i < npaths; i++)
			srcs[i] = strcmp(paths[i], "-") == 0 ? "(stdin)" : paths[i];
		hy_shard_meta m = {NULL, cmdline, srcs, (size_t)npaths, 0, 0, 0};
		st = hy_shard_writer_open(&R.hw, A.outpath, &m, &d);
		free(srcs);
	} else {
		st = hy_output_open(&out, A.outpath, &d);
		if (!st && (st = hy_sms_writer_open(&R.sw, out.f)) != HY_OK) {
			hy_diag_set(&d, st, 0, "cannot start the sample stream");
			hy_output_abort(&out);
		}
	}
	if (st) {
		hy_cli_diag(&cli, &d);
		free(cmdline);
		return hy_status_exit(st);
	}

	st = augment_inputs(&cli, paths, npaths, to_stdout ? "standard output" : A.outpath);

	if (R.hw) {
		if (!st) {
			hy_diag_init(&d, A.outpath);
			if ((st = hy_shard_writer_close(R.hw, &d)) != HY_OK)
				hy_cli_diag(&cli, &d);
		} else {
			hy_shard_writer_abort(R.hw);
		}
	} else {
		hy_status cs = HY_OK;
		hy_diag_init(&d, to_stdout ? "standard output" : A.outpath);
		if (!st) {
			cs = hy_sms_writer_close(R.sw, &d);
			if (!cs)
				cs = hy_output_commit(&out, &d);
			if (cs && d.msg[0])
				hy_cli_diag(&cli, &d);
			st = cs;
		} else {
			/* an abort marker, never a trailer: readers see the failure */
			hy_sms_writer_abort(R.sw, "hydra-augment failed");
		}
		if (st && !to_stdout)
			hy_output_abort(&out);
	}
	free(cmdline);
	if (A.stats || hy_cli_verbose(&cli))
		hy_cli_say(&cli, "%" PRIu64 " samples read, %" PRIu64 " written", R.in,
			st ? (uint64_t)0 : R.out);
	return hy_status_exit(st);
}
