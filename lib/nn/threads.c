/* Thread policy of the CPU backend: see threads.h. Linux-specific parts
 * (/proc/self/exe, the affinity mask, cgroup files) degrade to the
 * libraries' defaults and the online CPU count where they are missing. */
#include "nn/threads.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Marks the re-executed run; its value lists the variables to remove. */
#define MARK "HYDRA_THREADS_SET"

void hy_nn_threads_init(char **argv)
{
	const char *mark = getenv(MARK);
	if (mark) {
		char set[64];
		snprintf(set, sizeof set, "%s", mark);
		for (char *sv = NULL, *v = strtok_r(set, ",", &sv); v; v = strtok_r(NULL, ",", &sv))
			if (!strcmp(v, "OMP_WAIT_POLICY") || !strcmp(v, "OPENBLAS_NUM_THREADS"))
				unsetenv(v);
		unsetenv(MARK);
		/* the name /proc/self/exe gave it ("exe"), back to the program's
		 * (ps, top, pgrep without -f) */
		if (argv && argv[0]) {
			const char *b = strrchr(argv[0], '/');
			prctl(PR_SET_NAME, b ? b + 1 : argv[0], 0, 0, 0);
		}
		return;
	}
	char set[64] = "";
	if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
		strcat(set, "OMP_WAIT_POLICY");
	if (!getenv("OPENBLAS_NUM_THREADS"))
		strcat(set, *set ? ",OPENBLAS_NUM_THREADS" : "OPENBLAS_NUM_THREADS");
	/* OPENBLAS_NUM_THREADS alone is no reason to start again: the backend
	 * sets OpenBLAS to one thread anyway, its idle pool only sleeps; nor
	 * is a wait policy where the process can have only one CPU */
	if (!argv || !argv[0] || !strstr(set, "OMP_WAIT_POLICY") || hy_nn_threads_default() < 2 ||
		access("/proc/self/exe", X_OK))
		return;
	if (setenv("OMP_WAIT_POLICY", "passive", 1) ||
		(strstr(set, "OPENBLAS") && setenv("OPENBLAS_NUM_THREADS", "1", 1)) ||
		setenv(MARK, set, 1))
		goto undo;
	fflush(NULL);
	execv("/proc/self/exe", argv);
undo:
	unsetenv("OMP_WAIT_POLICY");
	if (strstr(set, "OPENBLAS"))
		unsetenv("OPENBLAS_NUM_THREADS");
	unsetenv(MARK);
}

/* CPUs' worth of a cgroup CPU quota, rounded up; 0 when there is none. */
static long quota_file(const char *path, int v2)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char a[32] = "", b[32] = "";
	int n = fscanf(f, "%31s %31s", a, b);
	fclose(f);
	long q = 0, p = 0;
	if (v2) {
		if (n != 2 || !strcmp(a, "max"))
			return 0;
		q = strtol(a, NULL, 10), p = strtol(b, NULL, 10);
	} else {
		char pp[PATH_MAX];
		snprintf(pp, sizeof pp, "%.*s/cpu.cfs_period_us",
			(int)(strrchr(path, '/') - path), path);
		FILE *g = fopen(pp, "r");
		if (n < 1 || !g) {
			if (g)
				fclose(g);
			return 0;
		}
		q = strtol(a, NULL, 10);
		if (fscanf(g, "%ld", &p) != 1)
			p = 0;
		fclose(g);
	}
	return q > 0 && p > 0 ? (q + p - 1) / p : 0;
}

/* The smallest quota on the way from this process's cgroup up to the
 * root of the hierarchy mounted at mnt (as a container sees it, the
 * path may not exist under mnt: then only mnt itself counts). */
static long quota_tree(const char *mnt, const char *cg, const char *file, int v2)
{
	char dir[PATH_MAX];
	long best = 0;
	snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(cg, "/") ? cg : "");
	for (;;) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/%s", dir, file);
		long q = quota_file(path, v2);
		if (q > 0 && (best == 0 || q < best))
			best = q;
		char *s = strrchr(dir, '/');
		if (!s || (size_t)(s - dir) < strlen(mnt))
			break;
		*s = 0;
	}
	return best;
}

static long cgroup_cpus(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return 0;
	char line[PATH_MAX + 64];
	long best = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *ctl = c1 + 1, *cg = c2 + 1;
		long q = 0;
		if (!*ctl) {
			q = quota_tree("/sys/fs/cgroup", cg, "cpu.max", 1);
		} else {
			char list[256];
			snprintf(list, sizeof list, ",%s,", ctl);
			if (!strstr(list, ",cpu,"))
				continue;
			q = quota_tree("/sys/fs/cgroup/cpu,cpuacct", cg, "cpu.cfs_quota_us", 0);
			if (!q)
				q = quota_tree("/sys/fs/cgroup/cpu", cg, "cpu.cfs_quota_us", 0);
		}
		if (q > 0 && (best == 0 || q < best))
			best = q;
	}
	fclose(f);
	return best;
}

int hy_nn_threads_default(void)
{
	long n = 0;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	long q = cgroup_cpus();
	if (q > 0 && q < n)
		n = q;
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}
