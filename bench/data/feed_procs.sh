#!/bin/sh
# The feed's scaling with processes (issue 23: readers in separate
# processes, each with its own copy of libhdf5's lock):
#   bench/data/feed_procs.sh SECONDS "N1 N2 ..." SHARD...
# For each N, starts N feed_bench processes of one loader thread each
# (compact f16 layout, batch 1,024) at once and prints their samples/s
# summed, per process, and the speed-up over the first N's sum per process
# times N ("2.00x" = linear). Every line carries the load average at its
# start: on a shared machine the scaling means little under a load near
# the cores. BUILD (default build) names the build.
BUILD=${BUILD:-build}
FB="$BUILD/bench/feed_bench"
S=${1:?usage: bench/data/feed_procs.sh SECONDS \"N1 N2 ...\" SHARD...}
NS=${2:?usage: bench/data/feed_procs.sh SECONDS \"N1 N2 ...\" SHARD...}
shift 2
[ $# -gt 0 ] || { echo "feed_procs: no shards" >&2; exit 2; }
[ -x "$FB" ] || { echo "feed_procs: $FB not built" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/feed_procs.XXXXXX")
trap 'rm -rf "$T"' EXIT
one=
for n in $NS; do
	l=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
	i=0
	while [ "$i" -lt "$n" ]; do
		"$FB" 1 1024 "$S" f16 "$@" > "$T/p$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	i=0 sum=0
	while [ "$i" -lt "$n" ]; do
		sps=$(sed -n 's/.*batch 1024: \([0-9]*\) samples\/s.*/\1/p' "$T/p$i")
		[ -n "$sps" ] || { echo "feed_procs: process $i of $n failed:" >&2; cat "$T/p$i" >&2; exit 1; }
		sum=$((sum + sps))
		i=$((i + 1))
	done
	[ -n "$one" ] || one=$(awk -v s="$sum" -v n="$n" 'BEGIN { print s / n }')
	echo "feed f16, $n process(es) of 1 reader: $sum samples/s," \
		"$(awk -v s="$sum" -v o="$one" -v n="$n" 'BEGIN { printf "%.0f per process, %.2fx one process (%.0f%% of linear)", s / n, s / o, 100 * s / (o * n) }'), load $l"
done
