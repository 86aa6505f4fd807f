/* The plan of a training run (ARCHITECTURE.md §8): the configuration
 * (loop.h hy_train_cfg) and what the files say (hy_train_facts: the
 * checkpoint a --resume continues, the size of an epoch of the inputs, the
 * output directory) → one plain struct of every figure the run uses:
 * architecture, threads, the global batch and this rank's part of it (what
 * the workspace, the device's memory plan and its batches are sized for),
 * shuffle buffer, seed, the optimiser's schedule and total, the PPO
 * settings, the intervals of logs, evaluations and checkpoints, loader
 * threads. Making the plan touches no file, model or device (unit-tested in
 * tests/unit/test_train_plan.c); the notices its choices deserve come back
 * as lines for the loop to say.
 *
 *   hy_train_plan_usage(cfg, ranks, d)     options that exclude each other
 *   hy_train_facts_read(cfg, ck, rank, ranks, &f, d)  the files (the open checkpoint, inputs)
 *   hy_train_plan_make(cfg, &f, &plan, d)   the plan */
#ifndef HY_TRAIN_PLAN_H
#define HY_TRAIN_PLAN_H

#include <stdint.h>

#include "core/status.h"
#include "nn/checkpoint.h"
#include "train/ckptdir.h"
#include "train/loop.h"
#include "data/source.h"
#include "train/ppo.h"

enum { HY_TRAIN_PLAN_NOTES = 8 };

/* What the files say, read before the plan. */
typedef struct hy_train_facts {
	int rank, ranks;            /* this process of an mpirun job (1 rank: 0 of 1) */
	int default_threads;        /* usable CPUs (nn/threads.h)                    */
	int out_has_ckpts;          /* cfg out already holds checkpoints            */
	uint64_t epoch_size;        /* samples an epoch of the inputs (shards); 0:
				     * unknown (streams) or not needed            */
	uint64_t stream_bound;      /* --mode ppo on uncompressed stream files
				     * (standard input redirected from one too):
				     * an upper bound of their samples, from their
				     * size (samples/stream.h); 0: unknown (a pipe) */
	int streams;                /* the inputs are sample streams (read when
				     * several ranks split them)                  */
	hy_data *data;              /* the inputs, when they were opened to learn
				     * the above: the run's one handle of them,
				     * which the trainer takes (loop.c
				     * setup_data: data/source.h hy_data_restart);
				     * NULL: not opened here                      */
	hy_nn_arch init_arch;       /* --init's, read when no architecture is given  */
	/* the checkpoint of --resume */
	int resuming;
	char ckpt[4096];            /* its path (PATH/latest resolved)                */
	hy_nn_arch arch;
	hy_ckdir_state ts;          /* the trainer's train_* attributes              */
	hy_nn_ckpt_meta meta;       /* step, optimiser, seed, RNG                    */
	int ppo_stored;             /* PPO settings stored (ppo_* attributes)        */
	hy_train_ppo_cfg ppo;
	char ppo_anchor[4096];
} hy_train_facts;

typedef struct hy_train_plan {
	hy_nn_arch arch;
	int threads;
	int batch;            /* the global batch (PPO: a rollout batch)          */
	int part;             /* the most samples this process puts through the
			       * network at once: the workspace, the device
			       * plan; PPO: a minibatch; several ranks reading
			       * streams: their block, ⌈batch / ranks⌉; reading
			       * shards a rank's part varies around batch / ranks
			       * (lib/data/source.h) and is bounded by the batch */
	size_t shuffle_buffer;
	uint64_t seed;
	int64_t step;         /* the step the run starts at                      */
	hy_nn_optim_cfg opt;  /* the schedule; opt.total 0: open-ended            */
	int one_pass;         /* a stream is read once (no planned total)        */
	hy_train_ppo_cfg ppo; /* --mode ppo: given, or the checkpoint's          */
	char ppo_anchor[4096]; /* where ppo.anchor points when it is the
				* checkpoint's (a plan is not copied)          */
	int ppo_minibatch;
	int64_t ppo_steps;    /* optimiser steps a rollout batch takes            */
	int keep;
	int64_t save_every, eval_every, log_every;
	int loader_threads;   /* the feed's (0: read in the loop)                 */
	double best;          /* the best metric so far (INFINITY: none)         */
	char notes[HY_TRAIN_PLAN_NOTES][512];
	int nnotes;
} hy_train_plan;

/* The options that exclude each other or the launch (before any file is
 * read): HY_EUSAGE naming them. */
hy_status hy_train_plan_usage(const hy_train_cfg *c, int ranks, hy_diag *d);

/* Reads what the plan needs from the files: ck is the open checkpoint of
 * --resume (its architecture, train_* state, optimiser, PPO settings) or
 * of --init (its architecture), opened once by the run; whether --out
 * holds checkpoints, and the epoch size when the total comes from
 * --epochs or one epoch. */
hy_status hy_train_facts_read(const hy_train_cfg *c, hy_nn_ckpt_reader *ck, int rank,
	int ranks, hy_train_facts *f,
	hy_diag *d);

/* The plan: the configuration where it says, else the checkpoint's, else
 * the defaults. HY_EUSAGE (bad or contradictory settings, nothing to do),
 * HY_EFORMAT (the checkpoint's architecture or mode differs from the one
 * asked for). */
hy_status hy_train_plan_make(const hy_train_cfg *c, const hy_train_facts *f, hy_train_plan *p,
	hy_diag *d);

#endif
