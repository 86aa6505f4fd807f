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
		return o->call(cli, arg, o->dest);
	case HY_OPT_END:
		break;
	}
	return hy_cli_usage(cli, "--%s: an option of unknown type", o->name);
}

int hy_cli_parse_opts(hy_cli *cli, const hy_opt *table, const char *usage, int argc,
	char **argv, int *first)
{
	struct option lo[MAX_OPTS + 5];
	char shorts[2 * MAX_OPTS + 8];
	size_t ns = 0, n = 0;
	for (; table[n].type != HY_OPT_END; n++) {
		const hy_opt *o = &table[n];
		if (n == MAX_OPTS)
			return hy_cli_usage(cli, "too many options in the program's table");
		int arg = o->type == HY_OPT_FLAG || o->type == HY_OPT_SET ? no_argument
									    : required_argument;
		/* a row without a short letter answers to 256 + its index */
		lo[n] = (struct option){o->name, arg, 0, o->key ? o->key : 256 + (int)n};
		if (o->key) {
			shorts[ns++] = (char)o->key;
			if (arg == required_argument)
				shorts[ns++] = ':';
		}
	}
	const struct option common[] = {HY_CLI_OPTIONS};
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		lo[n + i] = common[i];
	lo[n + 4] = (struct option){0, 0, 0, 0};
	memcpy(shorts + ns, "qvhV", 5);
	int c;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const hy_opt *o = NULL;
		if (c >= 256 && c < 256 + (int)n)
			o = &table[c - 256];
		for (size_t i = 0; !o && i < n; i++)
			if (table[i].key && table[i].key == c)
				o = &table[i];
		if (o) {
			int rc = take(cli, o, optarg);
			if (rc)
				return rc;
			if (o->seen)
				*o->seen = 1;
			continue;
		}
		if ((c = hy_cli_opt_common(cli, c, usage)) >= 0)
			return c;
	}
	*first = optind;
	return -1;
}
