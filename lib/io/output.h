/* Output files that never survive half-written: data goes to a staged
 * temporary beside the target (io/staged.h: "target.tmp-XXXXXX", missing
 * directories created, removed on SIGINT/SIGTERM once the program has
 * called hy_cleanup_install); commit flushes, fsyncs and renames it into
 * place; abort removes it. A NULL or "-" path means stdout (commit then
 * flushes and checks for write errors). */
#ifndef HY_IO_OUTPUT_H
#define HY_IO_OUTPUT_H

#include <stdio.h>

#include "core/status.h"
#include "io/staged.h"

typedef struct hy_output {
	FILE *f;
	hy_staged st;   /* st.path NULL for stdout */
} hy_output;

hy_status hy_output_open(hy_output *o, const char *path, hy_diag *d);
hy_status hy_output_commit(hy_output *o, hy_diag *d);
/* Like commit, but the rename is left to hy_fileset_commit(fs) (stdout:
 * the same as commit). */
hy_status hy_output_finish(hy_output *o, hy_fileset *fs, hy_diag *d);
void hy_output_abort(hy_output *o);

#endif
