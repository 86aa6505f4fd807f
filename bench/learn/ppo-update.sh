#!/bin/sh
# The price of one PPO update on the CPU (issue 54): a `small` learner
# (MODEL, a checkpoint; default: a fresh random one from selfplay_bench)
# plays GAMES hanchan (default 4000) against three rulebot at temperature 1
# (hydra-sp --rotate MODEL,rulebot,rulebot,rulebot --learner -T 1), then
# hydra-fit --mode ppo --init MODEL takes its three passes over them
# (--ppo-epochs 3, rollout batch 4096) — timed stage by stage on each CPU
# path of PATHS (default: openblas, and onednn-bf16 with fp32 training,
# where oneDNN is built), J threads (default 2). Prints one line a path:
# games, the samples' size, the seconds of each stage and of the update.
set -e
BUILD=${BUILD:-build}
BIN=$BUILD/bin
GAMES=${GAMES:-4000}
J=${J:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-ppo-update.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
MODEL=${MODEL:-}
if [ -z "$MODEL" ]; then
	"$BUILD/bench/selfplay_bench" ckpt small "$tmp/small.h5" >/dev/null
	MODEL=$tmp/small.h5
fi
PATHS=${PATHS:-openblas onednn-bf16}
echo "ppo-update: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $GAMES games, $J threads"
now() { date +%s.%N; }
for p in $PATHS; do
	case $p in onednn*)
		"$BIN/hydra-sp" --cpu-path onednn --help >/dev/null 2>&1 ||
			{ echo "ppo-update, cpu path $p: skipped (not built)"; continue; }
	esac
	t0=$(now)
	"$BIN/hydra-sp" -q --cpu-path "$p" --rotate "$MODEL,rulebot,rulebot,rulebot" --learner -T 1 \
		--games "$GAMES" --seed 11 -j "$J" -o "$tmp/s.bin"
	t1=$(now)
	rm -rf "$tmp/run"
	"$BIN/hydra-fit" -q --cpu-path "$p" --mode ppo --init "$MODEL" --ppo-epochs 3 --batch 4096 \
		--lr 3e-4 -j "$J" --out "$tmp/run" "$tmp/s.bin" 2> "$tmp/fit.err" ||
		{ cat "$tmp/fit.err" >&2; exit 1; }
	t2=$(now)
	n=$(du -m "$tmp/s.bin" | cut -f1)
	awk -v p="$p" -v g="$GAMES" -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
		printf "ppo-update, cpu path %s: %d games (a %s MB sample stream): self-play %.1f s, three PPO passes %.1f s, the update %.1f s (%.2f min)\n",
			p, g, n, b - a, c - b, c - a, (c - a) / 60 }'
done
