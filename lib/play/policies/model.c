/* The checkpoint policy: the network of nn/model.h on the observation
 * encoder, every request of a call in one forward pass (the inference
 * path: an inference workspace, hy_nn_work_init_infer, + hy_nn_forward),
 * on the CPU or on a GPU (device "cuda", or "auto" with a usable one:
 * bf16, batches of up to CUDA_BATCH requests, more in several passes).
 *
 * Policy: softmax of the policy logits over the legal actions. At
 * temperature T > 0 the action is drawn from softmax(logits / T) with
 * hy_policy_uniform(key, 0) and logp is its log-probability under that
 * distribution (the behaviour policy); at T = 0 the argmax (lowest index on
 * ties) is taken and logp is its log-probability under softmax(logits).
 * Value: the value head's output (placement points / 100). When a request
 * asks for them (hy_decision.probs), the probabilities are softmax(logits)
 * over the legal actions, the temperature-1 distribution the network was
 * trained to give, whatever the sampling temperature. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode/encode.h"
#include "encode/hidden.h"
#include "nn/checkpoint.h"
#include "nn/cpupath.h"
#include "nn/cuda/cuda.h"
#include "nn/model.h"
#include "play/policies/policies.h"

/* The GPU context's batch (its arena and scratch are made for it once). */
enum { CUDA_BATCH = 1024 };

typedef struct model_impl {
	hy_nn_ctx ctx;
	int cuda; /* ctx is a CUDA context */
	hy_nn_model m;
	hy_nn_work w;
	int have_work;
	int cap;
	hy_sample *buf;
	float *plog, *vout;
	float temperature;
	char *path; /* the checkpoint, for messages */
} model_impl;

static hy_status reserve(model_impl *x, int n, hy_diag *d)
{
	if (n <= x->cap)
		return HY_OK;
	if (x->have_work)
		hy_nn_work_free(&x->w, &x->m);
	x->have_work = 0;
	free(x->buf);
	free(x->plog);
	free(x->vout);
	x->cap = 0;
	x->buf = malloc((size_t)n * sizeof *x->buf);
	x->plog = malloc((size_t)n * HY_ACTIONS * sizeof *x->plog);
	x->vout = malloc((size_t)n * sizeof *x->vout);
	if (!x->buf || !x->plog || !x->vout)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory (model batch of %d)", n);
	hy_status st = hy_nn_work_init_infer(&x->w, &x->m, n, d);
	if (st != HY_OK)
		return st;
	x->have_work = 1;
	x->cap = n;
	return HY_OK;
}

/* Picks from the logits of one request (see the top of the file). */
static void pick(const float *logit, uint64_t legal, float temp, uint64_t key, hy_choice *out)
{
	double mx = -INFINITY;
	int arg = -1;
	for (uint64_t m = legal; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		if (arg < 0 || logit[a] > mx) {
			mx = logit[a];
			arg = a;
		}
	}
	if (temp <= 0.0f) {
		double z = 0;
		for (uint64_t m = legal; m; m &= m - 1)
			z += exp((double)logit[__builtin_ctzll(m)] - mx);
		out->index = arg;
		out->logp = (float)(-log(z));
		return;
	}
	double z = 0, p[HY_ACTIONS];
	for (uint64_t m = legal; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		p[a] = exp(((double)logit[a] - mx) / temp);
		z += p[a];
	}
	double u = hy_policy_uniform(key, 0) * z, cum = 0;
	int chosen = -1;
	for (uint64_t m = legal; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		cum += p[a];
		chosen = a;
		if (u < cum)
			break;
	}
	out->index = chosen;
	out->logp = (float)log(p[chosen] / z);
}

/* softmax(logit) over the legal actions into probs (0 elsewhere). */
static void softmax_legal(const float *logit, uint64_t legal, float *probs)
{
	double mx = -INFINITY, z = 0, e[HY_ACTIONS];
	for (uint64_t m = legal; m; m &= m - 1)
		mx = fmax(mx, (double)logit[__builtin_ctzll(m)]);
	for (uint64_t m = legal; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		z += e[a] = exp((double)logit[a] - mx);
	}
	memset(probs, 0, HY_ACTIONS * sizeof *probs);
	for (uint64_t m = legal; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		probs[a] = (float)(e[a] / z);
	}
}

