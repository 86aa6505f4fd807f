/* Shared pieces of the libFuzzer harnesses (tests/fuzz/fuzz_*.c).
 *
 * Each harness defines LLVMFuzzerTestOneInput over public entry points of
 * lib/. It is linked either with libFuzzer (clang, `make fuzz`) or with
 * tests/fuzz/replay.c (gcc, `make check`), which feeds it the regression and
 * seed files. A harness never prints on success; it calls abort() only for a
 * broken invariant of the library (a round trip that does not hold), so that
 * both drivers report it as a crash. */
#ifndef HY_TESTS_FUZZ_H
#define HY_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/status.h"
#include "events/event.h"
#include "events/stream.h"
#include "events/validate.h"
#include "mjai/mjai.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input, as the input layer hands documents to
 * the parsers (hy_doc: len bytes followed by one NUL). */
static inline char *fz_doc(const uint8_t *data, size_t size)
{
	char *p = malloc(size + 1);
	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	p[size] = 0;
	return p;
}

/* Writes the input to a fresh temporary file; returns its path in buf (the
 * caller unlinks it), or NULL when the file cannot be written. */
static inline const char *fz_tmpfile(const uint8_t *data, size_t size, char *buf, size_t bsize)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, bsize, "%s/hydra-fuzz.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(buf);
	if (fd < 0)
		return NULL;
	size_t off = 0;
	while (off < size) {
		ssize_t k = write(fd, data + off, size - off);
		if (k <= 0) {
			close(fd);
			unlink(buf);
			return NULL;
		}
		off += (size_t)k;
	}
	close(fd);
	return buf;
}

/* What every consumer does with a parsed game: validate it, format each
 * event as mjai JSON, and write it as an event stream and read it back. A
 * game the writer accepts must read back with the same number of events. */
static inline void fz_use_game(const hy_game *g)
{
	hy_diag d;
	char line[8192];
	(void)hy_game_validate(g, &d);
	for (size_t i = 0; i < g->n; i++)
		(void)hy_mjai_format_event(&g->ev[i], line, sizeof line);

	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	if (!f)
		abort();
	hy_evs_writer *w = NULL;
	if (hy_evs_writer_open(&w, f) != HY_OK)
		abort();
	int wrote = hy_evs_write_game(w, g, &d) == HY_OK;
	if (wrote)
		wrote = hy_evs_writer_close(w, &d) == HY_OK;
	else
		hy_evs_writer_abort(w, "fuzz");
	if (fclose(f))
		abort();
	if (wrote) {
		hy_evs_reader *r = NULL;
		hy_game back;
		hy_game_init(&back);
		if (hy_evs_reader_open_mem(&r, "roundtrip", buf, blen) != HY_OK)
			abort();
		if (hy_evs_read_game(r, &back, &d) != HY_OK || back.n != g->n) {
			fprintf(stderr, "fuzz: event stream round trip failed: %s\n", d.msg);
			abort();
		}
		hy_evs_reader_close(r);
		hy_game_free(&back);
	}
	free(buf);
}

static inline hy_status fz_sink_game(void *ctx, hy_game *g)
{
	(void)ctx;
	fz_use_game(g);
	return HY_OK;
}

/* --keep-going: a bad game is skipped and the parse goes on. */
static inline hy_status fz_sink_bad(void *ctx, const hy_diag *d)
{
	(void)ctx;
	(void)d;
	return HY_OK;
}

#endif
