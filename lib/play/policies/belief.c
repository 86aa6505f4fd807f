/* belief: a checkpoint's tenpai and danger heads on a seat's observation
 * (play/belief.h). */
#include "play/policies/belief.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nn/checkpoint.h"
#include "nn/cpupath.h"
#include "nn/model.h"

struct hy_belief {
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
	int have_model, have_work;
	hy_sample s;
	float tout[HY_NN_OPP], dan[HY_NN_TP * HY_NN_OPP];
	pthread_mutex_t mu;
};

void hy_belief_close(hy_belief *b)
{
	if (!b)
		return;
	if (b->have_work)
		hy_nn_work_free(&b->w, &b->m);
	if (b->have_model)
		hy_nn_model_free(&b->m);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

hy_status hy_belief_open(hy_belief **out, const char *path, hy_diag *d)
{
	*out = NULL;
	hy_nn_ckpt_reader *ck; /* the file opened once (nn/checkpoint.h) */
	hy_status st = hy_nn_ckpt_open(path, &ck, d);
	if (st == HY_OK) /* its heads read this build's observation */
		st = hy_nn_ckpt_playable_of(ck, d);
	if (st != HY_OK) {
		hy_nn_ckpt_close(ck);
		return st;
	}
	hy_belief *b = calloc(1, sizeof *b);
	if (!b) {
		hy_nn_ckpt_close(ck);
		return hy_diag_set(d, HY_ENOMEM, 0, "belief: out of memory");
	}
	pthread_mutex_init(&b->mu, NULL);
	hy_nn_ctx_init_infer(&b->ctx, 1);
	if ((st = hy_nn_model_init(&b->m, hy_nn_ckpt_arch_of(ck), hy_nn_backend_cpu(), &b->ctx,
		d)) == HY_OK) {
		b->have_model = 1;
		if ((st = hy_nn_ckpt_load_from(ck, &b->m, NULL, 1, d)) == HY_OK &&
		    (st = hy_nn_work_init_infer(&b->w, &b->m, 1, d)) == HY_OK)
			b->have_work = 1;
	}
	hy_nn_ckpt_close(ck);
	if (st != HY_OK) {
		hy_belief_close(b);
		return st;
	}
	*out = b;
	return HY_OK;
}

static float sigmoid(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

hy_status hy_belief_predict(hy_belief *b, const hy_engine *e, const hy_obs_track *trk, int seat,
			    hy_belief_out *out, hy_diag *d)
{
	pthread_mutex_lock(&b->mu);
	hy_sample *s = &b->s;
	memset(s, 0, sizeof *s);
	hy_obs_encode(e, trk, seat, s->obs);
	s->mask = 1; /* a label the loader wants; the heads ignore it */
	s->seat = (uint8_t)seat;
	hy_status st = hy_nn_work_load(&b->w, &b->m, s, 1, d);
	if (st == HY_OK) {
		hy_nn_forward(&b->m, &b->w);
		const hy_nn_backend *be = b->m.be;
		be->to_host(b->tout, b->w.tout, sizeof b->tout);
		be->to_host(b->dan, b->w.dan, sizeof b->dan);
		/* dan is [36 rows][3]: a pad row, the 34 kinds, a pad row */
		for (int o = 0; o < HY_NN_OPP; o++) {
			out->tenpai[o] = sigmoid(b->tout[o]);
			for (int k = 0; k < HY_TILE_KINDS; k++)
				out->wait[o][k] = sigmoid(b->dan[(1 + k) * HY_NN_OPP + o]);
		}
	}
	pthread_mutex_unlock(&b->mu);
	return st;
}
