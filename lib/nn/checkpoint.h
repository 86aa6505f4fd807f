/* Checkpoints (ARCHITECTURE.md §8): one HDF5 file holding every parameter by name
 * (/params/<name>, fp32, the shape of the parameter table), the AdamW
 * moments (/adam/m/<name>, /adam/v/<name>), and as root attributes: format
 * "hydra-checkpoint", version, blocks, channels, step, the optimiser
 * hyper-parameters, the seed and the RNG state. Written atomically: a temp
 * file beside the target, fsync, rename. Parameters are stored in our
 * layouts (see backend.h; tests/torch/hydra_torch.py converts to PyTorch). */
#ifndef HY_NN_CHECKPOINT_H
#define HY_NN_CHECKPOINT_H

#include <stdint.h>

#include "core/status.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/rng.h"

enum { HY_NN_CKPT_VERSION = 2 }; /* 2: fletcher32, HDF5 1.10 format; 1 still read */

/* A scalar root attribute a caller adds to a checkpoint (the trainer's data
 * cursor and run settings), written in the same pass as the parameters. */
typedef enum hy_nn_attr_type {
	HY_NN_ATTR_I32,
	HY_NN_ATTR_I64,
	HY_NN_ATTR_U64,
	HY_NN_ATTR_F64,
	HY_NN_ATTR_STR,    /* value: a NUL-terminated string */
} hy_nn_attr_type;

typedef struct hy_nn_ckpt_attr {
	const char *name;
	int type;          /* hy_nn_attr_type */
	const void *value; /* int32_t, int64_t, uint64_t, double or char */
} hy_nn_ckpt_attr;

typedef struct hy_nn_ckpt_meta {
	int64_t step;
	hy_nn_optim_cfg opt;
	uint64_t seed;
	hy_rng rng;
	/* save only: extra root attributes (load ignores these fields) */
	const hy_nn_ckpt_attr *extra;
	int nextra;
} hy_nn_ckpt_meta;

hy_status hy_nn_ckpt_save(const char *path, const hy_nn_model *m, const hy_nn_ckpt_meta *meta,
	hy_diag *d);

/* The one reader of a checkpoint file: every read of one in lib/ goes
 * through it (the functions below that take a path open one, read, and
 * close it). A resume opens the file once and reads from it everything it
 * needs — the architecture, the observation version, the optimiser state,
 * the trainer's own attributes (lib/train/ckptdir.h) and the weights.
 * hy_nn_ckpt_open checks the format, the version and the architecture
 * (HY_EIO for a file that is not there, HY_ETRUNC for one that is not
 * readable HDF5, HY_EFORMAT or HY_EVERSION naming what is wrong). */
typedef struct hy_nn_ckpt_reader hy_nn_ckpt_reader;
hy_status hy_nn_ckpt_open(const char *path, hy_nn_ckpt_reader **r, hy_diag *d);
void hy_nn_ckpt_close(hy_nn_ckpt_reader *r);   /* NULL: nothing */
const char *hy_nn_ckpt_path(const hy_nn_ckpt_reader *r);
hy_nn_arch hy_nn_ckpt_arch_of(const hy_nn_ckpt_reader *r);
/* The obs_version attribute (0 when absent); HY_EFORMAT when it is not an
 * integer from 0 to 255. */
hy_status hy_nn_ckpt_obs_of(hy_nn_ckpt_reader *r, int *v, hy_diag *d);
/* For a network that will see this build's observations (a player, a
 * belief): HY_EFORMAT naming both versions when the checkpoint was trained
 * on another one than HY_OBS_VERSION; an unmarked one (0) passes while the
 * build encodes a version unmarked files may hold (hy_obs_compatible). */
hy_status hy_nn_ckpt_playable_of(hy_nn_ckpt_reader *r, hy_diag *d);
/* What a model file holds, for the role it is given to: a network
 * checkpoint is a policy (hydra-fit bc or ppo) or a wait reader (--mode
 * reader: train_mode 2, its policy head never trained); a GRP model
 * (nn/grp.h) is a format of its own that hy_nn_ckpt_open refuses. NET, as
 * what a role wants: either network. */
