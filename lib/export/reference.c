/* The reference outputs an exported graph must reproduce: the forward pass on
 * samples as JSON lines (reference.h). */
#include "export/reference.h"

#include <stdlib.h>

#include "nn/math.h"

enum { REF_BATCH = 256 };

static void put_list(FILE *f, const char *key, const float *x, size_t n, size_t stride)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.9g", i ? "," : "", (double)x[i * stride]);
	fputc(']', f);
}

/* One sample's line: host copies of the outputs of batch row b. */
static void put_line(FILE *f, const hy_sample *s, int b, const float *plog, const float *vout,
	const float *gout, const float *tout, const float *dan)
{
	fputs("{\"obs\":[", f);
	for (int i = 0; i < HY_OBS_SIZE; i++)
		fprintf(f, "%s%.9g", i ? "," : "", (double)hy_nn_half_to_float(s->obs[i]));
	fputs("],\"legal\":[", f);
	for (int a = 0; a < HY_ACTIONS; a++)
		fprintf(f, "%s%d", a ? "," : "", (int)(s->mask >> a & 1));
	fputs("],\"policy_logits\":[", f);
	for (int a = 0; a < HY_ACTIONS; a++) {
		if (a)
			fputc(',', f);
		if (s->mask >> a & 1)
			fprintf(f, "%.9g", (double)plog[(size_t)b * HY_ACTIONS + a]);
		else
			fputs("null", f);
	}
	fprintf(f, "],\"value\":%.9g", (double)vout[b]);
	put_list(f, "grp_logits", gout + (size_t)b * HY_GRP_CLASSES, HY_GRP_CLASSES, 1);
	put_list(f, "tenpai_logits", tout + (size_t)b * HY_NN_OPP, HY_NN_OPP, 1);
	/* the workspace's danger logits are [B][36][3] (pad rows at 0 and 35) */
	fputs(",\"danger_logits\":[", f);
	for (int o = 0; o < HY_NN_OPP; o++)
		for (int t = 0; t < HY_NN_T; t++)
			fprintf(f, "%s%.9g", o || t ? "," : "",
				(double)dan[((size_t)b * HY_NN_TP + 1 + t) * HY_NN_OPP + o]);
	fputs("]}\n", f);
}

hy_status hy_export_reference(const hy_nn_model *m, const hy_sample *s, size_t n, FILE *f,
	hy_diag *d)
{
	const hy_nn_backend *be = m->be;
	const int cap = n < REF_BATCH ? (n ? (int)n : 1) : REF_BATCH;
	hy_nn_work w;
	hy_status st = hy_nn_work_init_infer(&w, m, cap, d);
	if (st)
		return st;
	const size_t B = (size_t)cap, F = sizeof(float);
	float *plog = malloc(B * HY_ACTIONS * F), *vout = malloc(B * F);
	float *gout = malloc(B * HY_GRP_CLASSES * F), *tout = malloc(B * HY_NN_OPP * F);
	float *dan = malloc(B * HY_NN_TP * HY_NN_OPP * F);
	if (!plog || !vout || !gout || !tout || !dan)
		st = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	for (size_t i = 0; st == HY_OK && i < n; i += (size_t)cap) {
		int k = n - i < B ? (int)(n - i) : cap;
		st = hy_nn_work_load(&w, m, s + i, k, d);
		if (st) {
			d->line += (uint32_t)i; /* the sample's number in s, not in the batch */
			break;
		}
		hy_nn_forward(m, &w);
		if (be->sync && (st = be->sync(m->ctx, d)) != HY_OK)
			break;
		be->to_host(plog, w.plog, (size_t)k * HY_ACTIONS * F);
		be->to_host(vout, w.vout, (size_t)k * F);
		be->to_host(gout, w.gout, (size_t)k * HY_GRP_CLASSES * F);
		be->to_host(tout, w.tout, (size_t)k * HY_NN_OPP * F);
		be->to_host(dan, w.dan, (size_t)k * HY_NN_TP * HY_NN_OPP * F);
		for (int b = 0; b < k; b++)
			put_line(f, &s[i + (size_t)b], b, plog, vout, gout, tout, dan);
		if (ferror(f))
			st = hy_diag_set(d, HY_EIO, 0, "write error");
	}
	free(plog);
	free(vout);
	free(gout);
	free(tout);
	free(dan);
	hy_nn_work_free(&w, m);
	return st;
}
