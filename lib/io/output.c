/* Output files that never survive half-written: staged temporary, commit or
 * abort (output.h). */
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
	o->st.slot = -1;
	if (is_stdout(path)) {
		o->f = stdout;
		return HY_OK;
	}
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
		o->direct = strdup(path);
		o->f = o->direct ? fopen(path, "wb") : NULL;
		if (!o->f) {
			hy_status s = o->direct ? hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s",
							      path, strerror(errno))
						: hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			hy_output_abort(o);
			return s;
		}
		return HY_OK;
	}
	int fd;
	hy_status s = hy_staged_create(&o->st, path, &fd, d);
	if (s)
		return s;
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		s = hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		hy_output_abort(o);
		return s;
	}
	return HY_OK;
}

/* Flushes and closes the file (stdout: flushes); HY_OK or HY_EIO with d. */
static hy_status flush_close(hy_output *o, hy_diag *d)
{
	if (o->direct) {
		int err = fflush(o->f) != 0 || ferror(o->f) ? (errno ? errno : EIO) : 0;
		if (fclose(o->f) != 0 && !err)
			err = errno ? errno : EIO;
		o->f = NULL;
		hy_status s = err ? hy_diag_set(d, HY_EIO, 0, "cannot write '%s': %s", o->direct,
						strerror(err))
				  : HY_OK;
		hy_output_abort(o);
		return s;
	}
	if (!o->st.path) {
		int bad = fflush(stdout) != 0 || ferror(stdout);
		if (bad && errno != EPIPE)
			return hy_diag_set(d, HY_EIO, 0, "write error on standard output: %s",
					   strerror(errno));
		return bad ? HY_EIO : HY_OK;
	}
	int err = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (err) {
		hy_status s = hy_diag_set(d, HY_EIO, 0, "cannot write '%s': %s", o->st.path,
					  strerror(err));
		hy_output_abort(o);
		return s;
	}
	return HY_OK;
}

hy_status hy_output_commit(hy_output *o, hy_diag *d)
{
	hy_status s = flush_close(o, d);
	if (s || !o->st.path)
		return s;
	s = hy_staged_commit(&o->st, d);
	memset(o, 0, sizeof *o);
	o->st.slot = -1;
	return s;
}

hy_status hy_output_finish(hy_output *o, hy_fileset *fs, hy_diag *d)
{
	hy_status s = flush_close(o, d);
	if (s || !o->st.path)
		return s;
	if ((s = hy_staged_sync(&o->st, d)) != HY_OK) {
		hy_output_abort(o);
		return s;
	}
	s = hy_fileset_add(fs, &o->st, d);
	memset(o, 0, sizeof *o);
	o->st.slot = -1;
	return s;
}

void hy_output_abort(hy_output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	free(o->direct);
	hy_staged_discard(&o->st);
	memset(o, 0, sizeof *o);
	o->st.slot = -1;
}

hy_status hy_stdout_check(hy_diag *d)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return HY_OK;
	hy_diag_init(d, "standard output");
	return hy_diag_set(d, HY_EIO, 0, "write error: %s", strerror(errno ? errno : EIO));
}
