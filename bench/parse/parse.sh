#!/bin/sh
# Parse benchmark: mjai JSON lines → event stream on one core.
# Input: every mjai log under $SHARED/data/logs, concatenated REPEAT times
# (default 40) into one file. Prints events/s and MB/s of JSON.
set -e
BIN=${BUILD:-build}/bin
SHARED=${SHARED:-../shared}
REPEAT=${REPEAT:-40}
[ -d "$SHARED/data/logs" ] || { echo "parse bench: $SHARED/data/logs not found: skipped"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
find "$SHARED/data/logs" -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.mjson' \) | sort |
while read -r f; do
	if head -c 200 "$f" | grep '"type"' | grep -vq '"type":"hello"'; then cat "$f"; echo; fi
done > "$tmp/one.json"
i=0; while [ $i -lt "$REPEAT" ]; do cat "$tmp/one.json"; i=$((i + 1)); done | grep -v '^$' > "$tmp/big.json"
bytes=$(wc -c < "$tmp/big.json")
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
"$BIN/mjai-parse" --stats "$tmp/big.json" > /dev/null 2> "$tmp/stats"
events=$(sed -n 's/.* \([0-9]*\) events.*/\1/p' "$tmp/stats" | head -n 1)
best=""
for run in 1 2 3; do
	t0=$(date +%s.%N)
	$pin "$BIN/mjai-parse" "$tmp/big.json" > /dev/null
	t1=$(date +%s.%N)
	best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { d = b - a; if (best == "" || d < best) best = d; print best }')
done
awk -v e="$events" -v b="$bytes" -v t="$best" 'BEGIN {
	printf "parse mjai JSON -> events (1 core, best of 3): %d events, %.1f MB in %.3f s: %.2f M events/s, %.1f MB/s\n",
		e, b / 1e6, t, e / t / 1e6, b / t / 1e6 }'
