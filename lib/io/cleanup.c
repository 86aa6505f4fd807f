/* Removal of registered temporary files on a fatal signal (see cleanup.h). */
#include "io/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FREE = 0, WRITING = 1, LIVE = 2 };

static struct {
	atomic_int state;
	char path[HY_CLEANUP_PATH_MAX];
} slots[HY_CLEANUP_SLOTS];

static atomic_int installed;

int hy_cleanup_add(const char *path)
{
	size_t n = strlen(path);
	if (n >= HY_CLEANUP_PATH_MAX)
		return -1;
	for (int i = 0; i < HY_CLEANUP_SLOTS; i++) {
		int expect = FREE;
		if (!atomic_compare_exchange_strong(&slots[i].state, &expect, WRITING))
			continue;
		memcpy(slots[i].path, path, n + 1);
		atomic_store(&slots[i].state, LIVE);
		return i;
	}
	return -1;
}

int hy_cleanup_mkstemp(char *tmpl, int *slot)
{
	sigset_t all, old;
	sigfillset(&all);
	/* a thread's mask: the signal, if it comes to this thread, waits until
	 * the file is registered; one sent to the process goes to a thread that
	 * does not block it, whose handler sees the slot once it is LIVE or
	 * cannot yet see a name that does not exist yet */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int fd = mkostemp(tmpl, O_CLOEXEC);
	int e = errno;
	if (fd >= 0) {
		const char *hook = getenv("HY_TEST_SIGNAL_IN_STAGING");
		char *end;
		long sig = hook && *hook ? strtol(hook, &end, 10) : 0;
		if (sig > 0 && sig < NSIG && !*end)
			raise((int)sig);
		*slot = hy_cleanup_add(tmpl);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return fd;
}

void hy_cleanup_remove(int slot)
{
	if (slot >= 0 && slot < HY_CLEANUP_SLOTS)
		atomic_store(&slots[slot].state, FREE);
}

/* Async-signal-safe: atomic loads, unlink(2), signal(2), pthread_sigmask(3)
 * and raise(3) only. The signal is unblocked in this thread before it is
 * raised: from a handler (where it is blocked while the handler runs) or
 * from a thread that waits for it with sigwait (io/stopsig.h), it then ends
 * the program at once. */
void hy_cleanup_fatal(int sig)
{
	for (int i = 0; i < HY_CLEANUP_SLOTS; i++)
		if (atomic_load(&slots[i].state) == LIVE)
			unlink(slots[i].path);
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
}

/* A signal the parent ignores stays ignored (nohup, an ignored SIGPIPE);
 * another's handler stays unless `over` (a sanitizer's SIGSEGV, MPI's). */
static void install(int sig, int over)
{
	struct sigaction old, sa;
	if (sigaction(sig, NULL, &old) != 0 ||
	    (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) ||
	    (!over && ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)))
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = hy_cleanup_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	sigaction(sig, &sa, NULL);
}

void hy_cleanup_install(void)
{
	if (atomic_exchange(&installed, 1))
		return;
	/* every signal whose default action ends the process and that can be
	 * caught (signal(7): Term and Core); the first four are ours whatever
	 * handler was there */
	static const int ours[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		install(ours[i], 1);
	static const int sigs[] = {
		SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
		SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGSYS, SIGTRAP, SIGABRT,
		SIGBUS, SIGFPE, SIGILL, SIGSEGV,
#ifdef SIGPWR
		SIGPWR,
#endif
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
	};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		install(sigs[i], 0);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		install(sig, 0);
}
