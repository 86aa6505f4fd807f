/* Memory plan and convolution cache of the CUDA backend (see plan.h). */
#include "nn/cuda/plan.h"
#include "nn/cuda/map.h"

#include <stdio.h>
#include <string.h>

size_t hy_nn_cuda_round(size_t bytes)
{
	if (bytes == 0)
		bytes = 1;
	return (bytes + HY_NN_CUDA_ALIGN - 1) / HY_NN_CUDA_ALIGN * HY_NN_CUDA_ALIGN;
}

/* ------------------------------------------------------------ parameters */

typedef struct tally {
	size_t total, largest;
} tally;

/* hy_nn_params_add: offsets rounded up to 16 floats. */
static void add(tally *t, size_t size)
{
	t->total = (t->total + 15) / 16 * 16 + size;
	if (size > t->largest)
		t->largest = size;
}

/* The tensor sizes of build_table (model.c), in its order. */
size_t hy_nn_plan_param_floats(hy_nn_arch a, size_t *largest)
{
	const size_t C = (size_t)a.channels, r = C / 16;
	tally t = {0, 0};
	add(&t, C * 3 * HY_NN_IN);
	for (int i = 0; i < a.blocks; i++) {
		add(&t, C), add(&t, C), add(&t, C * 3 * C);
		add(&t, C), add(&t, C), add(&t, C * 3 * C);
		add(&t, r * C), add(&t, r), add(&t, C * r), add(&t, C);
	}
	add(&t, C), add(&t, C);
	add(&t, HY_NN_POL_CH * C), add(&t, HY_NN_POL_CH);
	add(&t, (size_t)HY_ACTIONS * HY_NN_T * HY_NN_POL_CH), add(&t, HY_ACTIONS);
	add(&t, HY_NN_VAL_HID * C), add(&t, HY_NN_VAL_HID);
	add(&t, HY_NN_VAL_HID), add(&t, 1);
	add(&t, HY_NN_GRP_HID * C), add(&t, HY_NN_GRP_HID);
	add(&t, (size_t)HY_GRP_CLASSES * HY_NN_GRP_HID), add(&t, HY_GRP_CLASSES);
	add(&t, HY_NN_TEN_HID * C), add(&t, HY_NN_TEN_HID);
	add(&t, HY_NN_OPP * HY_NN_TEN_HID), add(&t, HY_NN_OPP);
	add(&t, HY_NN_OPP * C), add(&t, HY_NN_OPP);
	if (largest)
		*largest = t.largest;
	return t.total;
}

/* ------------------------------------------------------------ workspace */

/* The allocations of hy_nn_work_init, or hy_nn_work_init_infer (model.c
 * work_alloc), one by one; activation storage (backend.h hy_nn_act) is
 * 2 bytes an element in bf16, 4 in fp32. */
size_t hy_nn_plan_work_bytes(hy_nn_arch a, int batch, int precision, int infer)
{
	const size_t B = (size_t)batch, C = (size_t)a.channels, N = (size_t)a.blocks, r = C / 16;
	const size_t AS = precision == HY_NN_PREC_BF16 ? 2 : 4;
	const size_t R = B * HY_NN_TP, F = sizeof(float), RC = R * C * AS, G = HY_NN_GROUPS;
	size_t n = 0;
#define A(bytes) (n += hy_nn_cuda_round(bytes))
	A(R * HY_NN_IN * AS);
	for (size_t i = 0; i <= N && (!infer || i < 2); i++)
		A(RC); /* inference: two trunk buffers that the blocks alternate */
	for (size_t i = 0; i < (infer && N ? 1 : N); i++) { /* inference: one set */
		for (int k = 0; k < 6; k++)
			A(RC); /* z1 a1 c1 z2 a2 y */
		A(4 * B * G * F);
		A(2 * B * C * F), A(2 * B * r * F), A(2 * B * C * F), A(B * C * F);
		A(B * C);
	}
	A(RC), A(RC);
	A(B * G * F), A(B * G * F);
	A(B * C * F);
	A(2 * B * G * F), A(2 * B * G * F); /* st, st2: path v3's sums */
	A(R * HY_NN_POL_CH * F), A(R * HY_NN_POL_CH * F);
	A(B * HY_ACTIONS * F);
	A(B * HY_NN_VAL_HID * F), A(B * F);
	A(B * HY_NN_GRP_HID * F), A(B * HY_GRP_CLASSES * F);
	A(B * HY_NN_TEN_HID * F), A(B * HY_NN_OPP * F);
	A(R * HY_NN_OPP * F);
	A(B * 8), A(B), A(B);
	A(B * F);
	A(B * HY_NN_OPP * F), A(B * HY_NN_OPP * F);
	A(R * HY_NN_OPP * F), A(R * HY_NN_OPP * F);
	A(B * HY_ACTIONS * F), A(B * F);
	A(B * HY_GRP_CLASSES * F), A(B * HY_NN_OPP * F);
	A(R * HY_NN_OPP * F);
	if (infer) /* no gradients but the heads' outputs' */
		return n;
	A(RC), A(RC), A(RC), A(RC);
	A(R * HY_NN_POL_CH * F), A(R * HY_NN_POL_CH * F);
	A(B * C * F);
	A(B * HY_NN_VAL_HID * F), A(B * HY_NN_GRP_HID * F);
	A(B * HY_NN_TEN_HID * F);
	A(2 * B * C * F), A(2 * B * r * F);
	A(2 * B * C * F);
	A(2 * B * C * F);
	A(2 * B * G * F); /* gs */
#undef A
	return n;
}

