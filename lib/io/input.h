/* The input layer: turns a list of paths into a sequence of named documents.
 *
 *   - a regular file is one document (name = its path);
 *   - a directory is walked recursively, entries sorted by name (strcmp),
 *     hidden entries (leading '.') skipped;
 *   - "-" is standard input (name "-", or "(stdin)" in messages);
 *   - content decides, never the file name: gzip (zlib, multi-member) and
 *     zstd (libzstd, multi-frame) are decompressed; tar, tar.gz, tar.zst and
 *     zip archives (libarchive) yield one document per regular entry, named
 *     "archive.tar:path/in/archive"; an entry that is itself gzip/zstd is
 *     decompressed too.
 *
 * Each document is delivered whole, in memory, one at a time. A damaged
 * container (truncated gzip/zstd, corrupt archive) is an error naming the
 * file (HY_ETRUNC / HY_EDATA), never a silently shortened document. */
#ifndef HY_IO_INPUT_H
#define HY_IO_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"

typedef struct hy_doc {
	const char *name;   /* valid until the next call                  */
	const char *data;   /* len bytes, followed by one NUL byte        */
	size_t len;
	int compressed;     /* 0 plain, 1 gzip, 2 zstd (outermost layer)  */
} hy_doc;

typedef struct hy_input hy_input;

/* Opens a sequence over paths (npaths = 0 means standard input). Paths are
 * not touched until hy_input_next. */
hy_status hy_input_open(hy_input **in, const char *const *paths, size_t npaths);
/* Next document: HY_OK with *doc filled, HY_STOP at the end, or an error
 * with d filled (source = the offending path). After an error the sequence
 * may be continued (the failed path or archive is skipped). */
hy_status hy_input_next(hy_input *in, hy_doc *doc, hy_diag *d);
void hy_input_close(hy_input *in);

/* Reads up to n (at most 64) bytes of standard input ahead, so that a
 * program can sniff the content before choosing how to read it; *bytes and
 * *got describe all bytes peeked so far. Peeked bytes are not lost: a later
 * "-" document, or hy_input_stdin_file, starts with them. */
hy_status hy_input_peek_stdin(hy_input *in, size_t n, const char **bytes, size_t *got);
/* Standard input as a FILE* that first yields the peeked bytes, for reading
 * a long stream sequentially in constant memory (an event stream on a pipe)
 * instead of as one document. The caller fcloses it before
 * hy_input_close. NULL on failure. */
FILE *hy_input_stdin_file(hy_input *in);

/* Decompression helpers used by the layer, exposed for tests and for
 * programs that read a single stream: if data starts with a gzip or zstd
 * magic, decompresses it into a new malloc'ed buffer (*out, *outlen,
 * NUL-terminated) and returns HY_OK with *kind = 1 or 2; otherwise returns
 * HY_OK with *kind = 0 and *out = NULL. Truncation gives HY_ETRUNC. */
hy_status hy_decompress(const char *data, size_t len, char **out, size_t *outlen,
			int *kind, hy_diag *d);

#endif
