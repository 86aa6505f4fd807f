/* Options declared once (git's parse-options): a program lists its options
 * in one table — long name, short name, type, range, where the value goes,
 * the argument's name and the help lines — and hy_cli_parse_opts makes the
 * getopt table from it, parses, checks each value against its range and
 * stores it, so no program writes a range check of its own; --help prints
 * the text the table's rows make (hy_cli_opts_help), so the help cannot
 * name an option the parser does not take, nor miss one it shows. The
 * messages are the shared ones: "bad --seeds 'x': 3 to 1000000" and "try
 * 'prog --help'" (status 2). tests/shell/t0870 and t0872 check that the help
 * and the man page name every option. -q/-v/-h/-V (cli.h) are parsed for
 * every table; a program shows them with HY_OPT_DOC rows, in its own words.
 * This file calls nothing beyond cli.h and core/num.h. */
#ifndef HY_CLI_OPTS_H
#define HY_CLI_OPTS_H

#include <stdint.h>

#include "cli/cli.h"

typedef enum hy_opt_type {
	HY_OPT_END = 0,   /* the table's last row */
	HY_OPT_FLAG,      /* int *: set to 1; no argument */
	HY_OPT_SET,       /* int *: set to the row's min; no argument */
	HY_OPT_BIT,       /* uint32_t *: the row's min or'ed in; no argument */
	HY_OPT_STR,       /* const char **: the argument as given */
	HY_OPT_PATH,      /* const char **: a path as given, never empty ("empty
			   * --NAME", status 2, before any work: an empty path
			   * would name the current or the root directory) */
	HY_OPT_INT,       /* int *: a decimal integer in [min, max] */
	HY_OPT_I64,       /* int64_t *: likewise */
	HY_OPT_U64,       /* uint64_t *: a decimal integer in [min, max] (≥ 0) */
	HY_OPT_DOUBLE,    /* double *: a number in the interval of the row's lo/hi
			   * and open_lo/open_hi */
	HY_OPT_FLOAT,     /* float *: the same */
	HY_OPT_CALL,      /* the row's call(cli, arg, dest): 0, or the status to
			   * return (it has said why); the shared options are
			   * calls of options.h (hy_cli_row_seed, _threads,
			   * _device), so that a program that takes none of
			   * them links none of their code (the device's pulls
			   * in the CUDA runtime) */
	HY_OPT_CALL0,     /* the same without an argument (arg NULL) */
	HY_OPT_TEXT,      /* help only: .help printed as it is, then a newline
			   * (a paragraph, a section's title, an empty line) */
	HY_OPT_DOC,       /* help only: an option line for an option parsed
			   * elsewhere (-q/-v/-h/-V, cli.h) */
	HY_OPT_INCLUDE,   /* help only: the help of the table .include here
			   * (another mode's options, parsed by its own table) */
} hy_opt_type;

/* What a CALL row returns to end the parse with status 0 (it printed what
 * was asked, as --help does). */
enum { HY_OPT_DONE = -2 };

typedef struct hy_opt {
	const char *name;   /* long name, without "--" */
	int key;            /* the short letter, or 0 */
	hy_opt_type type;
	void *dest;
	int64_t min, max;   /* INT, I64, U64, SEED (max) */
	double lo, hi;      /* DOUBLE */
	int open_lo, open_hi;
	const char *range;  /* the words after "bad --NAME 'ARG': " */
	int (*call)(hy_cli *cli, const char *arg, void *dest);
	int *seen;          /* optional: set to 1 when the option is given */
	const char *arg;    /* the argument's name in the help ("N", "PATH") */
	const char *help;   /* the help lines, '\n' between them; a row without
			     * is not shown (an alias, or one for scripts) */
	const struct hy_opt *include; /* INCLUDE */
} hy_opt;

/* The help rows of the common options (cli.h), -q and -v in the program's
 * words: HY_OPT_DOC_COMMON("no progress line", "say the device"). */
#define HY_OPT_DOC_COMMON(quiet, verbose)                                               \
	{.name = "quiet", .key = 'q', .type = HY_OPT_DOC, .help = (quiet)},              \
	{.name = "verbose", .key = 'v', .type = HY_OPT_DOC, .help = (verbose)},          \
	{.name = "help", .key = 'h', .type = HY_OPT_DOC, .help = "show this help and exit"}, \
	{.name = "version", .key = 'V', .type = HY_OPT_DOC, .help = "show the version and exit"}

/* Parses argv by the table (rows up to HY_OPT_END). Returns −1 when every
 * option was good (*first: the index of the first operand), else the exit
 * status for main to return: 2 after a usage message, 0 or 1 after --help
 * (the table's help at column `column`) or --version. A table's own rows
 * come before the common -q/-v/-h/-V: a program may take -h and -V itself
 * (hydra-hand: as words of a query). Under hy_cli_capture an unknown
 * option or a missing argument is captured as "unknown option '-x'" or
 * "option '-x' needs an argument" (status 2). Parsing starts afresh each
 * call (optind = 0), so one process may parse many vectors. */
int hy_cli_parse_opts(hy_cli *cli, const hy_opt *table, int column, int argc, char **argv,
	int *first);

/* The help text of a table: its TEXT rows as they are, an INCLUDE row's
 * table in its place, and for each row
 * with help "  -k, --name ARG" (or "      --name ARG") padded to `column`
 * (at least one space), the help's first line, its other lines indented
 * to `column`. Malloc'd; NULL when out of memory. */
char *hy_cli_opts_help(const hy_opt *table, int column);

#endif
