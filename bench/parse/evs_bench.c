/* Event stream throughput: writes N synthetic events (default 2 million) to a
 * temporary file, then reads them back from memory and through the FILE
 * reader. One line per measurement on stdout:
 *
 *   evs_bench [events]                                                      */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events/event.h"
#include "events/stream.h"

enum { EVENTS_PER_GAME = 800 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int die(const char *what, hy_status s, const hy_diag *d)
{
	char line[1200] = "";
	if (d && d->msg[0])
		hy_diag_format(d, line, sizeof line);
	fprintf(stderr, "evs_bench: %s: %s%s%s\n", what, hy_status_str(s), line[0] ? ": " : "",
		line);
	return 1;
}

/* A game of n events shaped like real ones: mostly tsumo/dahai, a
 * start_kyoku with hands now and then, and an extra string on a few. */
static int make_game(hy_game *g, uint32_t index, size_t n)
{
	if (hy_game_set_source(g, "bench/synthetic.mjson", index) != HY_OK)
		return -1;
	for (size_t i = 0; i < n; i++) {
		hy_event e;
		hy_ev_type t = i % 100 == 0 ? HY_EV_START_KYOKU
			     : i % 2     ? HY_EV_DAHAI
					 : HY_EV_TSUMO;
		hy_event_blank(&e, t);
		e.line = (uint32_t)i + 1;
		e.actor = (uint8_t)(i / 2 % 4);
		e.pai = (uint8_t)(i * 7 % 34);
		if (t == HY_EV_START_KYOKU) {
			e.flags = HY_EVF_TEHAIS | HY_EVF_SCORES | HY_EVF_BAKAZE | HY_EVF_KYOKU;
			for (int s = 0; s < 4; s++) {
				e.scores[s] = 25000 - 1000 * s;
				for (int k = 0; k < 13; k++)
					e.tehais[s][k] = (uint8_t)((s * 13 + k) % 34);
			}
		}
		if (i % 250 == 0)
			e.extra = "{\"meta\":{\"q_values\":[0.1,0.2,0.3],\"mask_bits\":12345}}";
		if (!hy_game_push(g, &e))
			return -1;
	}
	return 0;
}

static void report(const char *what, double secs, uint64_t events, uint64_t bytes)
{
	printf("evs %-10s %8.1f MB/s  %12.0f events/s  (%llu events, %llu bytes, %.3f s)\n",
	       what, (double)bytes / secs / 1e6, (double)events / secs,
	       (unsigned long long)events, (unsigned long long)bytes, secs);
}

static int read_back(const char *what, hy_evs_reader *r, uint64_t want, uint64_t bytes,
		     double t0)
{
	hy_game g;
	hy_game_init(&g);
	hy_diag d;
	hy_diag_init(&d, what);
	uint64_t got = 0;
	hy_status s;
	while ((s = hy_evs_read_game(r, &g, &d)) == HY_OK)
		got += g.n;
	double secs = now() - t0;
	hy_game_free(&g);
	if (s != HY_STOP)
		return die(what, s, &d);
	if (got != want) {
		fprintf(stderr, "evs_bench: %s: read %llu events, wrote %llu\n", what,
			(unsigned long long)got, (unsigned long long)want);
		return 1;
	}
	report(what, secs, got, bytes);
	return 0;
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long long n = argc > 1 ? strtoull(argv[1], &end, 10) : 2000000ull;
	if (argc > 2 || (argc > 1 && (*end || n == 0))) {
		fprintf(stderr, "usage: evs_bench [events]\n");
		return 2;
	}
	hy_game g;
	hy_game_init(&g);
	if (make_game(&g, 0, EVENTS_PER_GAME) != 0)
		return die("building a game", HY_ENOMEM, NULL);
	FILE *f = tmpfile();
	if (!f) {
		perror("evs_bench: tmpfile");
		return 1;
	}

	hy_diag d;
	hy_diag_init(&d, "tmpfile");
	hy_evs_writer *w;
	hy_status s = hy_evs_writer_open(&w, f);
	if (s)
		return die("write", s, NULL);
	double t0 = now();
	uint64_t written = 0;
	for (uint32_t i = 0; written < n; i++) {
		g.n = n - written < EVENTS_PER_GAME ? (size_t)(n - written) : EVENTS_PER_GAME;
		g.index = i;
		if ((s = hy_evs_write_game(w, &g, &d)) != HY_OK)
			return die("write", s, &d);
		written += g.n;
	}
	if ((s = hy_evs_writer_close(w, &d)) != HY_OK)
		return die("write", s, &d);
	double wsecs = now() - t0;
	long bytes = ftell(f);
	if (bytes < 0) {
		perror("evs_bench: ftell");
		return 1;
	}
	report("write", wsecs, written, (uint64_t)bytes);
	hy_game_free(&g);

	/* from memory */
	char *mem = malloc((size_t)bytes);
	rewind(f);
	if (!mem || fread(mem, 1, (size_t)bytes, f) != (size_t)bytes) {
		fprintf(stderr, "evs_bench: cannot read the temporary file back\n");
		return 1;
	}
	hy_evs_reader *r;
	t0 = now();
	if ((s = hy_evs_reader_open_mem(&r, "memory", mem, (size_t)bytes)) != HY_OK)
		return die("read", s, NULL);
	int rc = read_back("read-mem", r, written, (uint64_t)bytes, t0);
	hy_evs_reader_close(r);
	free(mem);

	/* through the FILE reader */
	rewind(f);
	t0 = now();
	if (!rc && (s = hy_evs_reader_open_file(&r, "tmpfile", f)) != HY_OK)
		return die("read", s, NULL);
	if (!rc) {
		rc = read_back("read-file", r, written, (uint64_t)bytes, t0);
		hy_evs_reader_close(r);
	}
	fclose(f);
	return rc;
}
