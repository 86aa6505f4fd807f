#!/bin/sh
# How the shipped models in models/ were made (issue 53), and how to make
# them again: the strength recipe's policy candidates (pipelines/strength.mk:
# rulebot's games, the behaviour-cloned start, that start distilled from the
# tuned teacher bench/learn/t1.params; and a distillation twice as long),
# the wait reader of bench/learn/reader.sh (6,000 games of t1 and rulebot, one
# pass), the selection arena (each candidate against three rulebot at
# SELECT_SEEDS seeds), the chosen policy's arenas (against three rulebot
# and three baseline, SEEDS seeds at master seeds 31337 and 4242), and the
# weights-only files (hydra-export --weights) with their provenance.
#
#   models/build.sh              # everything, into W (models-run); about an hour on 2 cores
#   INSTALL=1 models/build.sh    # and then replace models/*.h5 and models/*.provenance
#
# Variables: W (the work directory, default models-run), BIN (build/bin),
# J (the usable CPUs), SELECT_SEEDS (800), SEEDS (400), READER_GAMES and
# READER_PASSES (the reader's games and passes: 6000 and 1, the shipped
# one; 1500 and 2 the other the record kept), INSTALL
# (then models/provenance.sh writes the provenance files too). A second
# run reuses every stage that is done (strength.mk's stamps, reader.sh's
# shards, the arenas' JSON files); W/times.tsv keeps each stage's wall time.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
W=${W:-models-run}
J=${J:-$(nproc)}
SELECT_SEEDS=${SELECT_SEEDS:-800}
SEEDS=${SEEDS:-400}
READER_GAMES=${READER_GAMES:-6000}
READER_PASSES=${READER_PASSES:-1}
T1=$top/bench/learn/t1.params
mkdir -p "$W"
W=$(cd "$W" && pwd)
times="$W/times.tsv"
[ -s "$times" ] || printf 'stage\tseconds\tload_before\tload_after\n' > "$times"
stage() { # NAME COMMAND...: runs it, and appends its wall time and load to times.tsv
	name=$1
	shift
	l0=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s)
	echo "== models: $name" >&2
	"$@"
	printf '%s\t%s\t%s\t%s\n' "$name" $(($(date +%s) - t0)) "$l0" "$(cut -d' ' -f1 /proc/loadavg)" >> "$times"
}

# 1. the recipe's candidates: teacher games, BC start, distilled start
MK="make --no-print-directory -f $top/pipelines/strength.mk OUT=$W/strength BIN=$BIN THREADS=$J \
	DEVICE=cpu TEACHER_PARAMS=$T1"
stage recipe $MK distil
# a distillation of twice the games and steps from the same BC start
long() {
	mkdir -p "$W/distil2"
	[ -s "$W/distil2/games.bin" ] || {
		"$BIN/hydra-sp" --games 3000 --policy "rulebot:$T1" --seed 7300 -j "$J" -q \
			-o "$W/distil2/games.tmp"
		mv "$W/distil2/games.tmp" "$W/distil2/games.bin"
	}
	[ -s "$W/distil2/model.h5" ] || {
		rm -rf "$W/distil2/run"
		"$BIN/hydra-fit" --init "$W/strength/bc/model.h5" --steps 3600 --lr 2e-4 --device cpu \
			-j "$J" -q -o "$W/distil2/run" "$W/distil2/games.bin"
		cp -L "$W/distil2/run/latest" "$W/distil2/model.h5"
	}
}
stage distil-long long

# 2. the wait reader and its scores beside t1's model (in play; real logs
#    when ../shared/data/logs is there)
reader() { # bench/learn/reader.sh, unless its run and its row of curve.tsv are there
	[ -e "$W/reader/run-$READER_GAMES-$READER_PASSES-small/latest" ] &&
		awk -F'\t' -v g="$READER_GAMES" -v p="$READER_PASSES" \
			'$1 == g && $2 == p && $3 == "small" { f = 1 } END { exit !f }' \
			"$W/reader/curve.tsv" 2> /dev/null && return 0
	env OUT="$W/reader" GAMES="$READER_GAMES" PASSES="$READER_PASSES" BIN="$BIN" J="$J" \
		sh "$top/bench/learn/reader.sh"
}
stage reader reader

# 3. the selection: every candidate against three rulebot, one master seed
arena() { # CHALLENGER OPPONENT SEEDS MASTER FILE
	[ -s "$5" ] && return 0
	"$BIN/hydra-eval" -q --challenger "$1" --opponent "$2" --seeds "$3" --seed "$4" --device cpu \
		-j "$J" --json > "$5.tmp"
	mv "$5.tmp" "$5"
}
select_all() {
	for c in bc distil distil2; do
		case $c in
		distil2) f=$W/distil2/model.h5 ;;
		*) f=$W/strength/$c/model.h5 ;;
		esac
		arena "$f" rulebot "$SELECT_SEEDS" 20000 "$W/select-$c.json"
	done
}
stage select select_all
best=$(for c in bc distil distil2; do
	printf '%s %s\n' "$(jq -r .rank.mean "$W/select-$c.json")" "$c"
done | sort -n | head -1 | cut -d' ' -f2)
case $best in
distil2) policy=$W/distil2/model.h5 ;;
*) policy=$W/strength/$best/model.h5 ;;
esac
echo "models: the chosen policy is $best ($policy)" >&2

# 4. the chosen policy's figures
figures() {
	for s in 31337 4242; do
		arena "$policy" rulebot "$SEEDS" "$s" "$W/policy-vs-rulebot-$s.json"
		arena "$policy" baseline "$SEEDS" "$s" "$W/policy-vs-baseline-$s.json"
	done
}
stage figures figures
echo "$best" > "$W/chosen"

# 5. the shipped files: weights only
"$BIN/hydra-export" --weights -q -o "$W/policy.h5" "$policy"
"$BIN/hydra-export" --weights -q -o "$W/reader.h5" \
	"$W/reader/run-$READER_GAMES-$READER_PASSES-small/latest"
if [ -n "$INSTALL" ]; then
	cp "$W/policy.h5" "$top/models/policy.h5"
	cp "$W/reader.h5" "$top/models/reader.h5"
	W="$W" READER_GAMES="$READER_GAMES" READER_PASSES="$READER_PASSES" sh "$top/models/provenance.sh"
fi
