/* mjai-parse: game logs (mjai JSON lines, Tenhou mjlog XML, tenhou.net/6
 * JSON, event streams; plain, gzip, zstd, tar/zip, directories) → event
 * stream or mjai JSON lines. Option parsing and wiring only. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "core/status.h"
#include "docs/source.h"
#include "engine/replay.h"
#include "events/event.h"
#include "events/stream.h"
#include "io/cleanup.h"
#include "io/output.h"
#include "mjai/mjai.h"
#include "tenhou/writer.h"


enum { FMT_EVENTS, FMT_JSON, FMT_MJLOG, FMT_TENHOU6 };

typedef struct run {
	hy_cli *cli;
	int fmt, keep_going, stats, check, write;
	hy_replay_report rep;
	uint64_t bad_games;  /* games with replay issues */
	hy_output out;
	hy_evs_writer *w;
	uint64_t games, kyoku, events, skipped, docs;
	uint64_t per_type[HY_EV_TYPE_COUNT];
	int reported;       /* the failing game's message is already out */
	hy_diag err;        /* write error, if any */
} run;

static hy_status on_issue(void *ctx, const hy_replay_issue *is)
{
	run *r = ctx;
	const char *src = is->game->source && is->game->source[0] ? is->game->source : "(input)";
	static const char *const kinds[] = {"illegal event", "score change differs",
					    "kyoku start scores differ", "final scores differ"};
	const char *kind = is->kind < 4 ? kinds[is->kind] : "issue";
	if (is->line)
		hy_cli_say(r->cli, "%s:%u: %s: %s", src, is->line, kind, is->msg);
	else
		hy_cli_say(r->cli, "%s: game %u, event %zu: %s: %s", src, is->game->index + 1,
			is->event + 1, kind, is->msg);
	return HY_OK;
}

static hy_status check_game(run *r, const hy_game *g)
{
	uint64_t before = r->rep.illegal + r->rep.mismatch;
	hy_diag d;
	hy_diag_init(&d, g->source);
	hy_status s = hy_replay_game(g, &r->rep, &d);
	if (s != HY_OK) {
		hy_cli_diag(r->cli, &d);
		return s;
	}
	r->bad_games += r->rep.illegal + r->rep.mismatch != before;
	return HY_OK;
}

/* One game as a Tenhou log, written whole or not at all: into memory
 * first, so that a game the format cannot hold leaves nothing behind. */
static hy_status write_tenhou(run *r, const hy_game *g, hy_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_status s = r->fmt == FMT_MJLOG ? hy_tenhou_write_mjlog(m, g, d)
					  : hy_tenhou_write_json6(m, g, d);
	if (fclose(m) != 0 && s == HY_OK)
		s = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	if (s == HY_EIO) /* into memory: only allocation fails */
		s = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	if (s == HY_OK && fwrite(buf, 1, len, r->out.f) != len)
		s = HY_EIO;
	free(buf);
	return s;
}

static hy_status on_game(void *ctx, hy_game *g)
{
	run *r = ctx;
	hy_status s = HY_OK;
	if (r->check && (s = check_game(r, g)) != HY_OK)
		return s;
	if (r->write && (r->fmt == FMT_MJLOG || r->fmt == FMT_TENHOU6)) {
		/* a game the format cannot hold is this game's fault, named
		 * like bad data; only a failed write is the output's */
		hy_diag d;
		hy_diag_init(&d, g->source);
		d.game = g->index;
		if (r->fmt == FMT_MJLOG && r->games > 0)
			s = hy_diag_set(&d, HY_EUNSUP, 0, "mjlog holds one game, and this is the "
					"second one\nhint: convert one game at a time, or use "
					"--format tenhou6 (a game per line)");
		else
			s = write_tenhou(r, g, &d);
		if (s == HY_EIO) {
			hy_diag_set(&r->err, s, 0, "cannot write: %s", strerror(errno ? errno : EIO));
			return s;
		}
		if (s == HY_EUNSUP && r->games > 0 && r->fmt == FMT_MJLOG) {
			hy_cli_diag(r->cli, &d);
			r->reported = 1;
			return s;
		}
		if (s != HY_OK) { /* a game the format cannot hold: bad data */
			hy_cli_diag(r->cli, &d);
			if (r->keep_going && s != HY_ENOMEM) {
				r->skipped++;
				return HY_OK;
			}
			r->reported = 1;
			return s;
		}
	} else if (r->write) {
		s = r->fmt == FMT_JSON ? hy_mjai_write_game(r->out.f, g)
				       : hy_evs_write_game(r->w, g, &r->err);
		if (s != HY_OK) {
			if (r->fmt == FMT_JSON)
				hy_diag_set(&r->err, s, 0, "cannot write mjai JSON: %s",
					    strerror(errno ? errno : EIO));
			return s;
		}
	}
	r->games++;
	r->events += g->n;
	for (size_t i = 0; i < g->n; i++) {
		r->per_type[g->ev[i].type]++;
		r->kyoku += g->ev[i].type == HY_EV_START_KYOKU;
	}
	return HY_OK;
}