/* One forward pass over n ≤ x->cap requests. */
static hy_status forward(model_impl *x, size_t n, const hy_decision *req, hy_choice *out,
	hy_diag *d)
{
	hy_status st;
	for (size_t i = 0; i < n; i++) {
		hy_sample *s = &x->buf[i];
		memset((char *)s + sizeof s->obs, 0, sizeof *s - sizeof s->obs);
		hy_obs_encode(req[i].e, req[i].track, req[i].seat, s->obs);
		if (hy_nn_model_needs_hidden(&x->m)) { /* the oracle planes' facts */
			if (!req[i].tbl)
				return hy_diag_set(d, HY_EUSAGE, 0, "'%s' reads the hidden state (a "
					"model with the oracle planes): it plays in self-play and the "
					"arena only", x->path);
			hy_encode_opp_labels(req[i].e, req[i].seat, s);
			hy_encode_hidden(req[i].tbl, req[i].seat, s);
		}
		s->mask = req[i].legal;
		s->action = (uint8_t)__builtin_ctzll(req[i].legal);
		s->seat = (uint8_t)req[i].seat;
	}
	if ((st = hy_nn_work_load(&x->w, &x->m, x->buf, (int)n, d)) != HY_OK)
		return st;
	hy_nn_forward(&x->m, &x->w);
	x->m.be->to_host(x->plog, x->w.plog, n * HY_ACTIONS * sizeof *x->plog);
	x->m.be->to_host(x->vout, x->w.vout, n * sizeof *x->vout);
	if (x->m.be->sync && (st = x->m.be->sync(&x->ctx, d)) != HY_OK)
		return st;
	/* a network whose output is not a number has no choice to give: an
	 * error naming it, never the first legal action or a NaN probability */
	for (size_t i = 0; i < n; i++) {
		const float *l = x->plog + i * HY_ACTIONS;
		int ok = isfinite(x->vout[i]);
		for (uint64_t m = req[i].legal; ok && m; m &= m - 1)
			ok = isfinite(l[__builtin_ctzll(m)]);
		if (!ok)
			return hy_diag_set(d, HY_EDATA, 0, "model '%s': non-finite output (policy "
				"logits or value) at a decision: the network is not usable", x->path);
	}
	for (size_t i = 0; i < n; i++) {
		pick(x->plog + i * HY_ACTIONS, req[i].legal, x->temperature, req[i].key, &out[i]);
		out[i].value = x->vout[i];
		if (req[i].probs)
			softmax_legal(x->plog + i * HY_ACTIONS, req[i].legal, req[i].probs);
	}
	return HY_OK;
}

static hy_status model_decide(hy_policy *p, size_t n, const hy_decision *req, hy_choice *out,
			      hy_diag *d)
{
	model_impl *x = p->impl;
	if (n == 0)
		return HY_OK;
	if (n > (size_t)1 << 20)
		return hy_diag_set(d, HY_EUSAGE, 0, "model batch of %zu requests is too large", n);
	/* the GPU's context holds CUDA_BATCH: more in several passes */
	size_t lim = x->cuda ? CUDA_BATCH : n;
	hy_status st = reserve(x, (int)(n < lim ? n : lim), d);
	if (st != HY_OK)
		return st;
	for (size_t at = 0; at < n; at += lim) {
		size_t k = n - at < lim ? n - at : lim;
		if ((st = forward(x, k, req + at, out + at, d)) != HY_OK)
			return st;
	}
	return HY_OK;
}

static void model_free(hy_policy *p)
{
	model_impl *x = p->impl;
	if (!x)
		return;
	if (x->have_work)
		hy_nn_work_free(&x->w, &x->m);
	hy_nn_model_free(&x->m);
	if (x->cuda)
		hy_nn_cuda_ctx_free(&x->ctx);
	free(x->buf);
	free(x->plog);
	free(x->vout);
	free(x->path);
	free(x);
	p->impl = NULL;
}

