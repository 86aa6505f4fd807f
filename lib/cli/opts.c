/* Options declared once (see opts.h). */
#include "cli/opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

enum { MAX_OPTS = 96 };

/* The value of row o from arg into its destination: 0, or 2 after a usage
 * message (or the status a CALL row returns). */
static int take(hy_cli *cli, const hy_opt *o, const char *arg)
{
	int64_t n;
	double x;
	switch (o->type) {
	case HY_OPT_FLAG:
		*(int *)o->dest = 1;
		return 0;
	case HY_OPT_SET:
		*(int *)o->dest = (int)o->min;
		return 0;
	case HY_OPT_BIT:
		*(uint32_t *)o->dest |= (uint32_t)o->min;
		return 0;
	case HY_OPT_PATH:
		if (!*arg)
			return hy_cli_usage(cli, "empty --%s", o->name);
		/* fall through */
	case HY_OPT_STR:
		*(const char **)o->dest = arg;
		return 0;
	case HY_OPT_INT:
	case HY_OPT_I64:
	case HY_OPT_U64:
		if (hy_parse_i64(arg, o->min, o->max, &n))
			return hy_cli_usage(cli, "bad --%s '%s': %s", o->name, arg, o->range);
		if (o->type == HY_OPT_INT)
			*(int *)o->dest = (int)n;
		else if (o->type == HY_OPT_I64)
			*(int64_t *)o->dest = n;
		else
			*(uint64_t *)o->dest = (uint64_t)n;
		return 0;
	case HY_OPT_DOUBLE:
	case HY_OPT_FLOAT:
		if (hy_parse_double(arg, &x) || !(o->open_lo ? x > o->lo : x >= o->lo) ||
			!(o->open_hi ? x < o->hi : x <= o->hi))
			return hy_cli_usage(cli, "bad --%s '%s': %s", o->name, arg, o->range);
		if (o->type == HY_OPT_FLOAT)
			*(float *)o->dest = (float)x;
		else
			*(double *)o->dest = x;
		return 0;
	case HY_OPT_CALL:
	case HY_OPT_CALL0:
		return o->call(cli, arg, o->dest);
	case HY_OPT_END:
	case HY_OPT_TEXT:
	case HY_OPT_DOC:
	case HY_OPT_INCLUDE:
		break;
	}
	return hy_cli_usage(cli, "--%s: an option of unknown type", o->name);
}

/* A row the parser takes (not a line of help only). */
static int parsed(const hy_opt *o)
{
	return o->type != HY_OPT_TEXT && o->type != HY_OPT_DOC && o->type != HY_OPT_INCLUDE;
}

static void help_rows(FILE *f, const hy_opt *table, int column)
{
	for (const hy_opt *o = table; o->type != HY_OPT_END; o++) {
		if (o->type == HY_OPT_INCLUDE) {
			help_rows(f, o->include, column);
			continue;
		}
		if (!o->help)
			continue;
		if (o->type == HY_OPT_TEXT) {
			fprintf(f, "%s\n", o->help);
			continue;
		}
		int w = o->key ? fprintf(f, "  -%c, --%s", o->key, o->name)
			       : fprintf(f, "      --%s", o->name);
		if (o->arg)
			w += fprintf(f, " %s", o->arg);
		const char *h = o->help;
		do {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(f, "%*s%.*s\n", w < column ? column - w : 1, "", len, h);
			w = 0;
			h = nl ? nl + 1 : NULL;
		} while (h);
	}
}

char *hy_cli_opts_help(const hy_opt *table, int column)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	help_rows(f, table, column);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int parse_loop(hy_cli *cli, const hy_opt *table, size_t n, int column, int argc,
	char **argv, const char *shorts, const struct option *lo);

/* The usage message of an option getopt refused under capture (c '?':
 * unknown, ':' a missing argument), naming what was typed: a short letter
 * (optopt, its word possibly a cluster such as "-xR" that getopt has not
 * left yet, so argv[optind - 1] would name the word before it) as "-x", a
 * long option as its word. */
