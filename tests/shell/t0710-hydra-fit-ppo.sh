#!/bin/sh
# hydra-fit --mode ppo (issue 12): the PPO options in --help and the man
# page, usage errors (exit 2); with hydra-sp: a tiny behaviour-cloned model
# plays games, `hydra-sp --policy CKPT | hydra-fit --mode ppo --init CKPT`
# trains on them and improves its surrogate objective within an update,
# metrics.jsonl holds the PPO statistics, the schedule runs over a stream
# file's steps (a pipe's stays at its start), a resumed run repeats an
# uninterrupted one exactly, and samples encoded from logs (no behaviour
# log-probabilities) are refused with status 1 naming the input, from a
# file and from standard input, before any checkpoint is written.
. tests/shell/lib.sh
F="$BIN/hydra-fit"
SP="$BIN/hydra-sp"
PY=/usr/bin/python3

expect_exit 0 "$F" --help
sed 's/\\-/-/g' "$TOP/man/hydra-fit.1" > "$T/man.txt"
for o in mode ppo-epochs minibatch clip vf-coef ent-coef ent-end kl-stop value-warmup anchor \
	anchor-coef anchor-frac progress no-adv-norm; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done

# usage errors
expect_exit 2 "$F" --mode ppo -o "$T/u" /dev/null
expect_err "give --init CKPT"
expect_exit 2 "$F" --mode sgd
expect_err "bad --mode 'sgd'"
expect_exit 2 "$F" --mode ppo --ppo-epochs 0 --init x
expect_err "bad --ppo-epochs '0'"
expect_exit 2 "$F" --mode ppo --clip 1.5 --init x
expect_err "bad --clip '1.5'"
expect_exit 2 "$F" --mode ppo --ent-coef -1 --init x
expect_exit 2 "$F" --minibatch 8 -o "$T/u" /dev/null
expect_err "--minibatch is an option of --mode ppo"
expect_exit 2 "$F" --mode ppo --init x --batch 64 --minibatch 128
expect_err "larger than the rollout --batch"
[ ! -e "$T/u" ] || fail "a usage error made an output directory"

[ -x "$SP" ] || skip "hydra-sp not built (skipped)"
need_cmd "$PY"

# a tiny model cloned from baseline games; its own games with logs
"$SP" --games 2 --policy baseline --seed 1 --log-dir "$T/logs" >"$T/base.bin" 2>"$T/sp.err" ||
	{ cat "$T/sp.err" >&2; fail "hydra-sp baseline"; }
"$F" --arch tiny --steps 20 --batch 64 --threads 2 -q --out "$T/bc" "$T/base.bin" \
	2>"$T/bc.err" || { cat "$T/bc.err" >&2; fail "behaviour cloning"; }
M="$T/bc/latest"
"$SP" --games 4 --policy "$M" --seed 2 >"$T/sp.bin" 2>"$T/sp.err" ||
	{ cat "$T/sp.err" >&2; fail "hydra-sp --policy CKPT"; }

# samples encoded from logs carry no behaviour log-probabilities: refused
[ -x "$BIN/mjai-parse" ] && [ -x "$BIN/hydra-encode" ] || skip "mjai-parse/hydra-encode not built"
"$BIN/mjai-parse" "$T/logs" | "$BIN/hydra-encode" >"$T/logs.bin" || fail "encode the logs"
expect_exit 1 "$F" --mode ppo --init "$M" -q --out "$T/h1" "$T/logs.bin"
expect_err "logs.bin: no sample has a behaviour log-probability"
expect_err "hydra-sp output"
expect_exit 1 sh -c "'$F' --mode ppo --init '$M' -q --out '$T/h2' < '$T/logs.bin'"
expect_err "standard input: no sample has a behaviour log-probability"
ls "$T"/h1/ckpt-* "$T"/h2/ckpt-* >/dev/null 2>&1 && fail "a refused input left a checkpoint"
# ... also when a self-play stream comes first
expect_exit 1 "$F" --mode ppo --init "$M" -q --out "$T/h3" "$T/sp.bin" "$T/logs.bin"
expect_err "logs.bin: no sample"

# the pipe of the issue: one pass over standard input
"$SP" --games 4 --policy "$M" --seed 2 | "$F" --mode ppo --init "$M" --batch 1024 \
	--minibatch 256 --ppo-epochs 4 --kl-stop 0 --lr 3e-4 --warmup 0 --threads 2 --log-every 1 \
	--out "$T/ppo" 2>"$T/ppo.err" || { cat "$T/ppo.err" >&2; fail "hydra-sp | hydra-fit --mode ppo"; }
