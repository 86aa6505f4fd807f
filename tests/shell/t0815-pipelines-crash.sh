#!/bin/sh
# Crash safety of the pipelines (pipelines/common.mk): bc.mk, selfplay.mk and
# demo.mk at toy sizes are killed with SIGKILL while each of their stages
# runs, one stage after the other: every run is killed at the next stage
# (wrapper programs send SIGKILL to make's whole process group a moment
# after that stage's program starts, or just after it ends when it is
# quick). After every kill, no target is empty or a partial JSON; the next
# run starts again at the stage that was killed, and the targets that existed
# keep their times (nothing whole is remade). The last run ends with status
# 0 and a complete result (league.jsonl has every iteration, best.h5 is the
# model its arena result chose, no temporaries left), and a run after it
# runs no program and changes no file.
#
# Tiers: the fast tier kills bc.mk once, in its training stage (hydra-fit
# mid-run), and checks the rerun and the idle run as above; the full tier
# kills every stage of the three pipelines.
. tests/shell/lib.sh
need_cmd make
need_cmd jq
need_cmd gnuplot
need_cmd setsid
cd "$T"
ln -s "$TOP/pipelines" pl
"$BIN/hydra-sp" --games 8 --policy baseline --seed 3 --log-dir logs --no-samples 2>sp.err ||
	{ cat sp.err; fail "hydra-sp"; }

# ---- the wrapper: BIN for the programs, first on PATH for cp, cat, jq, gnuplot
mkdir w
cat > w/kill-at <<'EOF'
#!/bin/sh
# Runs the program it is named after, logging "NAME ARGS" to $HY_CALLS; when
# that matches the pattern $HY_KILL_AT (once), records it in $HY_KILLED and
# kills the process group of make with SIGKILL 0.1 s after the start, or
# right after the program ends when $HY_KILL_AFTER is set.
name=${0##*/}
case $name in
hydra-*|mjai-parse) real=$HY_REAL_BIN/$name ;;
*) real=$(PATH=$HY_REAL_PATH command -v "$name") ;;
esac
echo "$name $*" >> "$HY_CALLS"
if [ -n "$HY_KILL_AT" ] && [ ! -e "$HY_KILLED" ]; then
	case "$name $*" in
	$HY_KILL_AT)
		pg=$(ps -o pgid= -p $$ | tr -d ' ')
		[ -n "$pg" ] && [ "$pg" != "$HY_TEST_PGID" ] ||
			{ echo "kill-at: not in a process group of its own" >&2; exit 1; }
		echo "$pg $name $*" > "$HY_KILLED"
		if [ -n "$HY_KILL_AFTER" ]; then "$real" "$@"
		else
			exec 3<&0
			"$real" "$@" <&3 &
			sleep 0.1
		fi
		kill -9 -"$pg"
		exit 1 ;;
	esac
fi
exec "$real" "$@"
EOF
chmod +x w/kill-at
for p in mjai-parse hydra-encode hydra-augment hydra-fit hydra-eval hydra-sp hydra-review hydra-tune \
	cp cat jq gnuplot; do
	ln -s kill-at "w/$p"
done
HY_REAL_BIN=$BIN HY_REAL_PATH=$PATH HY_CALLS=$T/calls HY_KILLED=$T/killed
HY_TEST_PGID=$(ps -o pgid= -p $$ | tr -d ' ')
PATH=$T/w:$PATH
export HY_REAL_BIN HY_REAL_PATH HY_CALLS HY_KILLED HY_TEST_PGID PATH
# LIVE_PLOTS off: the plot refresh inside hydra-fit would run jq and gnuplot
# within the fit stage and meet the kill patterns of the plot stages
MK="make --no-print-directory BIN=$T/w DEVICE=cpu THREADS=1 LIVE_PLOTS="
BC="$MK -f pl/bc.mk LOGS=logs OUT=bc ARCH=tiny STEPS=20 BATCH=64 VAL=0.3 SEEDS=2"
SP="$MK -f pl/selfplay.mk INIT=bc/model.h5 OUT=sp GAMES=4 TABLES=4 SEEDS=2 BATCH=64 ITERS=2"
DEMO="$MK -f pl/demo.mk OUT=d GAMES=8 ARCH=tiny STEPS=20 VAL=0.3 SEEDS=2 ITERS=1 SP_GAMES=4 SP_SEEDS=2
	TUNE_SEEDS=4 DISTIL_GAMES=4 DISTIL_STEPS=10"

