#!/bin/sh
# make demo: runs the pipeline stages that exist on the embedded sample game
# (pipelines/demo/sample.mjson) and, when present, on the shared logs.
set -e
BIN=${BUILD:-build}/bin
SHARED=${SHARED:-../shared}
out=$(mktemp -d "${TMPDIR:-/tmp}/hydra-demo.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "== mjai-parse: embedded sample game -> event stream -> mjai JSON"
"$BIN/mjai-parse" --stats pipelines/demo/sample.mjson -o "$out/sample.bin"
"$BIN/mjai-parse" --json "$out/sample.bin" | head -n 4
echo "   ($(wc -c < "$out/sample.bin") bytes of event stream)"
if [ -d "$SHARED/data/logs" ]; then
	echo "== mjai-parse: every log under $SHARED/data/logs (all formats)"
	"$BIN/mjai-parse" --stats --keep-going "$SHARED/data/logs" -o "$out/all.bin"
	echo "   ($(wc -c < "$out/all.bin") bytes of event stream)"
fi
if [ -x "$BIN/hydra-hand" ]; then
	echo "== hydra-hand: a hand and a win"
	"$BIN/hydra-hand" 123m456p789s1122z
fi
