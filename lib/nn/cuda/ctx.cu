/* The CUDA backend (cuda.h), laid out by concern as llm.c lays out its
 * kernels: this file holds the context (probe, init, the memory plan's
 * arena, report), memory and copies, streams, events and timers, and the
 * op table; gemm.cu the GEMMs, linear layers and 1×1 convolutions (cuBLAS;
 * cuBLASLt plans in lt.cu); conv.cu the 3-tap convolutions (GEMM form or
 * cuDNN) and their choice per shape; kernels.cu the small kernels, whose
 * launchers the table holds directly (each binds the context's device and
 * checks the context's first failure, cu_enter).
 *
 * Streams and memory. Every op queues its work on the context's stream
 * (a blocking stream, so the legacy default stream used by the copies and
 * allocations of the table — which get no context — is ordered with it:
 * a to_host after an op sees the op's result). Device memory comes from
 * the device's stream-ordered pool, which ctx_init reserves to the planned
 * size of the model and its workspace (plan.h) and keeps (release
 * threshold ∞): the arena; the backend's scratch is one allocation carved
 * as plan.h says. Peak use is read from the pool.
 *
 * Precision (backend.h). BF16: activations and their gradients are stored
 * in bf16 (hy_nn_act), so a convolution reads them as they are (its taps
 * are one copy, k_taps_bf16) and writes its bf16 output directly (cuBLAS
 * with a bf16 C, or cuDNN), fp32 accumulation throughout; weights and the
 * fp32 head tensors are rounded to bf16 into scratch (k_to_bf16) where
 * they are GEMM operands; weight gradients accumulate in fp32. FP32: fp32
 * storage and operands, fp32 compute, no TF32.
 *
 * Determinism. cuBLAS is run-to-run deterministic on one GPU with a fixed
 * workspace (no atomics mode); cuDNN algorithms are restricted to the
 * deterministic ones; every reduction kernel has a fixed order. The
 * convolution implementation of a shape is timed at its first use (both
 * candidates, reported by hy_nn_cuda_report), but a choice by timing could
 * differ between two runs, so by default the GEMM form is used and the
 * timed winner only with --fast (cfg.fast). */
#include "nn/cuda/internal.h"

extern "C" {
#include "nn/math.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cu_fail(cu_ctx *x, hy_status st, const char *call, const char *why, const char *file,
	int line)
{
	/* while a graph is being captured, a refusal invalidates the capture,
	 * not the context (issue 56, finding 6): graph.cu's end drops the
	 * capture and the caller queues the ops again, eagerly, where a real
	 * failure then becomes the context's */
	if (x && x->gslot >= 0) {
		if (!x->cap_err)
			snprintf(x->cap_msg, sizeof x->cap_msg, "%s: %s (%s:%d)", call, why, file, line);
		x->cap_err = st;
		return 1;
	}
	if (x && !x->err) {
		x->err = st;
		snprintf(x->msg, sizeof x->msg, "%s: %s (%s:%d)", call, why, file, line);
	}
	return 1;
}

/* ------------------------------------------------------------ memory */

/* Zeroed device memory from the pool (the arena that the context's plan
 * reserves and whose high-water mark is the peak reported), on the thread's
 * current device, in the legacy default stream; NULL on failure (the model
 * reports it as out of memory). Pool memory cannot be mapped by CUDA IPC,
 * so no device pointer is handed to MPI (mpi/grad.c stages through
 * page-locked host memory: finding 7). */
static void *cu_alloc(size_t bytes)
{
	void *p = NULL;
	size_t n = hy_nn_cuda_round(bytes);
	if (cudaMallocAsync(&p, n, cudaStreamLegacy) != cudaSuccess) {
		(void)cudaGetLastError(); /* reported as NULL */
		return NULL;
	}
	if (cudaMemsetAsync(p, 0, n, cudaStreamLegacy) != cudaSuccess ||
		cudaStreamSynchronize(cudaStreamLegacy) != cudaSuccess) {
		(void)cudaGetLastError();
		(void)cudaFreeAsync(p, cudaStreamLegacy);
		return NULL;
	}
	return p;
}

