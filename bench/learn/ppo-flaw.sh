#!/bin/sh
# Does PPO repair a planted flaw? (issue 52, step 1b.) A behaviour-cloned
# start W (a `small` clone of GAMES_W rulebot games, STEPS_W steps; or W=
# a checkpoint of yours) has one frequent, costly action made rare:
# bench/ppo_plant adds DELTA (< 0) to the policy head's logit of ACTION (43, the win:
# tsumo and ron) wherever it is legal. W and the flawed start F
# play three rulebot in the arena (SEEDS seeds at each master seed of
# MASTERS, greedy); then, for each reward of REWARDS, ITERS iterations
# of GAMES games of the learner against three fixed rulebot (hydra-sp
# --rotate M,rulebot,rulebot,rulebot --learner -T 1) each followed by one
# hydra-fit --mode ppo --init M on that iteration's samples (lr LR, rollout
# batch BATCH, the trainer's other defaults, no anchor), from F; the last
# model plays the same arenas. The planted action's frequency is the
# challenger's win rate per kyoku in the arena.
#
#   bench/learn/ppo-flaw.sh                              # the full run (issue 52)
#   GAMES=100 ITERS=2 SEEDS=50 OUT=/tmp/f bench/learn/ppo-flaw.sh   # small
#
# Writes OUT/result.json: the flaw, and for W, F and each reward's repaired
# model the mean rank with its 95% interval at each master seed and the
# win rate per kyoku, with the games and minutes each reward's PPO took;
# OUT/curve.tsv has, for each iteration, how often the learner took the
# planted action where it was open in that iteration's own games (at T = 1;
# ppo_plant freq), the repair as it happens. Every stage
# is a file under OUT, written whole or not at all, so a rerun continues.
#
# Rewards: placement (placement points at the game's end), kyoku (each
# kyoku's score change / 10000: play/reward.h hy_reward_score) and grp (a
# GRP of GRP_GAMES rulebot games, hydra-fit --mode grp: per-kyoku
# shaping of the placement, normalised by a running std kept in the
# reward's own state file).
#
# Variables: BIN (build/bin), TOOLS (build/bench), OUT (ppo-flaw), W,
# GAMES_W (400), STEPS_W (2000), ACTION (43), DELTA (-12: the default W then
# takes 18% of its open wins greedy, 15% at T = 1; -4 left 99% and changed
# no greedy play, bench/learn/RESULTS.md), REWARDS
# ("placement kyoku grp"; empty: W and F only), ITERS (8), GAMES (400), SEEDS (400), MASTERS
# ("31337 4242"), SP_SEED (5200; iteration i plays SP_SEED + i), LR (3e-4),
# BATCH (4096), GRP_GAMES (400), J (the usable CPUs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
TOOLS=${TOOLS:-$top/build/bench}
OUT=${OUT:-ppo-flaw}
GAMES_W=${GAMES_W:-400}
STEPS_W=${STEPS_W:-2000}
ACTION=${ACTION:-43}
DELTA=${DELTA:--12}
REWARDS=${REWARDS-placement kyoku grp}
ITERS=${ITERS:-8}
GAMES=${GAMES:-400}
SEEDS=${SEEDS:-400}
MASTERS=${MASTERS:-31337 4242}
SP_SEED=${SP_SEED:-5200}
LR=${LR:-3e-4}
BATCH=${BATCH:-4096}
GRP_GAMES=${GRP_GAMES:-400}
J=${J:-$(nproc)}
command -v jq >/dev/null || { echo "ppo-flaw.sh: needs jq" >&2; exit 2; }
mkdir -p "$OUT"
now() { date +%s; }
# done FILE: FILE.tmp becomes FILE (a stage is whole or absent)
done_() { mv -f "$1.tmp" "$1"; }

# ---- W, and the flawed start F
if [ -n "$W" ]; then
	cp -L "$W" "$OUT/w.h5.tmp" && done_ "$OUT/w.h5"
elif [ ! -f "$OUT/w.h5" ]; then
	"$BIN/hydra-sp" -q --policy rulebot --games "$GAMES_W" --seed 900 -j "$J" -o "$OUT/teacher.bin"
	rm -rf "$OUT/bc"
	"$BIN/hydra-fit" -q --arch small --steps "$STEPS_W" --seed 1 -j "$J" --out "$OUT/bc" \
		"$OUT/teacher.bin" 2> "$OUT/bc.err" || { cat "$OUT/bc.err" >&2; exit 1; }
	cp -L "$OUT/bc/latest" "$OUT/w.h5.tmp" && done_ "$OUT/w.h5"
	rm -f "$OUT/teacher.bin"
fi
if [ ! -f "$OUT/flawed.h5" ]; then
	"$TOOLS/ppo_plant" "$OUT/w.h5" "$OUT/flawed.h5.tmp" "$ACTION" "$DELTA" > "$OUT/plant.txt"
	done_ "$OUT/flawed.h5"
fi

