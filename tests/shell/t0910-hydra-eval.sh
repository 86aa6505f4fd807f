#!/bin/sh
# hydra-eval: --help and the man page agree, usage errors; the arena:
# baseline against three random players over 200 seeds (fast tier: 50)
# averages rank <= 1.6,
# baseline against itself lands at 2.5 inside its 95% interval (the four
# rotations share walls: every seed's ranks are 1,2,3,4), so does random
# against random (stochastic choices), the report does not
# depend on tables or threads, --json parses, --table-out equals the table,
# --log-dir logs pass mjai-parse --check and the rotations of a seed start on
# the same deal; a tiny checkpoint plays in the arena; dataset mode on a
# shard made by hydra-encode from hydra-sp logs gives the trainer's own
# validation losses and accuracy, and its confusion and discard misses agree
# with the games it played greedy (hydra-sp --label-by); through hydra-bot (mjai:) the rule bot and
# the checkpoint play the same games as in process; a crashing mjai bot aborts its games
# (exit 1, reported, left out of the statistics). The fast tier plays
# fewer seeds in the statistical arenas (tier_size) and the even match of
# --sequential to 2 looks instead of 3.
. tests/shell/lib.sh
V="$BIN/hydra-eval"
PY=/usr/bin/python3
need_cmd "$PY"

# --help, man page, -V
expect_exit 0 "$V" --help
sed 's/\\-/-/g' "$TOP/man/hydra-eval.1" > "$T/man.txt"
grep -q '^usage: hydra-eval \[--challenger A\] --opponent B \[options\]' "$T/out" || fail "--help usage"
grep -A1 '^\.B hydra-eval' "$TOP/man/hydra-eval.1" | grep -q '\[.*challenger.*\].*opponent' || fail "man SYNOPSIS"
for o in challenger opponent seeds seed tables threads temperature bot-timeout log-dir model data \
	batch device json table-out quiet help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done
expect_exit 0 "$V" -V
grep -q '^hydra-eval (hydra-c) ' "$T/out" || fail "-V"

# usage errors
expect_exit 2 "$V"
expect_err "nothing to do"
expect_exit 2 "$V" --challenger baseline
expect_err "needs --opponent"
expect_exit 2 env HYDRA_MODELS="$T/no-models" "$V" --opponent baseline
expect_err "no challenger named, and no shipped policy.h5 \(looked in $T/no-models\): give --challenger A"
expect_exit 2 env HYDRA_MODELS="$T/no-models" "$V" --data "$T"
expect_err "no model named, and no shipped policy.h5"
expect_exit 2 "$V" --challenger baseline --opponent random --seeds 0
expect_err "bad --seeds '0'"
expect_exit 2 "$V" --challenger baseline --opponent random --tables x
expect_exit 2 "$V" --challenger baseline --opponent random --temperature -1
expect_exit 2 "$V" --challenger baseline --opponent random --bot-timeout 0
expect_exit 2 "$V" --challenger baseline --opponent random --device tpu
expect_exit 2 "$V" --challenger nosuchpolicy --opponent random --seeds 1
expect_err "unknown policy 'nosuchpolicy'"
expect_exit 2 "$V" --challenger baseline --opponent random --model x.h5
expect_err "exclude each other"
expect_exit 2 "$V" --model x.h5
expect_err "needs --data"
expect_exit 2 "$V" --challenger baseline --opponent random extra
expect_err "unexpected argument 'extra'"
expect_exit 1 "$V" --challenger "$T/missing.h5" --opponent random --seeds 1
expect_err "missing.h5"

# baseline vs 3 random, 200 seeds (800 games)
N=$(tier_size 50 200)
expect_exit 0 "$V" --challenger baseline --opponent random --seeds "$N" --seed 7 --json -q
cp "$T/out" "$T/br.json"
$PY - "$T/br.json" "$N" <<'PYEOF' || fail "baseline vs random"
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert r["games"] == 4 * n and r["seeds_counted"] == n and r["aborted"] == 0, r
assert sum(r["rank_count"]) == 4 * n
print("baseline vs random: average rank %.4f [%s, %s], points %.2f" % (
    r["rank"]["mean"], r["rank"]["lo"], r["rank"]["hi"], r["points"]["mean"]))
