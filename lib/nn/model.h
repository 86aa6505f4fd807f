/* SE-ResNet of ARCHITECTURE.md §7 with its five heads and masked losses: forward,
 * hand-written backward, on any backend (backend.h). The parameters are
 * described by one named table (params.h); the workspace for a batch size
 * is allocated once (hy_nn_work_init) and reused every step. */
#ifndef HY_NN_MODEL_H
#define HY_NN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "nn/backend.h"
#include "nn/params.h"
#include "nn/rng.h"
#include "samples/oracle.h"
#include "samples/sample.h"

enum {
	HY_NN_IN = HY_OBS_CHANNELS, /* 85 input planes     */
	HY_NN_POL_CH = 64,          /* policy 1×1 channels */
	HY_NN_VAL_HID = 512,
	HY_NN_GRP_HID = 256,
	HY_NN_TEN_HID = 64,
	HY_NN_OPP = 3,
};

/* Loss weights of ARCHITECTURE.md §7: the policy network's. */
#define HY_NN_W_POLICY 1.0f
#define HY_NN_W_VALUE 0.5f
#define HY_NN_W_GRP 0.1f
#define HY_NN_W_TENPAI 0.05f
#define HY_NN_W_DANGER 0.05f

/* The weights a model trains its heads with (hy_nn_model.lw): the policy
 * network's (above), or a wait reader's (hydra-fit --mode reader, issue
 * 42 step 4): the tenpai and danger heads alone, each at 1, so that the
 * whole trunk learns to read the opponents. */
typedef struct hy_nn_loss_w {
	float policy, value, grp, tenpai, danger;
} hy_nn_loss_w;
extern const hy_nn_loss_w hy_nn_loss_w_policy, hy_nn_loss_w_reader;

typedef struct hy_nn_arch {
	int blocks, channels;
	/* 1: the input is the 85 public planes and the 205 oracle planes of
	 * the sample's hidden state (samples/oracle.h; ARCHITECTURE.md §5a):
	 * a teacher, or a student they fade from; the stem is then
	 * Conv1d(290→C). CPU backends only. 0: the 85 planes. */
	int oracle;
} hy_nn_arch;

/* The model's input planes: 85, or 290 with the oracle planes. */
static inline int hy_nn_arch_in(hy_nn_arch a)
{
	return HY_NN_IN + (a.oracle ? HY_ORACLE_CHANNELS : 0);
}

/* "tiny" 2×32, "small" 6×64, "base" 12×128, "full" 40×256. */
hy_status hy_nn_arch_preset(const char *name, hy_nn_arch *a, hy_diag *d);
/* channels a multiple of 32 in [32, 4096], blocks in [0, 1000]. */
hy_status hy_nn_arch_check(hy_nn_arch a, hy_diag *d);

typedef struct hy_nn_block_idx {
	int gn1w, gn1b, conv1, gn2w, gn2b, conv2, fc1w, fc1b, fc2w, fc2b;
} hy_nn_block_idx;

typedef struct hy_nn_model {
	hy_nn_arch arch;
	const hy_nn_backend *be;
	const hy_nn_ctx *ctx;
	hy_nn_params table;
	float *w, *g, *m, *v; /* backend memory, table.total floats each */
	int stem;
	hy_nn_block_idx *blk;
	int tgnw, tgnb;
	int pconvw, pconvb, pfcw, pfcb;
	int v1w, v1b, v2w, v2b, g1w, g1b, g2w, g2b, t1w, t1b, t2w, t2b;
	int dconvw, dconvb;
	hy_nn_loss_w lw;      /* the loss weights (hy_nn_model_init: the policy's) */
	int in;               /* input planes, hy_nn_arch_in(arch)            */
	/* An oracle model's fade (arch.oracle): the forward multiplies the
	 * opponents' oracle planes by oracle_scale[0] and the wall's by
	 * oracle_scale[1] (the design's dropout table; 1 and 1 after init),
	 * through the stem's weights (stem_eff), so that a batch holds the
	 * planes as they are and a step's scales are the caller's to set. */
	float oracle_scale[2];
	float *stem_eff;      /* the stem's weights so scaled (host memory)   */
} hy_nn_model;

