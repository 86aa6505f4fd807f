/* Staged output files and deferred sets of them (see staged.h). */
#include "io/staged.h"
#include "core/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/cleanup.h"

hy_status hy_mkdirs(const char *dir, hy_diag *d)
{
	char *p = strdup(dir);
	if (!p)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	hy_status st = HY_OK;
	size_t n = strlen(p);
	for (size_t i = 1; i <= n && !st; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			st = hy_diag_set(d, HY_EIO, 0, "cannot create directory '%s': %s", p,
					 strerror(errno));
		} else {
			struct stat sb;
			if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))
				st = hy_diag_set(d, HY_EIO, 0, "'%s' is not a directory", p);
		}
		p[i] = c;
	}
	free(p);
	return st;
}

/* Whether process pid still runs. A zombie does not: killed by SIGKILL,
 * it stays one until its parent reaps it, and where the parent died too a
 * container whose first process reaps nothing keeps it for good. */
static int process_runs(long pid)
{
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return 0;
	char f[64], buf[256];
	snprintf(f, sizeof f, "/proc/%ld/stat", pid);
	FILE *fp = fopen(f, "r");
	if (!fp)
		return 1; /* no /proc, or another user's: assume it runs */
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')' */
	const char *r = strrchr(buf, ')');
	return !(r && r[1] == ' ' && (r[2] == 'Z' || r[2] == 'X'));
}

/* Removes the temporaries of path that a run no longer running left
 * ("path.tmp-PID-XXXXXX": SIGKILL, a power cut; no handler ran). Best
 * effort: a temporary of a live process (this one included) is kept. */
static void remove_stale(const char *path)
{
	char *dcopy = strdup(path), *bcopy = strdup(path);
	DIR *dp = dcopy && bcopy ? opendir(dirname(dcopy)) : NULL;
	if (dp) {
		const char *dir = dcopy, *base = basename(bcopy);
		size_t bl = strlen(base);
		struct dirent *e;
		while ((e = readdir(dp))) {
			const char *n = e->d_name, *p = n + bl + 5;
			if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp-", 5) != 0)
				continue;
			char *end;
			long pid = strtol(p, &end, 10);
			if (*p < '0' || *p > '9' || *end != '-' || strlen(end + 1) != 6 || pid <= 0 ||
			    pid > INT_MAX || pid == (long)getpid())
				continue;
			if (process_runs(pid))
				continue; /* running (or another user's) */
			char full[PATH_MAX];
			if (snprintf(full, sizeof full, "%s/%s", dir, n) < (int)sizeof full)
				unlink(full);
		}
		closedir(dp);
	}
	free(dcopy);
	free(bcopy);
}

hy_status hy_staged_create(hy_staged *s, const char *path, int *fd, hy_diag *d)
{
	memset(s, 0, sizeof *s);
	s->slot = -1;
	/* staging renames over the target: never over a device, FIFO or socket
	 * (/dev/null would become a file); hy_output writes those in place */
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return hy_diag_set(d, HY_EIO, 0, "'%s' is not a regular file%s", path,
				   S_ISDIR(sb.st_mode) ? " (a directory)" : ": cannot write this here");
	char *dcopy = strdup(path);
	if (!dcopy)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	const char *dir = dirname(dcopy);
	hy_status st = strcmp(dir, ".") && strcmp(dir, "/") ? hy_mkdirs(dir, d) : HY_OK;
	free(dcopy);
	if (st)
		return st;
	remove_stale(path);
	size_t n = strlen(path);
	s->path = strdup(path);
	s->tmp = malloc(n + 40);
	if (!s->path || !s->tmp) {
		hy_staged_discard(s);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	snprintf(s->tmp, n + 40, "%s.tmp-%ld-XXXXXX", path, (long)getpid());
	int f = hy_cleanup_mkstemp(s->tmp, &s->slot);
	if (f < 0) {
		st = hy_diag_set(d, HY_EIO, 0, "cannot create '%s': %s", path, strerror(errno));
		free(s->tmp);
		s->tmp = NULL;
		hy_staged_discard(s);
		return st;
	}
	if (fd)
		*fd = f;
	else
		close(f);
	return HY_OK;
}

hy_status hy_staged_sync(hy_staged *s, hy_diag *d)
{
	int fd = open(s->tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return hy_diag_set(d, HY_EIO, 0, "cannot write '%s': %s", s->path, strerror(e));
	}
	close(fd);
	/* mkstemp makes 0600; give the file the usual umask-derived mode */
	mode_t mask = umask(0);
	umask(mask);
	if (chmod(s->tmp, 0666 & ~mask) != 0) {
		/* not fatal: the data is still right */
	}
	return HY_OK;
}

static void sync_dir_of(const char *path)
{
	char *c = strdup(path);
	if (!c)
		return;
	int fd = open(dirname(c), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd); /* best effort: the rename is already visible */
		close(fd);
	}
	free(c);
}

hy_status hy_staged_rename(hy_staged *s, hy_diag *d)
{
	if (rename(s->tmp, s->path) != 0) {
		hy_status st = hy_diag_set(d, HY_EIO, 0, "cannot rename '%s' to '%s': %s", s->tmp,
					   s->path, strerror(errno));
		hy_staged_discard(s);
		return st;
	}
	hy_cleanup_remove(s->slot);
	sync_dir_of(s->path);
	free(s->tmp);
	free(s->path);
	memset(s, 0, sizeof *s);
	s->slot = -1;
	return HY_OK;
}

hy_status hy_staged_commit(hy_staged *s, hy_diag *d)
{
	hy_status st = hy_staged_sync(s, d);
	if (st) {
		hy_staged_discard(s);
		return st;
	}
	return hy_staged_rename(s, d);
}

void hy_staged_discard(hy_staged *s)
{
	if (s->tmp)
		unlink(s->tmp);
	if (s->tmp || s->path)
		hy_cleanup_remove(s->slot);
	free(s->tmp);
	free(s->path);
	memset(s, 0, sizeof *s);
	s->slot = -1;
}

hy_status hy_fileset_add(hy_fileset *fs, hy_staged *s, hy_diag *d)
{
	if (HY_GROW(fs->v, fs->cap, fs->n + 1, 8)) {
		hy_staged_discard(s);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	fs->v[fs->n++] = *s;
	memset(s, 0, sizeof *s);
	s->slot = -1;
	return HY_OK;
}

static void fs_free(hy_fileset *fs)
{
	free(fs->v);
	memset(fs, 0, sizeof *fs);
}

hy_status hy_fileset_commit(hy_fileset *fs, hy_diag *d)
{
	hy_status st = HY_OK;
	for (size_t i = 0; i < fs->n; i++) {
		if (st)
			hy_staged_discard(&fs->v[i]);
		else
			st = hy_staged_rename(&fs->v[i], d);
	}
	fs_free(fs);
	return st;
}

void hy_fileset_discard(hy_fileset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		hy_staged_discard(&fs->v[i]);
	fs_free(fs);
}