assert r["rank"]["mean"] <= 1.6, r["rank"]
pts = [90, 45, 0, -135]
assert abs(sum(c * p for c, p in zip(r["rank_count"], pts)) / (4 * n) - r["points"]["mean"]) < 1e-6
for who in ("challenger", "opponents"):
    for k in ("win", "deal_in", "call", "riichi"):
        assert 0 <= r["rates"][who][k] <= 1, (who, k)
PYEOF

# baseline vs baseline: the rotations of a seed are the same game, the
# challenger takes every rank once per seed: 2.5 inside the interval
N=$(tier_size 10 30)
expect_exit 0 "$V" --challenger baseline --opponent baseline --seeds "$N" --json -q
$PY - "$T/out" "$N" <<'PYEOF' || fail "baseline vs baseline"
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert r["games"] == 4 * n and r["rank_count"] == [n] * 4, r["rank_count"]
assert r["rank"]["lo"] <= 2.5 <= r["rank"]["hi"], r["rank"]
assert r["points"]["lo"] <= 0 <= r["points"]["hi"], r["points"]
assert r["rates"]["challenger"]["win"] == r["rates"]["opponents"]["win"]
PYEOF

# random vs random: stochastic choices, 2.5 inside the interval
N=$(tier_size 20 50)
expect_exit 0 "$V" --challenger random --opponent random --seeds "$N" --json -q
$PY - "$T/out" "$N" <<'PYEOF' || fail "random vs random"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["games"] == 4 * int(sys.argv[2]) and r["rank"]["lo"] <= 2.5 <= r["rank"]["hi"], r["rank"]
PYEOF

# the report does not depend on tables and threads (timing keys aside)
"$V" --challenger random --opponent baseline --seeds 12 --seed 3 --tables 1 --threads 1 --json -q \
	> "$T/a.json" || fail "tables 1"
"$V" --challenger random --opponent baseline --seeds 12 --seed 3 --tables 7 --threads 2 --json -q \
	> "$T/b.json" || fail "tables 7"
$PY - "$T/a.json" "$T/b.json" <<'PYEOF' || fail "tables/threads change the report"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    del r["elapsed_s"], r["games_per_s"]
assert a == b
PYEOF

# the table, --table-out, --log-dir
expect_exit 0 "$V" --challenger baseline --opponent random --seeds 3 --table-out "$T/table.txt" \
	--log-dir "$T/logs" -q
same_file "$T/table.txt" "$T/out"
for k in challenger opponent seeds games 'average rank' 'placement points' 'average score' ranks \
	'per kyoku'; do
	grep -q "^$k" "$T/table.txt" || fail "table lacks '$k'"
done
grep -q '95% CI \[' "$T/table.txt" || fail "table lacks the interval"
ls "$T" | grep -q 'tmp' && fail "temporary file left"
[ "$(ls "$T/logs" | wc -l)" -eq 12 ] || fail "--log-dir: expected 12 logs"
[ -f "$T/logs/seed-00000002-r3.json.gz" ] || fail "--log-dir names"
if [ -x "$BIN/mjai-parse" ]; then
	"$BIN/mjai-parse" --check "$T/logs" > /dev/null 2> "$T/check.err" || { cat "$T/check.err" >&2; fail "logs"; }
	grep -q ' 0 illegal events, 0 score mismatches' "$T/check.err" || fail "mjai-parse --check"
fi
for r in 1 2 3; do
	[ "$(gzip -dc "$T/logs/seed-00000001-r0.json.gz" | sed -n 2p)" = \
	  "$(gzip -dc "$T/logs/seed-00000001-r$r.json.gz" | sed -n 2p)" ] || fail "rotation $r: another deal"
done
gzip -dc "$T/logs/seed-00000001-r0.json.gz" | head -1 | grep -q '"start_game"' || fail "log start"
: > "$T/afile"
expect_exit 1 "$V" --challenger baseline --opponent random --seeds 1 --log-dir "$T/afile/logs" -q
expect_err "afile/logs"
expect_exit 1 "$V" --challenger baseline --opponent random --seeds 1 --table-out "$T/afile/t.txt" -q
expect_err "afile/t.txt"

# a tiny checkpoint: samples from self-play, encoded, one short fit
[ -x "$BIN/hydra-sp" ] && [ -x "$BIN/hydra-encode" ] && [ -x "$BIN/hydra-fit" ] ||
	skip "hydra-sp/hydra-encode/hydra-fit not built (skipped)"
