#!/bin/sh
# The degraded wait oracle (rulebot-waits:ALPHA[,riichi|tenpai][,PARAMS];
# lib/play/policies/waitoracle.h): at alpha 0 it plays rulebot:PARAMS's games move for
# move and reports its belief's log-loss below the base rate's; at alpha 1,
# the true waits, it plays far better (and its log-loss is near 0); it reads
# the hidden tiles, so hydra-eval plays it only with --oracle and hydra-bot
# refuses it; its spec errors are usage errors.
. tests/shell/lib.sh
need_cmd jq
V="$BIN/hydra-eval"
P="$TOP/bench/learn/t1.params"
cd "$T"
arena() { # CHALLENGER OUT: 100 seeds at master seed 9100 against 3 x rulebot
	"$V" --oracle -q --challenger "$1" --opponent rulebot --seeds 100 --seed 9100 -j 2 --json \
		> "$2.json" 2> "$2.err" || { cat "$2.err"; fail "hydra-eval $1"; }
}
"$V" -q --challenger "rulebot:$P" --opponent rulebot --seeds 100 --seed 9100 -j 2 --json > t1.json ||
	fail "hydra-eval t1"
arena "rulebot-waits:0,riichi,$P" a0
arena "rulebot-waits:1,riichi,$P" a1
arena "rulebot-waits:1,tenpai,$P" t1b
for f in t1 a0; do jq 'del(.elapsed_s, .games_per_s, .challenger)' $f.json > $f.cmp; done
cmp -s t1.cmp a0.cmp || { diff t1.cmp a0.cmp; fail "alpha 0 does not play rulebot:PARAMS's games"; }
ll() { sed -n 's/.*log-loss \([0-9.]*\) per cell against the base rate.s \([0-9.]*\)[ ,].*/\1 \2/p' "$1.err"; }
set -- $(ll a0)
[ -n "$2" ] || { cat a0.err; fail "no log-loss line"; }
awk -v l="$1" -v b="$2" 'BEGIN { exit !(l > 0.01 && l < b) }' ||
	fail "alpha 0: log-loss $1 not below the base rate's $2"
set -- $(ll a1)
awk -v l="$1" 'BEGIN { exit !(l < 0.001) }' || fail "alpha 1: log-loss $1, the truth's is ~0"
grep -q "every opponent" t1b.err || fail "tenpai scope not said"
r0=$(jq .rank.mean a0.json) r1=$(jq .rank.mean a1.json)
awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b < a - 0.1) }' ||
	fail "the true waits play $r1, rulebot's belief $r0: no gain"
grep -q "not a player's strength" a1.err || fail "--oracle does not say what it measured"
# the gates and the spec
expect_exit 2 "$V" --challenger "rulebot-waits:1" --opponent rulebot --seeds 1 -q
expect_err "reads the hidden tiles"
echo '[{"type":"start_game","id":0}]' > line.jsonl
expect_exit 2 "$BIN/hydra-bot" "rulebot-waits:0.5" < line.jsonl
expect_err "reads the hidden tiles"
for bad in "rulebot-waits:2" "rulebot-waits:x,riichi"; do
	expect_exit 2 "$V" --oracle --challenger "$bad" --opponent rulebot --seeds 1 -q
	expect_err "from 0 to 1"
done
expect_exit 2 "$V" --oracle --challenger "rulebot-waits:" --opponent rulebot --seeds 1 -q
expect_err "names nothing after the colon \\(want rulebot-waits:ALPHA"
expect_exit 2 "$V" --oracle --challenger "rulebot-waits" --opponent rulebot --seeds 1 -q
expect_err "unknown policy 'rulebot-waits'"
expect_exit 1 "$V" --oracle --challenger "rulebot-waits:0.5,riichi,/nonexistent" --opponent rulebot --seeds 1 -q
expect_err "No such file"
exit 0
