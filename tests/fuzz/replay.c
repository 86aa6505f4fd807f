/* Driver for the fuzz harnesses without libFuzzer: feeds each file named on
 * the command line, or every regular file of a directory named there (in
 * name order), to LLVMFuzzerTestOneInput once. Built with the ordinary
 * compiler by the Makefile as $(BUILD)/fuzz/replay_<name>, so that
 * `make check` replays tests/fuzz/regress/<name>/ and the seed corpus.
 * Exit status: 0 when every input ran, 1 when an input could not be read, 2
 * usage; a crashing input ends the process (sanitizer or signal). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *prog = "replay";

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
		return 1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "%s: '%s': out of memory\n", prog, path);
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		fprintf(stderr, "%s: cannot read '%s'\n", prog, path);
		free(buf);
		return 1;
	}
	/* an exactly sized copy, so that reads past the end are caught */
	uint8_t *in = malloc(len ? len : 1);
	if (!in) {
		free(buf);
		return 1;
	}
	if (len)
		memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count)
{
	DIR *dp = opendir(dir);
	if (!dp) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", prog, dir, strerror(errno));
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(dp);
	if (n)
		qsort(names, n, sizeof *names, cmp_names);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		size_t plen = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(plen);
		if (!path) {
			rc = 1;
			break;
		}
		snprintf(path, plen, "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(path))
				rc = 1;
			else
				(*count)++;
		}
		free(path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 0 && argv[0]) {
		const char *s = strrchr(argv[0], '/');
		prog = s ? s + 1 : argv[0];
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", prog);
		return 2;
	}
	int rc = 0, count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "%s: cannot open '%s': %s\n", prog, argv[i], strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count))
				rc = 1;
		} else if (run_file(argv[i])) {
			rc = 1;
		} else {
			count++;
		}
	}
	fprintf(stderr, "%s: %d inputs replayed\n", prog, count);
	return rc;
}