# snap OUT TARGETS: "path time size" of the targets that exist, by path
snap() {
	for f in $2; do
		[ -e "$1/$f" ] && find "$1/$f" -maxdepth 0 -printf '%p %T@ %s\n'
	done | sort
}
# chain WHAT OUT TARGETS MAKE-COMMAND, stages on stdin, one a line: the
# stage's target (in OUT) and the pattern of the call to kill at ("+" before
# it: killed after the program ends)
chain() {
	what=$1 out=$2 targets=$3 cmd=$4 prev=
	: > snap.old
	while read -r target pat; do
		after=
		case $pat in +*) after=y pat=${pat#+} ;; esac
		rm -f killed
		: > calls
		HY_KILL_AT=$pat HY_KILL_AFTER=$after setsid -w $cmd < /dev/null > log 2>&1
		rc=$?
		[ -s killed ] || { tail -n 30 log; fail "$what: not killed at '$pat' (exit $rc)"; }
		pg=$(cut -d' ' -f1 killed)
		# until every process of the group has died (zombies are dead)
		k=0
		while ps -g "$pg" -o stat= | grep -qv '^Z' && [ $k -lt 100 ]; do
			sleep 0.05; k=$((k + 1))
		done
		[ $rc -ne 0 ] || fail "$what: make exited 0 when killed at '$pat'"
		check_first
		snap "$out" "$targets" > snap.new
		awk '$3 == 0 { print "empty target " $1 }' snap.new | grep . &&
			fail "$what: empty targets after the kill at '$pat'"
		for f in $(awk '$1 ~ /\.jsonl?$/ { print $1 }' snap.new); do
			jq -e . "$f" > /dev/null 2>&1 || fail "$what: partial $f after the kill at '$pat'"
		done
		comm -23 snap.old snap.new | grep . &&
			fail "$what: these targets were remade or removed before the kill at '$pat'"
		mv snap.new snap.old
		# the next run must begin with this stage when its target is missing
		prev=
		[ -e "$out/$target" ] || prev=$pat
	done
	: > calls
	$cmd < /dev/null > log 2>&1 || { tail -n 30 log; fail "$what: the run after the last kill"; }
	check_first
	snap "$out" "$targets" > snap.new
	comm -23 snap.old snap.new | grep . && fail "$what: targets remade by the last run"
	for f in $targets; do
		[ -s "$out/$f" ] || fail "$what: no $out/$f after the last run"
	done
	find "$out" -name '*.tmp*' | grep . && fail "$what: temporaries left"
	# a run after a complete one does nothing
	: > calls
	$cmd < /dev/null > log 2>&1 || { tail -n 30 log; fail "$what: the idle run"; }
	# (but for a cat that shows a file)
	grep -v '^cat [^ ]*$' calls && fail "$what: the run after a complete one ran programs"
	snap "$out" "$targets" > snap.idle
	cmp -s snap.new snap.idle || fail "$what: the run after a complete one changed targets"
}
check_first() {
	[ -n "$prev" ] || return 0
	case "$(head -n 1 calls)" in
	$prev) ;;
	*) fail "$what: the run after the kill at '$prev' began with '$(head -n 1 calls)'" ;;
	esac
}

# ---- bc.mk: every stage in the order make runs them
BC_T=".bc-events.settings .bc-shards.settings .bc-fit.settings .bc-arena.settings events.bin
events.checked shards.done augment.done run/done model.h5 arena.json eval.json
run/plots/metrics.tsv run/plots/losses.png"
bc_stages() {
	if ! in_full; then echo 'run/done hydra-fit *'; return; fi
	cat <<'EOF'
events.bin mjai-parse *--keep-going*
events.checked mjai-parse *--check*
shards.done +hydra-encode *
augment.done hydra-augment *
run/done hydra-fit *
run/done +hydra-fit *
model.h5 cp -L bc/run/latest *
arena.json hydra-eval *--challenger*
eval.json hydra-eval *--data*
run/plots/metrics.tsv jq *.step*
run/plots/losses.png gnuplot *
EOF
}
bc_stages > bc.stages
chain bc.mk bc "$BC_T" "$BC" < bc.stages
for f in events.checked arena.txt eval.txt shards/train-0000.h5 shards/val-0000.h5 \
	aug/train-0000.h5 run/plots/training.png; do
	[ -s "bc/$f" ] || fail "bc.mk: no bc/$f"
done
jq -e '.games == 8' bc/arena.json > /dev/null || fail "bc.mk: arena.json"
cmp -s bc/model.h5 "bc/run/$(cat bc/run/done)" || fail "bc.mk: model.h5 is not the run's last checkpoint"
in_full || exit 0

# ---- selfplay.mk, two iterations: the first one's every stage, then the
# second's league record, the league, the best model, the plots
SP_T=".sp-init.settings .sp-play.settings .sp-fit.settings .sp-arena.settings .sp-yard.settings
.sp-league.settings iter-0/model.h5 iter-0/best.h5 league.jsonl best.h5 plots/league.tsv
plots/league.png"
for i in 1 2; do
	for f in samples.bin run/done model.h5 arena.json yard.json league.json best.h5 \
		run/plots/metrics.tsv \
		run/plots/losses.png; do
		SP_T="$SP_T iter-$i/$f"
	done
