/* The control of issue 42's step 1 (bench/learn/ppo-signal.sh FLIP=1): copies a
 * sample stream with every advantage's sign flipped, the value targets
 * (ret) and everything else as they are, so that PPO climbs the gradient
 * the other way. The stream's checksums are made anew by the writer.
 *   ppo_flip IN OUT */
#include <stdio.h>
#include <stdlib.h>

#include "samples/stream.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ppo_flip IN OUT\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
	if (!in || !out) {
		fprintf(stderr, "ppo_flip: cannot open '%s' or '%s'\n", argv[1], argv[2]);
		return 1;
	}
	hy_sms_reader *r = NULL;
	hy_sms_writer *w = NULL;
	hy_diag d;
	hy_diag_init(&d, argv[1]);
	hy_status st = hy_sms_reader_open_file(&r, argv[1], in);
	if (st == HY_OK)
		st = hy_sms_writer_open(&w, out);
	hy_sample s;
	unsigned long long n = 0;
	while (st == HY_OK && (st = hy_sms_read(r, &s, &d)) == HY_OK) {
		s.adv = -s.adv;
		if (n == 0) /* the input's observation version, known after a read */
			st = hy_sms_writer_set_obs_version(w, (unsigned)hy_sms_reader_obs_version(r));
		if (st == HY_OK)
			st = hy_sms_write(w, &s, &d);
		n++;
	}
	if (st == HY_STOP) /* the end of the stream */
		st = hy_sms_writer_close(w, &d), w = NULL;
	if (w)
		hy_sms_writer_abort(w, "ppo_flip failed");
	hy_sms_reader_close(r);
	fclose(in);
	if (fclose(out) != 0 && st == HY_OK)
		st = HY_EIO;
	if (st != HY_OK) {
		fprintf(stderr, "ppo_flip: %s: %s\n", argv[1], d.msg[0] ? d.msg : "failed");
		remove(argv[2]);
		return 1;
	}
	fprintf(stderr, "ppo_flip: %llu samples, advantages flipped\n", n);
	return 0;
}
