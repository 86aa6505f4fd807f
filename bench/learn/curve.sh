#!/bin/sh
# Strength against games (issue 52, step 3): PPO from START (default the
# shipped models/policy.h5, the distilled student) for as many updates of
# GAMES games (default 4000) as fit BUDGET minutes of wall time (default
# 150, arenas included), measuring the learner's mean rank against three
# rulebot every EVAL_EVERY updates (default 2) and at the end: SEEDS seeds
# (400) at master seed MASTER (31337), duplicate, greedy. Each update is
# one iteration of hydra-sp --rotate M,rulebot,rulebot,rulebot --learner
# -T 1 (REWARD: kyoku, the reward that repaired the planted flaw best in
# step 1, or placement) and one hydra-fit --mode ppo --init M (lr LR,
# rollout batch BATCH, the trainer's other defaults) on its samples.
#
#   bench/learn/curve.sh                                  # the full run
#   GAMES=16 SEEDS=3 BUDGET=5 OUT=/tmp/c bench/learn/curve.sh   # small
#
# Writes, under OUT (default curve): curve.tsv (games, rank, lo, hi, the
# minutes since the start), updates.tsv (each update's games and its
# seconds of self-play and of PPO), fit.txt (the slope of rank against
# games by weighted least squares, its standard error, and the games and
# hours the 2.45 target would need at that slope: bench/learn/fit-curve.sh)
# and curve.png (gnuplot, when installed). Every stage is a file written
# whole or not at all, so a rerun continues; the budget counts from the
# first run's start (OUT/start).
#
# Variables: BIN (build/bin), OUT, START, GAMES, BUDGET, EVAL_EVERY, SEEDS,
# MASTER, REWARD, SP_SEED (8100; update i plays SP_SEED + i), LR (3e-4),
# BATCH (4096), MAXITERS (no limit), J (the usable CPUs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
OUT=${OUT:-curve}
START=${START:-$top/models/policy.h5}
GAMES=${GAMES:-4000}
BUDGET=${BUDGET:-150}
EVAL_EVERY=${EVAL_EVERY:-2}
SEEDS=${SEEDS:-400}
MASTER=${MASTER:-31337}
REWARD=${REWARD:-kyoku}
SP_SEED=${SP_SEED:-8100}
LR=${LR:-3e-4}
BATCH=${BATCH:-4096}
MAXITERS=${MAXITERS:-0}
J=${J:-$(nproc)}
command -v jq >/dev/null || { echo "curve.sh: needs jq" >&2; exit 2; }
case $REWARD in
placement | kyoku) ;;
*) echo "curve.sh: REWARD is placement or kyoku, not '$REWARD'" >&2; exit 2 ;;
esac
[ -f "$START" ] || { echo "curve.sh: no start model '$START'" >&2; exit 2; }
mkdir -p "$OUT"
now() { date +%s; }
done_() { mv -f "$1.tmp" "$1"; }
[ -f "$OUT/start" ] || { now > "$OUT/start.tmp" && done_ "$OUT/start"; }
t_start=$(cat "$OUT/start")
budget_s=$((BUDGET * 60))
[ -s "$OUT/curve.tsv" ] || printf 'games\trank\tlo\thi\tminutes\n' > "$OUT/curve.tsv"
[ -s "$OUT/updates.tsv" ] || printf 'update\tgames\tselfplay_s\tppo_s\n' > "$OUT/updates.tsv"
echo "curve: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), start $START," \
	"$GAMES games an update, budget $BUDGET min, reward $REWARD" >&2

# arena MODEL GAMES: the model's rank at this point of the curve
arena_s=0
arena() {
	f=$OUT/arena-$2.json
	if [ ! -f "$f" ]; then
		a0=$(now)
		"$BIN/hydra-eval" -q --challenger "$1" --opponent rulebot --seeds "$SEEDS" \
			--seed "$MASTER" -j "$J" --json > "$f.tmp"
		done_ "$f"
		arena_s=$(($(now) - a0))
		jq -r --arg g "$2" --arg m "$(awk -v s=$(($(now) - t_start)) 'BEGIN { printf "%.1f", s / 60 }')" \
			'"\($g)\t\(.rank.mean)\t\(.rank.lo)\t\(.rank.hi)\t\($m)"' "$f" >> "$OUT/curve.tsv"
	fi
	jq -r --arg g "$2" '"curve: \($g) games: rank \(.rank.mean) [\(.rank.lo), \(.rank.hi)]"' "$f" >&2
}
arena "$START" 0

