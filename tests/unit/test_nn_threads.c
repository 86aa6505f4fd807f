/* Thread policy of the CPU backend (nn/threads.h): the default thread
 * count follows the affinity mask; hy_nn_threads_init re-executes the
 * program once with OMP_WAIT_POLICY=passive and OPENBLAS_NUM_THREADS=1,
 * removes them again in the re-executed run, and leaves a policy the user
 * chose alone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nn/threads.h"

#define MARK "HYDRA_THREADS_SET"

static void clear_env(void)
{
	unsetenv(MARK);
	unsetenv("OMP_WAIT_POLICY");
	unsetenv("GOMP_SPINCOUNT");
	unsetenv("OPENBLAS_NUM_THREADS");
}

static void test_default_follows_affinity(void **state)
{
	(void)state;
	cpu_set_t all, one;
	assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
	int n = hy_nn_threads_default();
	assert_true(n >= 1 && n <= CPU_COUNT(&all));
	/* restricted to one CPU (taskset -c N): one thread */
	int cpu = 0;
	while (!CPU_ISSET(cpu, &all))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
	assert_int_equal(hy_nn_threads_default(), 1);
	assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
	assert_int_equal(hy_nn_threads_default(), n);
}

/* In the re-executed run the variables named by the mark are removed, the
 * others kept, and the program goes on (no second exec). */
static void test_marked_run_cleans_up(void **state)
{
	(void)state;
	clear_env();
	setenv(MARK, "OPENBLAS_NUM_THREADS", 1);
	setenv("OPENBLAS_NUM_THREADS", "1", 1);
	setenv("OMP_WAIT_POLICY", "active", 1); /* the user's own */
	char *argv[] = {"test_nn_threads", NULL};
	hy_nn_threads_init(argv);
	assert_null(getenv(MARK));
	assert_null(getenv("OPENBLAS_NUM_THREADS"));
	assert_string_equal(getenv("OMP_WAIT_POLICY"), "active");
	clear_env();
}

/* A wait policy chosen by the user: no re-execution, nothing changed. */
static void test_user_policy_kept(void **state)
{
	(void)state;
	const char *vars[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"};
	for (int i = 0; i < 2; i++) {
		clear_env();
		setenv(vars[i], i ? "300000" : "active", 1);
		char *argv[] = {"test_nn_threads", NULL};
		hy_nn_threads_init(argv); /* would not return if it re-executed */
		assert_string_equal(getenv(vars[i]), i ? "300000" : "active");
		assert_null(getenv("OPENBLAS_NUM_THREADS"));
		assert_null(getenv(MARK));
	}
	clear_env();
}

/* The real thing: a child calls hy_nn_threads_init with argv naming the
 * --child mode of this program; the re-executed image sees the policy and
 * the mark, cleans up and exits 0 (see main). */
static void test_reexec(void **state)
{
	(void)state;
	if (access("/proc/self/exe", X_OK) || hy_nn_threads_default() < 2)
		skip(); /* no re-execution on one CPU (taskset -c 0) */
	clear_env();
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = {"test_nn_threads", "--child", NULL};
		hy_nn_threads_init(argv);
		_exit(3); /* returned: no re-execution happened */
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int child(void)
{
	const char *w = getenv("OMP_WAIT_POLICY"), *b = getenv("OPENBLAS_NUM_THREADS");
	const char *m = getenv(MARK);
	if (!w || strcmp(w, "passive") || !b || strcmp(b, "1") || !m)
		return 4;
	char *argv[] = {"test_nn_threads", "--child", NULL};
	hy_nn_threads_init(argv);
	if (getenv("OMP_WAIT_POLICY") || getenv("OPENBLAS_NUM_THREADS") || getenv(MARK))
		return 5;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_follows_affinity),
		cmocka_unit_test(test_marked_run_cleans_up),
		cmocka_unit_test(test_user_policy_kept),
		cmocka_unit_test(test_reexec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