/* Builds the table and allocates parameters, gradients and moments
 * (zeroed). ctx must outlive the model. */
hy_status hy_nn_model_init(hy_nn_model *m, hy_nn_arch a, const hy_nn_backend *be,
	const hy_nn_ctx *ctx, hy_diag *d);
void hy_nn_model_free(hy_nn_model *m);
/* Initialises the parameters (ARCHITECTURE.md §7 rules) from r, zeroes moments. */
hy_status hy_nn_model_init_params(hy_nn_model *m, hy_rng *r, hy_diag *d);
/* Number of parameters (Σ tensor sizes, without alignment padding). */
size_t hy_nn_model_param_count(const hy_nn_model *m);
/* Parameter / gradient pointer of tensor i (backend memory). */
float *hy_nn_model_param(const hy_nn_model *m, int i);
float *hy_nn_model_grad(const hy_nn_model *m, int i);

typedef struct hy_nn_losses {
	double total;                              /* weighted sum     */
	double policy, value, grp, tenpai, danger; /* unweighted means */
	int correct, n;                            /* policy top-1     */
} hy_nn_losses;

/* The weighted total of the head losses. */
double hy_nn_loss_total(const hy_nn_loss_w *lw, const hy_nn_losses *l);

/* Per-block activations kept for backward: the [B][36][C] ones in
 * activation storage (backend.h hy_nn_act), statistics and SE vectors fp32. */
typedef struct hy_nn_block_act {
	hy_nn_act *z1, *a1, *c1, *z2, *a2, *y;
	float *mean1, *rstd1, *mean2, *rstd2;
	float *P, *H, *E, *S;
	uint8_t *arg;
} hy_nn_block_act;

typedef struct hy_nn_work {
	int cap, B;
	int infer;       /* made by hy_nn_work_init_infer: forward and losses only */
	/* activation storage (backend.h hy_nn_act): the input, the trunk */
	hy_nn_act *xin;  /* [B][36][85]                */
	hy_nn_act **X;   /* blocks+1 × [B][36][C]     */
	hy_nn_block_act *act;
	hy_nn_act *zf, *h;
	float *meanf, *rstdf, *gvec;
	/* path v3's GroupNorm sums [B][32][2] (nn/ops.h): st of the trunk's
	 * input to the next block, st2 of c1, gs backward's (training only) */
	float *st, *st2, *gs;
	float *pz, *pa, *plog, *vh, *vout, *gh, *gout, *th, *tout, *dan;
	/* labels (backend memory) */
	uint64_t *mask;
	uint8_t *action, *grp;
	float *vt, *ten_t, *ten_w, *dan_t, *dan_w;
	int n_known, n_danger; /* samples with opponent labels; counted danger opponents */
	/* gradients of outputs and scratch */
	float *dplog, *dvout, *dgout, *dtout, *ddan;
	hy_nn_act *dh, *dX, *dA, *dB; /* activation storage */
	float *dpa, *dpz, *dg, *dvh, *dgh, *dth, *dP, *dH, *dE, *scratch;
	/* Optional, called by hy_nn_backward as gradients become final: the
	 * gradient floats [from, table.total) of m->g hold their final values
	 * for this step (queued, on a GPU: the callee syncs before reading).
	 * Called after the heads and the trunk's GroupNorm, after each block
	 * (from N−1 down to 0) and last with from = 0, so a data-parallel
	 * caller can start summing the finished layers' gradients while the
	 * earlier ones are still being computed (lib/mpi/grad.h). */
	void (*ready)(void *arg, size_t from);
	void *ready_arg;
	/* host staging for labels */
	void *host;
	size_t host_bytes;
	void **allocs;
	int nallocs;
} hy_nn_work;

hy_status hy_nn_work_init(hy_nn_work *w, const hy_nn_model *m, int max_batch, hy_diag *d);
/* The inference workspace (self-play, evaluation): what hy_nn_forward and
 * hy_nn_loss need and nothing kept for backward: the blocks share one set
 * of activation buffers and the trunk alternates between two (X[0], X[1]),
 * so its size does not grow with the depth; no gradient buffers but the
 * heads' output gradients that hy_nn_loss writes. Any batch up to
 * max_batch; hy_nn_forward gives the same outputs bit for bit as with a
 * training workspace. hy_nn_backward must not be given it. */
