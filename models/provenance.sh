#!/bin/sh
# The provenance files of the shipped models (models/README.md), written
# from a run of models/build.sh: models/policy.provenance and
# models/reader.provenance — what the file is, its size and checksum, the
# commit the programs were built from, the commands and seeds, the
# observation version, the training command the checkpoint itself records
# (its train_command attribute), the stages' wall times, and the figures:
# the selection arena of every candidate, the chosen policy's arenas
# against three rulebot and three baseline at two master seeds, and the
# reader's log-loss and AUC beside t1's own model in play and on real logs.
#
#   W=models-run COMMIT=364d898 models/provenance.sh   # after models/build.sh
#
# Variables: W (the work directory of models/build.sh, default models-run),
# READER_GAMES and READER_PASSES (the reader.sh row shipped: 6000 and 1),
# COMMIT (the commit the programs of the run were built from; default the
# checkout's HEAD), OUT (where to write, default models/).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
W=${W:-models-run}
OUT=${OUT:-$top/models}
COMMIT=${COMMIT:-$(git -C "$top" rev-parse --short HEAD)}
for f in chosen select-bc.json policy-vs-rulebot-31337.json reader/curve.tsv; do
	[ -s "$W/$f" ] || { echo "provenance.sh: $W/$f missing: run models/build.sh first" >&2; exit 1; }
done
best=$(cat "$W/chosen")
attr() { h5dump -a "$1" "$2" 2>/dev/null | sed -n 's/.*(0): \(.*\)$/\1/p' | head -n 1 | tr -d '"'; }
ci() { # an arena's JSON as "MEAN [LO, HI], N seeds x 4 rotations"
	jq -r 'def r: . * 10000 | round / 10000; "\(.rank.mean|r) [\(.rank.lo|r), \(.rank.hi|r)], \(.seeds_counted) seeds x 4 rotations, placement points \(.points.mean * 100 | round / 100), deal-in \(.rates.challenger.deal_in * 10000 | round / 10000)"' "$1"
}
secs() { # the stage's wall time: its longest row (a rerun that reused it adds a short one)
	awk -F'\t' -v s="$1" '$1 == s && $2 + 0 >= m { m = $2 + 0 } END { printf "%d min %02d s", m / 60, m % 60 }' \
		"$W/times.tsv"
}
file_lines() { # FILE: its size, checksum, architecture, observation version
	f=$1
	echo "file: $(basename "$f"), $(wc -c < "$f") bytes, sha256 $(sha256sum "$f" | cut -d' ' -f1)"
	echo "format: hydra-checkpoint version $(attr version "$f"), weights only (hydra-export --weights; formats/checkpoint.md)"
	echo "architecture: $(attr blocks "$f") blocks x $(attr channels "$f") channels (small)"
	echo "observation version: $(attr obs_version "$f") (lib/samples/sample.h HY_OBS_VERSION)"
	echo "trained steps: $(attr step "$f"), train_mode $(attr train_mode "$f")"
	echo "training command recorded in the checkpoint: $(attr train_command "$f")"
}

{
	echo "# models/policy.h5: the shipped policy network (models/README.md)"
	echo
	file_lines "$OUT/policy.h5"
	echo "commit of the programs that made it: $COMMIT"
	echo "chosen candidate: $best (the lowest mean rank of the selection arena below)"
	echo "made by: models/build.sh (W=$W), on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), CPU only"
	echo
	echo "## the commands"
	echo
	echo "1. rulebot's games: hydra-sp --games 2000 --policy rulebot --seed 0 --tables 32 --log-dir W/strength/teacher --no-samples"
	echo "2. the BC start (pipelines/bc.mk ARCH=small STEPS=6000 BATCH=256 SEED=0): mjai-parse --keep-going, mjai-parse --check,"
	echo "   hydra-encode --shard-size 100000 --val-fraction 0.05, hydra-augment --perms all,"
	echo "   hydra-fit --arch small --steps 6000 --batch 256 --device cpu --val W/strength/bc/shards/val-0000.h5: W/strength/bc/model.h5"
	echo "3. the distilled start (pipelines/strength.mk TEACHER_PARAMS=bench/learn/t1.params, DISTIL_GAMES=1500 DISTIL_SEED=7300"
	echo "   DISTIL_STEPS=1800 DISTIL_LR=2e-4): hydra-sp --games 1500 --policy rulebot:bench/learn/t1.params --seed 7300,"
	echo "   hydra-fit --init W/strength/bc/model.h5 --steps 1800 --lr 2e-4: W/strength/distil/model.h5"
	echo "4. a distillation twice as long: hydra-sp --games 3000 --policy rulebot:bench/learn/t1.params --seed 7300,"
	echo "   hydra-fit --init W/strength/bc/model.h5 --steps 3600 --lr 2e-4: W/distil2/model.h5"
	echo "5. the selection: hydra-eval --challenger CANDIDATE --opponent rulebot --seeds 800 --seed 20000 (greedy)"
	echo "6. the figures: hydra-eval --challenger CHOSEN --opponent rulebot|baseline --seeds 400 --seed 31337|4242"
	echo "7. hydra-export --weights -o models/policy.h5 CHOSEN"
	echo
	echo "wall times: recipe (steps 1-3) $(secs recipe), distil-long $(secs distil-long), selection $(secs select), figures $(secs figures)"
	echo
	echo "## the selection: each candidate against three rulebot (800 seeds, master seed 20000, duplicate, greedy)"
	echo
	for c in bc distil distil2; do
		echo "- $c: $(ci "$W/select-$c.json")"
	done
	echo
	echo "## the shipped policy's arenas (1 challenger vs 3 copies, duplicate, greedy; mean rank, 95% Student-t interval)"
	echo
	for o in rulebot baseline; do
		for s in 31337 4242; do
			echo "- vs 3 x $o, master seed $s: $(ci "$W/policy-vs-$o-$s.json")"
		done
	done
} > "$OUT/policy.provenance"

