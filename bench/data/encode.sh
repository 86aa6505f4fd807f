#!/bin/sh
# hydra-encode throughput (issue 6): samples/s per core of the encode stage
# over at least MIN_SECONDS of work (the shared logs repeated), the whole
# `mjai-parse LOGS | hydra-encode > /dev/null` pipeline, and compressed
# shard bytes per sample. Figures on stdout.
set -e
BIN=${BUILD:-build}/bin
SHARED=${SHARED:-../shared}
LOGS=${LOGS:-$SHARED/data/logs}
MIN_SECONDS=${MIN_SECONDS:-10}
[ -d "$LOGS" ] || { echo "encode bench: $LOGS not found: skipped"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"

# one copy of the logs as an event stream (bad test fixtures skipped)
"$BIN/mjai-parse" -k "$LOGS" > "$T/one.bin" 2>/dev/null
"$BIN/hydra-encode" -k --stats < "$T/one.bin" > /dev/null 2> "$T/stats"
per_copy=$(sed -n 's/.* \([0-9]*\) samples.*/\1/p' "$T/stats" | head -1)
# CPU seconds of one copy (start-up included) → copies for MIN_SECONDS
/usr/bin/time -o "$T/time" -f '%U %S' $pin "$BIN/hydra-encode" -k < "$T/one.bin" > /dev/null 2>/dev/null
t1=$(awk '{print $1 + $2}' "$T/time")
copies=$(awk -v t="$t1" -v m="$MIN_SECONDS" 'BEGIN { if (t < 0.05) t = 0.05; c = int(2.6 * m / t) + 1; # t includes the one-off start-up (shanten tables)
 if (c < 2) c = 2; if (c > 400) c = 400; print c }')
i=0; : > "$T/many.bin"
while [ $i -lt "$copies" ]; do cat "$T/one.bin" >> "$T/many.bin"; i=$((i + 1)); done
samples=$((per_copy * copies))

# encode stage alone, pinned to one core: CPU time (user + sys)
/usr/bin/time -o "$T/time" -f '%U %S %e' $pin "$BIN/hydra-encode" -k < "$T/many.bin" > /dev/null 2>/dev/null
awk -v n="$samples" -v c="$copies" '{ s = $1 + $2;
	printf "encode stage: %d samples (%d copies of the logs) in %.2f s CPU (%.2f s wall): %.0f samples/s per core\n", n, c, s, $3, n / s }' "$T/time"

# the whole pipeline from logs (mjai-parse re-reads the logs each copy)
i=0; set --
while [ $i -lt "$copies" ]; do set -- "$@" "$LOGS"; i=$((i + 1)); done
start=$(date +%s.%N)
"$BIN/mjai-parse" -k "$@" 2>/dev/null | "$BIN/hydra-encode" -k > /dev/null 2>/dev/null
end=$(date +%s.%N)
awk -v n="$samples" -v a="$start" -v b="$end" 'BEGIN {
	printf "pipeline mjai-parse LOGS | hydra-encode > /dev/null: %.2f s wall, %.0f samples/s\n", b - a, n / (b - a) }'

# shard size
"$BIN/hydra-encode" -k -o "$T/one.h5" "$T/one.bin" 2>/dev/null
bytes=$(stat -c %s "$T/one.h5")
stream=$("$BIN/hydra-encode" -k < "$T/one.bin" 2>/dev/null | wc -c)
awk -v b="$bytes" -v s="$stream" -v n="$per_copy" 'BEGIN {
	printf "shard: %d samples, %d bytes: %.0f bytes/sample (stream: %.0f bytes/sample)\n", n, b, b / n, s / n }'
