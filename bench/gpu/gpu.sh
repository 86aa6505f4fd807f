#!/bin/sh
# make bench-gpu: training samples/s and MFU of `full` at batch 256, 1024
# and 2048 (bf16; fp32 and --fast once for comparison), inference samples/s
# at batch 1, 64 and 1024, the convolution chosen per shape and peak memory
# (in each run's report), and the device side of the compact feed (copies
# and expand_obs of a batch of 1024). Without a GPU it prints "bench-gpu:
# skipped: no GPU". (make bench-gpu then runs the data feed, bench/feed.sh.)
BUILD=${BUILD:-build}
G="$BUILD/bench/gpu_bench"
[ -x "$G" ] || { echo "bench-gpu: $G not built (make bench-gpu builds it)" >&2; exit 1; }
first=$("$G" train full 256 20) || exit 1
printf '%s\n' "$first"
case $first in
"bench-gpu: skipped"*) ;;
*)
	for b in 1024 2048; do "$G" train full $b 20 || exit 1; done
	"$G" train full 1024 20 fp32 || exit 1
	"$G" train full 1024 20 bf16 fast || exit 1
	for b in 1 64 1024; do "$G" infer full $b 50 || exit 1; done
	"$G" expand 1024 50 || exit 1
	;;
esac
