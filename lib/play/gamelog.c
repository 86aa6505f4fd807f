/* gzip'd mjai logs of finished games (see gamelog.h). */
#include "play/gamelog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/grow.h"
#include "io/staged.h"
#include "mjai/mjai.h"

void hy_gamelog_free(hy_gamelog_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->cap = 0;
}

/* The game's JSON lines into b; the length, or -1 out of memory. */
static long format_log(hy_gamelog_buf *b, const hy_game *g)
{
	size_t len = 0;
	for (size_t i = 0; i < g->n; i++) {
		for (;;) {
			if (b->cap - len >= 2) {
				int n = hy_mjai_format_event(&g->ev[i], b->p + len, b->cap - len - 1);
				if (n >= 0) {
					len += (size_t)n;
					b->p[len++] = '\n';
					break;
				}
			}
			if (b->cap >= (size_t)1 << 30 || HY_GROW(b->p, b->cap, b->cap + 1, 1 << 17))
				return -1;
		}
	}
	return (long)len;
}

hy_status hy_gamelog_write(const char *path, const hy_game *g, hy_gamelog_buf *b, hy_diag *d)
{
	hy_diag_init(d, path);
	long len = format_log(b, g);
	if (len < 0)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory formatting the log");
	hy_staged st;
	int fd = -1;
	hy_status rc = hy_staged_create(&st, path, &fd, d);
	if (rc != HY_OK)
		return rc;
	gzFile z = gzdopen(fd, "wb6");
	if (!z) {
		close(fd);
		hy_staged_discard(&st);
		return hy_diag_set(d, HY_EIO, 0, "cannot write: gzdopen failed");
	}
	errno = 0;
	int ok = len == 0 || gzwrite(z, b->p, (unsigned)len) == (int)len;
	int zc = gzclose(z);
	if (!ok || zc != Z_OK) {
		int e = errno;
		hy_staged_discard(&st);
		return hy_diag_set(d, HY_EIO, 0, "cannot write: %s",
				   e ? strerror(e) : "zlib write failed");
	}
	return hy_staged_commit(&st, d);
}
