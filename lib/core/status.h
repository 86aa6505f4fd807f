/* Status codes shared by every lib/ module, and the diagnostic record that
 * carries a message with its place (source, line or record, game). lib/ never
 * prints: it fills an hy_diag and returns a status; cmd/ turns both into a
 * message on stderr and an exit code (ARCHITECTURE.md §10). */
#ifndef HY_CORE_STATUS_H
#define HY_CORE_STATUS_H

#include <stdint.h>

typedef enum hy_status {
	HY_OK = 0,
	HY_EDATA,     /* malformed input: bad JSON, bad tile, broken order     */
	HY_ETRUNC,    /* input ends early: truncated gzip, stream w/o trailer  */
	HY_EFORMAT,   /* not our format: bad magic, wrong record size          */
	HY_EVERSION,  /* our format, but a version this build cannot read      */
	HY_EIO,       /* the OS refused: open, read, write                     */
	HY_ENOMEM,    /* allocation failed                                     */
	HY_EUSAGE,    /* caller passed an invalid argument                     */
	HY_EUNSUP,    /* valid input that is out of scope (e.g. sanma)         */
	HY_STOP,      /* a callback asked to stop early; not an error          */
	HY_STATUS_COUNT
} hy_status;

/* A diagnostic: what went wrong and where. `line` is the 1-based line of a
 * text document or the 1-based record of a binary one (0 = not known);
 * `game` is the 0-based game index within the source (UINT32_MAX = none). */
typedef struct hy_diag {
	hy_status status;
	uint32_t line;
	uint32_t game;
	char source[512];
	char msg[512];
} hy_diag;

/* Short English name of a status ("truncated input", ...). */
const char *hy_status_str(hy_status s);

/* Exit code of ARCHITECTURE.md §10 for a status: 0 ok, 1 data/runtime, 2 usage,
 * 3 format/version mismatch. */
int hy_status_exit(hy_status s);

/* Clears d and records the source name. */
void hy_diag_init(hy_diag *d, const char *source);

/* Sets status, line and a printf-style message; returns s, so that
 * `return hy_diag_set(d, HY_EDATA, line, "bad tile '%s'", t);` reads well.
 * d may be NULL (the message is dropped, the status still returned). */
hy_status hy_diag_set(hy_diag *d, hy_status s, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Formats "source:line: msg" (or "source: msg", "source: game G: msg") into
 * buf; returns buf. */
const char *hy_diag_format(const hy_diag *d, char *buf, int size);

#endif
