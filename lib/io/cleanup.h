/* Temporary files that must not survive an interrupted program.
 *
 * Every temporary output (lib/io/output.c, shards, checkpoints, the
 * deferred sets of io/staged.h) is registered here while it exists. A
 * program that installs the handlers (hy_cleanup_install, once, in main)
 * has them removed when any signal that can be caught ends it (SIGINT,
 * SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGALRM, SIGXCPU, SIGSEGV,
 * ...: every one whose default action is to end the process); the signal
 * is then re-raised with its default action, so the exit status still says
 * what killed the program, and a stream it was writing is left without its
 * trailer (readers report it as truncated). SIGKILL cannot be caught: the
 * next run writing the same file removes what such a run left
 * (io/staged.h).
 *
 * This and the stop signals' flag (io/stopsig.h) are the process-wide
 * mutable state of lib/: a signal handler can reach nothing else. The table is a fixed array of slots
 * (no allocation), each with an atomic state, so the handler only reads
 * complete names; registering and unregistering are safe from any thread.
 * A program without the handlers loses nothing: registering is then only
 * bookkeeping. */
#ifndef HY_IO_CLEANUP_H
#define HY_IO_CLEANUP_H

enum {
	HY_CLEANUP_SLOTS = 64,
	HY_CLEANUP_PATH_MAX = 1024,
};

/* Installs the handler of every signal that ends the process by default
 * and can be caught, except those ignored (nohup, an ignored SIGPIPE) and,
 * beyond SIGINT, SIGTERM, SIGHUP and SIGPIPE, those another handler holds
 * (a sanitizer's SIGSEGV, MPI's). Idempotent. */
void hy_cleanup_install(void);

/* From a program's own signal handler (async-signal-safe): removes every
 * registered file, then re-raises sig with its default action (unblocked
 * in the calling thread first). For programs that handle the first SIGINT
 * themselves (hydra-fit saves and stops: io/stopsig.h) and die on the
 * second. */
void hy_cleanup_fatal(int sig);

/* Registers a temporary path: returns a slot number, or -1 when the table is
 * full or the name too long (the file is then not removed on a signal). */
int hy_cleanup_add(const char *path);

/* Creates a temporary file from tmpl (mkostemp(3): it ends in "XXXXXX",
 * replaced by the name made) and registers it, with every signal blocked
 * from the creation to the registration: a signal that arrives between the
 * two is delivered after it, and its handler removes the file. Returns the
 * open descriptor (O_CLOEXEC) and *slot, or -1 with errno set and no file.
 *
 * Test hook: with HY_TEST_SIGNAL_IN_STAGING=SIG in the environment (a signal
 * number), the calling thread raises SIG between the creation and the
 * registration, so a test can check the window deterministically
 * (tests/shell/t1400-hardening.sh). */
int hy_cleanup_mkstemp(char *tmpl, int *slot);
/* Forgets slot (a renamed or removed file); -1 is ignored. */
void hy_cleanup_remove(int slot);

#endif
