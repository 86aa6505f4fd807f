#!/bin/sh
# How good a learned wait reader gets with the games it learns from (issue 42,
# steps 4 and the exit it names: "the measured curve and the reader's
# quality"): self-play games of the tuned teacher t1 and rulebot, a reader
# trained on them (hydra-fit --mode reader), and its log-loss per cell beside
# t1's own model on the same cells — in play (rulebot-waits:0,SCOPE,reader=R,
# 400 seeds at master seed 9100: every opponent, and the opponents in riichi)
# and on the revealed hands of game logs (bench/learn/waits_logs.c). Appends one
# row to OUT/curve.tsv, prints it as markdown, and plots OUT/curve.png: the
# riichi cells' log-loss against the samples the reader has seen, with t1's
# model and the 0.12–0.13 that the step-2 sweep (bench/learn/waits.sh) says a
# reader needs to be worth 0.05–0.08 to the teacher.
#
#   bench/learn/reader.sh                          # 1,500 games, one pass
#   GAMES=6000 PASSES=2 bench/learn/reader.sh
#   PLOT_ONLY=1 OUT=bench/learn/reader bench/learn/reader.sh  # the plot again
#
# Variables: BIN (build/bin; waits_logs from build/bench), OUT (reader-run),
# GAMES (1500), SEED of the games (60000), VAL_GAMES (200, at SEED + 1000),
# PASSES over the games (1), ARCH (small), LR (1e-3), BATCH (256), SCORE_SEEDS
# (400), LOGS (../shared/data/logs beside the repository, skipped when
# absent), PARAMS (bench/learn/t1.params), J (the usable CPUs). The games are
# kept as a compressed shard (OUT/games-GAMES.h5, about 0.18 MB a game) and
# reused by a later run with the same GAMES and SEED.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
WL=${WL:-$top/build/bench/waits_logs}
OUT=${OUT:-reader-run}
GAMES=${GAMES:-1500}
SEED=${SEED:-60000}
VAL_GAMES=${VAL_GAMES:-200}
PASSES=${PASSES:-1}
ARCH=${ARCH:-small}
LR=${LR:-1e-3}
BATCH=${BATCH:-256}
SCORE_SEEDS=${SCORE_SEEDS:-400}
LOGS=${LOGS:-$top/../shared/data/logs}
PARAMS=${PARAMS:-$top/bench/learn/t1.params}
J=${J:-$(nproc)}
mkdir -p "$OUT"
plot() { # OUT/curve.tsv as OUT/curve.png: the riichi cells, per architecture
	command -v gnuplot >/dev/null 2>&1 || return 0
	tab=$(printf '\t')
	awk -F'\t' 'NR > 1 && $3 == "small"' "$tsv" | sort -t "$tab" -k4,4n > "$OUT/small.tmp"
	awk -F'\t' 'NR > 1 && $3 != "small"' "$tsv" > "$OUT/other.tmp"
	# t1's model on the same cells (the same in every row scored alike)
	t1p=$(awk -F'\t' 'NR > 1 && $8 != "-" { v = $8 } END { print v + 0 }' "$tsv")
	t1l=$(awk -F'\t' 'NR > 1 && $13 != "-" { v = $13 } END { print v + 0 }' "$tsv")
	gnuplot <<GP
set terminal pngcairo size 900,560
set output "$OUT/curve.png"
set title "A wait reader's log-loss on the riichi hands' waits, by the samples it saw"
set xlabel "training samples seen"
set ylabel "log-loss per cell (opponents in riichi)"
set logscale x
set xrange [3e5:2e7]
set yrange [0.11:0.215]
set key top right
set datafile separator "\t"
plot "$OUT/small.tmp" using 4:9 with linespoints pt 7 title "reader (small), in play (400 seeds, 9100)", \\
     "$OUT/small.tmp" using 4:14 with linespoints pt 5 title "reader (small), real logs", \\
     "$OUT/other.tmp" using 4:9 with points pt 9 ps 1.5 title "reader (other architectures), in play", \\
     $t1p with lines dt 2 title "t1's model, in play", \\
     $t1l with lines dt 3 title "t1's model, real logs", \\
     0.1225 with lines lw 2 title "sweep: worth 0.085 to t1 (evidence 0.5)"
GP
	rm -f "$OUT/small.tmp" "$OUT/other.tmp"
}
tsv="$OUT/curve.tsv"
if [ -n "$PLOT_ONLY" ]; then plot; exit 0; fi
teacher="rulebot:$PARAMS,rulebot"

