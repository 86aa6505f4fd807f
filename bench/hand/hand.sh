#!/bin/sh
# Hand evaluation benchmarks (issue 4): shanten ns/call (all three forms),
# the hand + all-discards batch, and full scoring of random winning hands.
set -e
B=${BUILD:-build}/bench
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
$pin "$B/shanten_bench"
$pin "$B/score_bench" 2 12345