typedef enum hy_nn_kind {
	HY_NN_KIND_POLICY,
	HY_NN_KIND_READER,
	HY_NN_KIND_GRP,
	HY_NN_KIND_NET,
} hy_nn_kind;
hy_nn_kind hy_nn_ckpt_kind_of(hy_nn_ckpt_reader *r);
/* The one check of a model's kind against its role: HY_OK when r holds
 * `want`, else HY_EFORMAT with the one message, "'R.h5' is a wait reader
 * (hydra-fit --mode reader), and ROLE needs a policy network"
 * (hy_nn_kind_refuse). ROLE: "--anchor", "a player", "reader=". */
hy_status hy_nn_ckpt_want(hy_nn_ckpt_reader *r, hy_nn_kind want, const char *role,
	hy_diag *d);
/* That message, for the openers of a kind that is not a network's (the GRP
 * loader) and for hy_nn_ckpt_open meeting a GRP: returns HY_EFORMAT. */
hy_status hy_nn_kind_refuse(hy_diag *d, const char *path, hy_nn_kind have, hy_nn_kind want,
	const char *role);
/* The training attributes, checked as hy_nn_ckpt_load checks them. */
hy_status hy_nn_ckpt_meta_of(hy_nn_ckpt_reader *r, hy_nn_ckpt_meta *meta, hy_diag *d);
/* A scalar root attribute of type (hy_nn_attr_type, not STR) into value:
 * 1 read, 0 absent, −1 present but not readable as that type. */
int hy_nn_ckpt_get(hy_nn_ckpt_reader *r, const char *name, int type, void *value);
/* A fixed-length string attribute into out (size bytes): 1 read, 0 absent
 * (out ""), −1 not a string that fits. */
int hy_nn_ckpt_get_str(hy_nn_ckpt_reader *r, const char *name, char *out, size_t size);
/* The weights (and, unless weights_only, the AdamW moments) into m, as
 * hy_nn_ckpt_load; meta may be NULL. */
hy_status hy_nn_ckpt_load_from(hy_nn_ckpt_reader *r, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, hy_diag *d);

/* A copy of r at path with the weights alone: every root attribute (the
 * architecture, obs_version, train_mode, the trainer's settings), the
 * /params datasets as they are (checksummed), no AdamW moments, and the
 * attribute weights_only = 1 (hydra-export --weights: the files models/
 * ships). Written atomically. Such a file plays, reads, evaluates and
 * starts a run (--init, weights_only loads); a load of the moments
 * (a resume) refuses it with HY_EFORMAT. */
hy_status hy_nn_ckpt_save_weights(hy_nn_ckpt_reader *r, const char *path, hy_diag *d);
/* 1 when r was written by hy_nn_ckpt_save_weights. */
int hy_nn_ckpt_weights_only(hy_nn_ckpt_reader *r);

/* A frozen policy beside a model being trained (PPO's --anchor, a
 * student's --teacher): the policy checkpoint `path` (refused as `role`
 * when it is another kind) as a model of its own architecture on like's
 * backend and context, its weights, an inference workspace for cap
 * samples, and its observation version into *obs (may be NULL). On failure
 * nothing is left allocated. */
hy_status hy_nn_ckpt_open_frozen(const char *path, const char *role, const hy_nn_model *like,
	int cap, hy_nn_model *m, hy_nn_work *w, int *obs, hy_diag *d);

/* Reads the architecture recorded in a checkpoint. */
hy_status hy_nn_ckpt_arch(const char *path, hy_nn_arch *a, hy_diag *d);

/* The observation version the network was trained on (samples/sample.h
 * HY_OBS_VERSION): the `obs_version` attribute, 0 when the checkpoint has
 * none (written before it, or trained on unmarked samples). */
hy_status hy_nn_ckpt_obs_version(const char *path, int *v, hy_diag *d);
/* Loads parameters (and, unless weights_only, the AdamW moments) into m,
 * which must have the checkpoint's architecture (HY_EFORMAT otherwise,
 * naming both); meta may be NULL. A truncated or unreadable file gives
 * HY_ETRUNC / HY_EFORMAT with the path in the message. */
hy_status hy_nn_ckpt_load(const char *path, hy_nn_model *m, hy_nn_ckpt_meta *meta,
	int weights_only, hy_diag *d);

#endif
