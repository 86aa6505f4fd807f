/* Output files that never survive half-written: data goes to a temporary
 * name beside the target ("target.tmp-XXXXXX"); commit flushes, fsyncs and
 * renames it into place; abort removes it. A NULL or "-" path means stdout
 * (commit then flushes and checks for write errors). */
#ifndef HY_IO_OUTPUT_H
#define HY_IO_OUTPUT_H

#include <stdio.h>

#include "core/status.h"

typedef struct hy_output {
	FILE *f;
	char *path;  /* target, NULL for stdout */
	char *tmp;   /* temporary name          */
} hy_output;

hy_status hy_output_open(hy_output *o, const char *path, hy_diag *d);
hy_status hy_output_commit(hy_output *o, hy_diag *d);
void hy_output_abort(hy_output *o);

#endif