static hy_status on_bad(void *ctx, const hy_diag *d)
{
	run *r = ctx;
	return hy_cli_bad_game(r->cli, d, r->keep_going, &r->reported, &r->skipped);
}

/* The counts (-v, -s or skipped games), then with types the events per type
 * (-s, or skipped games). */
static void print_stats(const run *r, int types)
{
	hy_cli_progress_clear(r->cli);
	fprintf(stderr, "%s: %llu documents, %llu games, %llu kyoku, %llu events",
		r->cli->prog, (unsigned long long)r->docs, (unsigned long long)r->games,
		(unsigned long long)r->kyoku, (unsigned long long)r->events);
	if (r->skipped)
		fprintf(stderr, ", %llu bad games skipped", (unsigned long long)r->skipped);
	fputc('\n', stderr);
	for (int t = HY_EV_START_GAME; types && t < HY_EV_TYPE_COUNT; t++)
		fprintf(stderr, "%s:   %-15s %llu\n", r->cli->prog, hy_ev_type_name(t),
			(unsigned long long)r->per_type[t]);
}

/* --format's row (cli/opts.h): the output format */
static int opt_format(hy_cli *cli, const char *arg, void *dest)
{
	static const char *const names[] = {"events", "json", "mjlog", "tenhou6"};
	int k = 0;
	while (k < 4 && strcmp(arg, names[k]) != 0)
		k++;
	if (k == 4)
		return hy_cli_usage(cli, "bad --format '%s' (events, json, mjlog or tenhou6)", arg);
	*(int *)dest = k;
	return 0;
}

/* The output after the inputs: the stream's trailer and the commit, or,
 * after a failure, never a trailer (the next stage must fail too) and the
 * temporary removed; the first failure's status. */
static hy_status finish_output(run *r, hy_cli *cli, hy_status first, hy_diag *dp)
{
	hy_diag d = *dp;
	if (first == HY_OK && r->w) {
		hy_evs_writer *w = r->w;
		r->w = NULL;
		first = hy_evs_writer_close(w, &r->err);
		if (first != HY_OK)
			hy_cli_diag(cli, &r->err);
	}
	if (first == HY_OK) {
		hy_diag_init(&d, NULL);
		first = hy_output_commit(&r->out, &d);
		if (first != HY_OK && d.msg[0])
			hy_cli_diag(cli, &d);
	} else {
		/* never a trailer after a failure: the next stage must fail too */
		if (r->w) {
			char why[1400], buf[1200];
			const hy_diag *e = r->err.status ? &r->err : &d;
			snprintf(why, sizeof why, "%s failed: %s", cli->prog,
				 hy_cli_diag_text(e, buf, sizeof buf));
			hy_evs_writer_abort(r->w, why);
		}
		hy_output_abort(&r->out);
	}
	return first;
}

/* --check's report (on stderr); 1 when the inputs were read whole and some
 * game broke the rules. */
static int print_check(const run *r, const hy_cli *cli, hy_status first)
{
	if (first != HY_OK)
		fprintf(stderr,
			"%s: check STOPPED after %llu games: the game above failed, and the "
			"inputs after it were not checked; this is not a complete check\n",
			cli->prog, (unsigned long long)r->rep.games);
	fprintf(stderr,
		"%s: check%s: %llu games, %llu kyoku (%llu skipped: hidden hands), %llu hora, "
		"%llu ryukyoku: %llu illegal events, %llu score mismatches in %llu games\n",
		cli->prog, first != HY_OK ? " (incomplete)" : "",
		(unsigned long long)r->rep.games, (unsigned long long)r->rep.kyoku,
		(unsigned long long)r->rep.skipped_kyoku, (unsigned long long)r->rep.hora,
		(unsigned long long)r->rep.ryukyoku, (unsigned long long)r->rep.illegal,
		(unsigned long long)r->rep.mismatch, (unsigned long long)r->bad_games);
	return first == HY_OK && r->bad_games;
}