/* The memory entries take no context: they bind the device that holds the
 * pointer (alloc: the thread's current device, which every entry point
 * with a context sets, cu_enter). */
static void bind_ptr(const void *p)
{
	cudaPointerAttributes a;
	int cur = -1;
	if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice &&
		(cudaGetDevice(&cur) != cudaSuccess || cur != a.device))
		(void)cudaSetDevice(a.device);
	(void)cudaGetLastError(); /* a host pointer is not an error here */
}

/* The table's copies have no context to keep a failure in: it stays in
 * the runtime's last error, which be->sync reports. */
static void cu_free(void *p)
{
	if (p) {
		bind_ptr(p);
		(void)cudaFreeAsync(p, cudaStreamLegacy);
	}
}

static void cu_to_dev(void *dst, const void *src, size_t bytes)
{
	if (bytes) {
		bind_ptr(dst);
		(void)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
	}
}

static void cu_to_host(void *dst, const void *src, size_t bytes)
{
	if (bytes) {
		bind_ptr(src);
		(void)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
	}
}

static void cu_zero(void *p, size_t bytes)
{
	if (bytes) {
		bind_ptr(p);
		(void)cudaMemset(p, 0, bytes);
	}
}

/* Ops on more rows than the context was made for would overrun its
 * scratch (bf16 operands, the ones vector, per-row losses). */
int too_big(cu_ctx *x, long rows, long cap, const char *op)
{
	if (rows <= cap)
		return 0;
	return cu_fail(x, HY_EUSAGE, op, "more rows than the batch the context was made for",
		__FILE__, __LINE__);
}

/* ------------------------------------------------------------ the rest */

















/* FNV-1a over the table's offsets, sizes and decay flags: what the device
 * copy depends on (not the host table's address, which a new model can
 * reuse with other shapes: finding 11). */
static uint64_t spans_hash(const hy_nn_tensor *t, int count)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < count; i++) {
		uint64_t v[3] = {(uint64_t)t[i].offset, (uint64_t)t[i].size, (uint64_t)t[i].decay};
		const unsigned char *b = (const unsigned char *)v;
		for (size_t k = 0; k < sizeof v; k++)
			h = (h ^ b[k]) * 1099511628211ull;
	}
	return h;
}

/* The tensor table goes to the device when it differs from the copy there
 * (by content: spans_hash and count). */
void cu_adamw_tensors(const hy_nn_ctx *c, const hy_nn_tensor *t, int count, float *p,
	const float *g, float *m, float *v, float lr, float b1, float b2, float eps, float wd,
	float bc1, float sqrt_bc2)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || count < 1)
		return;
	const uint64_t hash = spans_hash(t, count);
	if (!x->spans || x->spans_hash != hash || x->nspans != count) {
		cu_span *h = (cu_span *)calloc((size_t)count, sizeof *h);
		if (!h) {
			cu_fail(x, HY_ENOMEM, "adamw_tensors", "out of host memory", __FILE__, __LINE__);
			return;
		}
		for (int i = 0; i < count; i++)
			h[i] = cu_span{t[i].offset, t[i].size, t[i].decay, 0};
		if (x->spans)
			CU_RT(x, cudaFree(x->spans));
		x->spans = NULL;
		if (!CU_RT(x, cudaMalloc(&x->spans, (size_t)count * sizeof *h)) &&
			!CU_RT(x, cudaMemcpy(x->spans, h, (size_t)count * sizeof *h,
				   cudaMemcpyHostToDevice))) {
			x->spans_hash = hash;
			x->nspans = count;
		}
		free(h);
		if (x->err)
			return;
	}
	size_t end = t[count - 1].offset + t[count - 1].size;
	k_adamw_spans(x, (const cu_span *)x->spans, count, end, p, g, m, v, lr, b1, b2, eps, wd,
		bc1, sqrt_bc2);
}

/* Ordered as dev_copy is (obs may be the feed's staging buffer): after the
 * last upload (ev_up), recorded as its last reader (ev_use). */
