#!/bin/sh
# Does PPO improve a policy here? (issue 42, step 1.) A weak start W (a
# `small` clone of GAMES_W rulebot games, STEPS_W steps) plays ITERS
# iterations of GAMES games against three fixed rulebot (hydra-sp --rotate
# W,rulebot,rulebot,rulebot --learner -T TEMP), each followed by hydra-fit
# --mode ppo --init on that iteration's samples with the variant's flags; W
# and the last model then play three rulebot in the arena, greedy and at
# temperature 1, SEEDS seeds at each master seed of ARENA_SEEDS.
#
#   bench/learn/ppo-signal.sh NAME [hydra-fit flags...]
#   OUT=/tmp/p bench/learn/ppo-signal.sh base --lr 1e-4
#   OUT=/tmp/p bench/learn/ppo-signal.sh noent --lr 1e-4 --ent-coef 0 --ent-end -1
#
# Every stage is a file under OUT (W under OUT/w, a variant under OUT/NAME),
# written whole or not at all, so a rerun continues where it stopped and
# variants share W and its arenas. The variant's PPO progress runs over
# its ITERS iterations (--progress (i-1)/ITERS:i/ITERS) and its steps are
# counted from the samples (--steps), so the schedule moves within each
# iteration as it does between them. Prints one table row per model and
# arena and writes OUT/NAME/result.tsv. FLIP=1 flips every advantage's
# sign in the samples (the control: the gradient's sign; needs
# build/bench/ppo_flip). SCHED=0 gives no --steps: the pipeline's way
# before this script, where the progress stays at (i-1)/ITERS through an
# iteration and the learning rate at its peak.
#
# Variables: BIN (build/bin), OUT (ppo-signal), ITERS (6), GAMES (400),
# GAMES_W (100), STEPS_W (400), TEMP (1), SEEDS (400), ARENA_SEEDS (31337),
# SP_SEED (first self-play master seed, 4200; iteration i plays SP_SEED+i),
# BATCH (the rollout batch, 4096), SP_FLAGS (more hydra-sp options, e.g.
# --gae-lambda 1), J (the usable CPUs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
OUT=${OUT:-ppo-signal}
ITERS=${ITERS:-6}
GAMES=${GAMES:-400}
GAMES_W=${GAMES_W:-100}
STEPS_W=${STEPS_W:-400}
TEMP=${TEMP:-1}
SEEDS=${SEEDS:-400}
ARENA_SEEDS=${ARENA_SEEDS:-31337}
SP_SEED=${SP_SEED:-4200}
BATCH=${BATCH:-4096}
J=${J:-$(nproc)}
[ $# -ge 1 ] || { echo "usage: bench/learn/ppo-signal.sh NAME [hydra-fit flags...]" >&2; exit 2; }
name=$1
shift
mkdir -p "$OUT/w" "$OUT/$name"

# commit FILE: rename FILE.tmp into place
commit() { mv -f "$1.tmp" "$1"; }

# the weak start
if [ ! -f "$OUT/w/model.h5" ]; then
	"$BIN/hydra-sp" -q --policy rulebot --games "$GAMES_W" --seed 700 -j "$J" \
		-o "$OUT/w/games.bin"
	rm -rf "$OUT/w/run"
	"$BIN/hydra-fit" -q --arch small --steps "$STEPS_W" --seed 1 -j "$J" \
		--out "$OUT/w/run" "$OUT/w/games.bin" 2> "$OUT/w/fit.err" ||
		{ cat "$OUT/w/fit.err" >&2; exit 1; }
	cp -L "$OUT/w/run/latest" "$OUT/w/model.h5.tmp" && commit "$OUT/w/model.h5"
fi

# the variant's iterations
echo "$* ${SP_FLAGS:+(hydra-sp $SP_FLAGS)}" > "$OUT/$name/flags"
prev=$OUT/w/model.h5
i=1
while [ "$i" -le "$ITERS" ]; do
	d=$OUT/$name/iter-$i
	mkdir -p "$d"
	if [ ! -f "$d/samples.bin" ]; then
		"$BIN/hydra-sp" -q --rotate "$prev,rulebot,rulebot,rulebot" --learner \
			-T "$TEMP" --games "$GAMES" --seed $((SP_SEED + i)) -j "$J" -v $SP_FLAGS \
			-o "$d/raw.bin" 2> "$d/sp.err" || { cat "$d/sp.err" >&2; exit 1; }
		if [ "${FLIP:-0}" = 1 ]; then
			"${FLIP_BIN:-$top/build/bench/ppo_flip}" "$d/raw.bin" "$d/samples.bin.tmp"
			rm -f "$d/raw.bin"
			commit "$d/samples.bin"
		else
			mv -f "$d/raw.bin" "$d/samples.bin"
		fi
	fi
	if [ ! -f "$d/model.h5" ]; then
		n=$(sed -n 's/.* \([0-9][0-9]*\) samples.*/\1/p' "$d/sp.err" | tail -1)
		[ -n "$n" ] || { cat "$d/sp.err" >&2; echo "ppo-signal.sh: no sample count" >&2; exit 1; }
		# optimiser steps: 3 passes of 4 minibatches per rollout batch
		# (PPO_STEPS=12; set it when the flags change either)
		steps=$(( (n + BATCH - 1) / BATCH * ${PPO_STEPS:-12} ))
		[ "${SCHED:-1}" = 1 ] && steps="--steps $steps" || steps=
		rm -rf "$d/run"
		"$BIN/hydra-fit" -q --mode ppo --init "$prev" --batch "$BATCH" $steps \
			--progress "$(awk -v i="$i" -v n="$ITERS" 'BEGIN { printf "%.6f:%.6f", (i - 1) / n, i / n }')" \
			-j "$J" "$@" --out "$d/run" "$d/samples.bin" 2> "$d/fit.err" ||
			{ cat "$d/fit.err" >&2; exit 1; }
		cp -L "$d/run/latest" "$d/model.h5.tmp" && commit "$d/model.h5"
	fi
	prev=$d/model.h5
	i=$((i + 1))
done

# arenas: W and the last model, greedy and at T = 1
arena() { # MODEL TEMP SEED FILE
	[ -f "$4" ] && return 0
	"$BIN/hydra-eval" -q --challenger "$1" --opponent rulebot --temperature "$2" \
		--seeds "$SEEDS" --seed "$3" -j "$J" --json > "$4.tmp"
	commit "$4"
}
printf 'model\ttemp\tseed\tseeds\trank\tlo\thi\n' > "$OUT/$name/result.tsv.tmp"
for m in w "$name"; do
	mp=$OUT/w/model.h5
	[ "$m" = w ] || mp=$prev
	for s in $ARENA_SEEDS; do
		for t in 0 1; do
			f=$OUT/$m/arena-$SEEDS-$s-T$t.json
			arena "$mp" "$t" "$s" "$f"
			jq -r --arg m "$m" --arg t "$t" --arg s "$s" --arg n "$SEEDS" \
				'[$m, $t, $s, $n, (.rank.mean, .rank.lo, .rank.hi | . * 10000 | round / 10000)] | @tsv' \
				"$f" >> "$OUT/$name/result.tsv.tmp"
		done
	done
done
commit "$OUT/$name/result.tsv"
cat "$OUT/$name/result.tsv"
