/* What every program in cmd/ shares, git's parse-options idea
 * (ARCHITECTURE.md §10): the program's context (its name, -q/-v), --help and
 * --version, usage errors, diagnostics, the progress line, a monotonic
 * clock, standard input or output at a terminal; the shared option parsers
 * are options.h. A cmd/ file is its option table plus wiring.
 *
 * This module is cmd/'s own code in lib/: unlike every other module it
 * prints (messages on stderr, --help and --version on stdout), always on
 * behalf of its program and named after it. It never exits: a function that
 * ends the program returns the exit status for main to return. */
#ifndef HY_CLI_CLI_H
#define HY_CLI_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* One program run. level: -1 after -q, 0 by default, 1 or more after -v. */
typedef struct hy_cli {
	const char *prog;  /* "hydra-fit": the prefix of every message        */
	int level;         /* -q / -v, the last one given wins (-vv: 2)       */
	int tty;           /* standard error is a terminal                    */
	int shown;         /* a progress line is on the terminal              */
	double t0, last;   /* progress: its start, its last drawing (seconds) */
	char *capture;     /* hy_cli_capture: messages go here, not to stderr */
	size_t capn;
} hy_cli;

void hy_cli_init(hy_cli *c, const char *prog);

/* The options every program has: -q/--quiet, -v/--verbose, -h/--help,
 * -V/--version. A program does not handle them: the options table
 * (opts.h, hy_cli_parse_opts) adds them to every table and answers them
 * through hy_cli_opt_common — -q and -v set the level and return -1
 * (parsing goes on); --help and --version return their exit status
 * (hy_cli_help, hy_cli_version); anything else, getopt's '?' after its
 * message about an unknown option or a missing argument, is a usage error
 * (hy_cli_try_help: 2). */
#define HY_CLI_OPTIONS                                                         \
	{"quiet", no_argument, 0, 'q'}, {"verbose", no_argument, 0, 'v'},      \
	{"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'}
int hy_cli_opt_common(hy_cli *c, int opt, const char *usage);

/* getopt's 'q' (-q, --quiet) or 'v' (-v, --verbose). */
void hy_cli_verbosity(hy_cli *c, int opt);
static inline int hy_cli_quiet(const hy_cli *c) { return c->level < 0; }
static inline int hy_cli_verbose(const hy_cli *c) { return c->level > 0; }

/* --help: usage on standard output; --version: "prog (hydra-c) VERSION".
 * Both return the exit status: 0, or 1 (with a message) when standard output
 * could not take it. hy_cli_stdout_done is that check alone, after any
 * report a program writes to standard output. */
int hy_cli_help(const hy_cli *c, const char *usage);
int hy_cli_version(const hy_cli *c);
int hy_cli_stdout_done(const hy_cli *c);

/* A usage error: "prog: MESSAGE" and "prog: try 'prog --help'"; returns 2.
 * hy_cli_try_help prints the second line alone (after getopt's own
 * message about an unknown option or a missing argument). */
int hy_cli_usage(const hy_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failure of the arguments that is not a usage error (bad data in one,
 * say): "prog: MESSAGE"; returns status. */
int hy_cli_fail(const hy_cli *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* While buf is set (n bytes; NULL ends it), hy_cli_usage and hy_cli_fail
 * write their MESSAGE there instead of on stderr, with no "try" line, and
 * the options table reports getopt's errors in the same way: for a program
 * that parses lines of a batch and reports each line's error itself. */
void hy_cli_capture(hy_cli *c, char *buf, size_t n);
int hy_cli_try_help(const hy_cli *c);

/* "prog: MESSAGE" on stderr, a progress line cleared first. */
void hy_cli_say(hy_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A diagnostic: "prog: source:line: msg", "prog: source: msg" or, when it
 * names no place, "prog: msg". */
void hy_cli_diag(hy_cli *c, const hy_diag *d);
/* A bad game met while reading (the `bad` hook of events/event.h): its
 * diagnostic is printed; with keep_going the game is counted in *skipped and
 * reading goes on (HY_OK); otherwise *reported is set and d's status
 * (HY_EDATA when it has none) stops the run. */
hy_status hy_cli_bad_game(hy_cli *c, const hy_diag *d, int keep_going, int *reported,
			  uint64_t *skipped);
/* d as text, as hy_cli_diag prints it after "prog: ". */
const char *hy_cli_diag_text(const hy_diag *d, char *buf, int size);
/* Detail for -v: "prog: MESSAGE" only when verbose. */
void hy_cli_info(hy_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The end of main: closes standard output; a failure to write it (not a
 * closed pipe) is reported and turns an exit status of 0 into 1. */
int hy_cli_finish(hy_cli *c, int rc);

/* Seconds on a monotonic clock. */
double hy_cli_now(void);
/* s as h:mm:ss ("?" when unknown or negative) into buf. */
void hy_cli_hms(double s, char *buf, size_t n);

/* The progress line: one line on stderr rewritten in place ("\r...\033[K"),
 * only when stderr is a terminal and not -q, at most every 0.2 s unless
 * force. hy_cli_progress_start sets the clock of the rate and the ETA. */
void hy_cli_progress_start(hy_cli *c);
int hy_cli_progress_due(hy_cli *c, int force);
void hy_cli_progress(hy_cli *c, int force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "WHAT done/total  R WHAT/s  ETA h:mm:ss" (total 0: the count alone). */
void hy_cli_progress_count(hy_cli *c, const char *what, uint64_t done, uint64_t total, int force);
/* Clears the line (hy_cli_say does it before a message). */
void hy_cli_progress_clear(hy_cli *c);
/* Leaves the last line standing: a newline when one is shown. */
void hy_cli_progress_end(hy_cli *c);

/* Standard input as the input (no paths, or one of them "-") at a
 * terminal. A program reading text (binary 0) says once "prog: reading WHAT
 * from standard input (a terminal); give files or a pipe, or see --help" and
 * goes on (0); one reading a binary stream (binary 1) refuses: "prog: no
 * input: standard input is a terminal", "hint: give WHAT as files or through
 * a pipe", and returns 2. */
int hy_cli_stdin(hy_cli *c, const char *const *paths, size_t n, int binary, const char *what);
/* Input paths as the operands or a repeatable option gave them: an empty
 * one is a usage error before any work ("prog: empty WHAT (argument N)",
 * 2; N counts from 1 among paths), as HY_OPT_PATH rows are (cli/opts.h);
 * else 0. */
int hy_cli_paths(hy_cli *c, const char *const *paths, size_t n, const char *what);
/* A binary stream never goes to a terminal: when standard output is one,
 * "prog: refusing to write WHAT to a terminal", "hint: HINT", and 2; else 0. */
int hy_cli_stdout_binary(hy_cli *c, const char *what, const char *hint);

#endif