hy_status hy_nn_work_init_infer(hy_nn_work *w, const hy_nn_model *m, int max_batch,
	hy_diag *d);
void hy_nn_work_free(hy_nn_work *w, const hy_nn_model *m);

/* A loaded batch in one host buffer of hy_nn_batch_bytes(n) bytes, laid
 * out as the backend receives it: labels, then the model's input
 * [n][36][85] fp32 with zero pads (hy_nn_work_put stores it in the
 * workspace's activation storage). hy_nn_batch_pack builds it (a feed's
 * loader threads do, train/feed.h), hy_nn_work_put moves it into the
 * workspace; hy_nn_work_load is the two in turn.
 *
 * The compact form (hy_nn_batch_bytes_as / hy_nn_batch_pack_as with
 * compact 1) carries the samples' own observation planes [n][85·34]
 * binary16 instead of the input (5,780 bytes a sample instead of
 * 12,240), for a GPU feed: no widening on the host, half the bytes over
 * the bus, and the backend's expand_obs widens it on the device — so it
 * is put only from a copy in the backend's memory (on_dev), on a backend
 * that has expand_obs. */
typedef struct hy_nn_batch_info {
	int n, known, danger; /* samples; with opponent labels; danger opponents */
	int compact;          /* the layout hy_nn_batch_pack_as was given   */
	int in;               /* input planes: 85, or 290 with the oracle's */
} hy_nn_batch_info;
size_t hy_nn_batch_bytes(int n);
size_t hy_nn_batch_bytes_as(int n, int compact);
/* The same for a model of `in` input planes (hy_nn_arch_in): with 290,
 * each sample's 205 oracle planes (unscaled) follow its 85 in the input;
 * not compact. hy_nn_batch_pack_as is hy_nn_batch_pack_in with 85. */
size_t hy_nn_batch_bytes_in(int n, int compact, int in);
hy_status hy_nn_batch_pack_in(void *buf, const hy_sample *s, int n, int compact, int in,
	hy_nn_batch_info *bi, hy_diag *d);
/* HY_EDATA for an out-of-range label (names the sample index). */
hy_status hy_nn_batch_pack(void *buf, const hy_sample *s, int n, hy_nn_batch_info *bi,
	hy_diag *d);
hy_status hy_nn_batch_pack_as(void *buf, const hy_sample *s, int n, int compact,
	hy_nn_batch_info *bi, hy_diag *d);
/* buf: the host buffer (be->to_dev), or with on_dev a copy of it in the
 * backend's memory (be->dev_copy, queued after be->to_dev_async).
 * HY_EUSAGE for a compact batch not on_dev or on a backend without
 * expand_obs. */
hy_status hy_nn_work_put(hy_nn_work *w, const hy_nn_model *m, const void *buf,
	const hy_nn_batch_info *bi, int on_dev, hy_diag *d);

/* 1 when the model reads the samples' hidden state: it has the oracle
 * planes and a scale of one group is not 0 (a student faded to 0 reads the
 * public planes alone, and its samples need no hidden state). */
int hy_nn_model_needs_hidden(const hy_nn_model *m);

/* Loads n ≤ cap samples: obs f16 → f32 in the padded layout, labels.
 * HY_EDATA for an out-of-range label (names the sample index), or for a
 * sample without its hidden state where the model needs it. */
hy_status hy_nn_work_load(hy_nn_work *w, const hy_nn_model *m, const hy_sample *s, int n,
	hy_diag *d);

/* Value target of a rank: placement points [90, 45, 0, −135] / 100. */
float hy_nn_value_target(int rank);

/* Forward over the loaded batch (a training or an inference workspace). */
void hy_nn_forward(const hy_nn_model *m, hy_nn_work *w);
/* Losses of the last forward; also writes the output gradients. */
void hy_nn_loss(const hy_nn_model *m, hy_nn_work *w, hy_nn_losses *out);
/* Zeroes m->g and accumulates ∂loss/∂params (after hy_nn_loss). */
void hy_nn_backward(const hy_nn_model *m, hy_nn_work *w);

#endif
