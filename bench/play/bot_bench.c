/* Per-decision latency of an mjai bot: feeds a recorded session (one
 * protocol line per decision) to a bot command on a pipe, one line at a
 * time, and times each round trip from the write to the answer line.
 *   bot_bench SESSION COMMAND
 * prints lines, mean, median, p90, p99 and max in milliseconds. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bot_bench SESSION COMMAND\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "bot_bench: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	int to[2], from[2];
	if (pipe(to) || pipe(from)) {
		perror("bot_bench: pipe");
		return 1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from[1], 1);
	posix_spawn_file_actions_addclose(&fa, to[1]);
	posix_spawn_file_actions_addclose(&fa, from[0]);
	char *args[] = {"/bin/sh", "-c", argv[2], NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		fprintf(stderr, "bot_bench: cannot start '%s': %s\n", argv[2], strerror(rc));
		return 1;
	}
	close(to[0]);
	close(from[1]);
	signal(SIGPIPE, SIG_IGN);
	FILE *w = fdopen(to[1], "w"), *r = fdopen(from[0], "r");
	char *line = NULL, *ans = NULL;
	size_t lcap = 0, acap = 0, n = 0, cap = 0;
	double *t = NULL;
	ssize_t len;
	while ((len = getline(&line, &lcap, in)) > 0) {
		double t0 = now_ms();
		if (fwrite(line, 1, (size_t)len, w) != (size_t)len || fflush(w)) {
			fprintf(stderr, "bot_bench: the bot stopped reading at line %zu\n", n + 1);
			return 1;
		}
		if (getline(&ans, &acap, r) <= 0) {
			fprintf(stderr, "bot_bench: no answer to line %zu\n", n + 1);
			return 1;
		}
		double t1 = now_ms();
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			t = realloc(t, cap * sizeof *t);
			if (!t)
				return 1;
		}
		t[n++] = t1 - t0;
	}
	fclose(w);
	int st;
	waitpid(pid, &st, 0);
	fclose(r);
	if (!n) {
		fprintf(stderr, "bot_bench: empty session\n");
		return 1;
	}
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i];
	qsort(t, n, sizeof *t, cmp_double);
	printf("%zu decisions: mean %.3f ms, median %.3f, p90 %.3f, p99 %.3f, max %.3f\n", n,
	       sum / (double)n, t[n / 2], t[n * 9 / 10], t[n * 99 / 100], t[n - 1]);
	free(t);
	free(line);
	free(ans);
	fclose(in);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
