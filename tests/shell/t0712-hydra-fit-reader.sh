#!/bin/sh
# hydra-fit --mode reader (issue 42, step 4): a wait reader trains the
# tenpai and danger heads alone, its checkpoints say so (train_mode 2), a
# resume goes on in that mode, hydra-eval --data reports its total as its
# heads' and the waits it reads (log-loss per cell, base rate, AUC), the
# wait oracle scores it beside rulebot's belief on the same cells, rulebot
# plays with it as its belief (rulebot:...,reader=R.h5), and no program
# plays it as a policy; bench/learn/reader.sh runs, small. On self-play samples
# of rulebot.
. tests/shell/lib.sh
need_cmd h5dump
cd "$T" || exit 1
"$BIN/hydra-sp" -q --policy rulebot --games 6 --seed 5 -o s.bin || fail "hydra-sp"
F="$BIN/hydra-fit -q --arch tiny --threads 1 --batch 64"
$F --mode reader --steps 6 --save-every 3 --out rd s.bin 2>fit.err || { cat fit.err; fail "reader"; }
attr() { h5dump -a "$2" "$1" | sed -n 's/^ *(0): \(.*\)$/\1/p'; }
[ "$(attr rd/ckpt-00000006.h5 train_mode)" = 2 ] || fail "train_mode of a reader: $(attr rd/ckpt-00000006.h5 train_mode)"
# the policy and value losses are not trained: the total is the heads'
/usr/bin/python3 - rd/metrics.jsonl <<'PYEOF' || fail "a reader's total"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
assert abs(r["loss"] - (r["tenpai"] + r["danger"])) < 1e-4, r
PYEOF
# a resume goes on as a reader; asked to go on as bc it is refused
$F --resume rd --steps 9 2>res.err && fail "a reader resumed as bc"
grep -q "is of a --mode reader run" res.err || { cat res.err; fail "the mode's message"; }
$F --mode reader --resume rd --steps 9 2>res.err || { cat res.err; fail "reader resume"; }
[ "$(attr rd/ckpt-00000009.h5 train_mode)" = 2 ] || fail "a resumed reader's mode"
# a PPO option is not a reader's
expect_exit 2 $F --mode reader --clip 0.2 --out x s.bin
expect_err "--clip is an option of --mode ppo"
# hydra-eval --data: the heads' total and the waits read
"$BIN/hydra-eval" -q --model rd/ckpt-00000009.h5 --data s.bin --json > ev.json ||
	fail "hydra-eval --data on a reader"
/usr/bin/python3 - ev.json <<'PYEOF' || fail "the reader's report"
import json, sys
e = json.load(open(sys.argv[1]))
w, l = e["waits"], e["loss"]
assert abs(l["total"] - (l["tenpai"] + l["danger"])) < 1e-4, l
assert w["cells"] == 102 * e["samples"] and 0 < w["wins"] < w["cells"], w
assert w["log_loss"] > 0 and w["base"] > 0 and 0 <= w["auc"] <= 1, w
PYEOF
"$BIN/hydra-eval" -q --model rd/ckpt-00000009.h5 --data s.bin > ev.txt || fail "table"
grep -q "^waits read: .* cells (sample, opponent, kind), .* winning; log-loss .* per cell (base rate .*), AUC " ev.txt ||
	{ cat ev.txt; fail "the table's waits line"; }
# scored beside rulebot's belief, state for state (hydra-eval --oracle):
# the same cells at the same discards
"$BIN/hydra-eval" --oracle -q --challenger "rulebot-waits:0,tenpai,reader=rd/ckpt-00000009.h5" \
	--opponent rulebot --seeds 2 --json > or.json 2> or.err || { cat or.err; fail "reader check"; }
b=$(sed -n 's/.*wait belief .* (AUC [0-9.]*), over \([0-9]*\) cells.*/\1/p' or.err)
r=$(sed -n 's/.*reader rd\/ckpt-00000009.h5 on the same cells: log-loss [0-9.]* (AUC [0-9.]*) over \([0-9]*\) cells.*/\1/p' or.err)
[ -n "$b" ] && [ "$b" = "$r" ] && [ "$b" -gt 0 ] || { cat or.err; fail "the reader's cells ($r) are not the belief's ($b)"; }
# rulebot reading with it (issue 42 step 5): its threat weights and danger
# from the reader; not an oracle (it reads what the seat sees); with
# parameters before or after the reader; a reader that is not there fails
for spec in "rulebot:reader=rd/ckpt-00000009.h5" \
	"rulebot:$TOP/bench/learn/t1.params,reader=rd/ckpt-00000009.h5" \
	"rulebot:reader=rd/ckpt-00000009.h5,$TOP/bench/learn/t1.params"; do
	"$BIN/hydra-eval" -q --challenger "$spec" --opponent rulebot --seeds 1 --json > rr.json \
		2> rr.err || { cat rr.err; fail "$spec"; }
	grep -q '"games": *4' rr.json || grep -q '"games":4' rr.json || { cat rr.json; fail "$spec: games"; }
done
expect_exit 1 "$BIN/hydra-eval" --challenger "rulebot:reader=none.h5" --opponent rulebot --seeds 1
expect_err "none.h5"
# read=danger|threats|all says what the reader gives; another word, or read=
# without a reader, is a usage error
for m in danger threats all; do
	"$BIN/hydra-eval" -q --challenger "rulebot:reader=rd/ckpt-00000009.h5,read=$m" \
		--opponent rulebot --seeds 1 > /dev/null 2> rr.err || { cat rr.err; fail "read=$m"; }
done
expect_exit 2 "$BIN/hydra-eval" --challenger "rulebot:reader=rd/ckpt-00000009.h5,read=some" \
	--opponent rulebot --seeds 1
expect_err "read=some: all, threats or danger"
expect_exit 2 "$BIN/hydra-eval" --challenger "rulebot:read=danger" --opponent rulebot --seeds 1
expect_err "read=danger needs reader=R.h5"
# not a policy: the arena, self-play and the bot refuse it
expect_exit 3 "$BIN/hydra-eval" --challenger rd/ckpt-00000009.h5 --opponent rulebot --seeds 1
expect_err "is a wait reader .hydra-fit --mode reader., and a player needs a policy network"
expect_exit 3 "$BIN/hydra-sp" --games 1 --policy rd/ckpt-00000009.h5 -o x.bin
expect_err "is a wait reader"
[ ! -e x.bin ] || fail "a refused policy left an output"
# bench/learn/reader.sh, small: games, a reader, its scores in play as a row of
# the curve (the logs skipped here)
BIN="$BIN" GAMES=4 VAL_GAMES=2 ARCH=tiny SCORE_SEEDS=10 LOGS=/nonexistent OUT=rb J=2 \
	sh "$TOP/bench/learn/reader.sh" > rb.out 2> rb.err || { cat rb.err; fail "bench/learn/reader.sh"; }
awk -F'\t' 'NR == 2 && $1 == 4 && $3 == "tiny" && $9 + 0 > 0 && $8 + 0 > 0 && $12 == "-" { ok = 1 }
	END { exit !ok }' rb/curve.tsv || { cat rb/curve.tsv; fail "bench/learn/reader.sh: its row"; }
exit 0