void cu_expand_obs(const hy_nn_ctx *c, int B, const uint16_t *obs, hy_nn_act *xin)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || B < 1 || CU_RT(x, cudaStreamWaitEvent(x->s, x->ev_up, 0)))
		return;
	k_expand_obs(x, B, obs, xin);
	CU_RT(x, cudaEventRecord(x->ev_use, x->s));
}

/* ------------------------------------------------------------ activation storage */

static size_t cu_act_size(const hy_nn_ctx *c)
{
	return cu_of(c)->precision == HY_NN_PREC_BF16 ? 2 : 4;
}

/* bf16: rounded on the host by the shared hy_nn_bf16_round (so a value
 * stored here is bit for bit the one k_act_from_f32 stores), then copied;
 * synchronous like to_dev, after the queued ops (the blocking stream). */
static void cu_act_put(const hy_nn_ctx *c, size_t n, const float *host, hy_nn_act *dst)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !n)
		return;
	if (x->precision != HY_NN_PREC_BF16) {
		CU_RT(x, cudaMemcpy(dst, host, n * sizeof *host, cudaMemcpyHostToDevice));
		return;
	}
	uint16_t *h = (uint16_t *)malloc(n * sizeof *h);
	if (!h) {
		cu_fail(x, HY_ENOMEM, "act_put", "out of host memory", __FILE__, __LINE__);
		return;
	}
	for (size_t i = 0; i < n; i++)
		h[i] = hy_nn_bf16_round(host[i]);
	CU_RT(x, cudaMemcpy(dst, h, n * sizeof *h, cudaMemcpyHostToDevice));
	free(h);
}

static void cu_act_get(const hy_nn_ctx *c, size_t n, const hy_nn_act *src, float *host)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !n)
		return;
	if (x->precision != HY_NN_PREC_BF16) {
		CU_RT(x, cudaMemcpy(host, src, n * sizeof *host, cudaMemcpyDeviceToHost));
		return;
	}
	uint16_t *h = (uint16_t *)malloc(n * sizeof *h);
	if (!h) {
		cu_fail(x, HY_ENOMEM, "act_get", "out of host memory", __FILE__, __LINE__);
		return;
	}
	if (!CU_RT(x, cudaMemcpy(h, src, n * sizeof *h, cudaMemcpyDeviceToHost)))
		for (size_t i = 0; i < n; i++)
			host[i] = hy_nn_bf16_to_float(h[i]);
	free(h);
}

/* Queued on the ops' stream as dev_copy is: after the last upload (ev_up:
 * src is the feed's staging buffer), and recorded as its last reader
 * (ev_use). */
void cu_act_from_f32(const hy_nn_ctx *c, size_t n, const float *src, hy_nn_act *dst)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !n)
		return;
	if (CU_RT(x, cudaStreamWaitEvent(x->s, x->ev_up, 0)))
		return;
	k_act_from_f32(x, n, src, dst);
	CU_RT(x, cudaEventRecord(x->ev_use, x->s));
}

/* ------------------------------------------------------------ the feed's copies */

/* Page-locked host memory (backend.h host_alloc): portable, so any
 * context's stream may copy from it. NULL on failure (the feed reports it). */
static void *cu_host_alloc(size_t bytes)
{
	void *p = NULL;
	if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
		(void)cudaGetLastError(); /* reported as NULL */
		return NULL;
	}
	memset(p, 0, bytes);
	return p;
}

static void cu_host_free(void *p)
{
	if (p)
		(void)cudaFreeHost(p);
}

/* On the copy stream, after the last dev_copy (ev_use): the staging
 * buffer dst is free once that copy has read it. */
static void cu_to_dev_async(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !bytes)
		return;
	(void)(CU_RT(x, cudaStreamWaitEvent(x->cs, x->ev_use, 0)) ||
		CU_RT(x, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, x->cs)) ||
		CU_RT(x, cudaEventRecord(x->ev_up, x->cs)));
}

/* On the ops' stream, after the last upload (ev_up). */
void cu_dev_copy(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !bytes)
		return;
	(void)(CU_RT(x, cudaStreamWaitEvent(x->s, x->ev_up, 0)) ||
		CU_RT(x, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, x->s)) ||
		CU_RT(x, cudaEventRecord(x->ev_use, x->s)));
}

