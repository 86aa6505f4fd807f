/* The output directory of a training run (lib/train, internal to it): the
 * checkpoint files "ckpt-%08lld.h5" with the links "latest" and "best",
 * durable writes, pruning to the last `keep`, the temporaries a killed run
 * leaves, and the trainer's own attributes in a checkpoint (train_*: the
 * data cursor and the options a resumed run keeps). */
#ifndef HY_TRAIN_CKPTDIR_H
#define HY_TRAIN_CKPTDIR_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "nn/checkpoint.h"
#include "train/ppo.h"

#define HY_CKDIR_FMT "ckpt-%08lld.h5"

/* The train_* attributes of a checkpoint. */
typedef struct hy_ckdir_state {
	uint64_t epoch, pos, samples;
	int64_t batch;
	uint64_t shuffle_buffer;
	int32_t threads;
	double best;
	int64_t log_every, save_every, eval_every, keep;
	int32_t mode;   /* train_mode: 0 bc, 1 ppo; −1 unknown (written before it was) */
} hy_ckdir_state;

/* dst = dir/name (one '/' between them); −1 when it does not fit. */
int hy_ckdir_join(char *dst, size_t size, const char *dir, const char *name);
/* fsync of a file or directory by path. */
hy_status hy_ckdir_fsync(const char *path, hy_diag *d);
/* mkdir -p; HY_EIO when the path is not a directory in the end. */
hy_status hy_ckdir_mkdir_p(const char *dir, hy_diag *d);
/* Points link dir/name at target (a file name in dir), atomically. */
hy_status hy_ckdir_set_link(const char *dir, const char *name, const char *target,
	hy_diag *d);
/* Checkpoint steps in dir, sorted; *n of them (caller frees *out). */
hy_status hy_ckdir_list(const char *dir, long long **out, size_t *n, hy_diag *d);
/* Removes the temporaries an earlier run killed mid-save left in out
 * ("ckpt-N.h5.tmp-PID-XXXXXX", "latest.tmp.PID", ...: with kill -9 no handler
 * runs), calling removed(u, path) for each. One run writes a directory at
 * a time. */
void hy_ckdir_remove_stale(const char *out, void (*removed)(void *u, const char *path),
	void *u);
/* The readers below read an open checkpoint (nn/checkpoint.h's one reader,
 * hy_nn_ckpt_open): the file is not opened again.
 * String attribute name of checkpoint path into out (size bytes): *found 0
 * when it is absent (older checkpoints), HY_EFORMAT when it is not a string
 * that fits, HY_ETRUNC when the file cannot be read. */
hy_status hy_ckdir_read_str(hy_nn_ckpt_reader *r, const char *name, char *out,
	size_t size, int *found, hy_diag *d);
/* Keeps the `keep` most recent checkpoints and the one `best` names. */
hy_status hy_ckdir_prune(const char *out, int keep, hy_diag *d);
/* The PPO settings a --mode ppo run stores (ppo_* attributes): *is_ppo 0
 * when the checkpoint has none (a behaviour-cloning run); c->anchor points
 * into anchor[size] ("" stored: NULL). Out-of-range values are refused with
 * HY_EFORMAT naming the attribute. */
hy_status hy_ckdir_read_ppo(hy_nn_ckpt_reader *r, hy_train_ppo_cfg *c, char *anchor,
	size_t size, int *is_ppo, hy_diag *d);

/* The train_* attributes of the checkpoint at path, range-checked (the
 * ranges of the options that set them: a damaged or crafted checkpoint is
 * refused with HY_EFORMAT naming the attribute). */
hy_status hy_ckdir_read_state(hy_nn_ckpt_reader *r, hy_ckdir_state *s, hy_diag *d);

#endif