prev=$START
i=1
last_s=0
while :; do
	d=$OUT/update-$i
	if [ ! -f "$d/model.h5" ]; then
		# start an update only when it and the final arena fit the budget
		# (the first always runs: it measures what an update costs)
		left=$((budget_s - ($(now) - t_start)))
		if [ "$i" -gt 1 ] && [ $((last_s + arena_s)) -gt "$left" ]; then break; fi
		[ "$MAXITERS" -gt 0 ] && [ "$i" -gt "$MAXITERS" ] && break
		mkdir -p "$d"
		t0=$(now)
		"$BIN/hydra-sp" -q --rotate "$prev,rulebot,rulebot,rulebot" --learner -T 1 \
			--games "$GAMES" --seed $((SP_SEED + i)) -j "$J" --reward "$REWARD" \
			-o "$d/samples.bin" 2> "$d/sp.err" || { cat "$d/sp.err" >&2; exit 1; }
		t1=$(now)
		rm -rf "$d/run"
		"$BIN/hydra-fit" -q --mode ppo --init "$prev" --lr "$LR" --batch "$BATCH" -j "$J" \
			--out "$d/run" "$d/samples.bin" 2> "$d/fit.err" || { cat "$d/fit.err" >&2; exit 1; }
		t2=$(now)
		rm -f "$d/samples.bin"
		cp -L "$d/run/latest" "$d/model.h5.tmp"
		printf '%s\t%s\t%s\t%s\n' "$i" $((i * GAMES)) $((t1 - t0)) $((t2 - t1)) >> "$OUT/updates.tsv"
		done_ "$d/model.h5"
		last_s=$((t2 - t0))
		echo "curve: update $i ($((i * GAMES)) games): self-play $((t1 - t0)) s, PPO $((t2 - t1)) s" >&2
	else
		last_s=$(awk -F'\t' -v i="$i" '$1 == i { print $3 + $4 }' "$OUT/updates.tsv")
		last_s=${last_s:-0}
	fi
	prev=$d/model.h5
	[ $((i % EVAL_EVERY)) -eq 0 ] && arena "$prev" $((i * GAMES))
	i=$((i + 1))
done
n=$((i - 1))
[ "$n" -ge 1 ] && [ $((n % EVAL_EVERY)) -ne 0 ] && arena "$OUT/update-$n/model.h5" $((n * GAMES))

# the fit and the plot
GAMES_PER_HOUR=$(awk -F'\t' 'NR > 1 { g += $2 - p; p = $2; s += $3 + $4 } END {
	if (s > 0) printf "%.0f", g * 3600 / s }' "$OUT/updates.tsv")
export GAMES_PER_HOUR
sh "$top/bench/learn/fit-curve.sh" "$OUT/curve.tsv" > "$OUT/fit.txt.tmp"
done_ "$OUT/fit.txt"
cat "$OUT/fit.txt"
if command -v gnuplot >/dev/null; then
	gnuplot -e "set terminal pngcairo size 900,540; set output '$OUT/curve.png.tmp';
		set title 'PPO from the distilled student: mean rank against three rulebot ($SEEDS seeds, 95%)';
		set xlabel 'PPO games'; set ylabel 'mean rank (lower is better)'; set grid;
		set key top right; set datafile separator '\t'; set offsets graph 0.03, graph 0.03, 0, 0;
		plot '$OUT/curve.tsv' every ::1 using 1:2:3:4 with yerrorlines title 'mean rank', 2.45 with lines dt 2 title 'target 2.45'" &&
		done_ "$OUT/curve.png"
fi