/* The copy stream's fences (0 on success, as CU_RT). */
static int copy_fences_init(cu_ctx *x)
{
	for (int k = 0; k < HY_NN_COPY_FENCES; k++)
		if (CU_RT(x, cudaEventCreateWithFlags(&x->ev_copy[k], cudaEventDisableTiming)))
			return 1;
	return 0;
}

/* On the copy stream, after the ops queued so far (ev_ops). */
static void cu_to_host_async(const hy_nn_ctx *c, void *dst, const void *src, size_t bytes)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !bytes)
		return;
	(void)(CU_RT(x, cudaEventRecord(x->ev_ops, x->s)) ||
		CU_RT(x, cudaStreamWaitEvent(x->cs, x->ev_ops, 0)) ||
		CU_RT(x, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, x->cs)));
}

/* Fence k on the copy stream, after the copies queued so far. */
static void cu_copy_mark(const hy_nn_ctx *c, int k)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || k < 0 || k >= HY_NN_COPY_FENCES)
		return;
	CU_RT(x, cudaEventRecord(x->ev_copy[k], x->cs));
}

/* Has fence k passed? (cudaEventQuery: a failure is kept, and counts as
 * passed so that no caller waits on it forever.) */
static int cu_copy_done(const hy_nn_ctx *c, int k)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || k < 0 || k >= HY_NN_COPY_FENCES)
		return 1;
	cudaError_t e = cudaEventQuery(x->ev_copy[k]);
	if (e == cudaErrorNotReady)
		return 0;
	(void)CU_RT(x, e);
	return 1;
}

/* The host waits for fence k (at once when it was never recorded). */
static void cu_copy_wait(const hy_nn_ctx *c, int k)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || k < 0 || k >= HY_NN_COPY_FENCES)
		return;
	CU_RT(x, cudaEventSynchronize(x->ev_copy[k]));
}

static hy_status cu_sync(const hy_nn_ctx *c, hy_diag *d)
{
	cu_ctx *x = cu_enter(c);
	if (!x->err) /* the ops, and the feed's copies (to_dev_async) */
		(void)(CU_RT(x, cudaStreamSynchronize(x->s)) || CU_RT(x, cudaStreamSynchronize(x->cs)));
	if (!x->err) { /* a failed copy or allocation of the table (no context) */
		cudaError_t e = cudaGetLastError();
		if (e != cudaSuccess)
			cu_fail(x, HY_EIO, "a copy or allocation", cudaGetErrorString(e), __FILE__,
				__LINE__);
	}
	/* the losses queued since the last sync (NAN after a failure) */
	k_losses_deliver(x, !x->err);
	if (x->err)
		return hy_diag_set(d, x->err, 0, "CUDA: %s", x->msg);
	return HY_OK;
}

/* Profiling timers: HY_NN_MARKS events made on the first mark, recorded on
 * the op stream (so they time the queue as it runs, without waiting). */
static void cu_mark(const hy_nn_ctx *c, int slot)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || slot < 0 || slot >= HY_NN_MARKS)
		return;
	if (!x->marks) {
		x->marks = (cudaEvent_t *)calloc(HY_NN_MARKS, sizeof *x->marks);
		if (!x->marks) {
			cu_fail(x, HY_ENOMEM, "calloc(marks)", "out of memory", __FILE__, __LINE__);
			return;
		}
		for (int i = 0; i < HY_NN_MARKS; i++)
			if (CU_RT(x, cudaEventCreate(&x->marks[i])))
				return;
	}
	(void)CU_RT(x, cudaEventRecord(x->marks[slot], x->s));
}

static double cu_mark_ms(const hy_nn_ctx *c, int a, int b)
{
	cu_ctx *x = cu_enter(c);
	float ms = -1;
	if (x->err || !x->marks || a < 0 || b < 0 || a >= HY_NN_MARKS || b >= HY_NN_MARKS)
		return -1;
	if (CU_RT(x, cudaEventSynchronize(x->marks[b])) ||
		CU_RT(x, cudaEventElapsedTime(&ms, x->marks[a], x->marks[b])))
		return -1;
	return ms;
}