static int captured(hy_cli *cli, int c, int argc, char **argv)
{
	const char *word = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "";
	/* getopt sets optopt to the letter of a short option, to 0 for an
	 * unknown long one, and to the row's value for a long one lacking its
	 * argument (a letter too, when the row has one) */
	int is_long = !strncmp(word, "--", 2) && (c == ':' || optopt == 0);
	if (!is_long && optopt > 0 && optopt < 256) {
		char opt[3] = {'-', (char)optopt, 0};
		return hy_cli_usage(cli, c == ':' ? "option '%s' needs an argument"
						   : "unknown option '%s'", opt);
	}
	return hy_cli_usage(cli, c == ':' ? "option '%s' needs an argument" : "unknown option '%s'",
		word);
}

int hy_cli_parse_opts(hy_cli *cli, const hy_opt *table, int column, int argc, char **argv,
	int *first)
{
	struct option lo[MAX_OPTS + 5];
	char shorts[2 * MAX_OPTS + 8];
	size_t ns = 0, nl = 0, n = 0;
	for (; table[n].type != HY_OPT_END; n++) {
		const hy_opt *o = &table[n];
		if (!parsed(o))
			continue;
		if (nl == MAX_OPTS)
			return hy_cli_usage(cli, "too many options in the program's table");
		int arg = o->type == HY_OPT_FLAG || o->type == HY_OPT_SET || o->type == HY_OPT_BIT ||
				  o->type == HY_OPT_CALL0
			? no_argument
			: required_argument;
		/* a row without a short letter answers to 256 + its index */
		lo[nl++] = (struct option){o->name, arg, 0, o->key ? o->key : 256 + (int)n};
		if (o->key) {
			shorts[ns++] = (char)o->key;
			if (arg == required_argument)
				shorts[ns++] = ':';
		}
	}
	const struct option common[] = {HY_CLI_OPTIONS};
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		lo[nl + i] = common[i];
	lo[nl + 4] = (struct option){0, 0, 0, 0};
	memcpy(shorts + ns, "qvhV", 5);
	/* captured: getopt says nothing, and ':' tells a missing argument */
	const char *sh = shorts;
	char cshorts[sizeof shorts + 1];
	if (cli->capture) {
		cshorts[0] = ':';
		memcpy(cshorts + 1, shorts, ns + 5);
		sh = cshorts;
	}
	int saved_opterr = opterr;
	opterr = !cli->capture;
	optind = 0; /* a fresh scan (GNU getopt) */
	int rc = parse_loop(cli, table, n, column, argc, argv, sh, lo);
	opterr = saved_opterr;
	if (rc < 0)
		*first = optind;
	return rc;
}

/* getopt_long's loop over argv: −1 when every option was good, else the
 * exit status. */
static int parse_loop(hy_cli *cli, const hy_opt *table, size_t n, int column, int argc,
	char **argv, const char *shorts, const struct option *lo)
{
	int c;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const hy_opt *o = NULL;
		if (c >= 256 && c < 256 + (int)n)
			o = &table[c - 256];
		for (size_t i = 0; !o && i < n; i++)
			if (table[i].key && table[i].key == c && parsed(&table[i]))
				o = &table[i];
		if (o) {
			int rc = take(cli, o, optarg);
			if (rc)
				return rc == HY_OPT_DONE ? 0 : rc;
			if (o->seen)
				*o->seen = 1;
			continue;
		}
		if (c == 'h') {
			char *help = hy_cli_opts_help(table, column);
			if (!help) {
				hy_cli_say(cli, "out of memory");
				return 1;
			}
			int rc = hy_cli_help(cli, help);
			free(help);
			return rc;
		}
		if (cli->capture && (c == ':' || c == '?'))
			return captured(cli, c, argc, argv);
		if ((c = hy_cli_opt_common(cli, c, NULL)) >= 0)
			return c;
	}
	return -1;
}