games() { # N SEED FILE: self-play of t1 and rulebot as a shard
	[ -s "$3" ] && return 0
	"$BIN/hydra-sp" --rotate "$teacher" --games "$1" --seed "$2" -j "$J" -o - 2>/dev/null |
		"$BIN/hydra-augment" --perms 0 -q -o "$3" -
}
train="$OUT/games-$GAMES-$SEED.h5"
val="$OUT/val-$VAL_GAMES-$((SEED + 1000)).h5"
t0=$(date +%s)
games "$GAMES" "$SEED" "$train"
games "$VAL_GAMES" "$((SEED + 1000))" "$val"
t1=$(date +%s)

# the reader: PASSES passes over the shard (its steps, warmup and cosine
# schedule planned from the shard's sample count)
run="$OUT/run-$GAMES-$PASSES-$ARCH"
"$BIN/hydra-fit" --mode reader --arch "$ARCH" --lr "$LR" --batch "$BATCH" --epochs "$PASSES" \
	--val "$val" --out "$run" -j "$J" -q "$train"
t2=$(date +%s)
R="$run/latest"
seen=$(jq -r 'select(.samples) | .samples' "$run/metrics.jsonl" | tail -1)
vloss=$(jq -r 'select(.val_loss) | .val_loss' "$run/metrics.jsonl" | tail -1)

# scored beside t1's model: in play, then on the logs. Called as a command,
# not inside $(...), so that a failing arena stops the script (an exit in a
# command substitution ends the subshell only), and its three figures must
# all be there: a row of empty columns is never appended.
score() { # SCOPE: "loss auc" of the reader into $OUT/score-SCOPE.txt
	"$BIN/hydra-eval" --oracle -q --challenger "rulebot-waits:0,$1,reader=$R,$PARAMS" \
		--opponent rulebot --seeds "$SCORE_SEEDS" --seed 9100 -j "$J" \
		> "$OUT/score-$1.out" 2> "$OUT/score-$1.err" || { cat "$OUT/score-$1.err" >&2; exit 1; }
	sed -n 's/.*log-loss \([0-9.]*\) per cell.*reader .* log-loss \([0-9.]*\) (AUC \([0-9.]*\)).*/\1 \2 \3/p' \
		"$OUT/score-$1.err" > "$OUT/score-$1.txt"
	[ "$(wc -w < "$OUT/score-$1.txt")" -eq 3 ] ||
		{ cat "$OUT/score-$1.err" >&2; echo "reader.sh: no scores in the $1 arena's output" >&2; exit 1; }
}
score tenpai
score riichi
set -- $(cat "$OUT/score-tenpai.txt" "$OUT/score-riichi.txt")
pe_t1=$1 pe=$2 pe_auc=$3 pr_t1=$4 pr=$5 pr_auc=$6
le_t1=- le=- lr_t1=- lr=-
if [ -d "$LOGS" ] && [ -x "$WL" ]; then
	"$WL" "$R" "$PARAMS" "$LOGS" > "$OUT/logs.txt" 2>&1 || { cat "$OUT/logs.txt" >&2; exit 1; }
	set -- $(awk -F'\t' '$1 == "every" { e = $5 " " $7 } $1 == "riichi" { r = $5 " " $7 }
		END { print e, r }' "$OUT/logs.txt")
	le_t1=$1 le=$2 lr_t1=$3 lr=$4
fi
t3=$(date +%s)

[ -s "$tsv" ] || printf 'games\tpasses\tarch\tsamples_seen\tval_loss\tplay_every_t1\tplay_every\tplay_riichi_t1\tplay_riichi\tplay_riichi_auc\tlogs_every_t1\tlogs_every\tlogs_riichi_t1\tlogs_riichi\tgames_s\ttrain_s\tscore_s\n' > "$tsv"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$GAMES" "$PASSES" \
	"$ARCH" "$seen" "$vloss" "$pe_t1" "$pe" "$pr_t1" "$pr" "$pr_auc" "$le_t1" "$le" \
	"$lr_t1" "$lr" "$((t1 - t0))" "$((t2 - t1))" "$((t3 - t2))" >> "$tsv"
echo "| games | passes | arch | samples seen | val loss | in play: every (t1) | riichi (t1) | logs: every (t1) | riichi (t1) | train s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '| %s | %s | %s | %s | %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) | %s |\n' "$GAMES" "$PASSES" \
	"$ARCH" "$seen" "$vloss" "$pe" "$pe_t1" "$pr" "$pr_t1" "$le" "$le_t1" "$lr" "$lr_t1" \
	"$((t2 - t1))"

plot