static const cu_path_ops path_v1 = {
	.gn_mish_fwd = k1_gn_mish_fwd,
	.gn_mish_bwd = k1_gn_mish_bwd,
	.se_fwd = k1_se_fwd,
	.conv_bf16 = cu_conv_bf16_v1,
};
static const cu_path_ops path_v2 = {
	.gn_mish_fwd = k2_gn_mish_fwd,
	.gn_mish_bwd = k2_gn_mish_bwd,
	.se_fwd = k2_se_fwd,
	.conv_bf16 = cu_conv_bf16_v2,
};

void cu_path_set(cu_ctx *x, int path)
{
	/* v2's and v3's kernels are bf16 kernels; v3 runs v2's outside its
	 * fused block ops (v3/ops.cu) */
	x->path = x->precision == HY_NN_PREC_BF16 &&
			  (path == HY_NN_CUDA_PATH_V2 || path == HY_NN_CUDA_PATH_V3)
		? path
		: HY_NN_CUDA_PATH_V1;
	x->ops = x->path == HY_NN_CUDA_PATH_V1 ? &path_v1 : &path_v2;
}

static const hy_nn_backend cuda_backend = {
	.name = "cuda",
	.alloc = cu_alloc,
	.free = cu_free,
	.to_dev = cu_to_dev,
	.to_host = cu_to_host,
	.zero = cu_zero,
/* every row of nn/ops.h, as cu_NAME (internal.h) */
#define CU_ENTRY(kind, ret, name, params, args, check) .name = cu_##name,
	HY_NN_OPS(CU_ENTRY)
#undef CU_ENTRY
	.act_size = cu_act_size,
	.act_put = cu_act_put,
	.act_get = cu_act_get,
	.host_alloc = cu_host_alloc,
	.host_free = cu_host_free,
	.to_dev_async = cu_to_dev_async,
	.to_host_async = cu_to_host_async,
	.copy_mark = cu_copy_mark,
	.copy_wait = cu_copy_wait,
	.copy_done = cu_copy_done,
	.sync = cu_sync,
	.mark = cu_mark,
	.mark_ms = cu_mark_ms,
	.graph_begin = cu_graph_begin,
	.graph_end = cu_graph_end,
	.graph_reset = cu_graph_reset,
};

const hy_nn_backend *hy_nn_backend_cuda(void)
{
	return &cuda_backend;
}

int hy_nn_cuda_built(void)
{
	return 1;
}

int hy_nn_cuda_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return n;
}

/* ------------------------------------------------------------ context */

hy_status hy_nn_cuda_probe(int device, hy_nn_cuda_info *info, hy_diag *d)
{
	hy_nn_cuda_info tmp;
	if (!info)
		info = &tmp;
	memset(info, 0, sizeof *info);
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		int rt = 0;
		(void)cudaRuntimeGetVersion(&rt);
		if (e == cudaErrorInsufficientDriver)
			return hy_diag_set(d, HY_EUNSUP, 0, "no NVIDIA driver, or one "
				"older than this build's CUDA %d.%d", rt / 1000, rt % 1000 / 10);
		if (e == cudaErrorNoDevice)
			return hy_diag_set(d, HY_EUNSUP, 0, "no CUDA device found");
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA runtime: %s", cudaGetErrorString(e));
	}
	info->count = n;
	if (device < 0 || device >= n)
		return hy_diag_set(d, HY_EUNSUP, 0, "no CUDA device %d (%d present)", device, n);
	cudaDeviceProp p;
	if ((e = cudaGetDeviceProperties(&p, device)) != cudaSuccess ||
		(e = cudaSetDevice(device)) != cudaSuccess ||
		(e = cudaMemGetInfo(&info->mem_free, &info->mem_total)) != cudaSuccess) {
		(void)cudaGetLastError();
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA device %d is not usable: %s", device,
			cudaGetErrorString(e));
	}
	snprintf(info->name, sizeof info->name, "%.127s", p.name);
	info->major = p.major;
	info->minor = p.minor;
	if (p.major < 8)
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA device %d (%s) has compute capability "
			"%d.%d; this build needs 8.0 or newer", device, p.name, p.major, p.minor);
	int pools = 0;
	if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess)
		(void)cudaGetLastError();
	if (!pools) /* the arena is the device's stream-ordered pool */
		return hy_diag_set(d, HY_EUNSUP, 0, "CUDA device %d (%s) has no stream-ordered "
			"memory pool (cudaMallocAsync), which this backend allocates from", device,
			p.name);
	return HY_OK;
}

