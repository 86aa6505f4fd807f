/* Fuzz harness: the event stream read sequentially from a real pipe
 * (hy_evs_reader_open_file), as `hydra-encode < stream` reads it. A thread
 * writes the input into the pipe; the reader may stop early on an error, so
 * the writer ignores EPIPE (SIGPIPE is ignored here). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

#include "fuzz.h"

typedef struct feed {
	int fd;
	const uint8_t *data;
	size_t size;
} feed;

static void *feeder(void *arg)
{
	feed *fd = arg;
	size_t off = 0;
	while (off < fd->size) {
		ssize_t k = write(fd->fd, fd->data + off, fd->size - off);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	close(fd->fd);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	if (!init) {
		signal(SIGPIPE, SIG_IGN);
		init = 1;
	}
	int p[2];
	if (pipe(p))
		return 0;
	feed fd = {p[1], data, size};
	pthread_t th;
	if (pthread_create(&th, NULL, feeder, &fd)) {
		close(p[0]);
		close(p[1]);
		return 0;
	}
	FILE *f = fdopen(p[0], "rb");
	if (!f) {
		close(p[0]);
		pthread_join(th, NULL);
		return 0;
	}
	hy_evs_reader *r = NULL;
	if (hy_evs_reader_open_file(&r, "(pipe)", f) == HY_OK) {
		hy_game g;
		hy_game_init(&g);
		hy_diag d;
		while (hy_evs_read_game(r, &g, &d) == HY_OK)
			fz_use_game(&g);
		hy_evs_reader_close(r);
		hy_game_free(&g);
	}
	fclose(f); /* the feeder then gets EPIPE if it is still writing */
	pthread_join(th, NULL);
	return 0;
}
