#!/bin/sh
# The GRP and its rewards: hydra-fit --mode grp on a few hundred baseline
# self-play games lowers the validation log-loss below ln 24 and prints the
# calibration (also on the shared real logs when present); hydra-sp --reward
# grp:PATH writes samples whose rewards sit on each seat's last decision of a
# kyoku, are clipped to [-5, 5] and do not depend on the table count; the
# normalisation state file round-trips and grows; a policy checkpoint given
# as grp: and a GRP given as a policy are refused; usage errors; the GRP's
# rollout advantages of hydra-sp --label-by qlabel: --label-adv; the
# search's oracle deals under hydra-eval --oracle. The fast tier trains the
# GRP on 100 games instead of 300.
. tests/shell/lib.sh
S="$BIN/hydra-sp"
F="$BIN/hydra-fit"
PY=/usr/bin/python3

# usage errors
expect_exit 2 "$F" --mode grp "$T/none"
expect_err "needs --out"
expect_exit 2 "$F" --mode grp -o "$T/x" --val-fraction 2
expect_exit 2 "$S" --games 1 --reward bogus -o "$T/x.bin"
expect_err "bad --reward"
expect_exit 2 "$S" --games 1 --reward-state "$T/st" -o "$T/x.bin"
expect_err "goes with --reward grp"
expect_exit 2 "$S" --games 1 --reward grp:"$T/g.h5" --no-samples
expect_exit 0 "$F" --help
grep -q -- 'hydra-fit --mode grp -o DIR' "$T/out" || fail "--help lacks --mode grp"
for o in hidden val-fraction keep-going; do
	grep -q -- "--$o" "$T/out" || fail "hydra-fit --help lacks --$o"
	sed 's/\\-/-/g' "$TOP/man/hydra-fit.1" | grep -q -- "--$o" || fail "man page lacks --$o"
done
expect_exit 0 "$S" --help
for o in reward reward-state; do
	grep -q -- "--$o" "$T/out" || fail "hydra-sp --help lacks --$o"
	sed 's/\\-/-/g' "$TOP/man/hydra-sp.1" | grep -q -- "--$o " || fail "man page lacks --$o"
done

# a GRP trained on 300 baseline games (fast tier: 100)
expect_exit 0 "$S" --games "$(tier_size 100 300)" --seed 11 --tables 16 --threads 2 --no-samples --log-dir "$T/L"
expect_exit 0 "$F" --mode grp -q -o "$T/grp" "$T/L"
[ -f "$T/grp/grp.h5" ] && [ -f "$T/grp/metrics.jsonl" ] || fail "grp.h5 and metrics.jsonl"
ls -a "$T/grp" | grep -q 'tmp-' && fail "temporary files left"
grep 'calibration on' "$T/err" | sed 's/^/self-play /' || fail "no calibration line"
loss=$(sed -n 's/.*log-loss \([0-9.]*\) .*/\1/p' "$T/err")
awk -v l="$loss" 'BEGIN { exit !(l > 0 && l < 3.1781) }' ||
	fail "validation log-loss $loss is not below ln 24"
grep -q '"calibration":{"games":' "$T/grp/metrics.jsonl" || fail "metrics calibration line"
[ "$(grep -c '"epoch":' "$T/grp/metrics.jsonl")" -eq 30 ] || fail "30 epoch lines"
if command -v h5dump > /dev/null 2>&1; then
	h5dump -a kind "$T/grp/grp.h5" | grep -q '"grp"' || fail "kind attribute"
fi

# the shared real logs (read in place), calibration printed only
if [ -d "$DATA/logs" ]; then
	expect_exit 0 "$F" --mode grp -q -k --epochs 20 -o "$T/real" "$DATA/logs"
	grep 'calibration on\|no validation' "$T/err" | sed 's/^/real logs /'
else
	echo "shared data not found at $DATA: real-log calibration skipped"
fi

# self-play with GRP rewards
expect_exit 0 "$S" --games 6 --seed 3 --tables 4 --reward grp:"$T/grp/grp.h5" \
	--reward-state "$T/state" -o "$T/r1.bin"
