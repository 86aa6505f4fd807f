/* Capped line reading (lines.h). */
#include "io/lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* Makes *buf hold at least need bytes (need <= max + 1). */
static int reserve(char **buf, size_t *cap, size_t need, size_t max)
{
	if (*cap >= need)
		return 0;
	size_t n = hy_grow_cap(*cap, need, 4096);
	if (!n)
		return -1;
	if (n > max + 1)
		n = max + 1;
	char *b = realloc(*buf, n);
	if (!b)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

hy_status hy_lines_read(FILE *f, size_t max, char **buf, size_t *cap, size_t *len, hy_diag *d)
{
	size_t n = 0;
	int c;
	*len = 0;
	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n == max) {
			funlockfile(f);
			return hy_diag_set(d, HY_EDATA, 0, "line longer than %zu bytes", max);
		}
		if (reserve(buf, cap, n + 2, max) != 0) {
			funlockfile(f);
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		}
		(*buf)[n++] = (char)c;
	}
	int err = c == EOF && ferror(f);
	funlockfile(f);
	if (err)
		return hy_diag_set(d, HY_EIO, 0, "read error: %s", strerror(errno));
	if (c == EOF && n == 0)
		return HY_STOP;
	if (reserve(buf, cap, n + 1, max) != 0)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	if (n && (*buf)[n - 1] == '\r')
		n--;
	(*buf)[n] = '\0';
	*len = n;
	return HY_OK;
}
