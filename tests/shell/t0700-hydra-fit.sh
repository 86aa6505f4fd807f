#!/bin/sh
# hydra-fit: --help and the man page agree, usage errors (exit 2), --device
# cuda without a CUDA backend (exit 4); with the shared logs: the pipeline
# mjai-parse | hydra-encode | hydra-fit trains a tiny net (the loss falls),
# metrics.jsonl holds the documented keys, checkpoints and links exist, a
# resumed run repeats the uninterrupted one exactly, a checkpoint of another
# architecture (exit 3) and a truncated one (exit 1) are clear errors.
. tests/shell/lib.sh
F="$BIN/hydra-fit"
PY=/usr/bin/python3

# --help, man page, -V
expect_exit 0 "$F" --help
sed 's/\\-/-/g' "$TOP/man/hydra-fit.1" > "$T/man.txt"
grep -q '^usage: hydra-fit \[options\] \[PATH\.\.\.\]' "$T/out" || fail "--help usage line"
grep -A1 '^\.B hydra-fit' "$TOP/man/hydra-fit.1" | grep -q 'options.*PATH' || fail "man SYNOPSIS"
for o in arch blocks channels device threads mode steps epochs batch lr warmup seed \
	shuffle-buffer val eval-every out save-every keep log-every resume init quiet help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done
expect_exit 0 "$F" -V
grep -q '^hydra-fit (hydra-c) ' "$T/out" || fail "-V"

# usage errors
expect_exit 2 "$F" --no-such-option
expect_err "try 'hydra-fit --help'"
expect_exit 2 "$F" --arch huge
expect_err "bad --arch 'huge'"
expect_exit 2 "$F" --channels 48
expect_exit 2 "$F" --steps 0
expect_exit 2 "$F" --batch x
expect_exit 2 "$F" --lr -1
expect_exit 2 "$F" --device tpu
expect_exit 2 "$F" --mode ppo
expect_err "give --init CKPT"
expect_exit 2 "$F" --steps 3 --epochs 1
expect_exit 4 "$F" --device cuda --steps 1 -o "$T/cuda" /dev/null
expect_err "requested device unavailable"
[ ! -e "$T/cuda" ] || fail "--device cuda made an output directory"

gen_logs 10  # self-play games in three formats (tests/shell/lib.sh): 60 batches of 64
[ -x "$BIN/mjai-parse" ] && [ -x "$BIN/hydra-encode" ] || skip "mjai-parse/hydra-encode not built (skipped)"
need_cmd "$PY"

# the pipeline, straight into hydra-fit; a copy of the samples for later
"$BIN/mjai-parse" -k "$GEN" 2>"$T/parse.err" | "$BIN/hydra-encode" -k 2>"$T/enc.err" \
	>"$T/s.bin" || { cat "$T/enc.err" >&2; fail "mjai-parse | hydra-encode"; }
"$BIN/mjai-parse" -k "$GEN" 2>/dev/null | "$BIN/hydra-encode" -k 2>/dev/null | "$F" --arch tiny --steps 60 --batch 64 --threads 2 --log-every 1 \
	--save-every 30 --out "$T/run" 2>"$T/fit.err" || { cat "$T/fit.err" >&2; fail "pipeline"; }
grep -q 'hydra-fit: step 60/60' "$T/fit.err" || fail "no plain progress line on a pipe"
[ -f "$T/run/ckpt-00000030.h5" ] && [ -f "$T/run/ckpt-00000060.h5" ] || fail "checkpoints missing"
[ "$(readlink "$T/run/latest")" = ckpt-00000060.h5 ] || fail "latest link"
[ -f "$T/run/latest" ] || fail "latest does not resolve"
[ -f "$T/run/best" ] || fail "best does not resolve"
ls "$T/run" | grep -q 'tmp\|part' && fail "temporary files left"

$PY - "$T/run/metrics.jsonl" <<'PYEOF' || fail "metrics.jsonl"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["step"] for r in rows] == list(range(1, 61)), "steps"
keys = "step epoch samples loss policy value grp tenpai danger acc lr grad_norm samples_per_s elapsed_s".split()
for r in rows:
    for k in keys:
        assert k in r and isinstance(r[k], (int, float)), k
