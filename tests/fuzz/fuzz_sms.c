/* Fuzz harness: the sample stream, read from memory (hy_sms_reader_open_mem),
 * from a FILE (fmemopen: the sequential path a pipe takes), from a FILE whose
 * first bytes were consumed to sniff the format (open_file_prefix), and
 * through the format-sniffing reader (hy_sample_reader_open_mem). Every
 * sample delivered must pass hy_sample_check: the reader promises it. */
#include "fuzz.h"
#include "samples/reader.h"
#include "samples/stream.h"

static hy_sample s;

static void drain(hy_sms_reader *r)
{
	hy_diag d;
	while (hy_sms_read(r, &s, &d) == HY_OK) {
		if (hy_sample_check(&s)) {
			fprintf(stderr, "fuzz: reader delivered an invalid sample: %s\n",
				hy_sample_check(&s));
			abort();
		}
	}
	(void)hy_sms_reader_records(r);
	hy_sms_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hy_sms_reader *r = NULL;
	hy_diag d;
	(void)hy_sms_is_stream(data, size);
	if (hy_sms_reader_open_mem(&r, "fuzz.bin", data, size) == HY_OK)
		drain(r);

	if (size) {
		FILE *f = fmemopen((void *)data, size, "rb");
		if (f) {
			if (hy_sms_reader_open_file(&r, "(pipe)", f) == HY_OK)
				drain(r);
			fclose(f);
		}
		size_t np = size < 8 ? size : 8;
		f = fmemopen((void *)data, size, "rb");
		if (f) {
			uint8_t pre[8];
			if (fread(pre, 1, np, f) == np &&
			    hy_sms_reader_open_file_prefix(&r, "(pipe)", f, pre, np) == HY_OK)
				drain(r);
			fclose(f);
		}
	}

	/* the sniffing reader, for streams only (shards: fuzz_shard) */
	if (hy_sms_is_stream(data, size) || !hy_shard_is_hdf5(data, size)) {
		hy_sample_reader *sr = NULL;
		if (hy_sample_reader_open_mem(&sr, "fuzz.bin", data, size, &d) == HY_OK) {
			hy_sample batch[4];
			size_t n = 0;
			(void)hy_sample_reader_format(sr);
			while (hy_sample_read_batch(sr, batch, 4, &n, &d) == HY_OK)
				;
			hy_sample_reader_close(sr);
		}
	}
	return 0;
}
