#!/bin/sh
# The design's oracle guiding in hydra-fit (issue 52 step 2): --oracle trains
# a teacher on the 205 oracle planes of hydra-sp --hidden samples (its
# checkpoints say oracle_planes 205; samples without their hidden state are
# refused, as is --oracle on a GPU); --teacher distils a student from it,
# the oracle planes fading by the design's table (metrics: distil_kl,
# distil_lambda, oracle_opp, oracle_wall, lr_factor by quarters of the run),
# and the student, started from an 85-plane model with its oracle columns at
# zero, learns the teacher: its KL falls. The teacher plays only where the
# hidden tiles are dealt and allowed (hydra-eval --oracle); the faded
# student plays anywhere.
. tests/shell/lib.sh
need_cmd h5dump
cd "$T" || exit 1
"$BIN/hydra-sp" -q --policy rulebot --games 6 --seed 5 --hidden -o h.bin || fail "hydra-sp --hidden"
"$BIN/hydra-sp" -q --policy rulebot --games 1 --seed 5 -o plain.bin || fail "hydra-sp"
F="$BIN/hydra-fit -q --arch tiny --threads 1 --batch 64"
attr() { h5dump -a "$2" "$1" | sed -n 's/^ *(0): \(.*\)$/\1/p'; }
$F --oracle --steps 30 --out teacher h.bin 2>fit.err || { cat fit.err; fail "--oracle"; }
[ "$(attr teacher/latest oracle_planes)" = 205 ] || fail "a teacher's oracle_planes"
# samples without the hidden state do not train an oracle model
expect_exit 1 $F --oracle --steps 2 --out bad plain.bin
expect_err "without its hidden state"
[ ! -e bad/latest ] || fail "a checkpoint from samples without their hidden state"
expect_exit 4 $F --oracle --device cuda --steps 2 --out gpu h.bin
# an 85-plane start, widened
$F --steps 4 --out plain plain.bin 2>/dev/null || fail "a plain model"
$F --init plain/latest --oracle --teacher teacher/latest --steps 40 --lr 2e-3 --log-every 1 \
	--out student h.bin 2>st.err || { cat st.err; fail "--teacher"; }
[ "$(attr student/latest oracle_planes)" = 205 ] || fail "a student's oracle_planes"
/usr/bin/python3 - student/metrics.jsonl <<'PYEOF' || fail "the student's fade and KL"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"distil_kl"' in l]
by = {r["step"]: r for r in rows}
want = {1: (1, 1, 1, 1), 10: (1, 1, 1, 1), 11: (0.7, 0.5, 0.8, 1), 21: (0.3, 0.2, 0.5, 1),
        31: (0, 0, 0.3, 0.1), 40: (0, 0, 0.3, 0.1)}
for s, (o, w, l, f) in want.items():
    r = by[s]
    got = (r["oracle_opp"], r["oracle_wall"], r["distil_lambda"], r["lr_factor"])
    assert all(abs(a - b) < 1e-6 for a, b in zip(got, (o, w, l, f))), (s, got)
first = sum(by[s]["distil_kl"] for s in range(1, 6)) / 5
last = sum(by[s]["distil_kl"] for s in range(6, 11)) / 5
assert last < first, (first, last)
PYEOF
# the teacher reads the hidden state: it plays in the arena under --oracle
# only; the student, faded to 0 by the end, plays anywhere on the public
# planes (its oracle_scale is 0 0)
E="$BIN/hydra-eval -q --opponent rulebot --seeds 2 --json"
expect_exit 2 $E --challenger teacher/latest
expect_err "reads the hidden tiles"
$E --oracle --challenger teacher/latest > t.json 2>e.err || { cat e.err; fail "the teacher in the arena"; }
grep -q '"rank"' t.json || fail "the teacher's arena"
[ "$(h5dump -a oracle_scale student/latest | grep -c '(0): 0, 0')" = 1 ] || fail "a faded student's oracle_scale"
$E --challenger student/latest > s.json 2>e.err || { cat e.err; fail "the faded student in the arena"; }
echo '[{"type":"start_game","id":0,"names":["a","b","c","d"]},{"type":"end_game"}]' |
	"$BIN/hydra-bot" -q student/latest > bot.out 2>&1 || { cat bot.out; fail "hydra-bot with the faded student"; }
# the ONNX graph takes the 85 planes: a model with the oracle planes is refused
"$BIN/hydra-export" -o t.onnx teacher/latest 2>x.err && fail "an oracle model exported to ONNX"
grep -q "oracle planes" x.err || { cat x.err; fail "hydra-export's word on an oracle model"; }
[ ! -e t.onnx ] || fail "a partial ONNX file"
# the teacher's KL term needs --mode bc
expect_exit 2 $F --mode ppo --init teacher/latest --teacher teacher/latest --out p h.bin
exit 0
