/* Thread policy of the CPU backend (lib/nn/cpu.c): how its OpenMP threads
 * wait, that OpenBLAS starts no threads of its own, and how many threads
 * to use by default.
 *
 * Why: with libgomp's default wait policy an idle OpenMP thread spins for
 * about 300 000 iterations (milliseconds) before it sleeps. When another
 * process keeps a core busy, the spinning thread takes the CPU that the
 * thread still working (or the process beside it) needs, and every join
 * and barrier of a training step waits for a time slice: the tiny net
 * trained 3 to 25 times slower on 2 threads than on 1 (bench/nn/threads.sh,
 * bench/nn/RESULTS-threads.md). Passive waiting lets an idle thread's core go
 * to whoever can use it. */
#ifndef HY_NN_THREADS_H
#define HY_NN_THREADS_H

/* Call first thing in main, before any thread, signal handler or file
 * exists. Makes OpenMP threads wait passively (OMP_WAIT_POLICY=passive)
 * unless the user chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT in the
 * environment), and OpenBLAS start no thread pool (OPENBLAS_NUM_THREADS=1
 * unless set; the backend splits GEMMs itself). libgomp and OpenBLAS read
 * their environment only when they are loaded, before main, so when a
 * variable has to be set the program executes itself again once
 * (/proc/self/exe, same arguments, same open files), and in that run the
 * variables it set are removed again, so child processes do not inherit
 * them. Returns when nothing needs changing (a policy chosen by the user,
 * or only one CPU to run on), in the re-executed run, and when
 * re-execution is impossible (then the libraries' defaults stay: training
 * works, but slows down under load). The second start costs what loading
 * the program's shared libraries costs (milliseconds; about 0.4 s where
 * the CUDA libraries are linked). */
void hy_nn_threads_init(char **argv);

/* The default thread count: the CPUs this process may run on (its affinity
 * mask, e.g. after taskset), capped by a cgroup CPU quota (a container's
 * --cpus) rounded up; at least 1. Unlike sysconf(_SC_NPROCESSORS_ONLN), it
 * never counts CPUs the process cannot have. */
int hy_nn_threads_default(void);

#endif
