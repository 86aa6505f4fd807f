/* Fuzz harness: training checkpoints (HDF5). The input is written to a
 * temporary file; its architecture is read (hy_nn_ckpt_arch) and, when it is
 * one the model accepts and small enough to allocate quickly, a model of that
 * architecture is loaded from it, with the AdamW moments and the metadata or
 * weights only.
 * Checkpoints are trusted files (formats/shard.md says what a reader can
 * defend against); inputs that crash inside libhdf5 itself are listed in
 * tests/fuzz/RESULTS.md and kept out of the replayed set. */
#include "fuzz.h"
#include "nn/backend.h"
#include "nn/checkpoint.h"
#include "nn/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hy_nn_ctx ctx;
	static int init;
	if (!init) {
		hy_nn_ctx_init(&ctx, 1);
		init = 1;
	}
	char path[256];
	if (!size || !fz_tmpfile(data, size, path, sizeof path))
		return 0;
	hy_diag d;
	hy_nn_arch a;
	if (hy_nn_ckpt_arch(path, &a, &d) == HY_OK && hy_nn_arch_check(a, &d) == HY_OK &&
	    a.blocks <= 2 && a.channels <= 64) {
		hy_nn_model m;
		if (hy_nn_model_init(&m, a, hy_nn_backend_cpu(), &ctx, &d) == HY_OK) {
			/* with or without the moments, by the last byte (one load
			 * per input: a checkpoint is large and HDF5 slow) */
			hy_nn_ckpt_meta meta;
			memset(&meta, 0, sizeof meta);
			if (data[size - 1] & 1)
				(void)hy_nn_ckpt_load(path, &m, NULL, 1, &d);
			else
				(void)hy_nn_ckpt_load(path, &m, &meta, 0, &d);
			hy_nn_model_free(&m);
		}
	}
	unlink(path);
	return 0;
}