"$BIN/hydra-sp" --games 3 --policy baseline --log-dir "$T/sp" --no-samples 2> "$T/sp.err" ||
	{ cat "$T/sp.err" >&2; fail "hydra-sp"; }
"$BIN/hydra-encode" -o "$T/s.h5" "$T/sp" 2> "$T/enc.err" || { cat "$T/enc.err" >&2; fail "hydra-encode"; }
"$BIN/hydra-fit" --arch tiny --steps 3 --batch 4096 --threads 2 --val "$T/s.h5" --eval-every 3 \
	--out "$T/run" -q "$T/s.h5" 2> "$T/fit.err" || { cat "$T/fit.err" >&2; fail "hydra-fit"; }
CK="$T/run/ckpt-00000003.h5"
[ -f "$CK" ] || fail "no checkpoint"

# the observation version (lib/samples/sample.h): the checkpoint records its
# samples'; one trained on another version than this build encodes does not
# play, and a model is not evaluated, nor trained on, samples of another
h5dump -a obs_version "$CK" | grep -q '(0): 4' || fail "checkpoint obs_version"
"$BIN/hydra-augment" --perms 0 --format stream -o "$T/s1.bin" "$T/s.h5" || fail "to a stream"
printf '\001' | dd of="$T/s1.bin" bs=1 seek=17 conv=notrunc 2>/dev/null # version 1
"$BIN/hydra-fit" --arch tiny --steps 1 --batch 64 --threads 2 --out "$T/run1" -q "$T/s1.bin" \
	2> "$T/fit.err" || { cat "$T/fit.err" >&2; fail "hydra-fit on version 1"; }
h5dump -a obs_version "$T/run1/ckpt-00000001.h5" | grep -q '(0): 1' || fail "obs_version 1"
expect_exit 3 "$V" --challenger "$T/run1/ckpt-00000001.h5" --opponent baseline --seeds 1 -q
expect_err "trained on observation version 1, and this build encodes version 4"
expect_exit 3 "$V" --model "$CK" --data "$T/s1.bin" --device cpu
expect_err "s1.bin: samples of observation version 1, the model 4"
expect_exit 3 "$BIN/hydra-fit" --init "$CK" --arch tiny --steps 1 --batch 64 --out "$T/run2" -q "$T/s1.bin"
expect_err "was trained on observation version 4, the inputs are version 1"
[ ! -e "$T/run2/ckpt-00000001.h5" ] || fail "a refused run saved a checkpoint"

# it plays (greedy and sampling), against the rule bot and as an opponent
expect_exit 0 "$V" --challenger "$CK" --opponent baseline --seeds 2 --threads 2 --json -q
$PY -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["games"] == 8, r' "$T/out" ||
	fail "checkpoint as challenger"
expect_exit 0 "$V" --challenger random --opponent "$CK" --seeds 1 --temperature 1 -q
grep -q '^games  *4 counted, 0 aborted' "$T/out" || fail "checkpoint as opponent"
if ! command -v nvidia-smi >/dev/null 2>&1; then # no GPU: cuda is refused
	expect_exit 4 "$V" --model "$CK" --data "$T/s.h5" --device cuda
	expect_err "requested device unavailable"
fi

# dataset mode: one batch over the whole shard equals hydra-fit's validation
# at the step of the checkpoint (same loss functions, same thread count)
expect_exit 0 "$V" --model "$CK" --data "$T/s.h5" --batch 4096 --threads 2 --device cpu --json
cp "$T/out" "$T/ds.json"
$PY - "$T/ds.json" "$T/run/metrics.jsonl" <<'PYEOF' || fail "dataset mode"
import json, sys
r = json.load(open(sys.argv[1]))
m = [json.loads(l) for l in open(sys.argv[2])][-1]
assert m["step"] == 3 and "val_loss" in m, m
assert r["blocks"] == 2 and r["channels"] == 32
types = "discard riichi chi pon kan win kyuushu pass".split()
acc = r["accuracy"]
assert sum(acc[t]["samples"] for t in types) == r["samples"] == acc["all"]["samples"] > 100
for t in types + ["all"]:
    if acc[t]["samples"]:
        assert 0 <= acc[t]["top1"] <= acc[t]["top3"] <= 1, t
    else:
        assert acc[t]["top1"] is None, t
def close(a, b):
    return abs(a - b) <= 1e-5 * max(1.0, abs(b))
