#!/bin/sh
# Engine benchmarks (issue 5): random-policy self-play hanchan/s and replay
# check games/s on one core; replay-check games/s of the real shared logs
# through mjai-parse. SOAK=N also runs the property test (invariants at
# every step, own logs replayed) over N games.
set -e
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
$pin "$BUILD/bench/engine_bench" 5000
if [ -d "$SHARED/data/logs" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	find "$SHARED/data/logs" -type f \( -name '*.mjlog' -o -name '*.xml' \) | grep -v -e '-no-' |
		xargs "$BUILD/bin/mjai-parse" -o "$tmp/one.bin"
	i=0; while [ $i -lt 30 ]; do cat "$tmp/one.bin"; i=$((i + 1)); done > "$tmp/many.bin"
	t0=$(date +%s.%N)
	$pin "$BUILD/bin/mjai-parse" --check "$tmp/many.bin" 2> "$tmp/err"
	t1=$(date +%s.%N)
	games=$(sed -n 's/.*check: \([0-9]*\) games.*/\1/p' "$tmp/err")
	awk -v g="$games" -v a="$t0" -v b="$t1" 'BEGIN {
		printf "mjai-parse --check on real Tenhou games (event stream input, 1 core): %d games in %.2f s: %.0f games/s\n", g, b - a, g / (b - a) }'
fi
if [ -n "$SOAK" ]; then
	HY_GAMES=$SOAK "$BUILD/tests/test_engine"
fi
