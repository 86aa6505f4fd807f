#!/bin/sh
# Network training throughput (issue 7): samples/s of forward + backward +
# AdamW of `small` and `base` at batch 256 on 2 threads, Hydra-C's CPU
# backend beside the same net and optimiser in PyTorch, and peak RSS; the
# CPU paths side by side in one run (issue 54): OpenBLAS as the machine
# sets it, OpenBLAS with OPENBLAS_CORETYPE unset (for that row only: it
# then picks the CPU's own kernels) — or, where the machine leaves it
# unset, OpenBLAS forced to Haswell kernels (the AVX2 path issue 54's
# machine ran) —, and oneDNN where it is built, fp32 and with bf16 GEMMs
# (NN_PRECISION=bf16: hydra-fit --precision bf16 on the CPU).
# Needs $BUILD/bench/nn_bench; the PyTorch lines need /usr/bin/python3 with
# python3-torch (skipped otherwise). STEPS=n overrides the timed steps.
B=${BUILD:-build}/bench
steps=${STEPS:-10}
echo "nn: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for arch in small base; do
	HYDRA_CPU_PATH=openblas "$B/nn_bench" "$arch" 256 2 "$steps" || exit 1
	if [ -n "$OPENBLAS_CORETYPE" ]; then
		env -u OPENBLAS_CORETYPE HYDRA_CPU_PATH=openblas "$B/nn_bench" "$arch" 256 2 "$steps" ||
			exit 1
	else
		printf 'OPENBLAS_CORETYPE=Haswell: '
		OPENBLAS_CORETYPE=Haswell HYDRA_CPU_PATH=openblas "$B/nn_bench" "$arch" 256 2 "$steps" ||
			exit 1
	fi
	if HYDRA_CPU_PATH=onednn "$B/nn_bench" "$arch" 1 1 1 >/dev/null 2>&1; then
		HYDRA_CPU_PATH=onednn "$B/nn_bench" "$arch" 256 2 "$steps" || exit 1
		NN_PRECISION=bf16 HYDRA_CPU_PATH=onednn "$B/nn_bench" "$arch" 256 2 "$steps" || exit 1
	else
		echo "hydra-c  $arch, cpu path onednn: skipped (not built)"
	fi
	if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
		/usr/bin/python3 "$(dirname "$0")/../../tests/torch/bench_torch.py" "$arch" 256 2 "$steps" || exit 1
	else
		echo "pytorch  $arch: skipped (no python3-torch)"
	fi
done
