/* A planted flaw (issue 52, step 1b): a copy of a policy checkpoint with
 * one action made rare — DELTA added to the bias of the policy head's
 * output for action index A (ARCHITECTURE.md §2: 43 is the win, tsumo or
 * ron; 37 riichi), so that its logit is DELTA lower (DELTA < 0) wherever it
 * is legal and nothing else changes. The copy keeps the weights only (no
 * optimiser moments) and the observation version of IN, so it plays and
 * PPO starts from it (hydra-fit --init) as from any policy. With freq, the
 * planted action's frequency where it was open, in a sample stream of
 * self-play (hydra-sp --learner: the learner's decisions): "open N taken K
 * rate K/N".
 *   ppo_plant IN.h5 OUT.h5 A DELTA
 *   ppo_plant freq SAMPLES A */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "nn/checkpoint.h"
#include "nn/model.h"
#include "samples/reader.h"
#include "samples/sample.h"

static int freq(const char *path, int a)
{
	hy_diag d;
	hy_diag_init(&d, path);
	hy_sample_reader *r;
	hy_sample s;
	uint64_t open = 0, taken = 0;
	hy_status st = hy_sample_reader_open(&r, path, &d);
	if (st == HY_OK) {
		while ((st = hy_sample_read(r, &s, &d)) == HY_OK)
			if (s.mask >> a & 1) {
				open++;
				taken += s.action == a;
			}
		hy_sample_reader_close(r);
	}
	if (st != HY_STOP) {
		fprintf(stderr, "ppo_plant: %s: %s\n", path, d.msg);
		return 1;
	}
	printf("open %llu taken %llu rate %.4f\n", (unsigned long long)open,
		(unsigned long long)taken, open ? (double)taken / (double)open : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	int64_t a;
	double delta;
	if (argc == 4 && !strcmp(argv[1], "freq") && !hy_parse_i64(argv[3], 0, HY_ACTIONS - 1, &a))
		return freq(argv[2], (int)a);
	if (argc != 5 || hy_parse_i64(argv[3], 0, HY_ACTIONS - 1, &a) ||
		hy_parse_double(argv[4], &delta)) {
		fprintf(stderr, "usage: ppo_plant IN.h5 OUT.h5 ACTION(0-45) DELTA | ppo_plant freq "
			"SAMPLES ACTION\n");
		return 2;
	}
	hy_diag d;
	hy_diag_init(&d, argv[1]);
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_ckpt_reader *ck = NULL;
	hy_nn_model m;
	int have_m = 0, ov = 0;
	if (hy_nn_ckpt_open(argv[1], &ck, &d) ||
		hy_nn_ckpt_want(ck, HY_NN_KIND_POLICY, "ppo_plant", &d) ||
		hy_nn_ckpt_obs_of(ck, &ov, &d) ||
		hy_nn_model_init(&m, hy_nn_ckpt_arch_of(ck), hy_nn_backend_cpu(), &ctx, &d) ||
		!(have_m = 1) || hy_nn_ckpt_load_from(ck, &m, NULL, 1, &d)) {
		fprintf(stderr, "ppo_plant: %s\n", d.msg);
		hy_nn_ckpt_close(ck);
		if (have_m)
			hy_nn_model_free(&m);
		return 1;
	}
	hy_nn_ckpt_close(ck);
	int t = hy_nn_params_find(&m.table, "policy/fc/bias");
	if (t < 0) {
		fprintf(stderr, "ppo_plant: %s: no policy/fc/bias\n", argv[1]);
		hy_nn_model_free(&m);
		return 1;
	}
	float *b = m.w + m.table.t[t].offset; /* the CPU backend's arrays are host memory */
	printf("ppo_plant: action %d: bias %.4f -> %.4f\n", (int)a, (double)b[a],
		(double)b[a] + delta);
	b[a] += (float)delta;
	int32_t obs = ov;
	hy_nn_ckpt_attr attr = {"obs_version", HY_NN_ATTR_I32, &obs};
	hy_nn_ckpt_meta meta = {.extra = &attr, .nextra = ov ? 1 : 0};
	hy_nn_optim_defaults(&meta.opt, 1);
	hy_diag_init(&d, argv[2]);
	hy_status st = hy_nn_ckpt_save(argv[2], &m, &meta, &d);
	hy_nn_model_free(&m);
	if (st) {
		fprintf(stderr, "ppo_plant: %s\n", d.msg);
		return 1;
	}
	return 0;
}
