/* Dataset evaluation: the trainer's forward pass (on an inference
 * workspace: nothing kept for backward) and losses over every sample of
 * the inputs, with policy accuracy per action type; on the CPU or on a GPU
 * (cfg device; bf16, a context made for the batch). */
#include "play/dseval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "nn/checkpoint.h"
#include "nn/cuda/cuda.h"
#include "samples/sample.h"
#include "data/source.h"

static const char *const type_names[HY_DSEVAL_TYPES] = {
	"discard", "riichi", "chi", "pon", "kan", "win", "kyuushu", "pass",
};

int hy_dseval_type_of(int a)
{
	if (a < 0 || a >= HY_A_COUNT)
		return -1;
	if (a < HY_A_RIICHI)
		return HY_DSEVAL_DISCARD;
	switch (a) {
	case HY_A_RIICHI: return HY_DSEVAL_RIICHI;
	case HY_A_CHI_LOW:
	case HY_A_CHI_MID:
	case HY_A_CHI_HIGH: return HY_DSEVAL_CHI;
	case HY_A_PON: return HY_DSEVAL_PON;
	case HY_A_KAN: return HY_DSEVAL_KAN;
	case HY_A_WIN: return HY_DSEVAL_WIN;
	case HY_A_KYUUSHU: return HY_DSEVAL_KYUUSHU;
	default: return HY_DSEVAL_PASS;
	}
}

const char *hy_dseval_type_name(int t)
{
	return t >= 0 && t < HY_DSEVAL_TYPES ? type_names[t] : "?";
}

static const char *const miss_names[HY_DSEVAL_MISSES] = {
	"red", "keep-both", "keep-label", "keep-model", "keep-neither",
	"safe-both", "safe-label", "safe-model", "safe-neither",
};

const char *hy_dseval_miss_name(int m)
{
	return m >= 0 && m < HY_DSEVAL_MISSES ? miss_names[m] : "?";
}

int hy_dseval_add_policy(hy_dseval_acc *a, const float *l, uint64_t mask, int label)
{
	int t = hy_dseval_type_of(label);
	if (t < 0)
		return -1;
	uint64_t m = mask | 1ull << label;
	int above = 0; /* legal actions ranked before the label */
	int top = label;
	for (int i = 0; i < HY_ACTIONS; i++) {
		if (i == label || !(m >> i & 1))
			continue;
		if (l[i] > l[label] || (l[i] == l[label] && i < label))
			above++;
		if (l[i] > l[top] || (l[i] == l[top] && i < top))
			top = i;
	}
	a->count[t]++;
	a->top1[t] += above < 1;
	a->top3[t] += above < 3;
	a->confusion[t][hy_dseval_type_of(top)]++;
	return top;
}

/* A cell is set when it is non-zero: the planes read here are binary,
 * except channel 9, graded by acceptance from 0.25 up. */
static int cell(const hy_sample *s, int ch, int kind)
{
	return hy_half_to_float(s->obs[ch * HY_OBS_TILES + kind]) > 0.0f;
}

/* Opponent o (relative player o + 1) has declared riichi (a fill plane). */
static int in_riichi(const hy_sample *s, int o)
{
	return cell(s, HY_OBS_RIICHI + 1 + o, 0);
}

/* Safe against every opponent in riichi: a kind it discarded, or one
 * anybody discarded after its declaration that it did not ron. */
static int safe(const hy_sample *s, int kind)
{
	for (int o = 0; o < 3; o++)
		if (in_riichi(s, o) && !cell(s, HY_OBS_RIVER + 3 * (o + 1), kind) &&
		    !cell(s, HY_OBS_RIICHI_SAFE + o, kind))
			return 0;
	return 1;
}

int hy_dseval_add_miss(hy_dseval_acc *a, const hy_sample *s, int top)
{
	int label = s->action;
	if (hy_dseval_type_of(label) != HY_DSEVAL_DISCARD ||
	    hy_dseval_type_of(top) != HY_DSEVAL_DISCARD || top == label)
		return -1;
	/* discard actions 0–36 are tile codes: 34–36 the red fives */
	int kl = hy_tile_kind(label), km = hy_tile_kind(top), c;
	if (kl == km) {
		c = HY_DSEVAL_MISS_RED;
	} else if (in_riichi(s, 0) || in_riichi(s, 1) || in_riichi(s, 2)) {
		int sl = safe(s, kl), sm = safe(s, km);
		c = sl && sm ? HY_DSEVAL_MISS_SAFE_BOTH
		    : sl     ? HY_DSEVAL_MISS_SAFE_LABEL
		    : sm     ? HY_DSEVAL_MISS_SAFE_MODEL
			     : HY_DSEVAL_MISS_SAFE_NEITHER;
	} else {
		int gl = cell(s, HY_OBS_BEST_DISCARD, kl), gm = cell(s, HY_OBS_BEST_DISCARD, km);
		c = gl && gm ? HY_DSEVAL_MISS_KEEP_BOTH
		    : gl     ? HY_DSEVAL_MISS_KEEP_LABEL
		    : gm     ? HY_DSEVAL_MISS_KEEP_MODEL
			     : HY_DSEVAL_MISS_KEEP_NEITHER;
	}
	a->miss[c]++;
	return c;
}

