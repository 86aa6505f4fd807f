#!/bin/sh
# Multi-process hydra-fit (issue 13, lib/mpi): the cost of the gradient
# all-reduce per step for `small` and `full` between 2 ranks on this
# machine (shared memory, then TCP over loopback), the compute of one
# training step (nn_bench, 1 thread), whole data-parallel steps with the
# gradient sum overlapped with the backward pass and after it (mpi_bench
# step), and the 1 -> 2 rank scaling of hydra-fit `small` at a global
# batch of 256, 1 thread a rank, with and without --no-overlap.
# Needs an MPI build ($BUILD/bench/mpi_bench, mpirun); says so and exits 0
# otherwise. Figures and the estimate for larger machines:
# bench/mpi/RESULTS.md.
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
echo "mpi: load average $(cut -d' ' -f1-3 /proc/loadavg)"
$MPI2 "$B/mpi_bench" small 30 step 256 1 || exit 1
$MPI2 "$B/mpi_bench" full 8 step 8 1 || exit 1

T=$(mktemp -d "${TMPDIR:-/tmp}/hydra-mpi-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$BIN/hydra-sp" --games 8 --seed 1 -o "$T/s.sms" -l "$T/logs" 2>/dev/null || exit 1
"$BIN/hydra-encode" -o "$T/s.h5" "$T/logs" 2>/dev/null || exit 1
fit() { # ranks...: samples/s over steps 5-12 (startup left out); $FITX: more options
	rm -rf "$T/run"
	"$@" "$BIN/hydra-fit" -q --arch small --batch 256 --threads 1 --steps 12 --log-every 4 \
		--seed 1 $FITX --out "$T/run" "${IN:-$T/s.sms}" 2>"$T/err" || exit 1
	tail -n 2 "$T/run/metrics.jsonl" | sed -n 's/.*"samples_per_s":\([0-9.e+]*\).*/\1/p' |
		awk '{ s += $1 } END { printf "%.1f", s / NR }'
}
one=$(fit env)
two=$(fit $MPI2)
echo "$one $two" | awk '{ printf "hydra-fit small, global batch 256: 1 rank %.1f samples/s, 2 ranks %.1f samples/s: speed-up %.2f, scaling efficiency %.0f%%\n", $1, $2, $2 / $1, 50 * $2 / $1 }'
after=$(FITX=--no-overlap fit $MPI2)
echo "$two $after" | awk '{ printf "hydra-fit small, 2 ranks: %.1f samples/s with the sum during the backward pass, %.1f after it (--no-overlap)\n", $1, $2 }'
# shards: each rank reads its own chunks (the counts: hydra-fit's last lines)
one=$(IN="$T/s.h5" fit env)
two=$(IN="$T/s.h5" fit $MPI2)
echo "$one $two" | awk '{ printf "hydra-fit small on a shard, global batch 256: 1 rank %.1f samples/s, 2 ranks %.1f samples/s: speed-up %.2f\n", $1, $2, $2 / $1 }'
grep "input read by rank" "$T/err" | sed 's/^hydra-fit: /hydra-fit small on a shard, 2 ranks: /'
echo "mpi: load average $(cut -d' ' -f1-3 /proc/loadavg)"
