/* CUDA graphs of inference forwards (issue 43 step 4; backend.h
 * graph_begin/graph_end/graph_reset), on in a v2 context (cuda.h
 * hy_nn_cuda_path). A forward of `full` is some 500 launches; at batch 1
 * (self-play, hydra-bot) the GPU finishes each before the next is queued,
 * so the time is the launches'. One graph per (model, workspace, batch)
 * replaces them with one launch.
 *
 * A key's first forward runs eagerly: the convolution choice (and its
 * timing under --fast), the cuBLASLt plans and the weights' bf16 copies
 * are made outside any capture. The second is captured on the context's
 * stream (thread-local mode: other threads' CUDA calls do not break it)
 * and launched at once; the third on are replays. The graph holds device
 * addresses, not values: a replay reads the inputs hy_nn_work_load put in
 * the workspace and the weights as they are now. Those addresses die with
 * the workspace or the model, so hy_nn_work_free and hy_nn_model_free call
 * graph_reset. A capture that fails (a call the driver refuses to record,
 * which then invalidates the capture but not the context: ctx.cu cu_fail
 * keeps such refusals apart while capturing) leaves its key eager for good
 * and the caller queues the ops again; the
 * host side (which key is in which state, which gives way when 16 are
 * known) is plan.c's, unit-tested on the CPU. */
#include "nn/cuda/internal.h"

static void drop(cu_ctx *x, int i)
{
	if (x->gexec[i])
		(void)cudaGraphExecDestroy(x->gexec[i]); /* teardown of a slot */
	x->gexec[i] = NULL;
}

int cu_graph_begin(const hy_nn_ctx *c, const void *model, const void *work, int B)
{
	cu_ctx *x = cu_enter(c);
	if (x->err || !x->graphs || x->gslot >= 0)
		return HY_NN_GRAPH_EAGER;
	hy_nn_graph_key k = {model, work, B};
	int i = hy_nn_graph_find(&x->gidx, &k);
	if (i < 0) {
		int evicted;
		hy_nn_graph_key old;
		i = hy_nn_graph_add(&x->gidx, &k, &evicted, &old);
		drop(x, i);
		return HY_NN_GRAPH_EAGER;
	}
	const int a = hy_nn_graph_action(&x->gidx, i);
	if (a == HY_NN_GRAPH_REPLAYED) {
		(void)CU_RT(x, cudaGraphLaunch(x->gexec[i], x->s));
		x->graph_replays++;
	} else if (a == HY_NN_GRAPH_CAPTURING) {
		if (cudaStreamBeginCapture(x->s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
			(void)cudaGetLastError(); /* no graph for this key: not an error */
			x->gidx.e[i].state = HY_NN_GRAPH_FAILED;
			return HY_NN_GRAPH_EAGER;
		}
		x->gslot = i;
	}
	return a;
}

int cu_graph_end(const hy_nn_ctx *c)
{
	cu_ctx *x = cu_enter(c);
	const int i = x->gslot;
	if (i < 0)
		return 0;
	cudaGraph_t g = NULL;
	cudaGraphExec_t ex = NULL;
	cudaError_t e = cudaStreamEndCapture(x->s, &g);
	x->gslot = -1; /* after the end: a refusal before it belongs to the capture */
	if (x->cap_err && e == cudaSuccess)
		e = cudaErrorStreamCaptureInvalidated; /* an op was refused while recorded */
	x->cap_err = HY_OK;
	if (e == cudaSuccess && !x->err)
		e = cudaGraphInstantiate(&ex, g, 0);
	if (g)
		(void)cudaGraphDestroy(g); /* the executable graph keeps what it needs */
	if (x->err)
		return 0; /* an op failed while recorded: kept, sync reports it */
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		if (ex)
			(void)cudaGraphExecDestroy(ex);
		x->gidx.e[i].state = HY_NN_GRAPH_FAILED;
		x->graph_failed++;
		return 1; /* the caller queues the ops again */
	}
	x->gexec[i] = ex;
	x->gidx.e[i].state = HY_NN_GRAPH_READY;
	x->graph_captures++;
	(void)CU_RT(x, cudaGraphLaunch(ex, x->s));
	return 0;
}

void cu_graph_reset(const hy_nn_ctx *c)
{
	if (!c || !c->priv)
		return; /* a model freed after its context */
	cu_ctx *x = cu_enter(c);
	if (x->s)
		(void)cudaStreamSynchronize(x->s); /* a replay may still read the buffers */
	for (int i = 0; i < HY_NN_GRAPH_CACHE; i++)
		drop(x, i);
	memset(&x->gidx, 0, sizeof x->gidx);
}

void hy_nn_cuda_graph_counts(const hy_nn_ctx *c, int *captured, int *replayed, int *failed)
{
	cu_ctx *x = cu_enter(c);
	*captured = x ? x->graph_captures : 0;
	*replayed = x ? x->graph_replays : 0;
	*failed = x ? x->graph_failed : 0;
}
