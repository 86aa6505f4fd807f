#!/bin/sh
# make demo: the whole pipeline on the embedded sample game
# (pipelines/demo/sample.jsonl) and, when present, on the shared logs:
# parse → rules check → encode → augment → a short training run.
set -e
BIN=${BUILD:-build}/bin
SHARED=${SHARED:-../shared}
out=$(mktemp -d "${TMPDIR:-/tmp}/hydra-demo.XXXXXX")
trap 'rm -rf "$out"' EXIT
# the embedded game, plus the real Tenhou Houou games of the shared data
# (complete games only: the truncated copies there exist to test errors)
printf '%s\n' pipelines/demo/sample.jsonl > "$out/list"
if [ -d "$SHARED/data/logs" ]; then
	find "$SHARED/data/logs/mjx-project_mjx/tests_py/resources/mjlog" \
		"$SHARED/data/logs/tsubakisakura_mjlog2json/data" -name '*.mjlog' -o -name '*.xml' |
		grep -v -e '-no-game-end' -e '-no-round-end' | sort >> "$out/list"
fi
echo "== mjai-parse: $(wc -l < "$out/list") logs -> event stream"
xargs "$BIN/mjai-parse" --stats -o "$out/events.bin" < "$out/list" 2> "$out/parse.err" ||
	{ cat "$out/parse.err"; exit 1; }
head -n 1 "$out/parse.err"
echo "== mjai-parse --check: every event legal, every score change reproduced"
"$BIN/mjai-parse" --check "$out/events.bin"
echo "== hydra-encode: events -> samples (85x34 observations, masks, labels)"
"$BIN/hydra-encode" --stats "$out/events.bin" -o "$out/samples.bin" 2> "$out/enc.err" ||
	{ cat "$out/enc.err"; exit 1; }
head -n 2 "$out/enc.err"
echo "== hydra-augment: 6-way suit permutations into an HDF5 shard"
"$BIN/hydra-augment" --perms all --stats "$out/samples.bin" -o "$out/aug.h5"
echo "== hydra-fit: a tiny network, one pass over the stream"
"$BIN/hydra-fit" --arch tiny --batch 128 --log-every 20 --out "$out/run" < "$out/samples.bin"
echo "== hydra-hand: one hand"
"$BIN/hydra-hand" 123m456p789s1122z
echo "demo: done (outputs were in $out, now removed)"
