/* The shipped models' places (models.h). */
#include "cli/models.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The directory of the running program into dir (n bytes): 0, or −1. */
static int exe_dir(char *dir, size_t n)
{
	char buf[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(dir, n, "%s", buf) >= n)
		return -1;
	return 0;
}

/* dir/file, when it is a readable file: its real path into out, 1. */
static int try_at(const char *dir, const char *file, char *out, size_t n, char *looked,
	size_t nl)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	char real[PATH_MAX];
	if (access(p, R_OK) == 0 && realpath(p, real) && strlen(real) < n) {
		snprintf(out, n, "%s", real);
		return 1;
	}
	size_t len = strlen(looked);
	char shown[PATH_MAX];
	/* the directory as it is meant (dir/.. resolved where it exists) */
	const char *d = realpath(dir, shown) ? shown : dir;
	snprintf(looked + len, nl - len, "%s%s", len ? ", " : "", d);
	return 0;
}

int hy_cli_model_find(const char *file, char *out, size_t n)
{
	char looked[3 * PATH_MAX] = "";
	const char *env = getenv("HYDRA_MODELS");
	int found = 0;
	if (env && *env) {
		found = try_at(env, file, out, n, looked, sizeof looked);
	} else {
		char dir[PATH_MAX], p[PATH_MAX + 32];
		if (exe_dir(dir, sizeof dir) == 0) {
			snprintf(p, sizeof p, "%s/../../models", dir);
			found = try_at(p, file, out, n, looked, sizeof looked);
			if (!found) {
				snprintf(p, sizeof p, "%s/../share/hydra/models", dir);
				found = try_at(p, file, out, n, looked, sizeof looked);
			}
		}
	}
	if (!found)
		snprintf(out, n, "%s", looked[0] ? looked : "(no place: the program's own path is unknown)");
	return found;
}

int hy_cli_model_default(hy_cli *c, const char **spec, const char *file, const char *role,
	const char *hint, char *out, size_t n)
{
	if (*spec)
		return 0;
	if (!hy_cli_model_find(file, out, n))
		return hy_cli_usage(c, "no %s named, and no shipped %s (looked in %s): %s", role,
			file, out, hint);
	if (!hy_cli_quiet(c))
		hy_cli_say(c, "no %s named: the shipped one, %s (models/README.md)", role, out);
	*spec = out;
	return 0;
}