static const hy_policy_ops model_ops = {model_decide, NULL, model_free, NULL};

/* The policy from an open checkpoint (nn/checkpoint.h's one reader: the
 * file is opened once). */
static hy_status open_from(hy_policy *p, hy_nn_ckpt_reader *ck, int cuda, int ordinal,
			   const hy_policy_opts *o, hy_diag *d)
{
	const char *path = hy_nn_ckpt_path(ck);
	hy_status st;
	hy_nn_arch a = hy_nn_ckpt_arch_of(ck);
	/* the network sees this build's observation: one trained on another
	 * encoding would be played on inputs it never saw (an unmarked
	 * checkpoint, from before the marker, is played as it is) */
	if ((st = hy_nn_ckpt_playable_of(ck, d)) != HY_OK)
		return st;
	/* a wait reader's policy head was never trained */
	if ((st = hy_nn_ckpt_want(ck, HY_NN_KIND_POLICY, "a player", d)) != HY_OK)
		return st;
	model_impl *x = calloc(1, sizeof *x);
	if (!x)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	const hy_nn_backend *be = hy_nn_backend_cpu();
	if (cuda) {
		hy_nn_cuda_cfg cc = {.device = ordinal, .precision = HY_NN_PREC_BF16, .arch = a,
			.max_batch = CUDA_BATCH, .infer = 1};
		if ((st = hy_nn_cuda_ctx_init(&x->ctx, &cc, d)) != HY_OK) {
			free(x);
			return st;
		}
		x->cuda = 1;
		be = hy_nn_backend_cuda();
	} else {
		hy_nn_ctx_init_infer(&x->ctx, o && o->threads > 0 ? o->threads : 1);
	}
	x->temperature = o ? o->temperature : 1.0f;
	if (!(x->path = strdup(path))) {
		if (x->cuda)
			hy_nn_cuda_ctx_free(&x->ctx);
		free(x);
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	}
	if ((st = hy_nn_model_init(&x->m, a, be, &x->ctx, d)) != HY_OK) {
		if (x->cuda)
			hy_nn_cuda_ctx_free(&x->ctx);
		free(x->path);
		free(x);
		return st;
	}
	p->impl = x;
	p->ops = &model_ops;
	if ((st = hy_nn_ckpt_load_from(ck, &x->m, NULL, 1, d)) != HY_OK) {
		model_free(p);
		p->ops = NULL;
		return st;
	}
	p->stochastic = x->temperature > 0.0f;
	/* a network that reads the hidden state is an oracle (play/policy.h):
	 * the runner seats it only where allowed */
	p->oracle = hy_nn_model_needs_hidden(&x->m);
	p->has_value = 1;
	p->has_probs = 1;
	p->temperature = x->temperature;
	p->concurrent = 0;
	return HY_OK;
}

hy_status hy_policy_open_model(hy_policy *p, const char *path, const hy_policy_opts *o,
			       hy_diag *d)
{
	/* the device and the temperature first: a usage or device error is
	 * reported as such before the file is read */
	const char *dev = o && o->device ? o->device : "cpu";
	int cuda, ordinal;
	hy_status st = HY_OK;
	if (o && o->dev) { /* resolved by the program (nn/cuda/cuda.h) */
		cuda = o->dev->cuda;
		ordinal = o->dev->ordinal;
	} else if ((st = hy_nn_device_pick(dev, &cuda, &ordinal, NULL, 0, d)) != HY_OK) {
		return st;
	}
	if (o && !(o->temperature >= 0.0f && isfinite(o->temperature)))
		return hy_diag_set(d, HY_EUSAGE, 0, "temperature must be a finite number >= 0");
	hy_nn_ckpt_reader *ck;
	if ((st = hy_nn_ckpt_open(path, &ck, d)) == HY_OK)
		st = open_from(p, ck, cuda, ordinal, o, d);
	hy_nn_ckpt_close(ck);
	return st;
}
