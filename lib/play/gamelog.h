/* One game's mjai log as a gzip'd file of JSON lines (hy_mjai_format_event
 * per event, '\n' after each), staged: written under a temporary name,
 * synced and renamed into place (io/staged.h), so that a log file is either
 * complete or absent. Used by the arena's --log-dir (hydra-eval); the same
 * bytes as hydra-sp's logs. */
#ifndef HY_PLAY_GAMELOG_H
#define HY_PLAY_GAMELOG_H

#include <stddef.h>

#include "core/status.h"
#include "events/event.h"

/* A reusable formatting buffer (zero-initialise; hy_gamelog_free). */
typedef struct hy_gamelog_buf {
	char *p;
	size_t cap;
} hy_gamelog_buf;

void hy_gamelog_free(hy_gamelog_buf *b);

/* Writes g to path (gzip level 6); missing parent directories are created.
 * d names the path on failure. */
hy_status hy_gamelog_write(const char *path, const hy_game *g, hy_gamelog_buf *b, hy_diag *d);

#endif
