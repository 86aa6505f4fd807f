/* The signals that ask a program to stop, taken by a thread of their own
 * (see stopsig.h). */
#include "io/stopsig.h"

#include "io/cleanup.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static volatile sig_atomic_t *volatile target;
static atomic_int seen;    /* stop signals received so far */
static atomic_int started; /* the thread runs */
static sigset_t stop_set;

/* The first stop signal sets the flag, the second ends the program
 * (async-signal-safe: the handler calls it too). */
static void take(int sig)
{
	if (atomic_fetch_add(&seen, 1) > 0)
		hy_cleanup_fatal(sig);
	volatile sig_atomic_t *f = target;
	if (f)
		*f = 1;
}

static void on_signal(int sig)
{
	take(sig);
}

static void *signal_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int sig;
		if (sigwait(&stop_set, &sig) == 0)
			take(sig);
	}
	return NULL;
}

int hy_stopsig_start(volatile sig_atomic_t *flag)
{
	target = flag;
	hy_cleanup_install(); /* the other fatal signals, and SIGINT's slot */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (atomic_load(&started))
		return 0;
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	sigset_t before;
	if (pthread_sigmask(SIG_BLOCK, &stop_set, &before) != 0)
		return -1;
	pthread_attr_t at;
	pthread_t th;
	int rc = pthread_attr_init(&at);
	if (rc == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&th, &at, signal_thread, NULL);
		pthread_attr_destroy(&at);
	}
	if (rc != 0) {
		pthread_sigmask(SIG_SETMASK, &before, NULL);
		return -1;
	}
	pthread_setname_np(th, "hy-signals");
	atomic_store(&started, 1);
	return 0;
}
