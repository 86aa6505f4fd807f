/* The signals that ask a program to stop (SIGINT, SIGTERM), taken by a
 * thread of their own.
 *
 * A program that saves and stops on the first SIGINT (hydra-fit) has a
 * handler that returns. Where a signal's handler runs, the kernel first
 * writes the signal frame (the registers and the vector state, a few KiB
 * with AVX-512) below the interrupted thread's stack pointer; oneDNN's
 * JIT GEMM kernels point the stack pointer into a heap buffer while they
 * run (oneDNN issue 4845, fixed upstream in March 2026; Debian's libdnnl
 * 2.6 has them), so a handler that runs on a compute thread can overwrite
 * the heap, and the program aborts later in malloc ("corrupted size vs.
 * prev_size"; seen here, tests/shell/t0873-stop-signals.sh). No handler
 * may therefore run on a thread that computes.
 *
 * hy_stopsig_start blocks SIGINT and SIGTERM in the calling thread (so in
 * every thread it creates afterwards: OpenMP's workers, loaders,
 * decoders) and starts one thread, named "hy-signals", that waits for
 * them with sigwait(3): the first sets *flag, the second ends the program
 * as hy_cleanup_fatal does (registered temporary files removed, the
 * signal re-raised with its default action). A thread that was running
 * before the call and does not block them still gets a handler that does
 * the same. A child forked afterwards inherits the mask: it unblocks
 * SIGINT and SIGTERM before exec (hydra-fit's --on-eval command,
 * lib/train/loop.c). */
#ifndef HY_IO_STOPSIG_H
#define HY_IO_STOPSIG_H

#include <signal.h>

/* Starts the signal thread (once per process; a second call only changes
 * the flag). Returns 0, or -1 when the thread cannot be started: then the
 * mask is as it was and the handler alone takes the signals. */
int hy_stopsig_start(volatile sig_atomic_t *flag);

#endif
