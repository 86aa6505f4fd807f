#!/bin/sh
# Oracle guiding against its gate (issue 52, step 2; ARCHITECTURE.md §5a and
# "A student of the oracle"). From START (default the shipped
# models/policy.h5: the t1-distilled student of today's recipe):
#
#   1. the rule oracle's games: t1 (PARAMS) reading every tenpai opponent's
#      true waits (rulebot-waits:1,tenpai), GAMES games at every seat,
#      with each decision's hidden state (hydra-sp --oracle --hidden);
#   2. the teacher: START widened to the 205 oracle planes (their stem
#      columns start at 0) and trained on those games with them
#      (hydra-fit --oracle, TEACHER_STEPS steps at TEACHER_LR);
#   3. the student: START again, distilled from the teacher on the same
#      games (hydra-fit --oracle --teacher, KL at tau TAU, STUDENT_STEPS at
#      STUDENT_LR), the oracle planes fading by the design's table to 0;
#   4. the arenas against three rulebot (duplicate, greedy): the student
#      and START at SEEDS seeds (2000) on each master seed of MASTERS (two
#      sets of walls), the teacher (it reads the hidden state:
#      hydra-eval --oracle) and the rule oracle at TEACHER_SEEDS (400).
#
#   bench/learn/oracle.sh                                   # the full run
#   GAMES=8 TEACHER_STEPS=4 STUDENT_STEPS=8 SEEDS=3 TEACHER_SEEDS=3 MASTERS=31337 \
#       OUT=/tmp/o bench/learn/oracle.sh                      # small
#
# The gate: the student at least GATE (0.05) better in mean rank than START
# on every master seed. Writes OUT/result.json (each model's rank, interval
# and per-kyoku win and deal-in rates per master seed, the minutes of each
# stage, the gate's verdict) and prints one line a model and the verdict.
# Every stage is a file under OUT, written whole or not at all: a rerun
# continues.
#
# Variables: BIN (build/bin), OUT (oracle), START, PARAMS (bench/learn/
# t1.params), GAMES (1500, like the recipe's distillation), SP_SEED (7300),
# TEACHER_STEPS (3000), TEACHER_LR (3e-4), STUDENT_STEPS (3000), STUDENT_LR
# (2e-4), TAU (3), BATCH (256), SEEDS (2000), TEACHER_SEEDS (400), MASTERS
# ("31337 4242"), GATE (0.05), J (the usable CPUs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/bin}
OUT=${OUT:-oracle}
START=${START:-$top/models/policy.h5}
PARAMS=${PARAMS:-$top/bench/learn/t1.params}
GAMES=${GAMES:-1500}
SP_SEED=${SP_SEED:-7300}
TEACHER_STEPS=${TEACHER_STEPS:-3000}
TEACHER_LR=${TEACHER_LR:-3e-4}
STUDENT_STEPS=${STUDENT_STEPS:-3000}
STUDENT_LR=${STUDENT_LR:-2e-4}
TAU=${TAU:-3}
BATCH=${BATCH:-256}
SEEDS=${SEEDS:-2000}
TEACHER_SEEDS=${TEACHER_SEEDS:-400}
MASTERS=${MASTERS:-31337 4242}
GATE=${GATE:-0.05}
J=${J:-$(nproc)}
command -v jq >/dev/null || { echo "oracle.sh: needs jq" >&2; exit 2; }
[ -f "$START" ] || { echo "oracle.sh: no start model '$START'" >&2; exit 2; }
mkdir -p "$OUT"
now() { date +%s; }
done_() { mv -f "$1.tmp" "$1"; }
# stage NAME SECONDS: the minutes a stage took, kept beside it
took() { echo $(($(now) - $2)) > "$OUT/$1.seconds"; }
RULE_ORACLE="rulebot-waits:1,tenpai,$PARAMS"
echo "oracle: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), start $START" >&2

# 1. the rule oracle's games, with their hidden state
if [ ! -f "$OUT/games.bin" ]; then
	t0=$(now)
	"$BIN/hydra-sp" -q --oracle --hidden --policy "$RULE_ORACLE" --games "$GAMES" \
		--seed "$SP_SEED" -j "$J" -o "$OUT/games.bin.tmp"
	done_ "$OUT/games.bin"
	took games "$t0"
fi

