/* Options declared once (git's parse-options): a program lists its options
 * in one table — long name, short name, type, range, where the value goes —
 * and hy_cli_parse_opts makes the getopt table from it, parses, checks each
 * value against its range and stores it, so no program writes a range check
 * of its own. The messages are the shared ones: "bad --seeds 'x': 3 to
 * 1000000" and "try 'prog --help'" (status 2). The --help text stays the
 * program's own, hand-laid-out usage string; tests/shell/t0870 and t0872
 * check that it and the man page name every option of the table.
 * -q/-v/-h/-V (cli.h) are added to every table. This file calls nothing
 * beyond cli.h and core/num.h. */
#ifndef HY_CLI_OPTS_H
#define HY_CLI_OPTS_H

#include <stdint.h>

#include "cli/cli.h"

typedef enum hy_opt_type {
	HY_OPT_END = 0,   /* the table's last row */
	HY_OPT_FLAG,      /* int *: set to 1; no argument */
	HY_OPT_SET,       /* int *: set to the row's min; no argument */
	HY_OPT_STR,       /* const char **: the argument as given */
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
} hy_opt_type;

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
} hy_opt;

/* Parses argv by the table (rows up to HY_OPT_END). Returns −1 when every
 * option was good (*first: the index of the first operand), else the exit
 * status for main to return: 2 after a usage message, 0 or 1 after --help
 * or --version. */
int hy_cli_parse_opts(hy_cli *cli, const hy_opt *table, const char *usage, int argc,
	char **argv, int *first);

#endif
