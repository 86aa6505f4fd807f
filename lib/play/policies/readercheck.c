/* A wait reader scored where rulebot's belief is (see readercheck.h). */
#include "play/policies/readercheck.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nn/checkpoint.h"
#include "nn/cpupath.h"
#include "nn/model.h"
#include "samples/sample.h"

struct hy_reader_check {
	int refs; /* holders (hy_reader_check_ref) */
	pthread_mutex_t mu;
	hy_nn_ctx ctx;
	hy_nn_model m;
	hy_nn_work w;
	int have_m, have_w;
	hy_sample s;
	float ten[HY_NN_OPP], dan[HY_NN_TP * HY_NN_OPP];
};

void hy_reader_check_close(hy_reader_check *rc)
{
	if (!rc || --rc->refs > 0)
		return;
	if (rc->have_w)
		hy_nn_work_free(&rc->w, &rc->m);
	if (rc->have_m)
		hy_nn_model_free(&rc->m);
	pthread_mutex_destroy(&rc->mu);
	free(rc);
}

hy_status hy_reader_check_open(hy_reader_check **out, const char *path, hy_diag *d)
{
	return hy_reader_check_open_as(out, path, "reader=", d);
}

hy_status hy_reader_check_open_as(hy_reader_check **out, const char *path, const char *role,
	hy_diag *d)
{
	*out = NULL;
	hy_reader_check *rc = calloc(1, sizeof *rc);
	if (!rc)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	rc->refs = 1;
	pthread_mutex_init(&rc->mu, NULL);
	hy_nn_ctx_init_infer(&rc->ctx, 1);
	hy_nn_ckpt_reader *ck = NULL;
	hy_status st = hy_nn_ckpt_open(path, &ck, d);
	if (st == HY_OK)
		st = hy_nn_ckpt_playable_of(ck, d); /* this build's observation */
	if (st == HY_OK)
		st = hy_nn_ckpt_want(ck, HY_NN_KIND_READER, role, d);
	if (st == HY_OK &&
		(st = hy_nn_model_init(&rc->m, hy_nn_ckpt_arch_of(ck), hy_nn_backend_cpu(), &rc->ctx,
			d)) == HY_OK)
		rc->have_m = 1;
	if (st == HY_OK)
		st = hy_nn_ckpt_load_from(ck, &rc->m, NULL, 1, d);
	hy_nn_ckpt_close(ck);
	if (st == HY_OK && (st = hy_nn_work_init_infer(&rc->w, &rc->m, 1, d)) == HY_OK)
		rc->have_w = 1;
	if (st != HY_OK) {
		hy_reader_check_close(rc);
		return st;
	}
	*out = rc;
	return HY_OK;
}

hy_reader_check *hy_reader_check_ref(hy_reader_check *rc)
{
	rc->refs++;
	return rc;
}

static double sigm(float x)
{
	return 1.0 / (1.0 + exp(-(double)x));
}

hy_status hy_reader_check_read(hy_reader_check *rc, const hy_engine *e, const hy_obs_track *t,
	int seat, double tau[4], double q[4][34], hy_diag *d)
{
	pthread_mutex_lock(&rc->mu);
	memset(&rc->s, 0, sizeof rc->s);
	hy_obs_encode(e, t, seat, rc->s.obs);
	rc->s.mask = 1; /* a legal action for the loader; the policy is not read */
	rc->s.seat = (uint8_t)seat;
	hy_status st = hy_nn_work_load(&rc->w, &rc->m, &rc->s, 1, d);
	if (st == HY_OK) {
		hy_nn_forward(&rc->m, &rc->w);
		rc->m.be->to_host(rc->ten, rc->w.tout, sizeof rc->ten);
		rc->m.be->to_host(rc->dan, rc->w.dan, sizeof rc->dan);
		/* the observation's opponent o is seat + o + 1 (encode/encode.h) */
		for (int o = 0; o < HY_NN_OPP; o++) {
			const int s = (seat + o + 1) % 4;
			tau[s] = sigm(rc->ten[o]);
			for (int k = 0; k < 34; k++)
				q[s][k] = sigm(rc->dan[(1 + k) * HY_NN_OPP + o]);
		}
	}
	pthread_mutex_unlock(&rc->mu);
	return st;
}

hy_status hy_reader_check_predict(hy_reader_check *rc, const hy_engine *e,
	const hy_obs_track *t, int seat, double p[4][34], hy_diag *d)
{
	double tau[4], q[4][34];
	hy_status st = hy_reader_check_read(rc, e, t, seat, tau, q, d);
	for (int s = 0; st == HY_OK && s < 4; s++)
		for (int k = 0; s != seat && k < 34; k++)
			p[s][k] = tau[s] * q[s][k];
	return st;
}
