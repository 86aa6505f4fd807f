/* hydra-encode: event streams (or any game log) → training samples
 * (ARCHITECTURE.md §5–6) as a sample stream or HDF5 shards. Option parsing and
 * wiring only: the encoder is lib/encode, the formats lib/samples. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "core/num.h"
#include "core/status.h"
#include "core/version.h"
#include "docs/source.h"
#include "encode/dedup.h"
#include "encode/encode.h"
#include "events/event.h"
#include "io/input.h"
#include "io/cleanup.h"
#include "samples/h5.h"
#include "io/output.h"
#include "io/staged.h"
#include "samples/shard.h"
#include "samples/stream.h"


/* One output: a stream or shards, possibly rotated. */
typedef struct sink {
	const char *path;   /* NULL: stdout */
	int shard, pattern;
	uint64_t per_file;  /* 0: no rotation */
	int index;          /* file number of the pattern */
	int open;
	hy_output out;
	hy_sms_writer *w;
	hy_shard_writer *sw;
	uint64_t in_file, total, files;
	const hy_shard_meta *meta;
	hy_fileset *set;    /* finished files, renamed together at the end */
	char cur[4096];     /* name of the file being written (messages) */
} sink;

typedef struct run {
	hy_cli *cli;
	hy_encoder *enc;
	sink train, val;
	double val_fraction;
	double min_u;       /* smallest split draw of any game (empty-split hint) */
	int keep_going, stats, keep_dups;
	hy_dedup seen;      /* game ids written so far */
	uint64_t skipped, docs, val_games, train_games, dups;
	int reported;
	hy_status werr;  /* output failure */
} run;

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* 1 if s holds exactly one %d conversion (flags 0 and a width allowed),
 * 0 if none, -1 if anything else follows a '%'. */
static int pattern_kind(const char *s)
{
	int n = 0;
	for (const char *p = s; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p != 'd')
			return -1;
		n++;
	}
	return n == 0 ? 0 : n == 1 ? 1 : -1;
}

static hy_status sink_open(sink *k, hy_diag *d)
{
	char name[4096];
	const char *path = k->path;
	if (k->pattern) {
		int len = snprintf(name, sizeof name, k->path, k->index);
		if (len < 0 || (size_t)len >= sizeof name)
			return hy_diag_set(d, HY_EUSAGE, 0, "output name too long");
		path = name;
	}
	hy_status s;
	snprintf(k->cur, sizeof k->cur, "%s", path ? path : "standard output");
	if (k->shard) {
		hy_diag_init(d, path);
		s = hy_shard_writer_open(&k->sw, path, k->meta, d);
	} else {
		hy_diag_init(d, path);
		s = hy_output_open(&k->out, path, d);
		if (s == HY_OK && (s = hy_sms_writer_open(&k->w, k->out.f)) != HY_OK) {
			hy_output_abort(&k->out);
			hy_diag_set(d, s, 0, "cannot start the sample stream");
		}
	}
	if (s == HY_OK) {
		k->open = 1;
		k->in_file = 0;
	}
	return s;
}

static hy_status sink_close(sink *k, hy_diag *d)
{
	if (!k->open)
		return HY_OK;
	k->open = 0;
	k->files++;
	k->index++;
	if (k->shard) {
		hy_shard_writer *w = k->sw;
		k->sw = NULL;
		return hy_shard_writer_finish(w, k->set, d);
	}
	hy_sms_writer *w = k->w;
	k->w = NULL;
	hy_status s = hy_sms_writer_close(w, d);
	if (s != HY_OK) {
		hy_output_abort(&k->out);
		return s;
	}
	return hy_output_finish(&k->out, k->set, d);
}

/* A failed run: the open file is removed (a stream on stdout ends with an
 * abort marker instead of a trailer, so the next stage fails too: also when
 * the run failed before its first sample). */
static void sink_abort(sink *k, const char *why)
{
	hy_diag d;
	if (!k->open && (k->path || k->files || sink_open(k, &d) != HY_OK))
		return;
	k->open = 0;
	if (k->shard) {
		hy_shard_writer_abort(k->sw);
		k->sw = NULL;
	} else {
		hy_sms_writer_abort(k->w, why);
		k->w = NULL;
		hy_output_abort(&k->out);
	}
}

static hy_status sink_write(sink *k, const hy_sample *s, hy_diag *d)
{
	hy_status st;
	if (!k->open && (st = sink_open(k, d)) != HY_OK)
		return st;
	st = k->shard ? hy_shard_write(k->sw, s, d) : hy_sms_write(k->w, s, d);
	if (st != HY_OK) { /* an output error: name the output, not the input */
		snprintf(d->source, sizeof d->source, "%.500s", k->path ? k->cur : "standard output");
		d->line = 0;
		d->game = UINT32_MAX;
		return st;
	}
	k->in_file++;
	k->total++;
	if (k->per_file && k->in_file >= k->per_file)
		return sink_close(k, d);
	return HY_OK;
}

