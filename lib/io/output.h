/* Output files that never survive half-written: data goes to a staged
 * temporary beside the target (io/staged.h: "target.tmp-PID-XXXXXX", missing
 * directories created, removed on SIGINT/SIGTERM once the program has
 * called hy_cleanup_install); commit flushes, fsyncs and renames it into
 * place; abort removes it. A NULL or "-" path means stdout (commit then
 * flushes and checks for write errors). A path that exists and is not a
 * regular file (a device such as /dev/null, a FIFO) is written directly:
 * staging would replace it with a file. */
#ifndef HY_IO_OUTPUT_H
#define HY_IO_OUTPUT_H

#include <stdio.h>

#include "core/status.h"
#include "io/staged.h"

typedef struct hy_output {
	FILE *f;
	hy_staged st;   /* st.path NULL for stdout and direct outputs */
	char *direct;   /* name of a device or FIFO written in place, or NULL */
} hy_output;

hy_status hy_output_open(hy_output *o, const char *path, hy_diag *d);
hy_status hy_output_commit(hy_output *o, hy_diag *d);
/* Like commit, but the rename is left to hy_fileset_commit(fs) (stdout:
 * the same as commit). */
hy_status hy_output_finish(hy_output *o, hy_fileset *fs, hy_diag *d);
void hy_output_abort(hy_output *o);

/* Flushes stdout and checks it for a write error (after --help or
 * --version to /dev/full, say): HY_OK, or HY_EIO with d naming standard
 * output and the reason. A closed pipe (EPIPE) counts as an error too. */
hy_status hy_stdout_check(hy_diag *d);

#endif
