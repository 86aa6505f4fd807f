/* The supervised (behaviour-cloning) training loop of hydra-fit (ARCHITECTURE.md §8):
 * data (data.h) → model forward, masked losses, backward (nn/model.h) →
 * AdamW with warmup + cosine and clipping (nn/optim.h); metrics as JSON
 * lines, checkpoints with a keep-N policy and `latest`/`best` links, exact
 * resume, NaN/Inf detection. Prints nothing: progress and notices go
 * through callbacks.
 *
 * Output directory:
 *   ckpt-NNNNNNNN.h5  checkpoints (nn/checkpoint.h plus the trainer state as
 *                     root attributes `train_*`: batch, shuffle buffer, data
 *                     cursor, threads, best metric), written atomically
 *   latest, best      symbolic links to a checkpoint file
 *   metrics.jsonl     one JSON object per logged step (keys in man/hydra-fit.1)
 *
 * Exactness: with the same inputs and thread count, a run resumed from the
 * checkpoint of step k gives bit-identical losses to an uninterrupted run
 * (the data order is a function of seed and cursor; the optimiser state is
 * in the checkpoint; the model has no randomness after initialisation). */
#ifndef HY_TRAIN_LOOP_H
#define HY_TRAIN_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "nn/model.h"
#include "train/ppo.h"

/* Fields left 0 (or NULL) take their defaults; on --resume they come from
 * the checkpoint unless set. */
typedef struct hy_train_cfg {
	hy_nn_arch arch;            /* blocks/channels; channels 0: not given (full) */
	int threads;                /* 0: 1                                          */
	int cuda;                   /* 1: train on CUDA device cuda_device (nn/cuda) */
	int cuda_device;
	int precision;              /* hy_nn_precision of a CUDA run (CPU: fp32)      */
	int fast;                   /* CUDA: timed conv choice, any cuDNN algorithm  */
	int loader_threads;         /* data feed threads (train/feed.h); 0: 2 on
				     * CUDA, none (read in the loop) on the CPU     */
	int no_overlap;             /* several ranks: sum the gradients after the
				     * backward pass, not during it (ranks.h)       */
	const char *command;        /* the command line, recorded (train/prov.h)   */
	const char *const *inputs;  /* NULL/none: standard input; none on --resume:
				     * the inputs the checkpoint recorded          */
	size_t ninputs;
	const char *const *val;     /* validation inputs (read whole each eval)      */
	size_t nval;
	int64_t steps;              /* total steps (0: from epochs)                  */
	double epochs;              /* shard inputs only (0: 1 epoch when no steps)  */
	int batch;                  /* 0: 256                                        */
	float lr;                   /* peak LR; 0: 5e-4                              */
	int64_t warmup;             /* −1 or unset (0 with warmup_set 0): 5%         */
	int warmup_set;
	uint64_t seed;
	int seed_set;
	size_t shuffle_buffer;      /* 0: 8192                                       */
	const char *out;            /* output directory (required)                  */
	const char *resume;         /* directory (its `latest`) or checkpoint       */
	/* --resume's checkpoint when the caller opened it already (it read
	 * something of it first: hydra-fit, the recorded inputs): the run reads
	 * everything else from this handle and the caller closes it; NULL: the
	 * run opens it. One open of each file a run reads (nn/checkpoint.h). */
	struct hy_nn_ckpt_reader *resume_ck;
	const char *init;           /* weights-only initialisation                   */
	int64_t save_every;         /* 0: 1000                                       */
	int64_t eval_every;         /* 0: a 20th of the run (500 when unknown)       */
	const char *on_eval;        /* NULL, or a shell command run after each
				     * evaluation, once metrics.jsonl has its line
				     * (e.g. a plot refresh); RUN in its environment */
	int64_t log_every;          /* 0: 10                                         */
	int keep;                   /* most recent checkpoints kept; 0: 3            */
	volatile sig_atomic_t *stop; /* set (e.g. by SIGINT): save and stop          */
	/* Non-NULL: --mode ppo (train/ppo.h). Needs init or resume; a step is
	 * one minibatch, a batch one rollout batch of `batch` samples. */
	const hy_train_ppo_cfg *ppo;
	unsigned ppo_given;         /* HY_PPO_GIVEN_* of the fields set in ppo; on
				     * --resume the others are the checkpoint's  */
	int reader;                 /* --mode reader: a wait reader, the tenpai and
				     * danger heads alone (nn/model.h
				     * hy_nn_loss_w_reader); its checkpoints have
				     * train_mode 2 and are not policies        */
	int oracle;                 /* --oracle: the model sees the 205 oracle
				     * planes of its samples' hidden state
				     * (nn/model.h hy_nn_arch.oracle): a teacher,
				     * or a student they fade from; an 85-plane
				     * --init starts its oracle columns at 0    */
	const char *teacher;        /* --teacher: a student of this policy
				     * (train/distil.h): the design's KL term at
				     * kl_tau, and an oracle student's fade       */
	float kl_tau;               /* --kl-tau, the temperature (default 3)      */
} hy_train_cfg;

typedef struct hy_train_progress {
	int64_t step, total;       /* updates done / planned                */
	double epoch;              /* fractional, when the size is known    */
	double loss;               /* total loss of this step               */
	double loss_avg;           /* mean over the last log interval       */
	double samples_per_s;      /* over the last log interval            */
	double eta_s;              /* < 0: unknown                          */
	int logged;                /* this step was written to metrics      */
	int evaluated;             /* validation ran at this step           */
	double val_loss;
} hy_train_progress;

typedef struct hy_train_hooks {
	/* After every step (loss of that step, unweighted head means). */
	void (*step)(void *u, int64_t step, const hy_nn_losses *l);
	void (*progress)(void *u, const hy_train_progress *p);
	/* One-line notices (resume, end of input, best checkpoint ...). */
	void (*notice)(void *u, const char *msg);
	void *u;
} hy_train_hooks;

typedef struct hy_train_result {
	int64_t step;           /* last step done                         */
	char last_ckpt[4096];   /* path of the last checkpoint written    */
	int input_ended;        /* standard input ended before the steps  */
	int stopped;            /* cfg->stop was set                      */
	int64_t samples;        /* samples trained on in this process     */
	double seconds;         /* wall time of this process's run        */
	double best_val;        /* best validation loss, NAN without --val */
} hy_train_result;

/* Runs the training; HY_OK at the planned end (or the end of standard
 * input), HY_STOP when stopped by cfg->stop (a checkpoint is saved), else
 * an error: HY_EUSAGE (bad configuration), HY_EFORMAT (checkpoint of
 * another architecture), HY_ETRUNC (truncated checkpoint), HY_EDATA (bad
 * input, or a non-finite loss: "step S: loss of head 'H' is nan", nothing
 * new saved), HY_EIO. res may be NULL. */
hy_status hy_train_run(const hy_train_cfg *cfg, const hy_train_hooks *hooks,
	hy_train_result *res, hy_diag *d);

/* The checkpoint file that --resume PATH means: PATH itself if it is a
 * file, else PATH/latest resolved. */
hy_status hy_train_resolve_ckpt(const char *path, char *out, size_t size, hy_diag *d);

#endif
