/* Dumps what the PyTorch cross-check of the PPO loss
 * (tests/torch/check_ppo.py) needs:
 *   ppo_dump DIR [ARCH [BATCH [SEED]]]      (defaults tiny 8 1)
 * writes DIR/ckpt.h5 (a model after one AdamW step, so that no tensor is at
 * its initial value) and DIR/ppo.h5: the batch (obs f32 [B][85][34], legal
 * [B][46] u8, action, the auxiliary labels) with policy-gradient fields
 * (logp_old = the model's own log-probability of the action plus
 * 0.3·N(0, 1), so that ratios fall on both sides of the clip; adv ~ N(0, 1);
 * ret = value + adv), our outputs, the PPO statistics and total loss as
 * attributes, and /grads/<name>: ∂total/∂parameter in our layout, computed
 * by hy_train_ppo_grad (the path hydra-fit --mode ppo trains with). */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/checkpoint.h"
#include "nn/synth.h"
#include "train/ppo.h"

static int fail(const char *what)
{
	fprintf(stderr, "ppo_dump: %s\n", what);
	return 1;
}

static int put(hid_t f, hid_t lcpl, const char *name, hid_t type, int nd, const hsize_t *dims,
	const void *data)
{
	hid_t sp = H5Screate_simple(nd, dims, NULL);
	hid_t ds = sp < 0 ? -1 : H5Dcreate2(f, name, type, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	int bad = ds < 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
	if (ds >= 0)
		H5Dclose(ds);
	if (sp >= 0)
		H5Sclose(sp);
	if (bad)
		fprintf(stderr, "ppo_dump: cannot write dataset %s\n", name);
	return bad;
}

static int attr(hid_t f, const char *name, double v)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(f, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
	int bad = a < 0 || H5Awrite(a, H5T_NATIVE_DOUBLE, &v) < 0;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	return bad;
}

/* logp, value, adv, ret of every sample from the model's outputs. */
static void fill_pg(const hy_nn_work *w, hy_sample *s, int B, hy_rng *r)
{
	for (int b = 0; b < B; b++) {
		hy_sample *x = &s[b];
		const float *l = w->plog + (size_t)b * HY_ACTIONS;
		uint64_t m = x->mask | 1ull << x->action;
		double mx = -INFINITY, se = 0;
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1 && l[i] > mx)
				mx = l[i];
		for (int i = 0; i < HY_ACTIONS; i++)
			if (m >> i & 1)
				se += exp(l[i] - mx);
		double lp = l[x->action] - mx - log(se) + 0.3 * hy_rng_normal(r);
		x->logp = (float)(lp < 0 ? lp : 0);
		x->value = w->vout[b];
		x->adv = (float)hy_rng_normal(r);
		x->ret = x->value + x->adv;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return fail("usage: ppo_dump DIR [ARCH [BATCH [SEED]]]");
	const char *arch = argc > 2 ? argv[2] : "tiny";
	int B = argc > 3 ? atoi(argv[3]) : 8;
	unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
	hy_diag d;
	hy_diag_init(&d, "ppo_dump");
	char buf[1200];
	hy_nn_arch a;
	if (hy_nn_arch_preset(arch, &a, &d))
		return fail(hy_diag_format(&d, buf, sizeof buf));
	if (B < 2)
		return fail("batch must be at least 2");
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 2);
	hy_nn_model m;
	hy_nn_work w;
	hy_rng r;
	hy_rng_seed(&r, seed);
	hy_sample *s = calloc((size_t)B, sizeof *s);
	if (!s || hy_nn_model_init(&m, a, hy_nn_backend_cpu(), &ctx, &d) ||
		hy_nn_model_init_params(&m, &r, &d) || hy_nn_work_init(&w, &m, B, &d))
		return fail(hy_diag_format(&d, buf, sizeof buf));
	hy_nn_synth_samples(&r, s, B);
	if (hy_nn_work_load(&w, &m, s, B, &d))
		return fail(hy_diag_format(&d, buf, sizeof buf));
	hy_nn_optim_cfg oc;
	hy_nn_optim_defaults(&oc, 100);
	oc.warmup = 0;
	oc.lr = 1e-2f; /* one visible step: biases and GN affine leave 0 / 1 */
	int64_t step = 0;
	hy_nn_losses l;
	hy_nn_forward(&m, &w);
	hy_nn_loss(&m, &w, &l);
	hy_nn_backward(&m, &w);
	hy_nn_optim_step(&m, &oc, &step, NULL);
	hy_nn_forward(&m, &w);
	fill_pg(&w, s, B, &r);

	/* the checked pass: the library's PPO gradient */
	hy_train_ppo_cfg pc = {.epochs = 1, .minibatch = B};
	hy_nn_ppo_defaults(&pc.loss);
	hy_train_ppo *p;
	hy_nn_ppo_stats ps;
	if (hy_train_ppo_init(&p, &pc, B, NULL, &d) ||
		hy_train_ppo_grad(p, &m, &w, s, B, &l, &ps, &d))
		return fail(hy_diag_format(&d, buf, sizeof buf));
	hy_train_ppo_free(p);

	snprintf(buf, sizeof buf, "%s/ckpt.h5", argv[1]);
	hy_nn_ckpt_meta meta = {.step = step, .opt = oc, .seed = seed, .rng = r};
	if (hy_nn_ckpt_save(buf, &m, &meta, &d))
		return fail(hy_diag_format(&d, buf, sizeof buf));
	snprintf(buf, sizeof buf, "%s/ppo.h5", argv[1]);
	hid_t f = H5Fcreate(buf, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
	if (f < 0 || lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0)
		return fail("cannot create ppo.h5");
	float *obs = malloc((size_t)B * HY_OBS_SIZE * 4), *dant = malloc((size_t)B * 3 * 34 * 4);
	float *danw = malloc((size_t)B * 3 * 34 * 4), *pg = malloc((size_t)B * 3 * 4);
	uint8_t *legal = malloc((size_t)B * HY_ACTIONS);
	if (!obs || !dant || !danw || !pg || !legal)
		return fail("out of memory");
	for (int b = 0; b < B; b++) {
		for (int c = 0; c < HY_OBS_CHANNELS; c++)
			for (int t = 0; t < 34; t++)
				obs[((size_t)b * HY_OBS_CHANNELS + c) * 34 + t] =
					((const float *)w.xin)[((size_t)b * HY_NN_TP + 1 + t) * HY_NN_IN + c];
		for (int k = 0; k < HY_ACTIONS; k++)
			legal[b * HY_ACTIONS + k] = (uint8_t)(w.mask[b] >> k & 1);
		for (int o = 0; o < 3; o++)
			for (int t = 0; t < 34; t++) {
				size_t i = ((size_t)b * HY_NN_TP + 1 + t) * 3 + o;
				size_t j = ((size_t)b * 3 + o) * 34 + t;
				dant[j] = w.dan_t[i];
				danw[j] = w.dan_w[i];
			}
		pg[b] = s[b].logp;
		pg[B + b] = s[b].adv;
		pg[2 * B + b] = s[b].ret;
	}
	hsize_t hb = (hsize_t)B;
	int bad = 0;
	bad |= put(f, lcpl, "obs", H5T_NATIVE_FLOAT, 3, (hsize_t[]){hb, 85, 34}, obs);
	bad |= put(f, lcpl, "legal", H5T_NATIVE_UINT8, 2, (hsize_t[]){hb, 46}, legal);
	bad |= put(f, lcpl, "action", H5T_NATIVE_UINT8, 1, &hb, w.action);
	bad |= put(f, lcpl, "grp", H5T_NATIVE_UINT8, 1, &hb, w.grp);
	bad |= put(f, lcpl, "value_target", H5T_NATIVE_FLOAT, 1, &hb, w.vt);
	bad |= put(f, lcpl, "tenpai_target", H5T_NATIVE_FLOAT, 2, (hsize_t[]){hb, 3}, w.ten_t);
	bad |= put(f, lcpl, "tenpai_weight", H5T_NATIVE_FLOAT, 2, (hsize_t[]){hb, 3}, w.ten_w);
	bad |= put(f, lcpl, "danger_target", H5T_NATIVE_FLOAT, 3, (hsize_t[]){hb, 3, 34}, dant);
	bad |= put(f, lcpl, "danger_weight", H5T_NATIVE_FLOAT, 3, (hsize_t[]){hb, 3, 34}, danw);
	bad |= put(f, lcpl, "logp_old", H5T_NATIVE_FLOAT, 1, &hb, pg);
	bad |= put(f, lcpl, "adv", H5T_NATIVE_FLOAT, 1, &hb, pg + B);
	bad |= put(f, lcpl, "ret", H5T_NATIVE_FLOAT, 1, &hb, pg + 2 * B);
	bad |= put(f, lcpl, "out/policy", H5T_NATIVE_FLOAT, 2, (hsize_t[]){hb, 46}, w.plog);
	bad |= put(f, lcpl, "out/value", H5T_NATIVE_FLOAT, 1, &hb, w.vout);
	for (int i = 0; i < m.table.count; i++) {
		const hy_nn_tensor *t = &m.table.t[i];
		hsize_t dims[HY_NN_MAX_DIMS];
		for (int k = 0; k < t->ndim; k++)
			dims[k] = (hsize_t)t->shape[k];
		char nm[HY_NN_NAME_MAX + 8];
		snprintf(nm, sizeof nm, "grads/%s", t->name);
		bad |= put(f, lcpl, nm, H5T_NATIVE_FLOAT, t->ndim, dims, m.g + t->offset);
	}
	bad |= attr(f, "loss_total", l.total) | attr(f, "ppo_loss", ps.loss) |
		attr(f, "surrogate", ps.surrogate) | attr(f, "value", ps.value) |
		attr(f, "entropy", ps.entropy) | attr(f, "approx_kl", ps.approx_kl) |
		attr(f, "clip_frac", ps.clip_frac) | attr(f, "grp", l.grp) |
		attr(f, "tenpai", l.tenpai) | attr(f, "danger", l.danger) |
		attr(f, "clip", pc.loss.clip) | attr(f, "vf_coef", pc.loss.vf_coef) |
		attr(f, "ent_coef", pc.loss.ent_coef);
	H5Pclose(lcpl);
	if (H5Fclose(f) < 0 || bad)
		return fail("cannot write ppo.h5");
	printf("ppo_dump: %s %dx%d batch %d: PPO total %.6f (clip fraction %.3f) → "
		"%s/{ckpt,ppo}.h5\n", arch, a.blocks, a.channels, B, l.total, ps.clip_frac, argv[1]);
	free(obs), free(dant), free(danw), free(pg), free(legal), free(s);
	hy_nn_work_free(&w, &m);
	hy_nn_model_free(&m);
	return 0;
}
