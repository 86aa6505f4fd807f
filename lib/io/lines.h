/* Lines of an untrusted text stream with a cap on their length (hydra-bot's
 * protocol lines): a line longer than the cap fails as soon as the cap is
 * passed, without reading or holding the rest of it, so that one endless
 * line costs neither memory nor time. */
#ifndef HY_IO_LINES_H
#define HY_IO_LINES_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"

/* Reads the next line of f into *buf (grown with realloc as needed, never
 * beyond max + 1 bytes; NUL-terminated) without its '\n' and a '\r' before
 * it; *len is its length. A last line without '\n' counts as a line.
 * HY_OK; HY_STOP at the end of the input; HY_EDATA when the line has more
 * than max bytes before its '\n' (after reading max + 1 of them: the rest
 * stays unread); HY_EIO on a read error; HY_ENOMEM. d->line is not set: the
 * caller counts the lines. */
hy_status hy_lines_read(FILE *f, size_t max, char **buf, size_t *cap, size_t *len, hy_diag *d);

#endif