static void ctx_release(cu_ctx *x)
{
	/* teardown: failures are of no use to anyone any more */
	if (x->s)
		(void)cudaStreamSynchronize(x->s);
	if (x->cs)
		(void)cudaStreamSynchronize(x->cs);
	for (int i = 0; i < HY_NN_GRAPH_CACHE; i++)
		if (x->gexec[i])
			(void)cudaGraphExecDestroy(x->gexec[i]);
	lt_free(x);
	cu_v3_free(x);
	if (x->cd)
		(void)cudnnDestroyConvolutionDescriptor(x->cd);
	if (x->wd)
		(void)cudnnDestroyFilterDescriptor(x->wd);
	if (x->yd)
		(void)cudnnDestroyTensorDescriptor(x->yd);
	if (x->xd)
		(void)cudnnDestroyTensorDescriptor(x->xd);
	if (x->dnn)
		(void)cudnnDestroy(x->dnn);
	if (x->blas)
		(void)cublasDestroy(x->blas);
	if (x->marks) {
		for (int i = 0; i < HY_NN_MARKS; i++)
			if (x->marks[i])
				(void)cudaEventDestroy(x->marks[i]);
		free(x->marks);
	}
	if (x->ev0)
		(void)cudaEventDestroy(x->ev0);
	if (x->ev1)
		(void)cudaEventDestroy(x->ev1);
	if (x->ev_up)
		(void)cudaEventDestroy(x->ev_up);
	if (x->ev_use)
		(void)cudaEventDestroy(x->ev_use);
	for (int i = 0; i < HY_NN_COPY_FENCES; i++)
		if (x->ev_copy[i])
			(void)cudaEventDestroy(x->ev_copy[i]);
	if (x->ev_ops)
		(void)cudaEventDestroy(x->ev_ops);
	if (x->hres)
		(void)cudaFreeHost(x->hres);
	if (x->scratch)
		(void)cudaFree(x->scratch);
	if (x->spans)
		(void)cudaFree(x->spans);
	if (x->s)
		(void)cudaStreamDestroy(x->s);
	if (x->cs)
		(void)cudaStreamDestroy(x->cs);
	(void)cudaGetLastError();
	free(x);
}

/* Carves the scratch as plan.h lays it out. */
static void carve(cu_ctx *x, const hy_nn_cuda_scratch *s)
{
	char *p = (char *)x->scratch;
	x->act16[0] = (uint16_t *)p, p += s->act16[0];
	x->act16[1] = (uint16_t *)p, p += s->act16[1];
	x->w16[0] = (uint16_t *)p, p += s->w16[0];
	x->w16[1] = (uint16_t *)p, p += s->w16[1];
	x->wtmp = (float *)p, p += s->wtmp;
	x->ones = (float *)p, p += s->ones;
	x->part = (double *)p;
	x->rowloss = x->part + HY_NN_CUDA_PARTIALS + 2 * HY_NN_CUDA_RESULTS;
	x->rowok = (int *)(x->rowloss + x->max_batch);
	p += s->partials;
	x->ws = p;
	x->ws_bytes = s->workspace;
	x->act_cap = s->act16[0] / 2;
	x->w_cap = s->w16[0] / 2;
}

static double gib(size_t b)
{
	return (double)b / (1024.0 * 1024.0 * 1024.0);
}