done
chain selfplay.mk sp "$SP_T" "$SP" <<'EOF'
iter-0/model.h5 cp -L bc/model.h5 *
iter-1/samples.bin hydra-sp *sp/iter-1/samples.bin*
iter-1/run/done +hydra-fit *--out sp/iter-1/run*
iter-1/model.h5 cp -L sp/iter-1/run/latest *
iter-0/best.h5 cp sp/iter-0/model.h5 *
iter-1/arena.json hydra-eval *--challenger sp/iter-1/model.h5 --opponent sp/iter-0/best.h5*
iter-1/yard.json hydra-eval *--challenger sp/iter-1/model.h5 --opponent rulebot*
iter-1/league.json jq -c *iter: 1,*
iter-1/best.h5 jq -r .promoted sp/iter-1/*
iter-2/league.json jq -c *iter: 2,*
league.jsonl cat sp/iter-1/league.json sp/iter-2/league.json
best.h5 cp sp/iter-2/best.h5 *
plots/league.png gnuplot *league.gp
iter-1/run/plots/losses.png gnuplot *sp/iter-1/run/*
EOF
[ "$(jq -s -c 'map(.iter)' sp/league.jsonl)" = "[1,2]" ] ||
	fail "selfplay.mk: league.jsonl holds iterations $(jq -s -c 'map(.iter)' sp/league.jsonl)"
for i in 1 2; do
	# best.h5 is the model that iteration's arena result chose
	if [ "$(jq -r .promoted "sp/iter-$i/league.json")" = true ]; then want=sp/iter-$i/model.h5
	else want=sp/iter-$((i - 1))/best.h5; fi
	cmp -s "sp/iter-$i/best.h5" "$want" || fail "selfplay.mk: sp/iter-$i/best.h5 is not $want"
	jq -e ".challenger == \"sp/iter-$i/model.h5\"" "sp/iter-$i/arena.json" > /dev/null ||
		fail "selfplay.mk: sp/iter-$i/arena.json"
done
cmp -s sp/best.h5 sp/iter-2/best.h5 || fail "selfplay.mk: sp/best.h5"

# ---- demo.mk: its own stages (those of bc.mk and selfplay.mk, which it runs,
# are tested above; so is a kill inside a sub-make, plots.mk under bc.mk)
DEMO_T=".demo-logs.settings .demo-arena.settings .demo-grp.settings .demo-tune.settings
.demo-distil.settings logs.done bc/model.h5 bc/eval.json bc/arena.json arena-random.json
grp/grp.h5 tune/teacher.params distil/games.bin distil/model.h5 sp/league.jsonl sp/best.h5
review.html shipped-vs-rulebot.json summary.txt"
chain demo.mk d "$DEMO_T" "$DEMO" <<'EOF'
logs.done hydra-sp *--log-dir d/logs.tmp*
arena-random.json hydra-eval *--opponent random*
grp/grp.h5 hydra-fit --mode grp*
tune/teacher.params hydra-tune *
distil/games.bin hydra-sp *--policy rulebot:d/tune/teacher.params*
distil/model.h5 hydra-fit *--init d/bc/model.h5*
review.html hydra-review *
shipped-vs-rulebot.json hydra-eval -q --opponent rulebot *
summary.txt jq -r *validation top-1*
EOF
[ "$(ls d/logs | wc -l)" -eq 8 ] || fail "demo.mk: d/logs does not hold 8 games"
grep -q "iteration 1:" d/summary.txt || fail "demo.mk: summary"
grep -q "^verdict: " d/summary.txt || fail "demo.mk: no verdict"
grep -q "^tuned teacher: .* against 3 x rulebot" d/summary.txt || fail "demo.mk: no tuned teacher"
cmp -s d/distil/model.h5 d/sp/iter-0/model.h5 || fail "demo.mk: the league did not start from the distilled clone"
grep -q "^<!doctype html>" d/review.html || fail "demo.mk: review.html is no page"
grep -q "^review: d/review.html" d/summary.txt || fail "demo.mk: the summary does not name the review"
grep -q "^this demo's model against the shipped one" d/summary.txt || fail "demo.mk: no comparison with the shipped model"
grep -q "^  $(cd "$TOP" && pwd)/models/policy.h5: mean rank" d/summary.txt || fail "demo.mk: the shipped model's rank"
grep -q "^  the shipped model ranks " d/summary.txt || fail "demo.mk: the shipped model's difference"
exit 0