/* An empty input still gives one (empty) output file. */
static hy_status sink_finish(sink *k, hy_diag *d)
{
	if (!k->files && !k->open) {
		hy_status s = sink_open(k, d);
		if (s != HY_OK)
			return s;
	}
	return sink_close(k, d);
}

static uint64_t splitmix64(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

static hy_status on_game(void *ctx, hy_game *g)
{
	run *r = ctx;
	const hy_sample *s;
	size_t n;
	hy_diag d;
	hy_status st;
	if (!r->keep_dups) { /* a copy of a game already written: dropped, counted */
		uint64_t id;
		int fresh;
		hy_diag_init(&d, g->source);
		if ((st = hy_encode_game_id(g, &id, &d)) != HY_OK ||
		    (st = hy_dedup_add(&r->seen, id, &fresh)) != HY_OK) {
			if (st == HY_ENOMEM)
				hy_diag_set(&d, st, 0, "out of memory (the set of seen games)");
			hy_cli_diag(r->cli, &d);
			r->reported = 1;
			return st;
		}
		if (!fresh) {
			r->dups++;
			return HY_OK;
		}
	}
	st = hy_encode_game(r->enc, g, &s, &n, &d);
	if (st != HY_OK) {
		hy_cli_diag(r->cli, &d);
		if (r->keep_going && st == HY_EDATA) {
			r->skipped++;
			return HY_OK;
		}
		r->reported = 1;
		return st;
	}
	sink *k = &r->train;
	if (r->val_fraction > 0 && n) {
		double u = (double)(splitmix64(s[0].game) >> 11) * 0x1.0p-53;
		if (u < r->min_u)
			r->min_u = u;
		if (u < r->val_fraction)
			k = &r->val;
	}
	if (k == &r->val)
		r->val_games++;
	else
		r->train_games++;
	for (size_t i = 0; i < n; i++) {
		if ((st = sink_write(k, &s[i], &d)) != HY_OK) {
			hy_cli_diag(r->cli, &d);
			r->reported = 1;
			r->werr = st;
			return st;
		}
	}
	return HY_OK;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	run *r = ctx;
	return hy_cli_bad_game(r->cli, d, r->keep_going, &r->reported, &r->skipped);
}

/* The counts (-v, -s or skipped games), then with classes the samples per
 * action class (-s, or skipped games). */
static void print_stats(const run *r, int classes)
{
	const hy_encode_stats *st = hy_encoder_stats(r->enc);
	const char *prog = r->cli->prog;
	fprintf(stderr,
		"%s: %" PRIu64 " documents, %" PRIu64 " games, %" PRIu64 " kyoku (%" PRIu64
		" skipped: hidden hands), %" PRIu64 " samples",
		prog, r->docs, st->games, st->kyoku, st->skipped_kyoku, st->samples);
	if (r->val_fraction > 0)
		fprintf(stderr, " (%" PRIu64 " in %" PRIu64 " validation games)", r->val.total,
			r->val_games);
	if (r->dups)
		fprintf(stderr, ", %" PRIu64 " duplicate games dropped", r->dups);
	if (r->skipped)
		fprintf(stderr, ", %" PRIu64 " bad games skipped", r->skipped);
	fputc('\n', stderr);
	if (!classes)
		return;
	uint64_t cls[HY_ACTION_CLASSES] = {0};
	for (int a = 0; a < HY_ACTIONS; a++)
		cls[hy_action_class(a)] += st->per_action[a];
	for (int c = 0; c < HY_ACTION_CLASSES; c++)
		fprintf(stderr, "%s:   %-8s %" PRIu64 "\n", prog, hy_action_class_name(c), cls[c]);
	if (st->mismatches)
		fprintf(stderr, "%s: %" PRIu64 " score changes differ from the logs (kept)\n",
			prog, st->mismatches);
}

static int parse_seats(const char *s, unsigned *mask)
{
	*mask = 0;
	for (const char *p = s; *p;) {
		if (*p < '0' || *p > '3')
			return -1;
		*mask |= 1u << (*p - '0');
		p++;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return *mask ? 0 : -1;
}

/* Sets up one sink from a path; returns 0 or a usage exit code. */
static int sink_setup(const hy_cli *cli, sink *k, const char *path, uint64_t per_file,
	const hy_shard_meta *meta)
{
	memset(k, 0, sizeof *k);
	k->path = path && strcmp(path, "-") != 0 ? path : NULL;
	k->meta = meta;
	if (!k->path) {
		if (per_file)
			return hy_cli_usage(cli, "--shard-size needs an output file pattern");
		return hy_cli_stdout_binary((hy_cli *)cli, "a binary sample stream",
			"use -o FILE, or a pipe");
	}
	int pk = pattern_kind(k->path);
	if (pk < 0)
		return hy_cli_usage(cli, "output pattern must hold exactly one %%d conversion: '%s'",
			k->path);
	k->pattern = pk;
	if (per_file && !pk)
		return hy_cli_usage(cli, "--shard-size needs a pattern such as 'train-%%04d.h5', got "
			"'%s'", k->path);
	if (pk && !per_file)
		return hy_cli_usage(cli, "an output pattern needs --shard-size: '%s'", k->path);
	k->per_file = per_file;
	k->shard = ends_with(k->path, ".h5") || ends_with(k->path, ".hdf5");
	return 0;
}

static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	s[0] = 0;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* The rows of hydra-encode's table (cli/opts.h) with their own messages. */
static int opt_seats(hy_cli *cli, const char *arg, void *dest)
{
	if (parse_seats(arg, dest) != 0)
		return hy_cli_usage(cli, "bad --seats '%s' (want a list of 0-3 such as 0,2)", arg);
	return 0;
}

/* The options, where enc_table writes them: the run R and the rest. */
static run R;
static struct enc_args {
	const char *outpath, *valpath;
	uint64_t per_file;
	hy_encode_opts eo;
} A;

static const hy_opt enc_table[] = {
	{.type = HY_OPT_TEXT, .help = "usage: hydra-encode [options] [PATH...]\n"
		 "Replays games with the rules engine and writes one training sample per\n"
		 "decision (85x34 observation, legal mask, labels).\n"
		 "PATH is an event stream (mjai-parse output) or any log mjai-parse reads\n"
		 "(a file, a directory, or - for stdin, the default).\n"},
	{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &A.outpath,
	 .arg = "PATH", .help = "write to PATH instead of stdout: an HDF5 shard\n"
		 "when PATH ends in .h5, else a sample stream; a\n"
		 "printf pattern such as 'dir/train-%04d.h5' with\n"
		 "--shard-size numbers the files from 0"},
	{.name = "shard-size", .key = 'n', .type = HY_OPT_U64, .dest = &A.per_file, .min = 1,
	 .max = INT64_MAX, .range = "a positive integer",
	 .arg = "N", .help = "at most N samples per output file (needs a\n"
		 "pattern in -o / --val-output)"},
	{.name = "val-fraction", .type = HY_OPT_DOUBLE, .dest = &R.val_fraction, .lo = 0, .hi = 1,
	 .range = "0 to 1",
	 .arg = "F", .help = "send this fraction of games (0-1, chosen by a\n"
		 "stable hash of the game id) to --val-output"},
	{.name = "val-output", .type = HY_OPT_PATH, .dest = &A.valpath,
	 .arg = "PATH", .help = "where validation games go (same rules as -o)"},
	{.name = "seats", .type = HY_OPT_CALL, .dest = &A.eo.seats, .call = opt_seats,
	 .arg = "LIST", .help = "only these absolute seats, e.g. 0,2"},
	{.name = "keep-duplicates", .type = HY_OPT_FLAG, .dest = &R.keep_dups,
	 .help = "encode every copy of a game (default: a game\n"
		 "whose content id was seen before in the run,\n"
		 "in any format, is dropped and counted)"},
	{.name = "keep-going", .key = 'k', .type = HY_OPT_FLAG, .dest = &R.keep_going,
	 .help = "skip a bad game (counted) instead of failing;\n"
		 "an input that cannot be opened or read, or a\n"
		 "run left with no game, still fails"},
	{.name = "stats", .key = 's', .type = HY_OPT_FLAG, .dest = &R.stats,
	 .help = "print games, duplicates, kyoku and samples per\n"
		 "action type to stderr"},
	HY_OPT_DOC_COMMON("no notices (the count of duplicates dropped)",
			  "also print the counts of documents, games,\n"
			  "kyoku and samples at the end"),
	{.type = HY_OPT_TEXT, .help = "\n"
		 "Exit status: 0 ok, 1 bad data or I/O error, 2 usage, 3 format or\n"
		 "version mismatch."},
	{.type = HY_OPT_END},
};

int main(int argc, char **argv)
{
	hy_cli cli;
	hy_cli_init(&cli, "hydra-encode");
	R.cli = &cli;
	int operands, prc = hy_cli_parse_opts(&cli, enc_table, 26, argc, argv, &operands);
	if (prc >= 0)
		return prc;
	optind = operands;
	if (R.val_fraction > 0 && !A.valpath)
		return hy_cli_usage(&cli, "--val-fraction needs --val-output");
	if (A.valpath && R.val_fraction <= 0)
		return hy_cli_usage(&cli, "--val-output needs --val-fraction");

	char *cmdline = join_args(argc, argv);
	const char *const *sources = (const char *const *)argv + optind;
	static const char *const stdin_src[] = {"-"};
	hy_shard_meta meta = {
		.encoder_version = "hydra-encode (hydra-c) " HY_VERSION,
		.command_line = cmdline ? cmdline : "",
		.sources = optind < argc ? sources : stdin_src,
		.nsources = optind < argc ? (size_t)(argc - optind) : 1,
		.deflate = HY_SHARD_DEFLATE, /* explicit: the same under either reading of 0 / -1 */
	};
	int rc = sink_setup(&cli, &R.train, A.outpath, A.per_file, &meta);
	if (!rc && A.valpath)
		rc = sink_setup(&cli, &R.val, A.valpath, A.per_file, &meta);
	if (!rc && A.valpath && R.train.path && strcmp(A.valpath, R.train.path) == 0)
		rc = hy_cli_usage(&cli, "--val-output must differ from -o");
	if (!rc)
		rc = hy_cli_paths(&cli, sources, (size_t)(argc - optind), "input path");
	if (!rc)
		hy_cli_stdin(&cli, sources, (size_t)(argc - optind), 0, "game logs or event streams");
	if (rc) {
		free(cmdline);
		return rc;
	}
	signal(SIGPIPE, SIG_DFL);
	if (hy_encoder_new(&R.enc, &A.eo) != HY_OK) {
		hy_cli_say(&cli, "out of memory");
		free(cmdline);
		return 1;
	}

	hy_cleanup_install();
	hy_h5_init();
	hy_fileset set = {0};
	R.train.set = R.val.set = &set;
	R.min_u = 2;

	hy_diag d;
	hy_game_sink gsink = {on_game, on_bad, &R};
	hy_diag_init(&d, NULL);
	hy_status s = hy_source_parse_paths(sources, (size_t)(argc - optind), &gsink, &R.docs, &d);
	if (s != HY_OK && !R.reported)
		hy_cli_diag(&cli, &d);
	if (s == HY_OK && R.skipped && R.train_games + R.val_games == 0) {
		hy_diag_init(&d, NULL); /* --keep-going kept nothing */
		s = hy_diag_set(&d, HY_EDATA, 0, "no games: all %" PRIu64 " games read were "
				"bad (skipped)", R.skipped);
		hy_cli_say(&cli, "%s", d.msg);
	}
	if (s == HY_OK && A.valpath && R.val_games == 0) {
		uint64_t games = R.train_games;
		hy_diag_init(&d, A.valpath);
		if (games == 0)
			s = hy_diag_set(&d, HY_EDATA, 0,
					"the validation split is empty: the input held no games");
		else
			s = hy_diag_set(&d, HY_EDATA, 0,
					"the validation split is empty: none of the %" PRIu64 " games "
					"fell under --val-fraction %g; --val-fraction %.4g or more puts "
					"at least one game there",
					games, R.val_fraction, (floor(R.min_u * 1e4) + 1) / 1e4);
		hy_cli_diag(&cli, &d);
	}
	if (s == HY_OK) {
		hy_diag_init(&d, NULL);
		s = sink_finish(&R.train, &d);
		if (s == HY_OK && A.valpath)
			s = sink_finish(&R.val, &d);
		if (s == HY_OK)
			s = hy_fileset_commit(&set, &d); /* the whole set appears at once */
		if (s != HY_OK)
			hy_cli_diag(&cli, &d);
	}
	if (s != HY_OK) {
		char why[1400], buf[1200];
		snprintf(why, sizeof why, "%s failed: %s", cli.prog,
			 d.source[0] || d.line || d.msg[0] ? hy_cli_diag_text(&d, buf, sizeof buf)
			 : hy_status_str(s));
		sink_abort(&R.train, why);
		if (A.valpath)
			sink_abort(&R.val, why);
		hy_fileset_discard(&set);
	}
	if (R.stats || R.skipped || hy_cli_verbose(&cli))
		print_stats(&R, R.stats || R.skipped);
	else if (R.dups && s == HY_OK && !hy_cli_quiet(&cli))
		hy_cli_say(&cli, "%" PRIu64 " duplicate games dropped (--keep-duplicates keeps them)",
			R.dups);
	hy_encoder_free(R.enc);
	hy_dedup_free(&R.seen);
	free(cmdline);
	return hy_status_exit(s);
}
