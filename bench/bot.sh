#!/bin/sh
# hydra-bot per-decision latency (issue 11): a seat-view session recorded
# from self-play (seat 0 of 8 hanchan, one protocol line per decision) is
# fed to hydra-bot one line at a time on a pipe, pinned to one core, and
# every round trip (write to answer) is timed: baseline, and a `small`
# (6x64) checkpoint after one training step (its speed does not depend on
# its weights), on OpenBLAS and on oneDNN. Goal for small: < 5 ms per
# decision (issue 54: <= 0.5 ms).
set -e
BUILD=${BUILD:-build}
B="$BUILD/bin"
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
"$B/hydra-sp" --games 8 --seed 1 --tables 1 --no-samples \
	--seat0 "mjai:tee -a $tmp/session | $B/hydra-bot baseline" --others baseline
"$B/hydra-sp" --games 1 --seed 2 -o "$tmp/s.bin"
"$B/hydra-fit" --arch small --steps 1 --batch 32 --threads 1 --out "$tmp/run" -q "$tmp/s.bin" 2> "$tmp/fit" ||
	{ cat "$tmp/fit" >&2; exit 1; }
printf 'hydra-bot baseline, 1 core: '
$pin "$BUILD/bench/bot_bench" "$tmp/session" "$B/hydra-bot baseline"
# the checkpoint on each CPU path (issue 54; nn/cpupath.h), side by side
for path in openblas onednn; do
	if [ $path = onednn ] && ! "$B/hydra-bot" --cpu-path onednn --help >/dev/null 2>&1; then
		echo "hydra-bot small (6x64) checkpoint, cpu path onednn: skipped (not built)"
		continue
	fi
	printf 'hydra-bot small (6x64) checkpoint, 1 core, cpu path %s: ' $path
	$pin "$BUILD/bench/bot_bench" "$tmp/session" "$B/hydra-bot --cpu-path $path $tmp/run/latest"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
