/* Staged output files: written under a temporary name beside the target
 * ("target.tmp-PID-XXXXXX", PID the writer's process id), synced, and
 * renamed into place only when complete, so that a partial file never
 * appears under the target's name — also not after a signal, since every
 * temporary is registered with io/cleanup.h while it exists. A process
 * killed with SIGKILL leaves its temporary: the next hy_staged_create of
 * the same target removes the temporaries whose process is gone.
 *
 * A fileset defers the renames of several finished files to one commit at
 * the end: a sharded encode is renamed as a whole set, after every member
 * has been written and synced, or not at all. */
#ifndef HY_IO_STAGED_H
#define HY_IO_STAGED_H

#include <stddef.h>

#include "core/status.h"

typedef struct hy_staged {
	char *path;  /* target           */
	char *tmp;   /* temporary name   */
	int slot;    /* io/cleanup slot  */
} hy_staged;

/* Refuses a target that exists and is not a regular file (a device, FIFO
 * or directory: renaming over it would replace it). Creates the missing
 * directories of path's parent (mode 0777 & ~umask), removes the stale
 * temporaries of path (their process no longer runs), then creates the
 * temporary file; *fd (when fd is not NULL) receives a descriptor
 * open for writing, else the file is closed again (for writers that open it
 * by name, like HDF5). */
hy_status hy_staged_create(hy_staged *s, const char *path, int *fd, hy_diag *d);
/* fsync of the temporary (by name) and the usual umask-derived mode. */
hy_status hy_staged_sync(hy_staged *s, hy_diag *d);
/* Renames the synced temporary into place (and syncs the directory);
 * on failure the temporary is removed. Frees s. */
hy_status hy_staged_rename(hy_staged *s, hy_diag *d);
/* hy_staged_sync, then hy_staged_rename. */
hy_status hy_staged_commit(hy_staged *s, hy_diag *d);
/* Removes the temporary and frees s. Harmless on a zeroed s. */
void hy_staged_discard(hy_staged *s);

typedef struct hy_fileset {
	hy_staged *v;
	size_t n, cap;
} hy_fileset;

/* Adds a synced staged file (moved in: *s is zeroed). On failure (out of
 * memory) the file is discarded. */
hy_status hy_fileset_add(hy_fileset *fs, hy_staged *s, hy_diag *d);
/* Renames every member into place, in the order added; on the first
 * failure the members not yet renamed are removed. Empties fs. */
hy_status hy_fileset_commit(hy_fileset *fs, hy_diag *d);
/* Removes every member's temporary. Empties fs. */
void hy_fileset_discard(hy_fileset *fs);

/* Creates dir and its missing parents (like mkdir -p). */
hy_status hy_mkdirs(const char *dir, hy_diag *d);

#endif
