#!/bin/sh
# The PPO league of pipelines/selfplay.mk as a plain loop, time-boxed, for a
# machine without make or jq (a lent GPU host): from a BC start and a GRP,
# iteration after iteration until DEADLINE seconds have passed, each
#   1. GAMES league games (the learner, the pool of earlier iterations and
#      the frozen start in MIX), rewarded per kyoku by the GRP;
#   2. hydra-fit --mode ppo on them (selfplay.mk's schedule over HORIZON
#      iterations, KL anchor to the start, critic warm-up in iteration 1);
#   3. two arenas of SEEDS seeds: against three copies of the start and
#      against three rulebot;
# and prints one line an iteration: the samples, the PPO statistics of the
# last rollout batch, and both mean ranks with their 95% intervals.
#
#   INIT=bc/model.h5 GRP=grp/grp.h5 OUT=/tmp/lg DEVICE=cuda J=16 sh bench/learn/league.sh
#
# Variables: INIT, GRP (required), OUT (league-run), GAMES (1024), SEEDS
# (400), LR (1e-4), BATCH (4096), HORIZON (8), MIX (0.5,0.3,0.2), DEVICE
# (cpu), J (the CPUs), DEADLINE (seconds, 1800), MAXITERS (100), SEED (0),
# BIN (build/bin).
BIN=${BIN:-build/bin}
INIT=${INIT:?INIT=model.h5 (the BC start)}
GRP=${GRP:?GRP=grp.h5}
OUT=${OUT:-league-run}
GAMES=${GAMES:-1024}
SEEDS=${SEEDS:-400}
LR=${LR:-1e-4}
BATCH=${BATCH:-4096}
HORIZON=${HORIZON:-8}
MIX=${MIX:-0.5,0.3,0.2}
DEVICE=${DEVICE:-cpu}
J=${J:-$(nproc)}
DEADLINE=${DEADLINE:-1800}
MAXITERS=${MAXITERS:-100}
SEED=${SEED:-0}
set -e
mkdir -p "$OUT"
t0=$(date +%s)
# rank mean and interval of an arena's JSON: "2.5063 [2.4616, 2.5509]"
rank() {
	sed 's/.*"rank":{\([^}]*\)}.*/\1/' "$1" |
		awk -F'[:,]' '{ for (i = 1; i < NF; i++) { if ($i == "\"mean\"") m = $(i + 1);
			if ($i == "\"lo\"") l = $(i + 1); if ($i == "\"hi\"") h = $(i + 1) }
			printf "%.4f [%.4f, %.4f]", m, l, h }'
}
# a number field of the last line of a metrics.jsonl
field() {
	tail -1 "$1" | sed -n "s/.*\"$2\":\([-0-9.e]*\).*/\1/p"
}
echo "league: start $INIT, GRP $GRP, $GAMES games an iteration, lr $LR, batch $BATCH," \
	"arenas of $SEEDS seeds, device $DEVICE, $J CPUs, deadline ${DEADLINE} s"
prev=$INIT
i=1
while [ "$i" -le "$MAXITERS" ] && [ $(( $(date +%s) - t0 )) -lt "$DEADLINE" ]; do
	d=$OUT/iter-$i
	mkdir -p "$d"
	pool=""
	j=$((i > 7 ? i - 6 : 1))
	while [ "$j" -le $((i - 2)) ]; do
		pool="$pool${pool:+,}$OUT/iter-$j/model.h5"
		j=$((j + 1))
	done
	ts=$(date +%s)
	"$BIN/hydra-sp" -q --games "$GAMES" --seed $((SEED + i)) --tables 64 -j "$J" \
		--policy "$prev" --start "$INIT" ${pool:+--pool "$pool"} --mix "$MIX" \
		--reward "grp:$GRP" --reward-state "$OUT/reward-state" --temperature 1 \
		--device cpu -o "$d/samples.bin"
	tf=$(date +%s)
	prog=$(echo "$((i - 1)) $i $HORIZON" | awk '{a = $1 / $3; b = $2 / $3;
		printf "%.6f:%.6f", (a > 1 ? 1 : a), (b > 1 ? 1 : b)}')
	"$BIN/hydra-fit" -q --mode ppo --init "$prev" --batch "$BATCH" --progress "$prog" \
		--anchor "$INIT" --anchor-coef 0.05 $([ "$i" = 1 ] && echo --value-warmup 8) \
		--lr "$LR" --device "$DEVICE" -j "$J" --out "$d/run" < "$d/samples.bin"
	rm -f "$d/samples.bin"
	cp -L "$d/run/latest" "$d/model.h5"
	ta=$(date +%s)
	"$BIN/hydra-eval" -q --challenger "$d/model.h5" --opponent "$INIT" --seeds "$SEEDS" \
		--seed $((1000 + i)) --device cpu -j "$J" --json > "$d/vs-start.json"
	"$BIN/hydra-eval" -q --challenger "$d/model.h5" --opponent rulebot --seeds "$SEEDS" \
		--seed 5000 --device cpu -j "$J" --json > "$d/vs-rulebot.json"
	te=$(date +%s)
	m=$d/run/metrics.jsonl
	echo "iter $i: $(grep -c . "$m") rollout batches, kl $(field "$m" approx_kl)," \
		"entropy $(field "$m" entropy), anchor kl $(field "$m" anchor_kl)," \
		"explained var $(field "$m" explained_var); vs start $(rank "$d/vs-start.json")," \
		"vs rulebot $(rank "$d/vs-rulebot.json"); play $((tf - ts)) s, fit $((ta - tf)) s," \
		"arenas $((te - ta)) s, at $((te - t0)) s"
	prev=$d/model.h5
	i=$((i + 1))
done
