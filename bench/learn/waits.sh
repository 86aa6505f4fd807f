#!/bin/sh
# What a reader of the opponents' waits is worth (issue 42, step 2): the
# degraded wait oracle (lib/play/policies/waitoracle.h) blends the tuned teacher t1's
# belief with the truth at ALPHA, and the arena says what each blend plays
# against three rulebot; its log-loss on the true waits says how good a
# reader that blend is. Prints a markdown table and writes OUT/waits.tsv and
# OUT/waits.png (mean rank against the log-loss relative to the base rate's,
# which puts the scopes on one axis: one curve per blend and scope, the
# opponents in riichi or every opponent).
#
#   bench/learn/waits.sh                         # 2,000 seeds at master seed 9100
#   SEEDS=400 SEED=5100 OUT=/tmp/w bench/learn/waits.sh
#
# Two blends (lib/play/policies/waitoracle.h): linear, α·truth + (1 − α)·belief,
# which keeps the truth's order of the kinds at every α > 0; logit, a shift
# of the belief's log-odds by α·12 toward the truth, whose order degrades
# with α as a real reader's would.
#
# Variables: BIN (build/bin), OUT (waits-run), SEEDS (2000), SEED (9100),
# ALPHAS of the linear blend ("0 0.25 0.5 0.75 1"), LOGIT_ALPHAS of the logit
# one ("0.04 0.08 0.12 0.17 0.25 0.5 1": shifts of 0.5 to 12 in the
# log-odds, the range between rulebot's belief and the truth), SCOPES
# ("riichi tenpai"), MODES ("linear logit"), PARAMS (the teacher:
# bench/learn/t1.params), J (the usable CPUs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
OUT=${OUT:-waits-run}
SEEDS=${SEEDS:-2000}
SEED=${SEED:-9100}
ALPHAS=${ALPHAS:-0 0.25 0.5 0.75 1}
SCOPES=${SCOPES:-riichi tenpai}
MODES=${MODES:-linear logit}
LOGIT_ALPHAS=${LOGIT_ALPHAS:-0.04 0.08 0.12 0.17 0.25 0.5 1}
PARAMS=${PARAMS:-$top/bench/learn/t1.params}
J=${J:-$(nproc)}
mkdir -p "$OUT"
tsv="$OUT/waits.tsv"
printf 'mode\tscope\talpha\tlogloss\tbase\tcells\trank\tlo\thi\twin\tdeal_in\tseconds\n' > "$tsv.tmp"
echo "| blend | scope | alpha | log-loss per cell (base rate) | mean rank vs 3 x rulebot | 95% interval | win / deal-in per kyoku | seconds |"
echo "|---|---|---|---|---|---|---|---|"
for mode in $MODES; do
for scope in $SCOPES; do
	alphas=$ALPHAS
	[ "$mode" = logit ] && alphas=$LOGIT_ALPHAS
	for a in $alphas; do
		# (alpha 0 is rulebot's own belief in either blend: played once)
		[ "$mode" = logit ] && [ "$a" = 0 ] && case " $MODES " in *" linear "*) continue ;; esac
		flag=""
		[ "$mode" = logit ] && flag=",logit"
		f="$OUT/$mode-$scope-$a"
		t0=$(date +%s)
		"$BIN/hydra-eval" --oracle -q --challenger "rulebot-waits:$a,$scope$flag,$PARAMS" \
			--opponent rulebot --seeds "$SEEDS" --seed "$SEED" -j "$J" --json \
			> "$f.json" 2> "$f.err" || { cat "$f.err" >&2; exit 1; }
		t1=$(date +%s)
		ll=$(sed -n 's/.*log-loss \([0-9.naninf-]*\) per cell.*/\1/p' "$f.err")
		base=$(sed -n "s/.*base rate's \([0-9.naninf-]*\)[ ,].*/\1/p" "$f.err")
		cells=$(sed -n 's/.*over \([0-9]*\) cells.*/\1/p' "$f.err")
		[ -n "$ll" ] || { cat "$f.err" >&2; echo "waits.sh: no log-loss line" >&2; exit 1; }
		row=$(jq -r '[.rank.mean, .rank.lo, .rank.hi, .rates.challenger.win,
			.rates.challenger.deal_in] | map(. * 10000 | round / 10000) | @tsv' "$f.json")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$scope" "$a" "$ll" "$base" "$cells" \
			"$row" "$((t1 - t0))" >> "$tsv.tmp"
		echo "$row" | awk -v m="$mode" -v s="$scope" -v a="$a" -v l="$ll" -v b="$base" \
			-v t="$((t1 - t0))" -F'\t' '{ printf "| %s | %s | %s | %s (%s) | %s | [%s, %s] | %s / %s | %s |\n",
			m, s, a, l, b, $1, $2, $3, $4, $5, t }'
	done
done
done
# the logit curves start at alpha 0, rulebot's own belief (the linear rows)
awk -F'\t' -v OFS='\t' 'NR > 1 && $1 == "linear" && $3 == "0" { $1 = "logit"; print }' "$tsv.tmp" \
	> "$tsv.add"
cat "$tsv.add" >> "$tsv.tmp" && rm -f "$tsv.add"
mv "$tsv.tmp" "$tsv"
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot <<GP
set terminal pngcairo size 900,600
set output "$OUT/waits.png"
set title "t1 with its wait belief blended with the truth: mean rank vs 3 x rulebot ($SEEDS seeds, master seed $SEED)"
set xlabel "log-loss of the deal-in belief on the true waits, relative to the base rate's (1: the base rate, 0: the truth)"
set ylabel "mean rank (95% interval)"
set key top right
set grid
plot for [c in "linear:riichi linear:tenpai logit:riichi logit:tenpai"] \
	sprintf("< awk -F'\t' 'NR > 1 && \$1 \":\" \$2 == \"%s\"' $tsv | sort -k3,3g", c) \
	using (\$4/\$5):7:8:9 with yerrorlines title c
GP
fi
echo
echo "table: $tsv; plot: $OUT/waits.png"