# fit NAME ARGS...: a hydra-fit run into OUT/NAME, its last checkpoint OUT/NAME.h5
fit() {
	name=$1
	shift
	[ -f "$OUT/$name.h5" ] && return 0
	t0=$(now)
	rm -rf "$OUT/$name"
	"$BIN/hydra-fit" -q --device cpu -j "$J" --batch "$BATCH" --out "$OUT/$name" "$@" \
		"$OUT/games.bin" 2> "$OUT/$name.err" || { cat "$OUT/$name.err" >&2; exit 1; }
	cp -L "$OUT/$name/latest" "$OUT/$name.h5.tmp"
	done_ "$OUT/$name.h5"
	took "$name" "$t0"
}
# 2. the teacher; 3. the student
fit teacher --init "$START" --oracle --steps "$TEACHER_STEPS" --lr "$TEACHER_LR"
fit student --init "$START" --oracle --teacher "$OUT/teacher.h5" --kl-tau "$TAU" \
	--steps "$STUDENT_STEPS" --lr "$STUDENT_LR"

# 4. arena MODEL NAME SEEDS [FLAGS]: at every master seed, OUT/arena-NAME-S.json
arena() {
	for s in $MASTERS; do
		f=$OUT/arena-$2-$s.json
		[ -f "$f" ] && continue
		t0=$(now)
		"$BIN/hydra-eval" -q $4 --challenger "$1" --opponent rulebot --seeds "$3" --seed "$s" \
			-j "$J" --json > "$f.tmp"
		done_ "$f"
		took "arena-$2-$s" "$t0"
	done
}
arena "$OUT/student.h5" student "$SEEDS"
arena "$START" start "$SEEDS"
arena "$OUT/teacher.h5" teacher "$TEACHER_SEEDS" --oracle
arena "$RULE_ORACLE" rule-oracle "$TEACHER_SEEDS" --oracle

# result.json
{
	printf '{"start":"%s","games":%s,"teacher_steps":%s,"student_steps":%s,"tau":%s,' \
		"$START" "$GAMES" "$TEACHER_STEPS" "$STUDENT_STEPS" "$TAU"
	printf '"seeds":%s,"teacher_seeds":%s,"gate":%s,"minutes":{' "$SEEDS" "$TEACHER_SEEDS" "$GATE"
	sep=""
	for f in "$OUT"/*.seconds; do
		n=$(basename "$f" .seconds)
		printf '%s"%s":%s' "$sep" "$n" "$(awk -v s="$(cat "$f")" 'BEGIN { printf "%.1f", s / 60 }')"
		sep=","
	done
	printf '},"models":{'
	sep=""
	for name in student start teacher rule-oracle; do
		printf '%s"%s":[' "$sep" "$name"
		sep=","
		s2=""
		for s in $MASTERS; do
			printf '%s' "$s2"
			jq -c --argjson s "$s" '{master: $s, rank: .rank.mean, lo: .rank.lo, hi: .rank.hi,
				win: .rates.challenger.win, deal_in: .rates.challenger.deal_in}' \
				"$OUT/arena-$name-$s.json" | tr -d '\n'
			s2=","
		done
		printf ']'
	done
	printf '}}\n'
} > "$OUT/result.json.tmp"
# the gate: on every master seed, the student's rank ≤ START's − GATE
jq --argjson g "$GATE" '. + {gate_passed: ([range(0; .models.student | length) as $i |
	(.models.start[$i].rank - .models.student[$i].rank) >= $g] | all),
	student_minus_start: [range(0; .models.student | length) as $i |
	.models.student[$i].rank - .models.start[$i].rank]}' "$OUT/result.json.tmp" > "$OUT/result.json.tmp2"
mv -f "$OUT/result.json.tmp2" "$OUT/result.json.tmp"
done_ "$OUT/result.json"
jq -r '.models | to_entries[] | .key as $k | .value[] |
	"\($k)\tmaster \(.master)\trank \(.rank) [\(.lo), \(.hi)]\twin \(.win) deal-in \(.deal_in)"' \
	"$OUT/result.json"
jq -r '"gate (student at least \(.gate) better than the start on every set of walls): " +
	(if .gate_passed then "passed" else "failed" end) +
	", student - start: \(.student_minus_start | map(. * 10000 | round / 10000))"' "$OUT/result.json"
