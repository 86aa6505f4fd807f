#!/bin/sh
# pipelines/train.mk: the whole workflow as a Makefile, on six games (self-play,
# as Tenhou mjlog and tenhou.net/6 pairs),
# run from another directory; resumable after an interrupt during training.
. tests/shell/lib.sh
need_cmd make
L="$T/tenhou"
gen_tenhou "$L" 6
cd "$T"  # not the checkout: the Makefile must not depend on the directory
mk() { make --no-print-directory -f "$TOP/pipelines/train.mk" BIN="$BIN" OUT=w LOGS="$L" \
	ARCH=tiny EPOCHS=1 BATCH=128 SHARD=5000 "$@"; }
mk VAL=0.3 > log 2>&1 || { tail -n 20 log; fail "train.mk"; }
[ -f w/events.checked ] || fail "no rules check stage"
ls w/shards/train-0000.h5 w/shards/val-0000.h5 w/aug/train-0000.h5 >/dev/null || fail "stages"
[ -e w/run/latest ] && [ -e w/run/best ] && [ -f w/run/done ] || fail "no checkpoint links or stamp"
grep -q '"val_loss"' w/run/metrics.jsonl || fail "no validation in metrics"
# nothing to do a second time
mk VAL=0.3 > log2 2>&1 || fail "second run"
grep -q 'hydra-fit\|hydra-encode\|mjai-parse' log2 && fail "second run redid work"

# interrupted during training: no stamp; the rerun resumes the run
rm -rf w/run
mk VAL=0.3 EPOCHS=40 BATCH=16 FIT_FLAGS='--save-every 20' > log3 2>&1 &
mkpid=$!
k=0
while [ ! -e w/run/latest ] && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
[ -e w/run/latest ] || { kill $mkpid; fail "no checkpoint appeared"; }
fit=$(own_pids "hydra-fit .*--out w/run")
[ -n "$fit" ] || fail "no hydra-fit to interrupt"
kill -INT $fit
wait $mkpid && fail "make succeeded after an interrupt"
[ -e w/run/done ] && fail "stamp written after an interrupt"
grep -q "interrupted, saved" log3 || { tail log3; fail "hydra-fit did not save on SIGINT"; }
step=$(readlink w/run/latest | sed 's/ckpt-0*\([0-9]*\)\.h5/\1/')
mk VAL=0.3 EPOCHS=40 BATCH=16 FIT_FLAGS='--save-every 20 --steps 60' > log4 2>&1 ||
	{ tail log4; fail "rerun after the interrupt"; }
grep -q -- "--resume w/run" log4 || fail "the rerun did not resume"
grep -q "resum" log4 || { tail log4; fail "hydra-fit did not say it resumed"; }
[ -f w/run/done ] || fail "no stamp after the resumed run"
ls w/run/*.tmp* >/dev/null 2>&1 && fail "temporaries left in the run"

# an empty validation split fails before training, clearly
rm -rf w
mk VAL=0.000001 > log5 2>&1 && fail "empty validation accepted"
grep -q "hydra-encode: .*the validation split is empty" log5 || { tail log5; fail "message"; }
grep -q "step [0-9]" log5 && fail "trained before noticing"
[ -e w/shards.done ] && fail "shards stage marked done"
# LOGS is required
make --no-print-directory -f "$TOP/pipelines/train.mk" BIN="$BIN" OUT=w2 > log6 2>&1 && fail "no LOGS accepted"
grep -q "LOGS is not set" log6 || fail "LOGS message"
exit 0
