/* Rank setup, sums and transfers over MPI (see mpi.h). Without
 * HY_HAVE_MPI every function is the single-rank case. */
#include "mpi/mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HY_HAVE_MPI
#include <mpi.h>
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* OpenMPI: MPIX_CUDA_AWARE_SUPPORT */
#endif
#endif
#endif

/* Message chunks of hy_mpi_send_msg: MPI counts are ints. */
#define CHUNK ((size_t)1 << 30)
#define TAG_LEN 7101
#define TAG_DATA 7102

static int env_int(const char *name)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return -1;
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v < 0 || v > 1 << 24 ? -1 : (int)v;
}

int hy_mpi_launched(void)
{
	return env_int("OMPI_COMM_WORLD_SIZE") >= 0 || env_int("PMI_SIZE") >= 0 ||
	       env_int("PMIX_RANK") >= 0;
}

int hy_mpi_env_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
	for (int i = 0; i < 3; i++) {
		int r = env_int(vars[i]);
		if (r >= 0)
			return r;
	}
	return 0;
}

void hy_mpi_range_of(int r, int size, uint64_t n, uint64_t *lo, uint64_t *hi)
{
	uint64_t q = n / (uint64_t)size, m = n % (uint64_t)size, u = (uint64_t)r;
	*lo = u * q + (u < m ? u : m);
	*hi = *lo + q + (u < m);
}

uint64_t hy_mpi_stride_count(int r, int size, uint64_t n)
{
	uint64_t u = (uint64_t)r, m = (uint64_t)size;
	return n / m + (u < n % m);
}

void hy_mpi_range(const hy_mpi *ds, uint64_t n, uint64_t *lo, uint64_t *hi)
{
	hy_mpi_range_of(ds->rank, ds->size, n, lo, hi);
}

#ifdef HY_HAVE_MPI

static hy_status mpi_fail(const hy_mpi *ds, int rc, const char *call, hy_diag *d)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "error %d", rc);
	return hy_diag_set(d, HY_EIO, 0, "rank %d of %d: %s: %s", ds->rank, ds->size, call, msg);
}

#define MPI_CHECK(call, name) \
	do { \
		int rc_ = (call); \
		if (rc_ != MPI_SUCCESS) \
			return mpi_fail(ds, rc_, name, d); \
	} while (0)

hy_status hy_mpi_init(hy_mpi *ds, hy_diag *d)
{
	memset(ds, 0, sizeof *ds);
	ds->size = 1;
	if (!hy_mpi_launched())
		return HY_OK;
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (fin)
		return hy_diag_set(d, HY_EUSAGE, 0, "MPI was already finalised in this process");
	if (!init) {
		int prov = 0;
		/* the caller's thread alone calls MPI (OpenMP threads compute) */
		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &prov) != MPI_SUCCESS)
			return hy_diag_set(d, HY_EIO, 0, "cannot start MPI (MPI_Init_thread)");
		ds->mpi = 1;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &ds->rank), "MPI_Comm_rank");
	MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &ds->size), "MPI_Comm_size");
	return HY_OK;
}

void hy_mpi_free(hy_mpi *ds)
{
	if (ds->mpi) {
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Finalize();
	}
	ds->mpi = 0;
}

void hy_mpi_abort(const hy_mpi *ds, int code)
{
	int init = 0;
	if (ds->size > 1 && MPI_Initialized(&init) == MPI_SUCCESS && init)
		MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
}

hy_status hy_mpi_sum_f32(const hy_mpi *ds, float *buf, size_t n, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	/* fixed buckets in a fixed order: the same reduction every run */
	for (size_t o = 0; o < n; o += HY_MPI_BUCKET) {
		size_t k = n - o < HY_MPI_BUCKET ? n - o : HY_MPI_BUCKET;
		MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf + o, (int)k, MPI_FLOAT, MPI_SUM,
				  MPI_COMM_WORLD), "MPI_Allreduce");
	}
	return HY_OK;
}