void hy_nn_plan_scratch(hy_nn_arch a, int batch, int precision, hy_nn_cuda_scratch *s)
{
	size_t largest;
	hy_nn_plan_param_floats(a, &largest);
	const size_t R = (size_t)batch * HY_NN_TP;
	size_t cm = (size_t)a.channels;
	if (cm < HY_NN_IN)
		cm = HY_NN_IN;
	if (cm < HY_NN_POL_CH)
		cm = HY_NN_POL_CH;
	const int bf16 = precision == HY_NN_PREC_BF16;
	memset(s, 0, sizeof *s);
	/* operands: a convolution's bf16 taps are at most R − 2 rows (v2's
	 * chunks, conv.cu conv_chunk: never more than all rows) of K padded to
	 * 16 bytes (map.h hy_nn_kpad: the stem's 3·85 = 255 becomes 256, so
	 * under 86 channels the taps are wider than 3·cm — issue 56's crash),
	 * the largest activation-shaped matrix (an fp32 head gradient rounded
	 * for a GEMM) R rows × cm; activations themselves are already bf16 (no
	 * copy, and cuDNN writes its bf16 outputs in place). The padded
	 * weights: [cout][kpad(3·cin)] forward, [kpad(3·cout)][cin] for the
	 * input gradient, the stem's included. */
	const size_t C = (size_t)a.channels, kp = (size_t)hy_nn_kpad(3 * (int)cm);
	size_t wn = largest;
	const size_t stem_f = (size_t)hy_nn_kpad(3 * HY_NN_IN) * C,
		     stem_b = (size_t)hy_nn_kpad(3 * (int)C) * HY_NN_IN,
		     trunk = (size_t)hy_nn_kpad(3 * (int)C) * C;
	wn = wn < stem_f ? stem_f : wn;
	wn = wn < stem_b ? stem_b : wn;
	wn = wn < trunk ? trunk : wn;
	s->act16[0] = s->act16[1] = bf16 ? hy_nn_cuda_round(R * kp * 2) : 0;
	s->w16[0] = s->w16[1] = bf16 ? hy_nn_cuda_round(wn * 2) : 0;
	s->wtmp = hy_nn_cuda_round(largest * sizeof(float));
	s->ones = hy_nn_cuda_round(R * sizeof(float));
	/* block partials, then per-row loss (double) and top-1 flags (int) */
	s->partials = hy_nn_cuda_round((HY_NN_CUDA_PARTIALS + 2 * HY_NN_CUDA_RESULTS) * sizeof(double) +
		(size_t)batch * (sizeof(double) + sizeof(int)));
	s->workspace = HY_NN_CUDA_WORKSPACE;
	s->total = s->act16[0] + s->act16[1] + s->w16[0] + s->w16[1] + s->wtmp +
		s->ones + s->partials + s->workspace;
}