first = sum(r["loss"] for r in rows[:10]) / 10
last = sum(r["loss"] for r in rows[-10:]) / 10
print("loss: first 10 %.4f, last 10 %.4f" % (first, last))
assert last < first, "loss did not fall"
PYEOF

if command -v h5dump >/dev/null 2>&1; then
	h5dump -A "$T/run/ckpt-00000060.h5" > "$T/ck.txt" 2>&1 || fail "h5dump of a checkpoint"
	for a in train_epoch train_pos blocks channels step; do
		grep -q "ATTRIBUTE \"$a\"" "$T/ck.txt" || fail "checkpoint lacks attribute $a"
	done
fi

# resume from step 30 (the same stream on stdin) repeats steps 31-60 exactly
mkdir "$T/re"
cp "$T/run/ckpt-00000030.h5" "$T/run/metrics.jsonl" "$T/re/"
ln -s ckpt-00000030.h5 "$T/re/latest"
"$F" -q --resume "$T/re" < "$T/s.bin" 2>"$T/re.err" || { cat "$T/re.err" >&2; fail "resume"; }
grep -q "resuming from .* at step 30" "$T/re.err" || fail "no resume notice"
$PY - "$T/run/metrics.jsonl" "$T/re/metrics.jsonl" <<'PYEOF' || fail "resumed run differs"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == len(b) == 60, (len(a), len(b))
for x, y in zip(a, b):
    for k in ("samples_per_s", "elapsed_s"):
        x.pop(k); y.pop(k)
    assert x == y, (x, y)
PYEOF
[ "$(readlink "$T/re/latest")" = ckpt-00000060.h5 ] || fail "latest after resume"

# an output directory with checkpoints is not overwritten
expect_exit 2 "$F" --arch tiny --steps 2 -o "$T/run" "$T/s.bin"
expect_err "already holds checkpoints"
# another architecture, a truncated checkpoint, not a checkpoint
expect_exit 3 "$F" --arch small --resume "$T/run" --steps 70 "$T/s.bin"
expect_err "2 blocks x 32 channels"
head -c 20000 "$T/run/ckpt-00000060.h5" > "$T/trunc.h5"
expect_exit 1 "$F" --resume "$T/trunc.h5" -o "$T/r3" --steps 70 "$T/s.bin"
expect_err "trunc.h5.*truncated"
expect_exit 3 "$F" --init "$T/s.bin" --steps 2 -o "$T/r4" "$T/s.bin"
expect_err "s.bin': not a checkpoint \(not an HDF5 file: a sample stream\)"
# --init takes the weights only (a fresh step count)
expect_exit 0 "$F" -q --init "$T/run/latest" --steps 3 --batch 16 -o "$T/r5" "$T/s.bin"
[ -f "$T/r5/ckpt-00000003.h5" ] || fail "--init run"
# a stream without --steps: one pass, warmup then a constant LR; --epochs
# needs shards; empty input is an error
expect_exit 0 "$F" --arch tiny --batch 64 --log-every 1 -o "$T/r6" < "$T/s.bin"
expect_err "the input ended after [0-9]+ steps \(one pass\)"
n=$("$BIN/hydra-augment" --perms 0 -s "$T/s.bin" 2>&1 >/dev/null | sed -n 's/.*: \([0-9][0-9]*\) samples read.*/\1/p' | head -n 1)
steps=$(wc -l < "$T/r6/metrics.jsonl")
[ -n "$n" ] || fail "sample count of s.bin"
[ "$steps" -eq $(( (n + 63) / 64 )) ] || fail "one pass over $n samples took $steps steps"
[ -e "$T/r6/latest" ] || fail "no checkpoint after one pass"
expect_exit 2 "$F" --epochs 2 -o "$T/r6b" < "$T/s.bin"
expect_err "--epochs needs shard inputs"
expect_exit 1 "$F" --steps 2 -o "$T/r7" < /dev/null
exit 0
