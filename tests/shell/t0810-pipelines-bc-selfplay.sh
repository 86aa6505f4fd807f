#!/bin/sh
# pipelines/bc.mk and pipelines/selfplay.mk at toy sizes, from another
# directory: every stage a file, the plots real PNGs, a second run idle;
# in the full tier, raising ITERS continues the league.
. tests/shell/lib.sh
need_cmd make
need_cmd jq
need_cmd gnuplot
cd "$T"
"$BIN/hydra-sp" --games 12 --policy baseline --seed 3 --log-dir logs --no-samples ||
	fail "hydra-sp"
bc() { make --no-print-directory -f "$TOP/pipelines/bc.mk" BIN="$BIN" LOGS=logs OUT=bc \
	ARCH=tiny STEPS=20 BATCH=64 VAL=0.3 SEEDS=2 DEVICE=cpu THREADS=1 "$@"; }
bc > bc.log 2>&1 || { tail -n 30 bc.log; fail "bc.mk"; }
for f in events.bin events.checked shards/train-0000.h5 shards/val-0000.h5 aug/train-0000.h5 \
	run/done model.h5 eval.json eval.txt arena.json arena.txt run/plots/losses.png \
	run/plots/training.png; do
	[ -s "bc/$f" ] || [ -f "bc/$f" -a "$f" = events.checked ] || [ -f "bc/$f" -a "$f" = run/done ] ||
		fail "bc.mk made no bc/$f"
done
for p in bc/run/plots/losses.png bc/run/plots/training.png; do
	[ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "$p is not a PNG"
	[ "$(wc -c < "$p")" -gt 10000 ] || fail "$p is too small to hold a plot"
done
# validation about 20 times a run (20 steps: every step), per head in the TSV
[ "$(grep -c '"val_loss"' bc/run/metrics.jsonl)" -eq 20 ] || fail "not 20 validation points"
awk -F'\t' 'NF != 23 { exit 1 }' bc/run/plots/metrics.tsv || fail "metrics.tsv has not 23 columns"
awk -F'\t' '$21 != "NaN" { n++ } END { exit n == 20 ? 0 : 1 }' bc/run/plots/metrics.tsv ||
	fail "no per-head (grp) validation column"
jq -e '.games == 8 and .challenger' bc/arena.json > /dev/null || fail "arena.json"
jq -e '.accuracy.all.top1 >= 0' bc/eval.json > /dev/null || fail "eval.json"
bc > bc2.log 2>&1 || fail "second bc.mk"
grep -q 'hydra-' bc2.log && fail "second bc.mk redid work"

sp() { make --no-print-directory -f "$TOP/pipelines/selfplay.mk" BIN="$BIN" INIT=bc/model.h5 \
	OUT=sp GAMES=4 TABLES=4 SEEDS=2 BATCH=64 DEVICE=cpu THREADS=1 "$@"; }
sp ITERS=2 > sp.log 2>&1 || { tail -n 30 sp.log; fail "selfplay.mk"; }
[ "$(wc -l < sp/league.jsonl)" -eq 2 ] || fail "league.jsonl has not 2 lines"
jq -e '.iter and (.points | type == "number") and (.promoted | type == "boolean")' \
	sp/league.jsonl > /dev/null || fail "league.jsonl fields"
for i in 1 2; do
	for f in samples.bin run/metrics.jsonl model.h5 arena.json arena.txt best.h5 league.json \
		run/plots/losses.png; do
		[ -s "sp/iter-$i/$f" ] || fail "selfplay.mk made no sp/iter-$i/$f"
	done
done
[ -s sp/best.h5 ] || fail "no sp/best.h5"
[ "$(wc -c < sp/plots/league.png)" -gt 10000 ] || fail "league plot"
# the iterations' PPO runs as one curve: steps continue across iterations
[ "$(wc -c < sp/plots/all/ppo.png)" -gt 10000 ] || fail "no continuous PPO plot"
n1=$(jq -s 'map(.step) | max' sp/iter-1/run/metrics.jsonl)
awk -F'\t' -v n1="$n1" 'NR > 1 && $1 <= prev { exit 1 } { prev = $1 } END { exit prev > n1 ? 0 : 1 }' \
	sp/plots/all/metrics.tsv || fail "the continuous PPO curve's steps do not continue"
in_full || exit 0
# raising ITERS continues the loop; the done iterations are kept
sp ITERS=3 > sp3.log 2>&1 || { tail -n 20 sp3.log; fail "selfplay.mk ITERS=3"; }
[ "$(wc -l < sp/league.jsonl)" -eq 3 ] || fail "league.jsonl after ITERS=3"
grep -q 'iter-1/samples.bin' sp3.log && fail "iteration 1 was redone"
exit 0