static double ratio(double x, double n)
{
	return n > 0 ? x / n : NAN;
}

static double sigm(float x)
{
	return 1.0 / (1.0 + exp(-(double)x));
}

void hy_dseval_add_reader(hy_dseval_acc *a, const hy_sample *s, const float ten[3],
	const float *dan)
{
	if (!(s->flags & HY_SAMPLE_F_OPP_KNOWN))
		return;
	for (int o = 0; o < 3; o++) {
		const double pt = sigm(ten[o]);
		const int tp = s->opp_tenpai >> o & 1;
		for (int k = 0; k < 34; k++)
			hy_read_tally_add(&a->rd, pt * sigm(dan[(1 + k) * 3 + o]),
				tp && (s->opp_waits[o] >> k & 1) &&
					!(s->flags & HY_SAMPLE_F_FURITEN_OF(o)));
	}
}

void hy_dseval_finish(const hy_dseval_acc *a, const hy_nn_loss_w *lw, hy_dseval_result *r)
{
	hy_nn_arch arch = r->arch;
	memset(r, 0, sizeof *r);
	r->arch = arch;
	r->n = a->n;
	for (int t = 0; t < HY_DSEVAL_TYPES; t++) {
		r->count[t] = a->count[t];
		r->top1[t] = a->top1[t];
		r->top3[t] = a->top3[t];
		r->top1_all += a->top1[t];
		r->top3_all += a->top3[t];
		r->acc1[t] = ratio((double)a->top1[t], (double)a->count[t]);
		r->acc3[t] = ratio((double)a->top3[t], (double)a->count[t]);
	}
	memcpy(r->confusion, a->confusion, sizeof r->confusion);
	memcpy(r->miss, a->miss, sizeof r->miss);
	r->acc1_all = ratio((double)r->top1_all, (double)a->n);
	r->acc3_all = ratio((double)r->top3_all, (double)a->n);
	hy_nn_losses m;
	hy_nn_evalacc_mean(&a->loss, lw, &m);
	r->policy = m.policy;
	r->value = m.value;
	r->grp = m.grp;
	r->tenpai = m.tenpai;
	r->danger = m.danger;
	r->total = m.total; /* the trainer's: a head with nothing to count adds 0 */
	r->n_tenpai = (uint64_t)a->loss.n_tenpai;
	r->n_danger = (uint64_t)a->loss.n_danger;
	r->rd_cells = a->rd.cells;
	r->rd_wins = a->rd.wins;
	r->rd_logloss = hy_read_tally_logloss(&a->rd);
	r->rd_base = hy_read_tally_base(&a->rd);
	r->rd_auc = hy_read_tally_auc(&a->rd);
}

typedef struct run {
	const hy_dseval_cfg *c;
	hy_nn_model m;
	hy_nn_work w;
	float *logits; /* host copy [batch][46] */
	float *ten, *dan; /* host copies [batch][3], [batch][36][3] */
	hy_dseval_acc acc;
	hy_status st;
	hy_diag *d;
} run;

static int eval_batch(void *u, const hy_sample *s, size_t n)
{
	run *r = u;
	r->st = hy_nn_work_load(&r->w, &r->m, s, (int)n, r->d);
	if (r->st)
		return 1;
	hy_nn_forward(&r->m, &r->w);
	hy_nn_losses l;
	hy_nn_loss(&r->m, &r->w, &l);
	if (r->m.be->sync && (r->st = r->m.be->sync(r->m.ctx, r->d)))
		return 1;
	hy_nn_evalacc_add(&r->acc.loss, &r->w, &l, (int)n); /* batch means, weighted */
	r->acc.n += n;
	r->m.be->to_host(r->logits, r->w.plog, n * HY_ACTIONS * sizeof(float));
	r->m.be->to_host(r->ten, r->w.tout, n * HY_NN_OPP * sizeof(float));
	r->m.be->to_host(r->dan, r->w.dan, n * HY_NN_TP * HY_NN_OPP * sizeof(float));
	for (size_t i = 0; i < n; i++)
		hy_dseval_add_reader(&r->acc, &s[i], r->ten + i * HY_NN_OPP,
				     r->dan + i * HY_NN_TP * HY_NN_OPP);
	for (size_t i = 0; i < n; i++)
		hy_dseval_add_miss(&r->acc, &s[i],
				   hy_dseval_add_policy(&r->acc, r->logits + i * HY_ACTIONS,
							s[i].mask, s[i].action));
	if (r->c->progress)
		r->c->progress(r->c->u, r->acc.n);
	return 0;
}