for k in "policy value grp tenpai danger".split():
    assert close(r["loss"][k], m["val_" + k]), (k, r["loss"][k], m["val_" + k])
assert close(r["loss"]["total"], m["val_loss"]), (r["loss"]["total"], m["val_loss"])
assert close(acc["all"]["top1"], m["val_acc"]), (acc["all"]["top1"], m["val_acc"])
print("dataset: %d samples, top-1 %.4f, top-3 %.4f, policy loss %.4f" % (
    r["samples"], acc["all"]["top1"], acc["all"]["top3"], r["loss"]["policy"]))
PYEOF
# batches of 7 and a stream on stdin give the same accuracy counts
"$BIN/hydra-encode" "$T/sp" 2>/dev/null | "$V" --model "$CK" --data - --batch 7 --device cpu --json > "$T/ds7.json" ||
	fail "dataset mode on stdin"
$PY - "$T/ds.json" "$T/ds7.json" <<'PYEOF' || fail "batch size changes the accuracy"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["accuracy"] == b["accuracy"], (a["accuracy"], b["accuracy"])
for k in a["loss"]:
    assert abs(a["loss"][k] - b["loss"][k]) <= 1e-4 * max(1, abs(a["loss"][k])), k
PYEOF
# the confusion and the discard misses: the checkpoint plays greedy against
# three rulebot twice on the same walls, its samples labelled once with its
# own choices and once with rulebot's (--label-by). On the first stream its
# top-1 is what it played; on the second, the confusion's columns count
# those choices by type, and the misses are the discards it got wrong.
for lab in own rulebot; do
	"$BIN/hydra-sp" --games 4 --seat0 "$CK" --others rulebot -T 0 --learner --seed 77 -q \
		$( [ $lab = rulebot ] && echo --label-by rulebot ) -o "$T/dag-$lab.bin" 2> "$T/sp.err" ||
		{ cat "$T/sp.err" >&2; fail "hydra-sp --label-by"; }
	expect_exit 0 "$V" --model "$CK" --data "$T/dag-$lab.bin" --device cpu --json
	cp "$T/out" "$T/dag-$lab.json"
done
$PY - "$T/dag-own.json" "$T/dag-rulebot.json" <<'PYEOF' || fail "confusion"
import json, sys
own, lab = (json.load(open(p)) for p in sys.argv[1:3])
types = "discard riichi chi pon kan win kyuushu pass".split()
assert own["samples"] == lab["samples"] > 50
for r in (own, lab):
    c = r["confusion"]
    for t in types:  # each row sums to the label's count
        assert sum(c[t][u] for u in types) == r["accuracy"][t]["samples"], t
    n = r["accuracy"]["discard"]["samples"]
    right = round(r["accuracy"]["discard"]["top1"] * n) if n else 0
    assert sum(r["discard_misses"].values()) == c["discard"]["discard"] - right
# its own choices: top-1 on (nearly) every sample, a float tie aside
assert own["accuracy"]["all"]["top1"] >= 0.99, own["accuracy"]["all"]
assert sum(own["discard_misses"].values()) <= 0.01 * own["samples"]
# the model's choices by type are the columns of the relabelled confusion
col = {u: sum(lab["confusion"][t][u] for t in types) for u in types}
for u in types:
    assert abs(col[u] - own["accuracy"][u]["samples"]) <= 0.01 * own["samples"] + 1, (u, col)
# a tiny model disagrees with rulebot, so there are misses to classify
assert lab["accuracy"]["all"]["top1"] < 0.99 and sum(lab["discard_misses"].values()) > 0
print("confusion: %d samples, %d discard misses against rulebot" % (
    lab["samples"], sum(lab["discard_misses"].values())))
PYEOF
expect_exit 0 "$V" --model "$CK" "$T/s.h5" --data "$T/s.h5" --table-out "$T/ds.txt" -q
for k in discard riichi chi pon kan win kyuushu pass all loss "the model's top-1" "discard misses" \
	"  a riichi: only the label's safe"; do
	grep -q "^$k" "$T/ds.txt" || fail "dataset table lacks '$k'"
done
same_file "$T/ds.txt" "$T/out"
expect_exit 3 "$V" --model "$CK" --data "$TOP/tests/golden/samples/bad-magic.bin"
expect_exit 1 "$V" --model "$CK" --data "$TOP/tests/golden/samples/truncated.bin"
expect_exit 1 "$V" --model "$CK" --data "$TOP/tests/golden/samples/empty.bin"
expect_err "no samples"

