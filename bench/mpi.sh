#!/bin/sh
# Multi-process hydra-fit (issue 13, lib/dist): the cost of the gradient
# all-reduce per step for `small` and `full` between 2 ranks on this
# machine (shared memory, then TCP over loopback), the compute of one
# training step (nn_bench, 1 thread), and the 1 -> 2 rank scaling of
# hydra-fit `small` at a global batch of 256, 1 thread a rank.
# Needs an MPI build ($BUILD/bench/mpi_bench, mpirun); says so and exits 0
# otherwise. Figures and the estimate for larger machines:
# bench/RESULTS-mpi.md.
BUILD=${BUILD:-build}
B=$BUILD/bench
BIN=$BUILD/bin
if ! grep -q HY_HAVE_MPI "$BUILD/.flags" 2>/dev/null || ! command -v mpirun >/dev/null; then
	echo "mpi: skipped (built without MPI, or no mpirun)"
	exit 0
fi
MPI2="mpirun --oversubscribe --allow-run-as-root -np 2"
echo "mpi: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for arch in small full; do
	$MPI2 "$B/mpi_bench" $arch 20 || exit 1
	printf 'shared memory, copy in/out (no CMA): '
	OMPI_MCA_btl_vader_single_copy_mechanism=none $MPI2 "$B/mpi_bench" $arch 20 || exit 1
	printf 'tcp loopback: '
	$MPI2 --mca btl self,tcp "$B/mpi_bench" $arch 20 || exit 1
done
"$B/nn_bench" small 256 1 3 || exit 1
"$B/nn_bench" full 16 1 2 || exit 1

T=$(mktemp -d "${TMPDIR:-/tmp}/hydra-mpi-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$BIN/hydra-sp" --games 8 --seed 1 -o "$T/s.sms" 2>/dev/null || exit 1
fit() { # ranks...: samples/s over steps 5-12 (startup left out)
	rm -rf "$T/run"
	"$@" "$BIN/hydra-fit" -q --arch small --batch 256 --threads 1 --steps 12 --log-every 4 \
		--seed 1 --out "$T/run" "$T/s.sms" 2>/dev/null || exit 1
	tail -n 2 "$T/run/metrics.jsonl" | sed -n 's/.*"samples_per_s":\([0-9.e+]*\).*/\1/p' |
		awk '{ s += $1 } END { printf "%.1f", s / NR }'
}
one=$(fit env)
two=$(fit $MPI2)
echo "$one $two" | awk '{ printf "hydra-fit small, global batch 256: 1 rank %.1f samples/s, 2 ranks %.1f samples/s: speed-up %.2f, scaling efficiency %.0f%%\n", $1, $2, $2 / $1, 50 * $2 / $1 }'