# arena MODEL NAME: its arenas at every master seed, OUT/arena-NAME-S.json
arena() {
	for s in $MASTERS; do
		f=$OUT/arena-$2-$s.json
		[ -f "$f" ] && continue
		"$BIN/hydra-eval" -q --challenger "$1" --opponent rulebot --seeds "$SEEDS" --seed "$s" \
			-j "$J" --json > "$f.tmp"
		done_ "$f"
	done
}
arena "$OUT/w.h5" w
arena "$OUT/flawed.h5" flawed

# ---- the GRP, for the grp reward
case " $REWARDS " in *" grp "*)
	if [ ! -f "$OUT/grp/grp.h5" ]; then
		rm -rf "$OUT/grp-logs" "$OUT/grp"
		"$BIN/hydra-sp" -q --policy rulebot --games "$GRP_GAMES" --seed 1900 -j "$J" \
			--no-samples --log-dir "$OUT/grp-logs"
		"$BIN/hydra-fit" -q --mode grp -o "$OUT/grp" "$OUT/grp-logs" 2> "$OUT/grp.err" ||
			{ cat "$OUT/grp.err" >&2; exit 1; }
	fi ;;
esac

# ---- PPO from F, one reward at a time
[ -s "$OUT/curve.tsv" ] || printf 'reward\titer\tgames\topen\trate\n' > "$OUT/curve.tsv"
for r in $REWARDS; do
	case $r in
	placement) flag="--reward placement" ;;
	kyoku) flag="--reward kyoku" ;;
	grp) flag="--reward grp:$OUT/grp/grp.h5 --reward-state $OUT/$r/reward-state" ;;
	*) echo "ppo-flaw.sh: unknown reward '$r': placement, kyoku or grp" >&2; exit 2 ;;
	esac
	mkdir -p "$OUT/$r"
	prev=$OUT/flawed.h5
	i=1
	while [ "$i" -le "$ITERS" ]; do
		d=$OUT/$r/iter-$i
		mkdir -p "$d"
		if [ ! -f "$d/model.h5" ]; then
			t0=$(now)
			"$BIN/hydra-sp" -v --rotate "$prev,rulebot,rulebot,rulebot" --learner -T 1 \
				--games "$GAMES" --seed $((SP_SEED + i)) -j "$J" $flag -o "$d/samples.bin" \
				2> "$d/sp.err" || { cat "$d/sp.err" >&2; exit 1; }
			rm -rf "$d/run"
			"$BIN/hydra-fit" -q --mode ppo --init "$prev" --lr "$LR" --batch "$BATCH" -j "$J" \
				--out "$d/run" "$d/samples.bin" 2> "$d/fit.err" ||
				{ cat "$d/fit.err" >&2; exit 1; }
			cp -L "$d/run/latest" "$d/model.h5.tmp"
			echo $(($(now) - t0)) > "$d/seconds"
			# how often the learner took the planted action where it was
			# open, in this iteration's games (its own decisions)
			set -- $("$TOOLS/ppo_plant" freq "$d/samples.bin" "$ACTION")
			printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$i" $((i * GAMES)) "$2" "$6" >> "$OUT/curve.tsv"
			done_ "$d/model.h5"
			rm -f "$d/samples.bin"
		fi
		prev=$d/model.h5
		i=$((i + 1))
	done
	arena "$prev" "$r"
done

# ---- result.json
{
	printf '{"flaw":{"action":%s,"delta":%s},"seeds":%s,"masters":[%s],' "$ACTION" "$DELTA" \
		"$SEEDS" "$(echo $MASTERS | tr ' ' ',')"
	printf '"games_per_iteration":%s,"iterations":%s,"lr":"%s","batch":%s,"models":{' "$GAMES" \
		"$ITERS" "$LR" "$BATCH"
	first=1
	for name in w flawed $REWARDS; do
		[ $first = 1 ] || printf ','
		first=0
		printf '"%s":{' "$name"
		if [ "$name" != w ] && [ "$name" != flawed ]; then
			secs=0
			for f in "$OUT/$name"/iter-*/seconds; do secs=$((secs + $(cat "$f"))); done
			printf '"reward":"%s","games":%s,"minutes":%s,' "$name" $((ITERS * GAMES)) \
				"$(awk -v s="$secs" 'BEGIN { printf "%.1f", s / 60 }')"
		fi
		printf '"arenas":['
		sep=""
		for s in $MASTERS; do
			printf '%s' "$sep"
			jq -c --argjson s "$s" '{master: $s, rank: .rank.mean, lo: .rank.lo, hi: .rank.hi,
				win_per_kyoku: .rates.challenger.win}' "$OUT/arena-$name-$s.json" | tr -d '\n'
			sep=","
		done
		printf ']}'
	done
	printf '}}\n'
} > "$OUT/result.json.tmp"
jq . "$OUT/result.json.tmp" > /dev/null || { echo "ppo-flaw.sh: result.json is not JSON" >&2; exit 1; }
done_ "$OUT/result.json"
jq -r '.models | to_entries[] | .key as $k | .value.arenas[] |
	"\($k)\tmaster \(.master)\trank \(.rank) [\(.lo), \(.hi)]\twin/kyoku \(.win_per_kyoku)"' \
	"$OUT/result.json"