# the rule bot through the mjai bot protocol (hydra-bot) plays the same
# games as the rule bot itself: the same report and the same logs
if [ -x "$BIN/hydra-bot" ]; then
	for c in baseline "mjai:$BIN/hydra-bot baseline"; do
		d=$(echo "$c" | cut -c1-4)
		"$V" --challenger "$c" --opponent random --seeds 2 --tables 3 --log-dir "$T/eq-$d" --json -q \
			> "$T/eq-$d.json" || fail "--challenger '$c'"
	done
	$PY - "$T/eq-base.json" "$T/eq-mjai.json" <<'PYEOF' || fail "mjai:hydra-bot baseline differs from baseline"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    del r["elapsed_s"], r["games_per_s"], r["challenger"]
assert a == b and a["games"] == 8, (a, b)
PYEOF
	# the tiny checkpoint greedy, in-process and through hydra-bot
	"$V" --challenger "$CK" --opponent baseline --seeds 2 --json -q > "$T/eq-ck.json" ||
		fail "checkpoint challenger"
	"$V" --challenger "mjai:$BIN/hydra-bot $CK" --opponent baseline --seeds 2 --json -q \
		> "$T/eq-bot.json" || fail "mjai:hydra-bot CKPT"
	$PY - "$T/eq-ck.json" "$T/eq-bot.json" <<'PYEOF' || fail "mjai:hydra-bot CKPT differs from CKPT"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# the checkpoint in-process says its temperature; through the bot protocol
# the arena cannot know it
assert a["challenger_temperature"] == 0 and b["challenger_temperature"] is None, (a, b)
assert a["opponent_temperature"] is None and b["opponent_temperature"] is None, (a, b)
for r in (a, b):
    del r["elapsed_s"], r["games_per_s"], r["challenger"], r["challenger_temperature"]
assert a == b and a["games"] == 8, (a, b)
PYEOF
	for f in "$T/eq-base"/*; do # the same events; start_game names the players
		gzip -dc "$f" | sed 1d > "$T/eq-a"
		gzip -dc "$T/eq-mjai/$(basename "$f")" | sed 1d > "$T/eq-b"
		[ -s "$T/eq-a" ] || fail "empty log $f"
		same_file "$T/eq-a" "$T/eq-b"
	done
fi

# a bot that dies at once: every game of the challenger aborted, reported,
# left out, exit 1, the report printed all the same
expect_exit 1 "$V" --challenger 'mjai:false' --opponent random --seeds 2 --json -q
grep -q 'game aborted (seed 0, rotation 0)' "$T/err" || { cat "$T/err" >&2; fail "aborted game not reported"; }
$PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["aborted"] == 8 and r["games"] == 0 and r["seeds_excluded"] == 2, r
assert r["rank"]["mean"] is None' "$T/out" || fail "aborted games in the report"
# --sequential: a clear result stops at the first look (100 seeds), at the
# level of 3 looks; an even match plays every look and says so; the rule
# is refused in dataset mode
expect_exit 0 "$V" --challenger rulebot --opponent baseline --seeds 400 --sequential --json -q
$PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
q = r["sequential"]
assert q["decided"] and q["looks"] == [100] and q["max_looks"] == 3, q
assert r["seeds"] == 100 and r["unplayed"] == 0 and r["games"] == 400, r
assert abs(r["confidence"] - (1 - 0.05 / 3)) < 1e-9 and r["rank"]["hi"] < 2.5, r' "$T/out" ||
	fail "hydra-eval --sequential, a clear result"
# (full tier: 400 seeds, 3 looks at 98.33%; fast tier: 200 seeds, 2 looks at 97.5%)
N=$(tier_size 200 400) L=$(tier_size 2 3) CI=$(tier_size 97.5 98.33)
expect_exit 0 "$V" --challenger baseline --opponent baseline --seeds "$N" --sequential -q
grep -q "^sequential  *not decided at $N seeds ($L looks)" "$T/out" ||
	{ cat "$T/out" >&2; fail "hydra-eval --sequential, an even match"; }
grep -q "$CI% CI" "$T/out" || { cat "$T/out" >&2; fail "the looks' level not in the table"; }
expect_exit 2 "$V" --model x.h5 --data x.sms --sequential
grep -q 'belongs to the arena' "$T/err" || fail "--sequential in dataset mode"
exit 0