int main(int argc, char **argv)
{
	hy_cli cli;
	hy_cli_init(&cli, "mjai-parse");
	run r;
	memset(&r, 0, sizeof r);
	r.cli = &cli;
	const char *outpath = NULL;
	const hy_opt table[] = { /* cli/opts.h */
		{.type = HY_OPT_TEXT, .help = "usage: mjai-parse [options] [PATH...]\n"
			 "Reads game logs and writes a binary event stream (or mjai JSON lines,\n"
			 "or Tenhou mjlog XML or tenhou.net/6 JSON: a log converter).\n"
			 "PATH is a file, a directory (read recursively) or - for stdin (default).\n"
			 "Inputs may be mjai JSON lines, Tenhou mjlog XML, tenhou.net/6 JSON or\n"
			 "event streams, plain or gzip/zstd-compressed, or tar/zip archives of them.\n"},
		{.name = "output", .key = 'o', .type = HY_OPT_PATH, .dest = &outpath,
		 .arg = "FILE", .help = "write to FILE (atomically) instead of stdout"},
		{.name = "json", .type = HY_OPT_SET, .dest = &r.fmt, .min = FMT_JSON,
		 .help = "write mjai JSON lines instead of the event stream"},
		{.name = "format", .type = HY_OPT_CALL, .dest = &r.fmt, .call = opt_format,
		 .arg = "FMT", .help = "what to write: events (the default), json (mjai\n"
			 "JSON lines, as --json), mjlog (Tenhou mjlog XML:\n"
			 "one game) or tenhou6 (tenhou.net/6 JSON, one game\n"
			 "per line; opens in Tenhou's log viewer)"},
		{.name = "keep-going", .key = 'k', .type = HY_OPT_FLAG, .dest = &r.keep_going,
		 .help = "skip a bad game (counted) instead of failing; an\n"
			 "input that cannot be opened or read, or a run\n"
			 "left with no game, still fails"},
		{.name = "stats", .key = 's', .type = HY_OPT_FLAG, .dest = &r.stats,
		 .help = "print games, kyoku and events per type to stderr"},
		{.name = "check", .key = 'c', .type = HY_OPT_FLAG, .dest = &r.check,
		 .help = "replay every game with the rules engine: report\n"
			 "illegal events and score changes that differ from\n"
			 "the log; exit 1 if any (writes no output unless\n"
			 "-o or --json is given)"},
		HY_OPT_DOC_COMMON("no notices (errors and counts still go to stderr)",
				  "also print the counts of documents, games, kyoku\n"
				  "and events at the end"),
		{.type = HY_OPT_TEXT, .help = "\n"
			 "Exit status: 0 ok, 1 bad data or I/O error, 2 usage, 3 format or\n"
			 "version mismatch."},
		{.type = HY_OPT_END},
	};
	int operands, prc = hy_cli_parse_opts(&cli, table, 22, argc, argv, &operands);
	if (prc >= 0)
		return prc;
	optind = operands;
	r.write = !r.check || outpath || r.fmt != FMT_EVENTS;
	/* output errors name the output, never an input */
	hy_diag_init(&r.err, outpath && strcmp(outpath, "-") ? outpath : "standard output");
	r.rep.issue = on_issue;
	r.rep.ctx = &r;
	if (r.write && (!outpath || strcmp(outpath, "-") == 0) && r.fmt == FMT_EVENTS &&
	    hy_cli_stdout_binary(&cli, "a binary event stream", "use -o FILE, a pipe, or --json"))
		return 2;
	if (hy_cli_paths(&cli, (const char *const *)argv + optind, (size_t)(argc - optind),
		"input path"))
		return 2;
	hy_cli_stdin(&cli, (const char *const *)argv + optind, (size_t)(argc - optind), 0,
		"game logs");
	signal(SIGPIPE, SIG_DFL);
	hy_cleanup_install();

	hy_diag d;
	hy_diag_init(&d, outpath);
	hy_status s = hy_output_open(&r.out, outpath, &d);
	if (s != HY_OK) {
		hy_cli_diag(&cli, &d);
		return hy_status_exit(s);
	}
	if (r.write && r.fmt == FMT_EVENTS && (s = hy_evs_writer_open(&r.w, r.out.f)) != HY_OK) {
		hy_cli_say(&cli, "%s", hy_status_str(s));
		hy_output_abort(&r.out);
		return hy_status_exit(s);
	}

	hy_game_sink sink = {on_game, on_bad, &r};
	hy_diag_init(&d, NULL);
	hy_status first = hy_source_parse_paths((const char *const *)argv + optind,
						(size_t)(argc - optind), &sink, &r.docs, &d);
	if (first != HY_OK) {
		if (r.err.status)
			hy_cli_diag(&cli, &r.err); /* the output failed */
		else if (!r.reported)
			hy_cli_diag(&cli, &d);
	} else if (r.skipped && r.games == 0) { /* --keep-going kept nothing */
		hy_diag_init(&d, NULL);
		first = hy_diag_set(&d, HY_EDATA, 0, "no games: all %llu games read were bad "
				    "(skipped)", (unsigned long long)r.skipped);
		hy_cli_say(&cli, "%s", d.msg);
	}

	first = finish_output(&r, &cli, first, &d);
	if (r.stats || r.skipped || hy_cli_verbose(&cli))
		print_stats(&r, r.stats || r.skipped);
	if (r.check && print_check(&r, &cli, first))
		return 1;
	return hy_status_exit(first);
}