RG=${READER_GAMES:-6000} RP=${READER_PASSES:-1}
row=$(awk -F'\t' -v g="$RG" -v p="$RP" '$1 == g && $2 == p && $3 == "small"' "$W/reader/curve.tsv" | tail -n 1)
[ -n "$row" ] || { echo "provenance.sh: no $RG-game $RP-pass row in $W/reader/curve.tsv" >&2; exit 1; }
col() { echo "$row" | cut -f"$1"; }
{
	echo "# models/reader.h5: the shipped wait reader (models/README.md)"
	echo
	file_lines "$OUT/reader.h5"
	echo "commit of the programs that made it: $COMMIT"
	echo "made by: models/build.sh (W=$W) through bench/learn/reader.sh GAMES=$RG PASSES=$RP, on $(nproc) CPUs, CPU only"
	echo
	echo "## the commands"
	echo
	echo "1. games of t1 and rulebot: hydra-sp --rotate rulebot:bench/learn/t1.params,rulebot --games $RG --seed 60000,"
	echo "   hydra-augment --perms 0 (the training shard); the same, 200 games at seed 61000 (the validation shard)"
	echo "2. hydra-fit --mode reader --arch small --lr 1e-3 --batch 256 --epochs $RP --val VAL: $(col 4) samples seen, validation loss $(col 5)"
	echo "3. scored beside t1's own model on the same cells: hydra-eval --oracle --challenger"
	echo "   'rulebot-waits:0,SCOPE,reader=R,bench/learn/t1.params' --opponent rulebot --seeds 400 --seed 9100 (SCOPE tenpai, riichi);"
	echo "   on the revealed hands of the shared real logs: build/bench/waits_logs R bench/learn/t1.params ../shared/data/logs"
	echo "4. hydra-export --weights -o models/reader.h5 R"
	echo
	echo "wall time: $(secs reader) (games $(col 15) s, training $(col 16) s, scoring $(col 17) s)"
	echo
	echo "## log-loss per cell of P(a discard of kind k deals in to opponent o), lower is better (t1's own model beside it)"
	echo
	echo "- in play, every opponent (400 seeds at 9100): reader $(col 7), t1's model $(col 6)"
	echo "- in play, the opponents in riichi: reader $(col 9), t1's model $(col 8)"
	echo "- real logs, every opponent: reader $(col 12), t1's model $(col 11)"
	echo "- real logs, the opponents in riichi: reader $(col 14), t1's model $(col 13)"
	echo
	echo "hydra-eval --oracle's own lines (in play; t1's model first, then the reader with its AUC):"
	echo
	for sc in tenpai riichi; do
		grep -h 'log-loss' "$W/reader/score-$sc.err" | sed "s/^/    $sc: /"
	done
	if [ -s "$W/reader/logs.txt" ]; then
		echo
		echo "waits_logs on the real logs (log-loss and AUC of t1's model, labelled rulebot, and of the reader):"
		echo
		sed 's/^/    /' "$W/reader/logs.txt"
	fi
} > "$OUT/reader.provenance"
echo "provenance.sh: wrote $OUT/policy.provenance and $OUT/reader.provenance" >&2
