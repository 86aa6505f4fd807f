#!/bin/sh
# tier: full
# pipelines/strength.mk through bench/learn/learn.sh at a toy size: every stage
# timed in the report, the tuned teacher's file and the distilled start
# made and handed to the league as its start, the five arenas in the
# summary, a second run idle. Full tier; its fast twin t0938 checks the
# recipe's plan (make -n), DISTIL= and a failed search.
. tests/shell/lib.sh
need_cmd make
need_cmd jq
need_cmd gnuplot
cd "$T"
export BIN OUT=s TEACHER_GAMES=12 ARCH=tiny BC_STEPS=20 BC_SEEDS=2 BC_BATCH=64 GRP_EPOCHS=1 \
	TUNE_SEEDS=4 TUNE_SWEEPS=1 DISTIL_GAMES=4 DISTIL_STEPS=10 ITERS=1 GAMES=8 LEAGUE_SEEDS=2 \
	BATCH=256 SEEDS=2 THREADS=2 DEVICE=cpu
sh "$TOP/bench/learn/learn.sh" > learn.out 2> learn.err || { tail -n 30 learn.err; fail "learn.sh"; }
for st in teacher bc grp tune distil league final; do
	grep -q "^| $st | [0-9]* min [0-9]* s |" s/learn-report.md || fail "report lacks stage $st"
done
grep -q '^# hydra-tune: .* against 3 x rulebot' s/tune/teacher.params || fail "no tuned teacher"
grep -q '^threat_open3=' s/tune/teacher.params || fail "tuned teacher lacks its numbers"
cmp -s s/distil/model.h5 s/league/iter-0/model.h5 || fail "the league did not start from the distilled model"
cmp -s s/distil/model.h5 s/bc/model.h5 && fail "the distilled model is the BC start unchanged"
jq -e '.games == 8' s/tuned-vs-teacher.json > /dev/null || fail "tuned teacher's arena"
jq -e '.games == 8' s/distil-vs-start.json > /dev/null || fail "distilled start's arena"
for row in "final model vs 3 x its BC start" "final model vs 3 x rulebot" "BC start vs 3 x rulebot" \
	"league start (BC start distilled from the tuned teacher) vs 3 x its BC start" \
	"tuned teacher rulebot:s/tune/teacher.params vs 3 x rulebot"; do
	grep -qF "| $row | " s/summary.md || fail "summary lacks: $row"
done
grep -q 'fine-tuned on 4 games of rulebot tuned by self-play' s/summary.md || fail "summary title"
grep -Eq '^strength: the final model (beat|did NOT beat) the rule bot rulebot' learn.err || fail "no verdict line"

mk() { make --no-print-directory -f "$TOP/pipelines/strength.mk" OUT=s BIN="$BIN" "$@"; }
# a second run makes nothing
mk > again.log 2>&1 || { cat again.log; fail "second run"; }
grep -E 'hydra-(sp|fit|tune|eval) ' again.log && fail "a second run remade a stage"
exit 0