hy_status hy_mpi_sum_f64(const hy_mpi *ds, double *buf, size_t n, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
		"MPI_Allreduce");
	return HY_OK;
}

hy_status hy_mpi_max_int(const hy_mpi *ds, int *buf, size_t n, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
		"MPI_Allreduce");
	return HY_OK;
}

hy_status hy_mpi_bcast(const hy_mpi *ds, void *buf, size_t n, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	for (size_t o = 0; o < n; o += CHUNK) {
		size_t k = n - o < CHUNK ? n - o : CHUNK;
		MPI_CHECK(MPI_Bcast((char *)buf + o, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD),
			"MPI_Bcast");
	}
	return HY_OK;
}

hy_status hy_mpi_barrier(const hy_mpi *ds, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	return HY_OK;
}

hy_status hy_mpi_send_msg(const hy_mpi *ds, int to, const void *buf, size_t n, hy_diag *d)
{
	uint64_t len = n;
	MPI_CHECK(MPI_Send(&len, 1, MPI_UINT64_T, to, TAG_LEN, MPI_COMM_WORLD), "MPI_Send");
	for (size_t o = 0; o < n; o += CHUNK) {
		size_t k = n - o < CHUNK ? n - o : CHUNK;
		MPI_CHECK(MPI_Send((const char *)buf + o, (int)k, MPI_BYTE, to, TAG_DATA,
				  MPI_COMM_WORLD), "MPI_Send");
	}
	return HY_OK;
}

hy_status hy_mpi_recv_msg(const hy_mpi *ds, int from, void **buf, size_t *cap, size_t *n,
	hy_diag *d)
{
	uint64_t len = 0;
	MPI_CHECK(MPI_Recv(&len, 1, MPI_UINT64_T, from, TAG_LEN, MPI_COMM_WORLD,
			  MPI_STATUS_IGNORE), "MPI_Recv");
	if (len > SIZE_MAX / 2)
		return hy_diag_set(d, HY_EDATA, 0, "rank %d of %d: message of %llu bytes from rank %d",
			ds->rank, ds->size, (unsigned long long)len, from);
	if (len > *cap) {
		void *p = realloc(*buf, (size_t)len);
		if (!p)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%llu bytes from rank %d)",
				(unsigned long long)len, from);
		*buf = p;
		*cap = (size_t)len;
	}
	for (size_t o = 0; o < len; o += CHUNK) {
		size_t k = len - o < CHUNK ? len - o : CHUNK;
		MPI_CHECK(MPI_Recv((char *)*buf + o, (int)k, MPI_BYTE, from, TAG_DATA,
				  MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
	}
	*n = (size_t)len;
	return HY_OK;
}

#else /* single rank: no MPI in this build */

hy_status hy_mpi_init(hy_mpi *ds, hy_diag *d)
{
	memset(ds, 0, sizeof *ds);
	ds->size = 1;
	int n = env_int("OMPI_COMM_WORLD_SIZE");
	if (n < 0)
		n = env_int("PMI_SIZE");
	if (n > 1)
		return hy_diag_set(d, HY_EUNSUP, 0, "started by mpirun with %d ranks, but this "
			"hydra-c was built without MPI (install libopenmpi-dev, rebuild without "
			"NO_MPI=1)", n);
	return HY_OK;
}

void hy_mpi_free(hy_mpi *ds)
{
	ds->mpi = 0;
}

void hy_mpi_abort(const hy_mpi *ds, int code)
{
}

hy_status hy_mpi_sum_f32(const hy_mpi *ds, float *buf, size_t n, hy_diag *d)
{
	return HY_OK;
}

hy_status hy_mpi_sum_f64(const hy_mpi *ds, double *buf, size_t n, hy_diag *d)
{
	return HY_OK;
}

hy_status hy_mpi_max_int(const hy_mpi *ds, int *buf, size_t n, hy_diag *d)
{
	return HY_OK;
}

hy_status hy_mpi_bcast(const hy_mpi *ds, void *buf, size_t n, hy_diag *d)
{
	return HY_OK;
}

hy_status hy_mpi_barrier(const hy_mpi *ds, hy_diag *d)
{
	return HY_OK;
}

hy_status hy_mpi_send_msg(const hy_mpi *ds, int to, const void *buf, size_t n, hy_diag *d)
{
	return hy_diag_set(d, HY_EUSAGE, 0, "no rank %d: a single process", to);
}

hy_status hy_mpi_recv_msg(const hy_mpi *ds, int from, void **buf, size_t *cap, size_t *n,
	hy_diag *d)
{
	return hy_diag_set(d, HY_EUSAGE, 0, "no rank %d: a single process", from);
}

#endif

/* ---------------------------------------------------------------- nonblocking sums */

#ifdef HY_HAVE_MPI

struct hy_mpi_reqs {
	size_t n, hi; /* hi: one past the highest sum started since the last wait */
	MPI_Request *r;
};

hy_status hy_mpi_reqs_init(hy_mpi_reqs **out, size_t n, hy_diag *d)
{
	hy_mpi_reqs *q = calloc(1, sizeof *q);
	if (q)
		q->r = malloc((n ? n : 1) * sizeof *q->r);
	if (!q || !q->r) {
		free(q);
		*out = NULL;
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (%zu requests)", n);
	}
	q->n = n;
	for (size_t i = 0; i < n; i++)
		q->r[i] = MPI_REQUEST_NULL;
	*out = q;
	return HY_OK;
}

void hy_mpi_reqs_free(hy_mpi_reqs *q)
{
	if (!q)
		return;
	free(q->r);
	free(q);
}

hy_status hy_mpi_isum_f32(const hy_mpi *ds, hy_mpi_reqs *q, size_t i, float *buf,
	size_t count, hy_diag *d)
{
	if (ds->size < 2)
		return HY_OK;
	if (i >= q->n || q->r[i] != MPI_REQUEST_NULL || count > 2147483647u)
		return hy_diag_set(d, HY_EUSAGE, 0, "rank %d of %d: nonblocking sum %zu of %zu "
			"(%zu floats) cannot start", ds->rank, ds->size, i, q->n, count);
	MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM,
			  MPI_COMM_WORLD, &q->r[i]), "MPI_Iallreduce");
	if (i + 1 > q->hi)
		q->hi = i + 1;
	return HY_OK;
}

