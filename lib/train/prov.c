/* Provenance of a training run (see prov.h). */
#include "train/prov.h"
#include "core/grow.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static long long mtime_ns(const struct stat *sb)
{
	return (long long)sb->st_mtim.tv_sec * 1000000000LL + sb->st_mtim.tv_nsec;
}

hy_status hy_prov_describe(const char *const *paths, size_t n, char *out, size_t size,
	hy_diag *d)
{
	size_t at = 0;
	if (size)
		out[0] = '\0';
	for (size_t i = 0; i < (n ? n : 1); i++) {
		const char *p = n ? paths[i] : NULL;
		int w;
		if (!p || !strcmp(p, "-")) {
			w = snprintf(out + at, size - at, "-\t-\t-\n");
		} else {
			struct stat sb;
			char abs[PATH_MAX];
			if (stat(p, &sb) != 0)
				return hy_diag_set(d, HY_EIO, 0, "%s: cannot stat: %s", p,
					strerror(errno));
			if (strchr(p, '\t') || strchr(p, '\n'))
				return hy_diag_set(d, HY_EUSAGE, 0, "%s: a tab or newline in an input "
					"path cannot be recorded", p);
			w = snprintf(out + at, size - at, "%s\t%lld\t%lld\n",
				realpath(p, abs) ? abs : p, (long long)sb.st_size, mtime_ns(&sb));
		}
		if (w < 0 || (size_t)w >= size - at) {
			if (size)
				out[0] = '\0';
			return hy_diag_set(d, HY_EUSAGE, 0, "the list of %zu inputs is longer than "
				"%zu bytes: not recorded", n, size);
		}
		at += (size_t)w;
	}
	return HY_OK;
}

void hy_prov_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

static void add_change(char *changed, size_t csize, const char *fmt, const char *path,
	long long a, long long b)
{
	size_t at = strlen(changed);
	if (at + 1 >= csize)
		return;
	int w = snprintf(changed + at, csize - at, "%s", at ? ", " : "");
	if (w > 0)
		at += (size_t)w < csize - at ? (size_t)w : csize - at - 1;
	snprintf(changed + at, csize - at, fmt, path, a, b);
}

hy_status hy_prov_parse(const char *desc, char ***paths, size_t *n, char *changed,
	size_t csize, hy_diag *d)
{
	*paths = NULL;
	*n = 0;
	if (csize)
		changed[0] = '\0';
	size_t cap = 0;
	hy_status st = HY_OK;
	for (const char *l = desc; *l && !st;) {
		const char *e = strchr(l, '\n');
		if (!e) {
			st = hy_diag_set(d, HY_EFORMAT, 0, "input record without an end of line");
			break;
		}
		const char *t1 = memchr(l, '\t', (size_t)(e - l));
		const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(e - t1 - 1)) : NULL;
		if (!t1 || !t2 || t1 == l) {
			st = hy_diag_set(d, HY_EFORMAT, 0, "input record '%.*s' is not PATH, SIZE and "
				"MTIME", (int)(e - l > 80 ? 80 : e - l), l);
			break;
		}
		if (HY_GROW(*paths, cap, *n + 1, 8)) {
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			break;
		}
		char *path = strndup(l, (size_t)(t1 - l));
		if (!path) {
			st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
			break;
		}
		(*paths)[(*n)++] = path;
		if (strcmp(path, "-") != 0) {
			char *end;
			long long size = strtoll(t1 + 1, &end, 10), mt;
			if (end != t2 || ((mt = strtoll(t2 + 1, &end, 10)), end != e)) {
				st = hy_diag_set(d, HY_EFORMAT, 0, "input record of '%s': bad size or "
					"time", path);
				break;
			}
			struct stat sb;
			if (stat(path, &sb) != 0)
				add_change(changed, csize, "%s (missing)", path, 0, 0);
			else if ((long long)sb.st_size != size)
				add_change(changed, csize, "%s (size %lld -> %lld)", path, size,
					(long long)sb.st_size);
			else if (mtime_ns(&sb) != mt)
				add_change(changed, csize, "%s (modified)", path, 0, 0);
		}
		l = e + 1;
	}
	if (st) {
		hy_prov_free(*paths, *n);
		*paths = NULL;
		*n = 0;
	}
	return st;
}

static int plain(const char *w)
{
	if (!*w)
		return 0;
	for (const char *p = w; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("_./:=,+-", *p)))
			return 0;
	return 1;
}

void hy_prov_command(int argc, char *const *argv, char *out, size_t size)
{
	size_t at = 0;
	if (!size)
		return;
	out[0] = '\0';
	for (int i = 0; i < argc; i++) {
		char word[4096];
		size_t k = 0;
		const char *w = argv[i];
		if (plain(w)) {
			k = (size_t)snprintf(word, sizeof word, "%s", w);
		} else { /* single quotes; a quote inside as '\'' */
			word[k++] = '\'';
			for (const char *p = w; *p && k + 6 < sizeof word; p++) {
				if (*p == '\'') {
					memcpy(word + k, "'\\''", 4);
					k += 4;
				} else {
					word[k++] = *p;
				}
			}
			word[k++] = '\'';
			word[k] = '\0';
		}
		if (k >= sizeof word)
			k = sizeof word - 1;
		if (at + (i > 0) + k + 4 >= size) {
			snprintf(out + at, size - at, "%s...", i > 0 && at + 1 < size ? " " : "");
			return;
		}
		at += (size_t)snprintf(out + at, size - at, "%s%s", i > 0 ? " " : "", word);
	}
}
