/* bf16 against fp32 inference on the oneDNN CPU path (issue 54): the same
 * checkpoint run on the same samples in an fp32 context and in a bf16
 * context (nn/cpupath.h), and how often the greedy action — the most
 * probable legal action — agrees.
 *   bf16_agree CKPT [INPUT...]        (inputs as hydra-eval --dataset reads
 *                                      them; none: standard input)
 * Prints the decisions, the agreement, the largest and mean absolute
 * difference of the legal actions' probabilities, and the value head's
 * largest difference. Needs a build with oneDNN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/source.h"
#include "nn/checkpoint.h"
#include "nn/cpupath.h"
#include "nn/model.h"

enum { BATCH = 256 };

typedef struct side {
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
} side;

typedef struct run {
	side s[2]; /* fp32, bf16 */
	long n, agree;
	double pmax, psum, vmax;
	hy_diag *d;
	hy_status st;
} run;

/* the legal actions' softmax of logits into p; the argmax's index */
static int probs(const float *logits, uint64_t mask, double *p)
{
	double mx = -INFINITY, z = 0;
	int best = -1;
	for (int k = 0; k < HY_ACTIONS; k++)
		if (mask >> k & 1 && logits[k] > mx) {
			mx = logits[k];
			best = k;
		}
	for (int k = 0; k < HY_ACTIONS; k++)
		z += p[k] = mask >> k & 1 ? exp(logits[k] - mx) : 0.0;
	for (int k = 0; k < HY_ACTIONS; k++)
		p[k] /= z;
	return best;
}

static int batch(void *u, const hy_sample *s, size_t n)
{
	run *r = u;
	for (int i = 0; i < 2; i++) {
		if ((r->st = hy_nn_work_load(&r->s[i].w, &r->s[i].m, s, (int)n, r->d)))
			return 1;
		hy_nn_forward(&r->s[i].m, &r->s[i].w);
	}
	for (size_t j = 0; j < n; j++) {
		double p[2][HY_ACTIONS];
		int a0 = probs(r->s[0].w.plog + j * HY_ACTIONS, s[j].mask, p[0]);
		int a1 = probs(r->s[1].w.plog + j * HY_ACTIONS, s[j].mask, p[1]);
		r->agree += a0 == a1;
		for (int k = 0; k < HY_ACTIONS; k++)
			if (s[j].mask >> k & 1) {
				double e = fabs(p[0][k] - p[1][k]);
				r->pmax = fmax(r->pmax, e);
				r->psum += e;
			}
		r->vmax = fmax(r->vmax, fabs(r->s[0].w.vout[j] - r->s[1].w.vout[j]));
	}
	r->n += (long)n;
	return 0;
}

static int die(const hy_diag *d)
{
	char buf[1100];
	fprintf(stderr, "bf16_agree: %s\n", hy_diag_format(d, buf, sizeof buf));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bf16_agree CKPT [INPUT...]\n");
		return 2;
	}
	hy_diag d;
	hy_diag_init(&d, argv[1]);
	const hy_nn_backend *be = hy_nn_backend_cpu_onednn();
	if (!be) {
		fprintf(stderr, "bf16_agree: this build has no oneDNN\n");
		return 2;
	}
	hy_nn_arch a;
	int trained = 0;
	if (hy_nn_ckpt_arch(argv[1], &a, &d) || hy_nn_ckpt_obs_version(argv[1], &trained, &d))
		return die(&d);
	static run r;
	r.d = &d;
	for (int i = 0; i < 2; i++) {
		side *s = &r.s[i];
		hy_nn_ctx_init(&s->ctx, 1);
		s->ctx.precision = i ? HY_NN_PREC_BF16 : HY_NN_PREC_FP32;
		if (hy_nn_model_init(&s->m, a, be, &s->ctx, &d) ||
			hy_nn_ckpt_load(argv[1], &s->m, NULL, 1, &d) ||
			hy_nn_work_init_infer(&s->w, &s->m, BATCH, &d))
			return die(&d);
	}
	static const char *const in[1] = {"-"};
	const char *const *paths = argc > 2 ? (const char *const *)argv + 2 : in;
	size_t np = argc > 2 ? (size_t)argc - 2 : 1;
	hy_sample *buf = malloc(BATCH * sizeof *buf);
	if (!buf)
		return 1;
	hy_status st = hy_data_scan_model(paths, np, buf, BATCH, batch, &r, trained, &d);
	if (st == HY_STOP)
		st = r.st;
	if (st)
		return die(&d);
	if (r.n == 0) {
		fprintf(stderr, "bf16_agree: no samples\n");
		return 1;
	}
	int bf = 0;
	const char *isa = hy_nn_onednn_isa(&bf);
	printf("bf16 vs fp32 (oneDNN %s on %s%s): %ld decisions, greedy action agrees on "
	       "%ld (%.3f%%); a legal action's probability differs by at most %.4f, the "
	       "probabilities of a decision by %.5f in sum on average; the value by at most %.4f; "
	       "%d refusals\n",
		hy_nn_onednn_version(), isa, bf ? ", native bf16" : ", bf16 emulated", r.n, r.agree,
		100.0 * r.agree / r.n, r.pmax, r.psum / r.n, r.vmax, hy_nn_onednn_refusals());
	for (int i = 0; i < 2; i++) {
		hy_nn_work_free(&r.s[i].w, &r.s[i].m);
		hy_nn_model_free(&r.s[i].m);
	}
	free(buf);
	return 0;
}