hy_status hy_nn_cuda_ctx_init(hy_nn_ctx *c, const hy_nn_cuda_cfg *cfg, hy_diag *d)
{
	memset(c, 0, sizeof *c);
	hy_nn_cuda_info info;
	hy_status st = hy_nn_cuda_probe(cfg->device, &info, d);
	if (st)
		return st;
	if (cfg->max_batch < 1 || cfg->max_batch > 1 << 20)
		return hy_diag_set(d, HY_EUSAGE, 0, "bad batch size %d", cfg->max_batch);
	if (cfg->arch.channels > HY_NN_CUDA_MAX_CHANNELS)
		return hy_diag_set(d, HY_EUSAGE, 0, "%d channels: the CUDA backend takes at most %d",
			cfg->arch.channels, HY_NN_CUDA_MAX_CHANNELS);
	char gpu[200];
	snprintf(gpu, sizeof gpu, "GPU %d (%s)", cfg->device, info.name);
	if ((st = hy_nn_plan_check(cfg->arch, cfg->max_batch, cfg->precision, cfg->infer,
		     info.mem_free, gpu,
		     d)))
		return st;
	hy_nn_mem_plan plan;
	hy_nn_plan_mem(cfg->arch, cfg->max_batch, cfg->precision, cfg->infer, &plan);
	cu_ctx *x = (cu_ctx *)calloc(1, sizeof *x);
	if (!x)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	x->device = cfg->device;
	x->precision = cfg->precision == HY_NN_PREC_BF16 ? HY_NN_PREC_BF16 : HY_NN_PREC_FP32;
	x->fast = cfg->fast != 0;
	x->conv = cfg->conv;
	const char *path_env = getenv("HYDRA_CUDA_PATH");
	const int path = hy_nn_cuda_path_pick(cfg->path, path_env);
	if (path < 0) {
		free(x);
		return hy_diag_set(d, HY_EUSAGE, 0, "HYDRA_CUDA_PATH=%.40s: expected v1, v2 or v3",
			path_env ? path_env : "");
	}
	cu_path_set(x, path); /* the path's kernels, once for the context */
	x->graphs = x->path != HY_NN_CUDA_PATH_V1;
	x->gslot = -1;
	x->arch = cfg->arch;
	x->max_batch = cfg->max_batch;
	x->plan = plan;
	hy_nn_cuda_scratch s;
	hy_nn_plan_scratch(cfg->arch, cfg->max_batch, x->precision, &s);
	cudaMemPool_t pool;
	uint64_t keep = UINT64_MAX, zero = 0;
	void *reserve = NULL;
	(void)(CU_RT(x, cudaSetDevice(x->device)) ||
		CU_RT(x, cudaStreamCreate(&x->s)) || k_setup(x, HY_NN_CUDA_MAX_CHANNELS) ||
		CU_RT(x, cudaEventCreate(&x->ev0)) || CU_RT(x, cudaEventCreate(&x->ev1)) ||
		/* the feed's copy stream: non-blocking, so the legacy stream's
		 * copies of the table do not serialise it */
		CU_RT(x, cudaStreamCreateWithFlags(&x->cs, cudaStreamNonBlocking)) ||
		CU_RT(x, cudaEventCreateWithFlags(&x->ev_up, cudaEventDisableTiming)) ||
		CU_RT(x, cudaEventCreateWithFlags(&x->ev_use, cudaEventDisableTiming)) ||
		CU_RT(x, cudaEventCreateWithFlags(&x->ev_ops, cudaEventDisableTiming)) ||
		copy_fences_init(x) ||
		CU_RT(x, cudaMallocHost((void **)&x->hres,
				 2 * HY_NN_CUDA_RESULTS * sizeof(double))) ||
		CU_BLAS(x, cublasCreate(&x->blas)) || CU_BLAS(x, cublasSetStream(x->blas, x->s)) ||
		lt_init(x) ||
		CU_BLAS(x, cublasSetMathMode(x->blas, CUBLAS_DEFAULT_MATH)) ||
		CU_DNN(x, cudnnCreate(&x->dnn)) || CU_DNN(x, cudnnSetStream(x->dnn, x->s)) ||
		CU_DNN(x, cudnnCreateTensorDescriptor(&x->xd)) ||
		CU_DNN(x, cudnnCreateTensorDescriptor(&x->yd)) ||
		CU_DNN(x, cudnnCreateFilterDescriptor(&x->wd)) ||
		CU_DNN(x, cudnnCreateConvolutionDescriptor(&x->cd)) ||
		/* the arena: the pool keeps what it once held, so holding the
		 * planned bytes once reserves them */
		CU_RT(x, cudaDeviceGetDefaultMemPool(&pool, x->device)) ||
		CU_RT(x, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep)) ||
		CU_RT(x, cudaMallocAsync(&reserve, plan.params + plan.work, x->s)) ||
		CU_RT(x, cudaFreeAsync(reserve, x->s)) ||
		CU_RT(x, cudaStreamSynchronize(x->s)) ||
		CU_RT(x, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero)) ||
		CU_RT(x, cudaMalloc(&x->scratch, s.total)) ||
		(x->path == HY_NN_CUDA_PATH_V3 && cu_v3_init(x)));
	if (!x->err) {
		int l2 = 0, sms = 0;
		(void)CU_RT(x, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, x->device));
		(void)CU_RT(x, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, x->device));
		x->l2_bytes = l2 > 0 ? (size_t)l2 : 0;
		x->sms = sms > 0 ? sms : 0;
	}
	if (!x->err) {
		carve(x, &s);
		(void)(CU_BLAS(x, cublasSetWorkspace(x->blas, x->ws, x->ws_bytes)));
		k_fill(x, (size_t)cfg->max_batch * HY_NN_TP, 1.0f, x->ones);
		(void)(CU_RT(x, cudaStreamSynchronize(x->s)));
	}
	if (x->err) {
		st = hy_diag_set(d, x->err, 0, "CUDA: %s", x->msg);
		ctx_release(x);
		return st;
	}
	c->threads = 1;
	c->device = x->device;
	c->precision = x->precision;
	c->fast = x->fast;
	c->priv = x;
	return HY_OK;
}

