#!/bin/sh
# Where the network's time goes against the ceiling of the same run (issue
# 54): for each CPU path — OpenBLAS (forced to its Haswell kernels, the AVX2
# path issue 54 called today's, unless OPENBLAS_CORETYPE is already set),
# oneDNN fp32 and oneDNN bf16 where built — nn_bench's per-op profile of a
# training step (ARCH, default small, batch 256, 2 threads, STEPS, default
# 10) and of a forward alone on an inference context (batch 64, 1 thread,
# INFER_STEPS, default 200), each followed by the path's own GEMM at 2048^3
# and at the trunk's shape and the rate the 3-tap convolutions reached
# (nn_bench NN_PROFILE=1; bench/RESULTS.md, "Where the time goes").
B=${BUILD:-build}/bench
arch=${ARCH:-small}
echo "ceiling: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
run() { # PATH PRECISION INFER BATCH THREADS STEPS
	env OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-Haswell}" HYDRA_CPU_PATH="$1" \
		NN_PRECISION="$2" NN_INFER="$3" NN_PROFILE=1 "$B/nn_bench" "$arch" "$4" "$5" "$6"
}
for p in openblas onednn onednn-bf16; do
	case $p in onednn*)
		HYDRA_CPU_PATH=onednn "$B/nn_bench" "$arch" 1 1 1 >/dev/null 2>&1 ||
			{ echo "ceiling, cpu path $p: skipped (not built)"; continue; }
	esac
	prec=fp32
	[ $p = onednn-bf16 ] && prec=bf16
	run "$p" "$prec" 0 256 2 "${STEPS:-10}" || exit 1
	run "$p" "$prec" 1 64 1 "${INFER_STEPS:-200}" || exit 1
done
