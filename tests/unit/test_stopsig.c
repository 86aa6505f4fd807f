/* io/stopsig: after hy_stopsig_start the caller and every thread it
 * creates block SIGINT and SIGTERM; a SIGINT sent to the process sets the
 * flag (taken by the signal thread, never by those threads), and a second
 * stop signal ends the process by that signal with its registered
 * temporary file removed. Each case runs in a child of its own: the mask
 * and the signal thread are process-wide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/cleanup.h"
#include "io/stopsig.h"

static volatile sig_atomic_t flag;

static int blocked_here(void)
{
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	return sigismember(&m, SIGINT) == 1 && sigismember(&m, SIGTERM) == 1;
}

static void *thread_mask(void *arg)
{
	*(int *)arg = blocked_here();
	return NULL;
}

/* waits up to 5 s for the flag */
static int flag_set(void)
{
	for (int i = 0; i < 500 && !flag; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return flag != 0;
}

/* 5 s for a signal on its way to end the process */
static void linger(void)
{
	for (int i = 0; i < 500; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* the child's checks, as its exit status: 0 when all hold */
static int child_first(void)
{
	if (blocked_here())
		return 10; /* blocked before the start: the test would prove nothing */
	if (hy_stopsig_start(&flag))
		return 11;
	if (!blocked_here())
		return 12;
	int t = 0;
	pthread_t th;
	if (pthread_create(&th, NULL, thread_mask, &t) || pthread_join(th, NULL) || !t)
		return 13;
	kill(getpid(), SIGINT);
	if (!flag_set())
		return 14;
	return 0;
}

static void test_first_sets_flag(void **state)
{
	(void)state;
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(child_first());
	int st = 0;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A child that registers a temporary file (its name sent through a pipe
 * into name), starts the signal thread, sends itself SIGINT, waits for the
 * flag and then sends itself `second`: its wait status. */
static int two_signals(int second, char *name, size_t n)
{
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		close(pfd[0]);
		char tmpl[] = "/tmp/hydra-stopsig-XXXXXX";
		int slot;
		if (hy_cleanup_mkstemp(tmpl, &slot) < 0 || hy_stopsig_start(&flag))
			_exit(30);
		if (write(pfd[1], tmpl, sizeof tmpl) != (ssize_t)sizeof tmpl)
			_exit(31);
		kill(getpid(), SIGINT);
		if (!flag_set())
			_exit(32);
		kill(getpid(), second);
		linger();
		_exit(33); /* still alive */
	}
	close(pfd[1]);
	const ssize_t want = (ssize_t)sizeof "/tmp/hydra-stopsig-XXXXXX";
	assert_true((size_t)want <= n);
	assert_int_equal(read(pfd[0], name, (size_t)want), want);
	close(pfd[0]);
	int st = 0;
	assert_int_equal(waitpid(p, &st, 0), p);
	return st;
}

static void test_second_ends(void **state)
{
	(void)state;
	char name[64] = "";
	int st = two_signals(SIGTERM, name, sizeof name);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
}

/* Two SIGINTs: the second ends the child by SIGINT, and the temporary file
 * it registered is gone. */
static void test_second_removes_temporary(void **state)
{
	(void)state;
	char name[64] = "";
	int st = two_signals(SIGINT, name, sizeof name);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGINT);
	assert_int_not_equal(access(name, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_sets_flag),
		cmocka_unit_test(test_second_ends),
		cmocka_unit_test(test_second_removes_temporary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