hy_status hy_dseval_run(const hy_dseval_cfg *c, hy_dseval_result *res, hy_diag *d)
{
	memset(res, 0, sizeof *res);
	if (!c->ckpt || c->batch < 1 || c->threads < 1)
		return hy_diag_set(d, HY_EUSAGE, 0, "dataset evaluation: bad configuration");
	hy_status st;
	/* the checkpoint, opened once (nn/checkpoint.h): its architecture, its
	 * observation version, its weights */
	hy_nn_ckpt_reader *ck;
	if ((st = hy_nn_ckpt_open(c->ckpt, &ck, d)))
		return st;
	hy_nn_arch arch = hy_nn_ckpt_arch_of(ck);
	int trained = 0; /* the observation it was trained on (0: unmarked) */
	if ((st = hy_nn_ckpt_obs_of(ck, &trained, d))) {
		hy_nn_ckpt_close(ck);
		return st;
	}
	/* the device: the CPU, or a GPU context made for this batch */
	int cuda = c->dev ? c->dev->cuda : 0, ordinal = c->dev ? c->dev->ordinal : 0;
	if (!c->dev && (st = hy_nn_device_pick(c->device, &cuda, &ordinal, NULL, 0, d))) {
		hy_nn_ckpt_close(ck);
		return st;
	}
	hy_nn_ctx ctx;
	const hy_nn_backend *be = hy_nn_backend_cpu();
	if (cuda) {
		hy_nn_cuda_cfg cc = {.device = ordinal, .precision = HY_NN_PREC_BF16, .arch = arch,
			.max_batch = c->batch, .infer = 1};
		if ((st = hy_nn_cuda_ctx_init(&ctx, &cc, d))) {
			hy_nn_ckpt_close(ck);
			return st;
		}
		be = hy_nn_backend_cuda();
	} else {
		/* fp32 on every CPU path: the metrics are those hydra-fit's
		 * validation reports, compared with them */
		hy_nn_ctx_init(&ctx, c->threads);
	}
	run *r = calloc(1, sizeof *r);
	hy_sample *buf = malloc((size_t)c->batch * sizeof *buf);
	int model = 0, work = 0;
	if (!r || !buf) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		goto out;
	}
	r->c = c;
	r->d = d;
	if ((st = hy_nn_model_init(&r->m, arch, be, &ctx, d)))
		goto out;
	model = 1;
	int32_t mode = 0; /* a wait reader's total is its heads' (nn/model.h) */
	if (hy_nn_ckpt_get(ck, "train_mode", HY_NN_ATTR_I32, &mode) == 1 && mode == 2)
		r->m.lw = hy_nn_loss_w_reader;
	st = hy_nn_ckpt_load_from(ck, &r->m, NULL, 1, d);
	hy_nn_ckpt_close(ck);
	ck = NULL;
	if (st)
		goto out;
	if ((st = hy_nn_work_init_infer(&r->w, &r->m, c->batch, d)))
		goto out;
	work = 1;
	r->logits = malloc((size_t)c->batch * HY_ACTIONS * sizeof *r->logits);
	r->ten = malloc((size_t)c->batch * HY_NN_OPP * sizeof *r->ten);
	r->dan = malloc((size_t)c->batch * HY_NN_TP * HY_NN_OPP * sizeof *r->dan);
	if (!r->logits || !r->ten || !r->dan) {
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		goto out;
	}
	static const char *const stdin_path[1] = {"-"};
	const char *const *paths = c->npaths ? c->paths : stdin_path;
	size_t npaths = c->npaths ? c->npaths : 1;
	/* the samples hold the observation the model was trained on (an
	 * unmarked model, 0: any one version) */
	st = hy_data_scan_model(paths, npaths, buf, (size_t)c->batch, eval_batch, r, trained, d);
	if (st == HY_STOP)
		st = r->st;
	if (st)
		goto out;
	if (r->acc.n == 0) {
		st = hy_diag_set(d, HY_EDATA, 0, "no samples in the input");
		goto out;
	}
	res->arch = arch;
	hy_dseval_finish(&r->acc, &r->m.lw, res);
out:
	hy_nn_ckpt_close(ck);
	if (r) {
		free(r->logits);
		free(r->ten);
		free(r->dan);
		if (work)
			hy_nn_work_free(&r->w, &r->m);
		if (model)
			hy_nn_model_free(&r->m);
	}
	free(r);
	free(buf);
	if (cuda)
		hy_nn_cuda_ctx_free(&ctx);
	return st;
}
