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
"$B/hydra-fit" --arch base --steps 1 --batch 32 --threads 1 --out "$tmp/base" -q "$tmp/s.bin" 2> "$tmp/fit" ||
	{ cat "$tmp/fit" >&2; exit 1; }
# a whole hanchan to review: the first of the session's games, as mjai
"$B/hydra-sp" --games 1 --seed 3 --no-samples --log-dir "$tmp/logs"
game=$(ls "$tmp"/logs/* | head -1)
# the checkpoints on each CPU path (issue 54; nn/cpupath.h), side by side
for path in openblas onednn onednn-bf16; do
	case $path in onednn*)
		if ! "$B/hydra-bot" --cpu-path onednn --help >/dev/null 2>&1; then
			echo "hydra-bot, cpu path $path: skipped (not built)"
			continue
		fi
	esac
	for arch in small base; do
		ck=$tmp/run/latest; [ $arch = base ] && ck=$tmp/base/latest
		printf 'hydra-bot %s checkpoint, 1 core, cpu path %s: ' $arch $path
		$pin "$BUILD/bench/bot_bench" "$tmp/session" "$B/hydra-bot --cpu-path $path $ck"
	done
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" $pin "$B/hydra-review" --cpu-path $path \
		--model "$tmp/base/latest" -j 1 -o "$tmp/review.html" "$game"
	awk -v p=$path '{ printf "hydra-review of a whole hanchan (4 seats), base checkpoint, 1 core, cpu path %s: %.2f s wall\n", p, $1 }' "$tmp/time"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
