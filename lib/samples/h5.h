/* What every HDF5 user of lib/ shares: library setup and one-line error
 * messages (shards here; checkpoints in nn; run state in train).
 *
 * hy_h5_init, before any other HDF5 call (programs call it first thing in
 * main; every HDF5 entry point of lib/ calls it too, so that it also runs
 * in a loader thread): HDF5's own error printing off (errors come back
 * through hy_diag; in a thread-safe libhdf5 that is a setting of each
 * thread, so it is made once per thread), and, once per process, no HDF5
 * clean-up at exit (H5dont_atexit). The latter matters after a
 * failed write: libhdf5 1.10 keeps a file whose close failed (a full disk)
 * and crashes in its exit-time clean-up trying to close it again. Every
 * file is closed explicitly, so nothing is lost by skipping it. */
#ifndef HY_SAMPLES_H5_H
#define HY_SAMPLES_H5_H

#include <stdint.h>

#include "core/status.h"

void hy_h5_init(void);

/* Fills d from HDF5's error stack (then clears it) as one line:
 * "HDF5 error in CALL (FILE:LINE): WHAT", WHAT the outermost and innermost
 * descriptions with newlines and runs of blanks folded, and the operating
 * system's reason ("No space left on device") when HDF5 reports an errno.
 * The status is st, or HY_ETRUNC when HDF5 says a file is truncated and st
 * is HY_EDATA or HY_EFORMAT; a failed checksum (fletcher32 of a dataset,
 * or of metadata) is HY_EDATA, "checksum mismatch: the file is damaged
 * (...)". Returns the status. */
hy_status hy_h5_fail(hy_diag *d, hy_status st, const char *call, const char *file, int line);

/* 1 when this thread's HDF5 error stack reports a failed checksum; the
 * stack is left as it is. */
int hy_h5_checksum_failed(void);

/* After a failed H5Fcreate of a target's temporary: HY_EIO "cannot create
 * 'path': REASON" naming the target, REASON the system's ("No space left on
 * device") when HDF5's error stack holds one, else HDF5's own words. */
hy_status hy_h5_create_fail(hy_diag *d, const char *path);

/* Opens the HDF5 file at path read-only with the access list fapl
 * (H5P_DEFAULT: 0) into *f (an hid_t), telling apart first what is no
 * HDF5 file at all, so that each gets its own words: missing, HY_EIO
 * "cannot open 'p': REASON"; a directory, a FIFO, a device or a socket
 * (never read: a FIFO would block), HY_EFORMAT "'p': a directory, not a
 * WHAT"; a regular file without HDF5's signature, HY_EFORMAT "'p': not a
 * WHAT (not an HDF5 file: a sample stream)", naming the stream the
 * project's magic shows, else the size; one with the signature that HDF5
 * cannot open, HY_ETRUNC "'p': not a readable WHAT (a truncated or
 * corrupt HDF5 file, N bytes)". WHAT: "checkpoint", "shard". */
hy_status hy_h5_open_read(const char *path, int64_t fapl, const char *what, int64_t *f,
	hy_diag *d);

#endif
