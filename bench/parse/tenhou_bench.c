/* mjlog → events throughput: converts every .mjlog under a directory
 * (argv[1], default ../shared/data/logs/mjx-project_mjx/tests_py/resources/
 * mjlog; truncated copies are skipped) again and again for at least two
 * seconds on one core and prints "mjlog: N games/s (1 core)". */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenhou/tenhou.h"

typedef struct doc {
	char *name, *data;
	size_t len;
} doc;

static hy_status on_game(void *ctx, hy_game *g)
{
	*(size_t *)ctx += g->n;
	return HY_OK;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int load(const char *path, doc *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	if (fseek(f, 0, SEEK_END) != 0) {
		fclose(f);
		return 0;
	}
	long n = ftell(f);
	rewind(f);
	d->data = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!d->data || fread(d->data, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(d->data);
		return 0;
	}
	fclose(f);
	d->data[n] = 0;
	d->len = (size_t)n;
	d->name = strdup(path);
	return d->name != NULL;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1]
				   : "../shared/data/logs/mjx-project_mjx/tests_py/resources/mjlog";
	DIR *dp = opendir(dir);
	if (!dp) {
		fprintf(stderr, "tenhou_bench: cannot open '%s'\n", dir);
		return 1;
	}
	doc *docs = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 6, ".mjlog") != 0 || strstr(de->d_name, "-no-"))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		doc *p = realloc(docs, (n + 1) * sizeof *p);
		if (!p)
			return 1;
		docs = p;
		if (load(path, &docs[n]))
			n++;
	}
	closedir(dp);
	if (n == 0) {
		fprintf(stderr, "tenhou_bench: no .mjlog files in '%s'\n", dir);
		return 1;
	}
	size_t events = 0, games = 0, bytes = 0;
	hy_game_sink sink = {on_game, NULL, &events};
	double t0 = now(), t;
	do {
		for (size_t i = 0; i < n; i++) {
			hy_diag d;
			hy_status st = hy_tenhou_parse_doc(docs[i].name, docs[i].data, docs[i].len, &sink, &d);
			if (st) {
				char buf[1200];
				fprintf(stderr, "tenhou_bench: %s\n", hy_diag_format(&d, buf, sizeof buf));
				return 1;
			}
			bytes += docs[i].len;
		}
		games += n;
		t = now() - t0;
	} while (t < 2.0);
	printf("mjlog: %.0f games/s (1 core)  [%zu files, %zu games in %.2f s, %.0f events/s, %.1f MB/s]\n",
	       (double)games / t, n, games, t, (double)events / t, (double)bytes / t / 1e6);
	for (size_t i = 0; i < n; i++) {
		free(docs[i].name);
		free(docs[i].data);
	}
	free(docs);
	return 0;
}
