#!/bin/sh
# pipelines/train.mk: the whole workflow as a Makefile, on six Tenhou games.
. tests/shell/lib.sh
need_data
need_cmd make
L="$DATA/logs/tsubakisakura_mjlog2json/data"
mk() { make --no-print-directory -f "$TOP/pipelines/train.mk" BIN="$BIN" OUT="$T/w" LOGS="$L" \
	ARCH=tiny EPOCHS=1 BATCH=128 SHARD=5000 "$@"; }
mk VAL=0.3 > "$T/log" 2>&1 || { tail -n 20 "$T/log"; fail "train.mk"; }
[ -f "$T/w/events.checked" ] || fail "no rules check stage"
ls "$T/w/shards"/train-0000.h5 "$T/w/shards"/val-0000.h5 "$T/w/aug"/train-0000.h5 >/dev/null || fail "stages"
[ -e "$T/w/run/latest" ] && [ -e "$T/w/run/best" ] || fail "no checkpoint links"
grep -q '"val_loss"' "$T/w/run/metrics.jsonl" || fail "no validation in metrics"
# nothing to do a second time
mk VAL=0.3 > "$T/log2" 2>&1 || fail "second run"
grep -q 'hydra-fit\|hydra-encode\|mjai-parse' "$T/log2" && fail "second run redid work"
# an empty validation split fails before training, clearly
rm -rf "$T/w"
mk VAL=0.000001 > "$T/log3" 2>&1 && fail "empty validation accepted"
grep -q "hydra-fit: the validation input holds no samples" "$T/log3" || fail "message"
grep -q "step [0-9]" "$T/log3" && fail "trained before noticing"
exit 0
