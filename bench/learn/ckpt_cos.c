/* The direction of PPO's updates (issue 42, step 1): for a start BASE and
 * models A, B trained from it, the cosine between the updates A − BASE and
 * B − BASE, over all parameters and per part of the network (the trunk,
 * the policy head, the value head, the auxiliary heads), with the updates'
 * norms. Two updates from independent rollouts of the same policy that
 * point the same way (cosine near 1) carry a signal; near 0, the rollouts'
 * noise. With four models the updates are A − A2 and B − B2: a model
 * trained on a rollout and its twin trained on the same rollout with every
 * advantage's sign flipped (ppo_flip) differ by twice the policy
 * gradient's part of the update, the rest (value and auxiliary losses,
 * weight decay) cancelling, so the cosine is that of the policy-gradient
 * updates alone.
 *   ckpt_cos BASE A B
 *   ckpt_cos A A2 B B2 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nn/checkpoint.h"
#include "nn/model.h"

enum { NPART = 5 };
static const char *const part_name[NPART] = {"trunk", "policy", "value", "aux", "all"};

/* The part of the network a parameter belongs to. */
static int part_of(const char *name)
{
	if (!strncmp(name, "policy", 6))
		return 1;
	if (!strncmp(name, "value", 5))
		return 2;
	if (!strncmp(name, "grp", 3) || !strncmp(name, "tenpai", 6) || !strncmp(name, "danger", 6))
		return 3;
	return 0;
}

static int load(const char *path, hy_nn_model *m, const hy_nn_ctx *ctx)
{
	hy_diag d;
	hy_diag_init(&d, path);
	hy_nn_arch a;
	if (hy_nn_ckpt_arch(path, &a, &d) || hy_nn_model_init(m, a, hy_nn_backend_cpu(), ctx, &d) ||
		hy_nn_ckpt_load(path, m, NULL, 1, &d)) {
		fprintf(stderr, "ckpt_cos: %s: %s\n", path, d.msg);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: ckpt_cos BASE A B | ckpt_cos A A2 B B2\n");
		return 2;
	}
	const int n = argc - 1;
	hy_nn_ctx ctx;
	hy_nn_ctx_init(&ctx, 1);
	hy_nn_model m[4];
	for (int i = 0; i < n; i++)
		if (load(argv[1 + i], &m[i], &ctx))
			return 1;
	for (int i = 1; i < n; i++)
		if (m[i].table.total != m[0].table.total) {
			fprintf(stderr, "ckpt_cos: the checkpoints differ in architecture\n");
			return 1;
		}
	/* the two updates: (a1 − a0) and (b1 − b0) */
	const float *a1 = n == 3 ? m[1].w : m[0].w, *a0 = n == 3 ? m[0].w : m[1].w;
	const float *b1 = m[2].w, *b0 = n == 3 ? m[0].w : m[3].w;
	double ab[NPART] = {0}, aa[NPART] = {0}, bb[NPART] = {0};
	for (int t = 0; t < m[0].table.count; t++) {
		const hy_nn_tensor *x = &m[0].table.t[t];
		int p = part_of(x->name);
		for (size_t i = x->offset; i < x->offset + x->size; i++) {
			double da = (double)a1[i] - a0[i], db = (double)b1[i] - b0[i];
			ab[p] += da * db, aa[p] += da * da, bb[p] += db * db;
			ab[4] += da * db, aa[4] += da * da, bb[4] += db * db;
		}
	}
	printf("part\tcosine\t|update A|\t|update B|\n");
	for (int p = 0; p < NPART; p++)
		printf("%s\t%.4f\t%.4g\t%.4g\n", part_name[p],
			aa[p] > 0 && bb[p] > 0 ? ab[p] / sqrt(aa[p] * bb[p]) : NAN, sqrt(aa[p]),
			sqrt(bb[p]));
	for (int i = 0; i < n; i++)
		hy_nn_model_free(&m[i]);
	return 0;
}
