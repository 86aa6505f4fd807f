/* Multi-process runs over MPI (ARCHITECTURE.md §8-9, issue 13): rank setup, sums
 * over all ranks, point-to-point byte transfers, and the partition of index
 * ranges across ranks (contiguous blocks: samples of a batch; strided:
 * games of a self-play or arena run). Used by train/ and the self-play and
 * evaluation programs; nothing below them sees it.
 *
 * MPI is optional at build time (HY_HAVE_MPI, Makefile probe, NO_MPI=1)
 * and at run time: hy_mpi_init calls MPI_Init_thread only when the process
 * was started by an MPI launcher (mpirun/mpiexec/srun set OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE or PMIX_RANK); a plain run is rank 0 of 1 and never touches MPI.
 * Every function works for a single rank (sums are the identity).
 *
 * Errors: MPI_ERRORS_RETURN is set on the world communicator, every call's
 * status is checked and reported as "rank R of N: MPI_Xxx: reason" (HY_EIO).
 * A rank that cannot go on calls hy_mpi_abort, which ends every rank of
 * the job (MPI_Abort); a rank killed from outside is noticed by the
 * launcher, which ends the others (exit status non-zero).
 *
 * Determinism: sums go in fixed buckets in a fixed order, so with a fixed
 * rank count the result is the same from run to run. */
#ifndef HY_MPI_MPI_H
#define HY_MPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct hy_mpi {
	int rank, size;
	int mpi;        /* 1: this process initialised MPI (finalised by hy_mpi_free) */
} hy_mpi;

/* Floats per all-reduce bucket of hy_mpi_sum_f32 (4 MiB). */
enum { HY_MPI_BUCKET = 1 << 20 };

/* Rank setup (see above). HY_EUNSUP when launched by mpirun with more than
 * one rank but built without MPI; HY_EIO when MPI fails to start. */
hy_status hy_mpi_init(hy_mpi *ds, hy_diag *d);
/* MPI_Finalize when hy_mpi_init started MPI (a barrier first). */
void hy_mpi_free(hy_mpi *ds);
/* Ends every rank of the job with exit status code (MPI_Abort); returns
 * without doing anything for a single rank. */
void hy_mpi_abort(const hy_mpi *ds, int code);
/* 1 when launched by an MPI launcher (environment), whatever the build. */
int hy_mpi_launched(void);
/* This process's rank as the launcher's environment gives it (0 when not
 * launched by one): lets a program keep its messages to rank 0 before
 * hy_mpi_init has run. */
int hy_mpi_env_rank(void);

/* This rank's block [*lo, *hi) of n items: contiguous, sizes differing by
 * at most one, rank 0 first. */
void hy_mpi_range(const hy_mpi *ds, uint64_t n, uint64_t *lo, uint64_t *hi);
/* Block [*lo, *hi) of rank r. */
void hy_mpi_range_of(int r, int size, uint64_t n, uint64_t *lo, uint64_t *hi);
/* Strided partition (games of hydra-sp and seeds of hydra-eval): rank r
 * of size takes items r, r + size, r + 2·size, ... of n, that is
 * hy_mpi_stride_count(r, size, n) of them (n/size, one more for the first
 * n mod size ranks). */
uint64_t hy_mpi_stride_count(int r, int size, uint64_t n);
/* Round-robin ownership: item i belongs to rank i mod size. */
static inline int hy_mpi_owner(const hy_mpi *ds, uint64_t i)
{
	return (int)(i % (uint64_t)ds->size);
}

/* In-place sums over all ranks, every rank gets the result. */
hy_status hy_mpi_sum_f32(const hy_mpi *ds, float *buf, size_t n, hy_diag *d);
hy_status hy_mpi_sum_f64(const hy_mpi *ds, double *buf, size_t n, hy_diag *d);
/* In-place maximum over all ranks of n ints (flags: "any rank"). */
hy_status hy_mpi_max_int(const hy_mpi *ds, int *buf, size_t n, hy_diag *d);
/* Every rank gets rank 0's n bytes. */
hy_status hy_mpi_bcast(const hy_mpi *ds, void *buf, size_t n, hy_diag *d);
hy_status hy_mpi_barrier(const hy_mpi *ds, hy_diag *d);

/* A message of any length (a 64-bit length, then the bytes in chunks) to
 * rank `to`; hy_mpi_recv_msg receives one from rank `from` into *buf
 * (realloc'd, *cap its capacity) and sets *n. */
hy_status hy_mpi_send_msg(const hy_mpi *ds, int to, const void *buf, size_t n, hy_diag *d);
hy_status hy_mpi_recv_msg(const hy_mpi *ds, int from, void **buf, size_t *cap, size_t *n,
	hy_diag *d);

/* Nonblocking in-place sums (MPI_Iallreduce), for the gradient sum that
 * overlaps the backward pass (mpi/grad.h hy_mpi_overlap). A set holds up
 * to n sums in flight, numbered 0 to n−1; every rank must start the same
 * sums (same sizes) in the same order, as with any collective. Between the
 * start of sum i and the hy_mpi_wait that ends it, its buffer belongs to
 * MPI: the caller neither reads nor writes it. For a single rank every
 * call is a no-op (sums are the identity). */
typedef struct hy_mpi_reqs hy_mpi_reqs;

hy_status hy_mpi_reqs_init(hy_mpi_reqs **q, size_t n, hy_diag *d);
void hy_mpi_reqs_free(hy_mpi_reqs *q); /* NULL is fine; waits for nothing */
/* Starts sum i of buf[0, count) (count ≤ INT_MAX) over all ranks. */
hy_status hy_mpi_isum_f32(const hy_mpi *ds, hy_mpi_reqs *q, size_t i, float *buf,
	size_t count, hy_diag *d);
/* Lets MPI progress the sums started (MPI_Testall: without an asynchronous
 * progress thread a nonblocking collective advances only inside MPI
 * calls); *done: 1 when every started sum has finished. */
hy_status hy_mpi_test(const hy_mpi *ds, hy_mpi_reqs *q, int *done, hy_diag *d);
/* Waits for every started sum (MPI_Waitall); the set is empty again. */
hy_status hy_mpi_wait(const hy_mpi *ds, hy_mpi_reqs *q, hy_diag *d);

#endif
