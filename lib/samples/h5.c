/* HDF5 setup and error messages (see h5.h). */
#include "samples/h5.h"

#include <errno.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "events/stream.h"
#include "samples/stream.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
	H5dont_atexit(); /* fails harmlessly when the library is already up */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* HDF5's error printing is a setting of each thread's default error stack
 * (in a thread-safe libhdf5): off in every thread that calls in. */
static _Thread_local int quiet_here;

void hy_h5_init(void)
{
	pthread_once(&once, init_once);
	if (!quiet_here) {
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
		quiet_here = 1;
	}
}

typedef struct h5err {
	char first[200], last[200], os[120];
	int truncated, checksum;
} h5err;

/* Copies s into out (size n) with newlines and runs of blanks folded to one
 * space, cut at a word boundary with "..." when too long. */
static void fold(char *out, size_t n, const char *s)
{
	size_t k = 0;
	int space = 0;
	for (; *s && k + 1 < n; s++) {
		int c = (unsigned char)*s;
		if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
			space = k > 0;
			continue;
		}
		if (space && k + 2 < n)
			out[k++] = ' ';
		space = 0;
		out[k++] = (char)c;
	}
	out[k] = '\0';
	if (*s && n > 8) { /* cut: back to a word boundary, then "..." */
		size_t cut = k < n - 4 ? k : n - 4;
		while (cut > 0 && out[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = n - 4;
		memcpy(out + cut, "...", 4);
	}
}

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *ctx)
{
	h5err *x = ctx;
	const char *desc = e->desc ? e->desc : "";
	if (n == 0)
		fold(x->first, sizeof x->first, desc);
	fold(x->last, sizeof x->last, desc);
	if (strstr(desc, "truncated"))
		x->truncated = 1;
	/* "data error detected by Fletcher32 checksum", "incorrect metadata
	 * checksum ...": the stored bytes are not the ones written */
	if (strcasestr(desc, "checksum"))
		x->checksum = 1;
	/* the sec2 driver reports errno as "error message = 'REASON'" */
	const char *m = strstr(desc, "error message = '");
	if (m) {
		m += strlen("error message = '");
		const char *end = strchr(m, '\'');
		size_t len = end ? (size_t)(end - m) : strlen(m);
		if (len >= sizeof x->os)
			len = sizeof x->os - 1;
		memcpy(x->os, m, len);
		x->os[len] = '\0';
	}
	return 0;
}

int hy_h5_checksum_failed(void)
{
	h5err x;
	memset(&x, 0, sizeof x);
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &x);
	return x.checksum;
}

hy_status hy_h5_create_fail(hy_diag *d, const char *path)
{
	h5err x;
	memset(&x, 0, sizeof x);
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &x);
	H5Eclear2(H5E_DEFAULT);
	return hy_diag_set(d, HY_EIO, 0, "cannot create '%s': %s", path,
			   x.os[0] ? x.os : x.last[0] ? x.last : "HDF5 could not create the file");
}

hy_status hy_h5_fail(hy_diag *d, hy_status st, const char *call, const char *file, int line)
{
	h5err x;
	memset(&x, 0, sizeof x);
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &x);
	H5Eclear2(H5E_DEFAULT);
	if (x.checksum) /* the reason first, in words a user acts on */
		return hy_diag_set(d, HY_EDATA, 0, "checksum mismatch: the file is damaged (HDF5 "
				   "error in %s, %s:%d: %s)", call, file, line,
				   x.last[0] ? x.last : "checksum");
	if (x.truncated && (st == HY_EDATA || st == HY_EFORMAT))
		st = HY_ETRUNC;
	if (x.os[0]) /* the reason first: it is what a user can act on */
		return hy_diag_set(d, st, 0, "%s (HDF5 error in %s, %s:%d: %s)", x.os, call, file,
				   line, x.first[0] ? x.first : "write failed");
	const char *what = x.last[0] ? x.last : "unknown error";
	if (x.first[0] && strcmp(x.first, x.last) != 0)
		return hy_diag_set(d, st, 0, "HDF5 error in %s (%s:%d): %s: %s", call, file, line,
				   x.first, what);
	return hy_diag_set(d, st, 0, "HDF5 error in %s (%s:%d): %s", call, file, line, what);
}

_Static_assert(sizeof(hid_t) == sizeof(int64_t), "hid_t travels as an int64_t (h5.h)");

/* What a file that is not HDF5 holds, by its first bytes: the project's
 * streams by their magic (a caller gave a stream where a model was
 * wanted), else its size. */
static void not_hdf5(const unsigned char *b, size_t n, long long size, char *out, size_t cap)
{
	if (n >= 8 && !memcmp(b, HY_SMS_MAGIC, 8))
		snprintf(out, cap, "a sample stream");
	else if (n >= 8 && !memcmp(b, HY_EVS_MAGIC, 8))
		snprintf(out, cap, "an event stream");
	else if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		snprintf(out, cap, "a gzip file");
	else
		snprintf(out, cap, "%lld bytes", size);
}

/* 1 when the file has HDF5's signature where the format puts it: at 0, or
 * after a user block of 512·2^k bytes. */
static int has_signature(FILE *fp, long long size, unsigned char *head, size_t *nhead)
{
	static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
	*nhead = fread(head, 1, 8, fp);
	if (*nhead == 8 && !memcmp(head, sig, 8))
		return 1;
	for (long long off = 512; off + 8 <= size && off <= (1LL << 30); off *= 2) {
		unsigned char b[8];
		if (fseeko(fp, (off_t)off, SEEK_SET) != 0 || fread(b, 1, 8, fp) != 8)
			return 0;
		if (!memcmp(b, sig, 8))
			return 1;
	}
	return 0;
}

hy_status hy_h5_open_read(const char *path, int64_t fapl, const char *what, int64_t *f,
	hy_diag *d)
{
	*f = -1;
	hy_h5_init();
	struct stat sb;
	if (stat(path, &sb) < 0)
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': %s, not a %s", path,
			S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO"
			: S_ISSOCK(sb.st_mode) ? "a socket" : "a device", what);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return hy_diag_set(d, HY_EIO, 0, "cannot open '%s': %s", path, strerror(errno));
	unsigned char head[8];
	size_t nhead = 0;
	int sig = has_signature(fp, (long long)sb.st_size, head, &nhead);
	fclose(fp);
	if (!sig) {
		char what_is[64];
		not_hdf5(head, nhead, (long long)sb.st_size, what_is, sizeof what_is);
		return hy_diag_set(d, HY_EFORMAT, 0, "'%s': not a %s (not an HDF5 file: %s)", path,
			what, what_is);
	}
	hid_t h = H5Fopen(path, H5F_ACC_RDONLY, fapl ? (hid_t)fapl : H5P_DEFAULT);
	if (h < 0) {
		H5Eclear2(H5E_DEFAULT);
		return hy_diag_set(d, HY_ETRUNC, 0, "'%s': not a readable %s (a truncated or "
			"corrupt HDF5 file, %lld bytes)", path, what, (long long)sb.st_size);
	}
	*f = h;
	return HY_OK;
}