# the same games to a file, to count the samples (one header, one trailer)
"$SP" --games 4 --policy "$M" --seed 2 -o "$T/sp2.bin" || fail "hydra-sp -o"
nsamp=$(( ($(wc -c < "$T/sp2.bin") - 32) / 5888 - 1 ))
[ "$nsamp" -gt 1024 ] || fail "only $nsamp samples in 4 games"
grep -q 'the input ended after [0-9]* steps' "$T/ppo.err" || { cat "$T/ppo.err" >&2; fail "steps"; }
[ -f "$T/ppo/latest" ] || fail "no checkpoint"
$PY - "$T/ppo/metrics.jsonl" "$nsamp" <<'PYEOF' || fail "metrics.jsonl of the PPO run"
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = ["surrogate", "surrogate_first", "approx_kl", "clip_frac", "entropy", "explained_var",
        "ppo_steps", "loss", "policy", "value", "grp", "lr", "grad_norm"]
for r in rows:
    for k in keys:
        assert k in r, f"step {r['step']}: no {k}"
    assert r["approx_kl"] >= 0 and 0 <= r["clip_frac"] <= 1 and r["entropy"] > 0, r
    assert r["explained_var"] is None or r["explained_var"] <= 1, r
# n samples in rollout batches of 1024: 4 passes of ceil(b / 256) minibatches
n = int(sys.argv[2])
sizes = [1024] * (n // 1024) + ([n % 1024] if n % 1024 else [])
per = [4 * -(-b // 256) for b in sizes]
want = [sum(per[:i + 1]) for i in range(len(per))]
assert [r["step"] for r in rows] == want, ([r["step"] for r in rows], want)
assert [r["ppo_steps"] for r in rows] == per, ([r["ppo_steps"] for r in rows], per)
# the first update starts at the behaviour policy (ratio 1, surrogate = mean
# of the normalised advantages = 0 on its first minibatch); its last pass
# has a higher surrogate objective than its first
r = rows[0]
assert r["surrogate"] > r["surrogate_first"] + 1e-3, r
assert r["surrogate"] > 0.005, r
print("first update: surrogate %.4f (first pass %.4f), approx_kl %.4f, clip_frac %.3f, "
      "entropy %.3f" % (r["surrogate"], r["surrogate_first"], r["approx_kl"], r["clip_frac"],
                       r["entropy"]))
PYEOF

# the league's schedule: a KL threshold the first pass passes ends each
# batch's passes (steps still counted per batch); an anchor to the start
# begins at KL 0; the value warm-up leaves the policy logits where they were
"$F" --mode ppo --init "$M" --batch 1024 --minibatch 256 --ppo-epochs 4 --kl-stop 1e-6 \
	--anchor "$M" --value-warmup 4 --lr 3e-4 --warmup 0 --threads 2 --log-every 1 -q \
	--out "$T/league" < "$T/sp.bin" 2>"$T/lg.err" || { cat "$T/lg.err" >&2; fail "league PPO"; }
$PY - "$T/league/metrics.jsonl" "$T/ppo/metrics.jsonl" <<'PYEOF' || fail "league schedule metrics"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
plain = [json.loads(l) for l in open(sys.argv[2])]
assert [r["step"] for r in rows] == [r["step"] for r in plain], (rows, plain)
r = rows[0]
# warm-up: the first 4 steps are the first pass, critic-only: no KL yet
assert r["value_warmup"] == 1 and r["anchor_coef"] > 0.04 and r["ent_coef"] > 0.0099, r
assert r["ppo_passes"] >= 2 and r["kl_stopped"] == 1, r
assert all(x["kl_stopped"] == 1 and x["ppo_steps"] < y["ppo_steps"]
           for x, y in zip(rows[1:-1], plain[1:-1])), rows
assert all(x["anchor_kl"] is not None and x["anchor_kl"] >= 0 for x in rows), rows
# standard input redirected from the file: the schedule runs over the steps
# the file allows, so the progress and the LR's cosine move within the run
assert rows[-1]["progress"] > rows[0]["progress"], rows
assert rows[-1]["lr"] < max(x["lr"] for x in rows), rows
print("league: passes %s, anchor_kl %s" % ([x["ppo_passes"] for x in rows],
      ["%.4f" % x["anchor_kl"] for x in rows]))
PYEOF
# through a pipe the length is unknown: the progress stays at --progress's A
cat "$T/sp.bin" | "$F" --mode ppo --init "$M" --batch 1024 --minibatch 256 --progress 0.25:0.5 \
	--threads 2 --log-every 1 -q --out "$T/pipe" 2>"$T/pipe.err" ||
	{ cat "$T/pipe.err" >&2; fail "PPO from a pipe"; }
$PY - "$T/pipe/metrics.jsonl" <<'PYEOF' || fail "a pipe's progress"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) > 1 and all(r["progress"] == 0.25 for r in rows), rows
PYEOF

# an anchor trained on another observation version (lib/samples/sample.h) is
# refused at the first batch, before any step
cp "$T/sp.bin" "$T/sp1.bin"
printf '\001' | dd of="$T/sp1.bin" bs=1 seek=17 conv=notrunc 2>/dev/null # version 1
"$F" --arch tiny --steps 1 --batch 64 --threads 2 -q --out "$T/v1" "$T/sp1.bin" 2>"$T/v1.err" ||
	{ cat "$T/v1.err" >&2; fail "fit on version 1"; }
expect_exit 3 "$F" --mode ppo --init "$M" --batch 1024 --minibatch 256 --threads 2 -q \
	--anchor "$T/v1/ckpt-00000001.h5" --out "$T/anch" < "$T/sp.bin"
expect_err "anchor .*ckpt-00000001.h5' was trained on observation version 1 .*the inputs are version 4"
[ ! -e "$T/anch/ckpt-00000001.h5" ] || fail "a refused run saved a checkpoint"

# exact resume at a rollout boundary: steps 17-48 again from the checkpoint
# of step 16 (the same stream, read again and its draws replayed)
"$SP" --games 4 --policy "$M" --seed 2 >"$T/sp2.bin" || fail "hydra-sp again"
cmp -s "$T/sp.bin" "$T/sp2.bin" || fail "hydra-sp is not repeatable"
# (--no-adv-norm: the bare resume below repeats the run only if the
# checkpoint keeps that setting too)
ppo() { "$F" --mode ppo --batch 1024 --minibatch 256 --ppo-epochs 4 --kl-stop 0 --no-adv-norm -q \
	"$@" "$T/sp.bin"; }
ppo --init "$M" --steps 48 --lr 3e-4 --warmup 0 --threads 2 --log-every 1 --save-every 16 \
	--out "$T/full" 2>"$T/e1" || { cat "$T/e1" >&2; fail "full run"; }
mkdir "$T/re"
cp "$T/full/ckpt-00000016.h5" "$T/full/metrics.jsonl" "$T/re/"
ln -s ckpt-00000016.h5 "$T/re/latest"
ppo --resume "$T/re" 2>"$T/e2" || { cat "$T/e2" >&2; fail "resume"; }
grep -q "resuming from .* at step 16" "$T/e2" || fail "no resume notice"
$PY - "$T/full/metrics.jsonl" "$T/re/metrics.jsonl" <<'PYEOF' || fail "resumed run differs"
import json, sys
a, b = ([json.loads(l) for l in open(p)] for p in sys.argv[1:3])
strip = lambda r: {k: v for k, v in r.items() if k not in ("samples_per_s", "elapsed_s")}
assert [r["step"] for r in a] == [16, 32, 48], [r["step"] for r in a]
assert [strip(r) for r in a] == [strip(r) for r in b], (a, b)
PYEOF
[ "$(readlink "$T/re/latest")" = ckpt-00000048.h5 ] || fail "latest after resume"
# the PPO settings live in the checkpoint: a resume that gives none of them
# repeats the run too (the defaults are 3 passes and --kl-stop 0.03)
mkdir "$T/re2"
cp "$T/full/ckpt-00000016.h5" "$T/full/metrics.jsonl" "$T/re2/"
ln -s ckpt-00000016.h5 "$T/re2/latest"
"$F" --mode ppo --resume "$T/re2" -q "$T/sp.bin" 2>"$T/e3" || { cat "$T/e3" >&2; fail "bare resume"; }
$PY - "$T/full/metrics.jsonl" "$T/re2/metrics.jsonl" <<'PYEOF' || fail "bare resume differs"
import json, sys
a, b = ([json.loads(l) for l in open(p)] for p in sys.argv[1:3])
strip = lambda r: {k: v for k, v in r.items() if k not in ("samples_per_s", "elapsed_s")}
assert [strip(r) for r in a] == [strip(r) for r in b], (a, b)
assert all(r["norm_adv"] == 0 for r in b), b
PYEOF
h5dump -A "$T/re2/latest" > "$T/attrs.txt" 2>/dev/null || fail "h5dump -A"
for k in ppo_epochs ppo_clip ppo_kl_stop ppo_ent_end ppo_anchor ppo_progress1 ppo_norm_adv; do
	grep -q "ATTRIBUTE \"$k\"" "$T/attrs.txt" || fail "checkpoint lacks $k"
done
exit 0