expect_err "grp rewards: 6 games, running std [0-9.e-]+ over [0-9]+ kyoku rewards \\(new state"
head -n 1 "$T/state" | grep -q '^hydra-reward-state 1$' || fail "state file header"
c1=$(sed -n 's/^count //p' "$T/state")
[ "$c1" -gt 24 ] || fail "state count $c1"
cp "$T/state" "$T/state0"
expect_exit 0 "$S" --games 6 --seed 4 --tables 4 --reward grp:"$T/grp/grp.h5" \
	--reward-state "$T/state" -o "$T/r2.bin"
expect_err "\\(state '"
c2=$(sed -n 's/^count //p' "$T/state")
[ "$c2" -gt "$c1" ] || fail "state count did not grow ($c1 -> $c2)"
# the same games from the same state: identical samples, whatever the tables
cp "$T/state0" "$T/state1"
expect_exit 0 "$S" --games 6 --seed 4 --tables 1 --threads 2 --reward grp:"$T/grp/grp.h5" \
	--reward-state "$T/state1" -o "$T/r3.bin"
same_file "$T/r2.bin" "$T/r3.bin"
same_file "$T/state" "$T/state1"
# placement stays the default
expect_exit 0 "$S" --games 6 --seed 3 --tables 4 -o "$T/p1.bin"
cmp -s "$T/r1.bin" "$T/p1.bin" && fail "grp rewards equal placement rewards"
if [ -x "$PY" ]; then
	$PY - "$T/r1.bin" <<'PYEOF' || fail "reward fields"
import struct, sys
b = open(sys.argv[1], "rb").read()
recs, off = [], 32
while off + 5888 <= len(b) and b[off] == 1:
    recs.append(b[off:off + 5888]); off += 5888
assert len(recs) > 1000, len(recs)
last = {}  # (game, seat, grand kyoku, honba) -> index of the seat's last step there
for i, r in enumerate(recs):
    seat, gk, honba = r[2], r[3], r[4]
    game = struct.unpack_from("<Q", r, 48)[0]
    last[(game, seat, gk, honba)] = i
ends = set(last.values())
nonzero = 0
for i, r in enumerate(recs):
    reward = struct.unpack_from("<f", r, 28)[0]
    assert -5 <= reward <= 5, reward
    if reward != 0:
        nonzero += 1
        assert i in ends, "a reward before the seat's last decision of its kyoku"
# (a seat may carry a kyoku without decisions to its next one: nearly all ends)
assert nonzero >= 0.9 * len(ends), (nonzero, len(ends))
print("grp rewards: %d samples, %d non-zero at %d kyoku ends" % (len(recs), nonzero, len(ends)))
PYEOF
fi

# kinds do not mix
"$F" --arch tiny --steps 1 --batch 32 --out "$T/pol" "$T/p1.bin" 2> "$T/fit" ||
	{ cat "$T/fit" >&2; fail "hydra-fit (policy)"; }
expect_exit 3 "$S" --games 1 --reward grp:"$T/pol/latest" -o "$T/x.bin"
expect_err "not a GRP"
expect_exit 3 "$S" --games 1 --policy "$T/grp/grp.h5" --no-samples
expect_err "is a GRP model \(hydra-fit --mode grp\), not a policy network or a wait reader"
expect_exit 3 "$S" --games 1 --reward grp:"$T/grp/grp.h5" --reward-state "$T/grp/metrics.jsonl" \
	-o "$T/x.bin"
expect_err "not a reward state file"

# --label-by qlabel:GRP --label-adv: the rollout advantage of each action
# the seat took over rulebot's choice (lib/play/policies/qlabel.h)
G="$T/grp/grp.h5"
expect_exit 2 "$S" --games 1 --label-adv -o "$T/x.bin"
expect_err "goes with --label-by qlabel"
expect_exit 2 "$S" --games 1 --label-by qlabel:"$G" --label-adv --reward grp:"$G" -o "$T/x.bin"
expect_err "not with --reward"
expect_exit 2 "$S" --games 1 --label-by rulebot --label-adv -o "$T/x.bin"
expect_err "an advantage labeller"
expect_exit 2 "$S" --games 1 --label-by qlabel:"$G" -o "$T/x.bin"
expect_err "use it with advantage labels"
expect_exit 2 "$S" --games 1 --policy qlabel:"$G" --no-samples
expect_err "it does not play"
expect_exit 2 "$S" --games 1 --label-by qlabel:"$G",1 --label-adv -o "$T/x.bin"
expect_err "rollouts '1'"
[ ! -e "$T/x.bin" ] || fail "a refused run wrote samples"
"$S" -q --games 2 --seed 4 --policy random --label-by qlabel:"$G",4 --label-adv -o "$T/q1.bin" ||
	fail "--label-adv"
