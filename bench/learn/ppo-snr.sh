#!/bin/sh
# The signal in PPO's update (issue 42, step 1): K independent rollouts of
# GAMES games of the weak start W (bench/learn/ppo-signal.sh's, against three
# rulebot at T = 1), each trained on by one PPO iteration twice with the
# same seed and flags: as played, and with every advantage's sign flipped
# (ppo_flip). The two models differ by twice the policy-gradient part of
# the update (the value and auxiliary losses and the weight decay cancel),
# so ckpt_cos gives the cosine between the policy-gradient updates of two
# independent rollouts: cos ≈ |g|² / (|g|² + σ²/GAMES), the signal's share
# of the update. Prints the pairs' cosines (all parameters and per part)
# and the policy-gradient update's norm against the whole update's.
#
#   OUT=/tmp/p bench/learn/ppo-snr.sh [hydra-fit flags...]     # after ppo-signal.sh made OUT/w
#
# Variables: BIN (build/bin), TOOLS (build/bench: ppo_flip, ckpt_cos), OUT
# (ppo-signal), K (3), GAMES (400), SNR_SEED (first master seed, 7300; set
# k plays SNR_SEED+k), BATCH (4096), J (the usable CPUs). Every stage is a
# file under OUT/snr, so a rerun continues.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
TOOLS=${TOOLS:-$top/build/bench}
OUT=${OUT:-ppo-signal}
K=${K:-3}
GAMES=${GAMES:-400}
SNR_SEED=${SNR_SEED:-7300}
BATCH=${BATCH:-4096}
J=${J:-$(nproc)}
W=$OUT/w/model.h5
[ -f "$W" ] || { echo "ppo-snr.sh: no $W (run bench/learn/ppo-signal.sh first)" >&2; exit 1; }
tag=$(echo "g$GAMES $*" | tr -c 'A-Za-z0-9.\n-' '_')
d=$OUT/snr/$tag
mkdir -p "$d"
echo "$*" > "$d/flags"
fit() { # SAMPLES MODEL [hydra-fit flags...]: one PPO iteration from W
	s=$1 mo=$2
	shift 2
	[ -f "$mo" ] && return 0
	rm -rf "$mo.run"
	"$BIN/hydra-fit" -q --mode ppo --init "$W" --batch "$BATCH" -S 1 -j "$J" "$@" \
		--out "$mo.run" "$s" 2> "$mo.err" || { cat "$mo.err" >&2; exit 1; }
	cp -L "$mo.run/latest" "$mo.tmp" && mv -f "$mo.tmp" "$mo"
}
k=1
while [ "$k" -le "$K" ]; do
	if [ ! -f "$d/s-$k.bin" ]; then
		"$BIN/hydra-sp" -q -v --rotate "$W,rulebot,rulebot,rulebot" --learner -T 1 \
			--games "$GAMES" --seed $((SNR_SEED + k)) -j "$J" -o "$d/s-$k.tmp" \
			2> "$d/sp-$k.err" || { cat "$d/sp-$k.err" >&2; exit 1; }
		"$TOOLS/ppo_flip" "$d/s-$k.tmp" "$d/f-$k.bin" 2>/dev/null
		mv -f "$d/s-$k.tmp" "$d/s-$k.bin"
	fi
	fit "$d/s-$k.bin" "$d/m-$k.h5" "$@"
	fit "$d/f-$k.bin" "$d/mf-$k.h5" "$@"
	k=$((k + 1))
done
echo "pair	part	cosine	|pg A|	|pg B|"
i=1
while [ "$i" -le "$K" ]; do
	j=$((i + 1))
	while [ "$j" -le "$K" ]; do
		"$TOOLS/ckpt_cos" "$d/m-$i.h5" "$d/mf-$i.h5" "$d/m-$j.h5" "$d/mf-$j.h5" |
			awk -v p="$i,$j" 'NR > 1 { print p "\t" $0 }'
		j=$((j + 1))
	done
	i=$((i + 1))
done | tee "$d/cos.tsv"
echo "set	part	|pg|/|update| (the policy gradient's share of the whole update, as played)"
k=1
while [ "$k" -le "$K" ]; do
	# |m − mf| / 2 against |m − W|
	"$TOOLS/ckpt_cos" "$d/m-$k.h5" "$d/mf-$k.h5" "$d/m-$k.h5" "$W" |
		awk -v k="$k" 'NR > 1 { printf "%s\t%s\t%.3f\n", k, $1, ($3 / 2) / $4 }'
	k=$((k + 1))
done | tee "$d/share.tsv"
