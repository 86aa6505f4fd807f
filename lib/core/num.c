/* Strict parsing of numbers from command-line text (num.h). */
#include "core/num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* strto* skip leading white space (and strtoull then takes a '-'): the
 * number must start at the first byte. */
static int starts_bad(const char *s)
{
	return !*s || isspace((unsigned char)*s);
}

int hy_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
	char *end;
	if (starts_bad(s))
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

int hy_parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;
	if (starts_bad(s) || *s == '-')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int hy_parse_double(const char *s, double *v)
{
	char *end;
	if (starts_bad(s))
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}