"$S" -q --games 2 --seed 4 --tables 1 --threads 1 --policy random \
	--label-by qlabel:"$G",4 --label-adv -o "$T/q2.bin" || fail "--label-adv, one table"
cmp -s "$T/q1.bin" "$T/q2.bin" || fail "--label-adv depends on the tables and threads"
"$S" -q --games 2 --seed 4 --policy random -o "$T/rnd.bin" || fail "random samples"
"$S" -q --games 2 --seed 4 --policy rulebot --label-by qlabel:"$G",4 --label-adv \
	-o "$T/q3.bin" || fail "--label-adv of rulebot"
$PY - "$T/q1.bin" "$T/rnd.bin" "$T/q3.bin" <<'PYEOF' || fail "--label-adv samples"
import struct, sys, math
def recs(p):
    d = open(p, "rb").read(); R = 5888
    n = (len(d) - 32) // R - 1
    return [d[32 + i * R:32 + (i + 1) * R] for i in range(n)]
q, rnd, rb = (recs(p) for p in sys.argv[1:4])
# the same games as random's own samples, less the steps without a label
# (random took rulebot's choice, or a win was offered): a subsequence,
# byte for byte but for the reward, the advantage and the return
strip = lambda r: r[:28] + r[40:]
j = 0
advs = []
for r in q:
    while j < len(rnd) and strip(rnd[j]) != strip(r):
        j += 1
    assert j < len(rnd), "a --label-adv sample that random did not record"
    logp, value, reward, adv, ret = struct.unpack_from("<5f", r, 20)
    assert logp < 0 and ret == 0 and reward == 0, (logp, ret, reward)
    assert math.isfinite(adv)
    advs.append(adv)
    j += 1
assert 0.5 * len(rnd) < len(q) < len(rnd), (len(q), len(rnd))
# rulebot always takes its own choice: nothing to label
assert len(rb) == 0, len(rb)
# random's moves are worse than rulebot's on average
mean = sum(advs) / len(advs)
assert mean < 0, mean
print("label-adv: %d of random's %d decisions valued, mean advantage %+.3f" % (len(q), len(rnd), mean))
PYEOF

# The search's oracle deals (lib/play/policies/deal.h) read the hidden hands: a
# diagnostic that hydra-eval plays only with --oracle, never a teacher
EV="$BIN/hydra-eval"
expect_exit 2 "$EV" --challenger search:"$G",4,oracle --opponent rulebot --seeds 1 -q
expect_err "hydra-eval --oracle"
expect_exit 2 "$EV" --oracle --model "$G" --data "$T/q1.bin"
expect_err "--oracle belongs to the arena"
expect_exit 2 "$EV" --challenger search:"$G",4,oracle,5 --opponent rulebot --seeds 1 -q
expect_err "want search:GRP.h5"
expect_exit 2 "$S" --games 1 --label-by search:"$G",4,oracle-tenpai -o "$T/x.bin"
expect_err "not a teacher"
[ ! -e "$T/x.bin" ] || fail "a refused run wrote samples"
"$EV" --oracle --challenger search:"$G",4,oracle-tenpai --opponent rulebot --seeds 1 --json \
	>"$T/oracle.json" 2>"$T/oracle.err" || fail "--oracle"
grep -q "not a player's strength" "$T/oracle.err" || fail "--oracle does not say what it measured"
$PY - "$T/oracle.json" <<'PYEOF' || fail "--oracle arena"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["games"] == 4 and r["aborted"] == 0, r
PYEOF
exit 0
