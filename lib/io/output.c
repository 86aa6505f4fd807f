#include "io/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

hy_status hy_output_open(hy_output *o, const char *path, hy_diag *d)
{
	memset(o, 0, sizeof *o);
	if (is_stdout(path)) {
		o->f = stdout;
		return HY_OK;
	}
	size_t n = strlen(path);
	o->path = strdup(path);
	o->tmp = malloc(n + 16);
	if (!o->path || !o->tmp) {
		hy_output_abort(o);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	memcpy(o->tmp, path, n);
	memcpy(o->tmp + n, ".tmp-XXXXXX", 12);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		hy_status s = hy_diag_set(d, HY_EIO, 0, "cannot create '%s': %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		hy_output_abort(o);
		return s;
	}
	/* mkstemp makes 0600; give the file the usual umask-derived mode */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		/* not fatal: the data is still right */
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		close(fd);
		hy_output_abort(o);
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	}
	return HY_OK;
}

hy_status hy_output_commit(hy_output *o, hy_diag *d)
{
	const char *name = o->path ? o->path : "standard output";
	if (!o->path) {
		int bad = fflush(stdout) != 0 || ferror(stdout);
		if (bad && errno != EPIPE)
			return hy_diag_set(d, HY_EIO, 0, "write error on %s: %s", name, strerror(errno));
		return bad ? HY_EIO : HY_OK;
	}
	int err = 0;
	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0)
		err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && !err)
		err = errno;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path) != 0)
		err = errno;
	if (err) {
		hy_output_abort(o);
		return hy_diag_set(d, HY_EIO, 0, "cannot write '%s': %s", name, strerror(err));
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return HY_OK;
}

void hy_output_abort(hy_output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
}