void hy_nn_cuda_ctx_free(hy_nn_ctx *c)
{
	if (c->priv)
		ctx_release(cu_of(c));
	c->priv = NULL;
}

size_t hy_nn_cuda_peak_bytes(const hy_nn_ctx *c)
{
	cu_ctx *x = cu_enter(c);
	cudaMemPool_t pool;
	uint64_t high = 0;
	if (!x || cudaDeviceGetDefaultMemPool(&pool, x->device) != cudaSuccess ||
		cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return (size_t)high + x->plan.scratch;
}

int hy_nn_cuda_conv_timings(const hy_nn_ctx *c)
{
	cu_ctx *x = cu_enter(c);
	return x ? x->conv_timings : 0;
}

size_t hy_nn_cuda_report(const hy_nn_ctx *c, char *buf, size_t n)
{
	cu_ctx *x = cu_enter(c);
	if (!x) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, x->device) != cudaSuccess) {
		(void)cudaGetLastError();
		snprintf(p.name, sizeof p.name, "?");
	}
	int w = snprintf(buf, n,
		"device %d: %s\nprecision %s, %s\nmemory planned %.3f GiB (parameters and moments "
		"%.3f, activations of batch %d %.3f, scratch %.3f), peak %.3f GiB\n"
		"kernels %s (L2 %.0f MiB; last chunked convolution %d rows of taps)\n",
		x->device, p.name, x->precision == HY_NN_PREC_BF16 ? "bf16" : "fp32",
		x->fast ? "fast (convolution chosen by time, any cuDNN algorithm)"
			: "deterministic (GEMM convolutions, deterministic cuDNN algorithms)",
		gib(x->plan.total), gib(x->plan.params), x->max_batch, gib(x->plan.work),
		gib(x->plan.scratch), gib(hy_nn_cuda_peak_bytes(c)),
		x->path == HY_NN_CUDA_PATH_V3 ? (x->v3 ? "v3 (issue 56: the fused block, v2's kernels beside it)"
						       : "v3 asked, v2 run (no bf16 warp MMA on this GPU)")
		: x->path == HY_NN_CUDA_PATH_V2 ? "v2 (issue 43: chunked taps, vector GroupNorm+Mish and SE)"
						: "v1",
		x->l2_bytes / 1048576.0, x->chunk_rows);
	size_t len = w > 0 ? (size_t)w : 0;
	if (len < n)
		len += hy_nn_conv_cache_format(&x->cache, buf + len, n - len);
	return len;
}
