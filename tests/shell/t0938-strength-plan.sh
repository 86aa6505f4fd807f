#!/bin/sh
# The fast twin of t0937 (pipelines/strength.mk through bench/learn/learn.sh,
# full tier): the recipe's plan without running it (make -n) names every
# stage with the sizes it was given, in an order that respects what each
# stage reads: the teacher's games before the clone and the GRP, the tuned
# teacher before its games, the distilled start from the BC start, the
# league from the distilled start rewarded by the GRP, the five arenas and
# the summary's five rows last; DISTIL= starts the league from the BC start
# and tunes nothing; a failed search (hydra-tune refuses --seeds 0) fails
# the make and leaves no parameter file.
. tests/shell/lib.sh
need_cmd make
cd "$T"
mk() { make --no-print-directory -f "$TOP/pipelines/strength.mk" BIN="$BIN" "$@"; }
mk -n OUT=s TEACHER_GAMES=12 ARCH=tiny BC_STEPS=20 TUNE_SEEDS=4 DISTIL_GAMES=4 DISTIL_STEPS=10 \
	ITERS=1 GAMES=8 SEEDS=2 > plan.raw 2>&1 || { cat plan.raw; fail "make -n"; }
# (one command a line: continuation lines joined)
sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' plan.raw > plan
# line PATTERN: the number of the first line of the plan that matches (grep -E)
line() {
	n=$(grep -nE -- "$1" plan | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || { cat plan >&2; fail "the plan has no line matching '$1'"; }
	echo "$n"
}
teacher=$(line 'hydra-sp --games 12 --policy rulebot .*--log-dir s/teacher') || exit 1
bc=$(line '-f .*/bc\.mk LOGS=s/teacher OUT=s/bc ARCH=tiny STEPS=20') || exit 1
grp=$(line 'hydra-fit --mode grp .* -o s/grp s/teacher') || exit 1
tune=$(line 'hydra-tune --opponent rulebot --seeds 4 ') || exit 1
games=$(line 'hydra-sp --games 4 --policy rulebot:s/tune/teacher\.params') || exit 1
distil=$(line 'hydra-fit --init s/bc/model\.h5 --steps 10 ') || exit 1
league=$(line '-f .*/selfplay\.mk INIT=s/distil/model\.h5 OUT=s/league ITERS=1') || exit 1
grep -q 'REWARD=grp:s/grp/grp\.h5' plan || fail "the league is not rewarded by the GRP"
for a in final-vs-start final-vs-teacher start-vs-teacher distil-vs-start tuned-vs-teacher; do
	n=$(line "hydra-eval .*--seeds 2 .*--json > s/$a\.json\.tmp") || exit 1
	[ "$n" -gt "$league" ] || [ "$a" = distil-vs-start ] || [ "$a" = tuned-vs-teacher ] ||
		fail "the arena $a comes before the league"
done
summary=$(line '> s/summary\.md\.tmp$') || exit 1
for row in "final model vs 3 x its BC start" "final model vs 3 x rulebot" "BC start vs 3 x rulebot" \
	"league start (BC start distilled from the tuned teacher) vs 3 x its BC start" \
	"tuned teacher rulebot:s/tune/teacher.params vs 3 x rulebot"; do
	grep -qF -- "--arg name \"$row\"" plan || fail "the summary lacks: $row"
done
# what each stage reads is made before it
[ "$teacher" -lt "$bc" ] && [ "$teacher" -lt "$grp" ] || fail "the teacher's games come after their readers"
[ "$tune" -lt "$games" ] && [ "$games" -lt "$distil" ] && [ "$bc" -lt "$distil" ] ||
	fail "the distilled start comes before what it reads"
[ "$distil" -lt "$league" ] && [ "$grp" -lt "$league" ] || fail "the league comes before its start or its GRP"
[ "$league" -lt "$summary" ] || fail "the summary comes before the league"
[ ! -e s ] || fail "make -n made files"
# DISTIL= : the league from the BC start, no search (dry run)
mk -n OUT=s DISTIL= league > nodistil.log 2>&1 || { cat nodistil.log; fail "DISTIL= dry run"; }
grep -q "INIT=s/bc/model.h5" nodistil.log || fail "DISTIL= does not start the league from the BC start"
grep -q 'hydra-tune' nodistil.log && fail "DISTIL= still tunes"
# a failed search leaves no parameter file and fails the make
expect_exit 2 mk OUT=f TUNE_SEEDS=0 tune
[ -e f/tune/teacher.params ] && fail "a failed search left a parameter file"
ls f/tune | grep -q . && fail "a failed search left files: $(ls f/tune)"
exit 0
