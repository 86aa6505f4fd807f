/* Provenance of a training run (issue 22): what a checkpoint records of how
 * it was made, so that `h5dump -A` tells it and --resume needs nothing
 * repeated.
 *
 * The inputs are described one a line, "PATH\tSIZE\tMTIME_NS\n" (PATH made
 * absolute; standard input as "-\t-\t-"), in the order given; the
 * checkpoint's train_inputs and train_val attributes hold such text and
 * train_command the command line, shell-quoted. A resumed run without
 * inputs reads the recorded ones again, and says which of them changed
 * since (size or modification time). */
#ifndef HY_TRAIN_PROV_H
#define HY_TRAIN_PROV_H

#include <stddef.h>

#include "core/status.h"

/* Longest description kept (bytes with the NUL): an HDF5 attribute of a
 * few tens of KiB stays in the object header. */
enum { HY_PROV_MAX = 48 * 1024 };

/* The description of paths[0..n) (NULL or "-": standard input) into out
 * (size bytes). HY_EIO when an input cannot be stat'ed; HY_EUSAGE when it
 * does not fit (the run is then not resumable without its inputs: the
 * caller records nothing). */
hy_status hy_prov_describe(const char *const *paths, size_t n, char *out, size_t size,
	hy_diag *d);
/* The inputs of a description: *paths (n of them; "-" for standard input;
 * free with hy_prov_free). changed (csize bytes): "" when every file is as
 * recorded, else "PATH (size A -> B)" or "PATH (modified)" or "PATH
 * (missing)" entries joined by ", ". HY_EFORMAT for text that is not a
 * description (a damaged attribute). */
hy_status hy_prov_parse(const char *desc, char ***paths, size_t *n, char *changed,
	size_t csize, hy_diag *d);
void hy_prov_free(char **paths, size_t n);
/* argv[0..argc) as one shell-quoted line (words with other characters than
 * [A-Za-z0-9_./:=,+-] in single quotes), cut with "..." to fit size. */
void hy_prov_command(int argc, char *const *argv, char *out, size_t size);

#endif
