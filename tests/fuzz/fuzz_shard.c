/* Fuzz harness: HDF5 sample shards. The input is written to a temporary file
 * and opened as a shard by path (hy_shard_open, the sample-reading path), its
 * attributes looked at, and samples read in blocks from the start and the
 * end; then the same image through the format-sniffing reader in memory
 * (hy_sample_reader_open_mem → hy_shard_open_mem). Shards are trusted files
 * (formats/shard.md): inputs that crash inside libhdf5 itself are listed in
 * tests/fuzz/RESULTS.md and kept out of the replayed set. */
#include "fuzz.h"
#include "samples/reader.h"
#include "samples/shard.h"
#include "samples/stream.h"

enum { BLOCK = 16, MAX_BLOCKS = 8 };
static hy_sample buf[BLOCK];

static void check(const hy_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hy_sample_check(&s[i])) {
			fprintf(stderr, "fuzz: shard reader delivered an invalid sample: %s\n",
				hy_sample_check(&s[i]));
			abort();
		}
}

static void read_shard(hy_shard *sh)
{
	hy_diag d;
	const hy_shard_info *info = hy_shard_get_info(sh);
	if (info) {
		size_t k = 0;
		k += info->encoder_version ? strlen(info->encoder_version) : 0;
		k += info->command_line ? strlen(info->command_line) : 0;
		for (size_t i = 0; i < info->nsources; i++)
			k += info->sources && info->sources[i] ? strlen(info->sources[i]) : 0;
		(void)k;
	}
	uint64_t count = hy_shard_count(sh);
	uint64_t at = 0;
	for (int b = 0; b < MAX_BLOCKS && at < count; b++) {
		size_t n = count - at < BLOCK ? (size_t)(count - at) : BLOCK;
		if (hy_shard_read(sh, at, n, buf, &d) != HY_OK)
			return;
		check(buf, n);
		at += n;
	}
	if (count > at && hy_shard_read(sh, count - 1, 1, buf, &d) == HY_OK)
		check(buf, 1);
	/* a range past the end is refused, not read */
	if (hy_shard_read(sh, count, 1, buf, &d) == HY_OK) {
		fprintf(stderr, "fuzz: read past the end of a shard succeeded\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256];
	hy_diag d;
	(void)hy_shard_is_hdf5(data, size);
	if (fz_tmpfile(data, size, path, sizeof path)) {
		hy_shard *sh = NULL;
		if (hy_shard_open(&sh, path, &d) == HY_OK) {
			read_shard(sh);
			hy_shard_close(sh);
		}
		unlink(path);
	}
	hy_sample_reader *r = NULL;
	if (hy_shard_is_hdf5(data, size) &&
	    hy_sample_reader_open_mem(&r, "fuzz.h5", data, size, &d) == HY_OK) {
		uint64_t n = 0;
		if (hy_sample_reader_count(r, &n) == HY_OK && n > 0 &&
		    hy_sample_read_at(r, n - 1, 1, buf, &d) == HY_OK)
			check(buf, 1);
		size_t got = 0;
		if (hy_sample_read_batch(r, buf, BLOCK, &got, &d) == HY_OK)
			check(buf, got);
		hy_sample_reader_close(r);
	}
	return 0;
}