void hy_nn_plan_mem(hy_nn_arch a, int batch, int precision, int infer, hy_nn_mem_plan *p)
{
	hy_nn_cuda_scratch s;
	hy_nn_plan_scratch(a, batch, precision, &s);
	p->params = 4 * hy_nn_cuda_round(hy_nn_plan_param_floats(a, NULL) * sizeof(float));
	p->work = hy_nn_plan_work_bytes(a, batch, precision, infer);
	p->scratch = s.total;
	p->total = p->params + p->work + p->scratch;
}

/* The plan grows with the batch, so the largest batch is found by
 * bisection. */
int hy_nn_plan_max_batch(hy_nn_arch a, int precision, int infer, size_t avail)
{
	if (avail <= HY_NN_CUDA_MARGIN)
		return 0;
	size_t room = avail - HY_NN_CUDA_MARGIN;
	hy_nn_mem_plan p;
	int lo = 0, hi = 1 << 20;
	hy_nn_plan_mem(a, hi, precision, infer, &p);
	if (p.total <= room)
		return hi;
	while (hi - lo > 1) { /* plan(lo) fits (or lo = 0), plan(hi) does not */
		int mid = lo + (hi - lo) / 2;
		hy_nn_plan_mem(a, mid, precision, infer, &p);
		if (p.total <= room)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static double gib(size_t b)
{
	return (double)b / (1024.0 * 1024.0 * 1024.0);
}

hy_status hy_nn_plan_check(hy_nn_arch a, int batch, int precision, int infer, size_t mem_free,
	const char *gpu, hy_diag *d)
{
	hy_nn_mem_plan p;
	hy_nn_plan_mem(a, batch, precision, infer, &p);
	if (p.total + HY_NN_CUDA_MARGIN <= mem_free)
		return HY_OK;
	int mb = hy_nn_plan_max_batch(a, precision, infer, mem_free);
	char fit[64];
	if (mb > 0)
		snprintf(fit, sizeof fit, "the largest batch that fits is %d", mb);
	else
		snprintf(fit, sizeof fit, "not even a batch of 1 fits");
	return hy_diag_set(d, HY_EUSAGE, 0, "batch %d of a %dx%d network needs %.2f GiB of GPU "
		"memory (parameters and moments %.2f, activations %.2f, scratch %.2f, reserve %.2f); "
		"%s has %.2f GiB free: %s", batch, a.blocks, a.channels,
		gib(p.total + HY_NN_CUDA_MARGIN), gib(p.params), gib(p.work), gib(p.scratch),
		gib(HY_NN_CUDA_MARGIN), gpu, gib(mem_free), fit);
}

/* ------------------------------------------------------------ conv cache */

uint64_t hy_nn_conv_key(int dir, int precision, int batch, int cin, int cout)
{
	if (dir < 0 || dir > 2 || precision < 0 || precision > 1 || batch < 1 ||
		batch >= 1 << 21 || cin < 1 || cin >= 1 << 13 || cout < 1 || cout >= 1 << 13)
		return 0;
	return (uint64_t)dir | (uint64_t)precision << 2 | (uint64_t)batch << 3 |
		(uint64_t)cin << 24 | (uint64_t)cout << 37;
}

int hy_nn_conv_bucket(int B)
{
	int b = 1;
	while (b < B && b < 1 << 20)
		b <<= 1;
	return b;
}

const hy_nn_conv_choice *hy_nn_conv_cache_find(hy_nn_conv_cache *c, uint64_t key)
{
	for (int i = 0; key && i < c->n; i++)
		if (c->e[i].key == key) {
			c->e[i].used = ++c->clock;
			return &c->e[i];
		}
	return NULL;
}

int hy_nn_conv_cache_put(hy_nn_conv_cache *c, const hy_nn_conv_choice *e)
{
	if (!e->key)
		return -1;
	int slot = -1;
	for (int i = 0; i < c->n && slot < 0; i++)
		if (c->e[i].key == e->key)
			slot = i;
	if (slot < 0 && c->n < HY_NN_CONV_CACHE)
		slot = c->n++;
	if (slot < 0) { /* full: the least recently used gives way */
		slot = 0;
		for (int i = 1; i < c->n; i++)
			if (c->e[i].used < c->e[slot].used)
				slot = i;
	}
	c->e[slot] = *e;
	c->e[slot].used = ++c->clock;
	return 0;
}

size_t hy_nn_conv_cache_format(const hy_nn_conv_cache *c, char *buf, size_t n)
{
	static const char *dirs[] = {"fwd", "bwd-data", "bwd-filter"};
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (int i = 0; i < c->n; i++) {
		const hy_nn_conv_choice *e = &c->e[i];
		uint64_t k = e->key;
		int dir = (int)(k & 3), prec = (int)(k >> 2 & 1), B = (int)(k >> 3 & 0x1fffff);
		int cin = (int)(k >> 24 & 0x1fff), cout = (int)(k >> 37 & 0x1fff);
		char gemm[32] = "not timed", cud[48] = "not timed";
		if (e->ms_gemm >= 0)
			snprintf(gemm, sizeof gemm, "%.3f ms", e->ms_gemm);
		if (e->ms_cudnn >= 0)
			snprintf(cud, sizeof cud, "algo %d %.3f ms", e->algo, e->ms_cudnn);
		int w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0,
			"conv %s B=%d %d->%d %s: gemm %s, cudnn %s: %s\n", dirs[dir], B, cin, cout,
			prec ? "bf16" : "fp32", gemm, cud,
			e->impl == HY_NN_CONV_CUDNN ? "cudnn" : "gemm");
		if (w > 0)
			len += (size_t)w;
	}
	return len;
}

/* ------------------------------------------------------------ linear plans */

static int same_shape(const hy_nn_lt_shape *a, const hy_nn_lt_shape *b)
{
	return a->precision == b->precision && a->rows == b->rows && a->in == b->in &&
		a->out == b->out && a->ldx == b->ldx && a->ldy == b->ldy && a->bias == b->bias;
}

int hy_nn_lt_slot(hy_nn_lt_index *c, const hy_nn_lt_shape *s, int *fresh)
{
	*fresh = 0;
	if (s->rows < 1 || s->in < 1 || s->out < 1 || s->ldx < s->in || s->ldy < s->out ||
		(s->precision != 0 && s->precision != 1) || (s->bias != 0 && s->bias != 1))
		return -1;
	for (int i = 0; i < c->n; i++)
		if (same_shape(&c->s[i], s))
			return i;
	if (c->n == HY_NN_LT_CACHE)
		return -1;
	c->s[c->n] = *s;
	*fresh = 1;
	return c->n++;
}

/* ------------------------------------------------------------ graphs */

static int same_key(const hy_nn_graph_key *a, const hy_nn_graph_key *b)
{
	return a->model == b->model && a->work == b->work && a->batch == b->batch;
}

int hy_nn_graph_find(hy_nn_graph_index *g, const hy_nn_graph_key *key)
{
	for (int i = 0; i < g->n; i++)
		if (same_key(&g->e[i].key, key)) {
			g->e[i].used = ++g->clock;
			return i;
		}
	return -1;
}

int hy_nn_graph_add(hy_nn_graph_index *g, const hy_nn_graph_key *key, int *had_evicted,
	hy_nn_graph_key *evicted)
{
	int i = g->n;
	*had_evicted = 0;
	if (i < HY_NN_GRAPH_CACHE) {
		g->n++;
	} else {
		i = 0;
		for (int j = 1; j < g->n; j++)
			if (g->e[j].used < g->e[i].used)
				i = j;
		*had_evicted = 1;
		*evicted = g->e[i].key;
	}
	g->e[i].key = *key;
	g->e[i].state = HY_NN_GRAPH_SEEN;
	g->e[i].used = ++g->clock;
	return i;
}

int hy_nn_graph_action(const hy_nn_graph_index *g, int slot)
{
	if (slot < 0 || slot >= g->n)
		return HY_NN_GRAPH_EAGER;
	switch (g->e[slot].state) {
	case HY_NN_GRAPH_SEEN:
		return HY_NN_GRAPH_CAPTURING;
	case HY_NN_GRAPH_READY:
		return HY_NN_GRAPH_REPLAYED;
	default:
		return HY_NN_GRAPH_EAGER;
	}
}