hy_status hy_mpi_test(const hy_mpi *ds, hy_mpi_reqs *q, int *done, hy_diag *d)
{
	*done = 1;
	if (ds->size < 2 || q->hi == 0)
		return HY_OK;
	MPI_CHECK(MPI_Testall((int)q->hi, q->r, done, MPI_STATUSES_IGNORE), "MPI_Testall");
	return HY_OK;
}

hy_status hy_mpi_wait(const hy_mpi *ds, hy_mpi_reqs *q, hy_diag *d)
{
	if (ds->size < 2 || q->hi == 0)
		return HY_OK;
	int rc = MPI_Waitall((int)q->hi, q->r, MPI_STATUSES_IGNORE);
	q->hi = 0;
	if (rc != MPI_SUCCESS)
		return mpi_fail(ds, rc, "MPI_Waitall", d);
	return HY_OK;
}

#else /* single rank: the sums are the identity */

struct hy_mpi_reqs {
	size_t n;
};

hy_status hy_mpi_reqs_init(hy_mpi_reqs **out, size_t n, hy_diag *d)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	(*out)->n = n;
	return HY_OK;
}

void hy_mpi_reqs_free(hy_mpi_reqs *q)
{
	free(q);
}

hy_status hy_mpi_isum_f32(const hy_mpi *ds, hy_mpi_reqs *q, size_t i, float *buf,
	size_t count, hy_diag *d)
{
	return HY_OK;
}

hy_status hy_mpi_test(const hy_mpi *ds, hy_mpi_reqs *q, int *done, hy_diag *d)
{
	*done = 1;
	return HY_OK;
}

hy_status hy_mpi_wait(const hy_mpi *ds, hy_mpi_reqs *q, hy_diag *d)
{
	return HY_OK;
}

#endif
