#!/bin/sh
# Pipelines rebuild on change (pipelines/common.mk): a stage is remade, with
# the stages after it, when its inputs (the files under LOGS) or the
# variables that shape it (its settings stamp) change, and only then; an
# unchanged rerun makes nothing. A LOGS that does not exist or holds no log
# is an error that says so, and paths with spaces are refused clearly.
# Tiers: the full tier adds ARCH (a small network trained), a removed log,
# and the league's ITERS up and down.
. tests/shell/lib.sh
need_cmd make
need_cmd jq
cd "$T"
"$BIN/hydra-sp" --games 8 --policy baseline --seed 3 --log-dir logs --no-samples 2>err ||
	{ cat err; fail "hydra-sp"; }
mk() { make --no-print-directory -f "$TOP/pipelines/train.mk" BIN="$BIN" LOGS=logs OUT=tw \
	ARCH=tiny STEPS=4 BATCH=64 VAL=0.3 DEVICE=cpu THREADS=1 "$@"; }
STAGES="events.bin events.checked shards.done augment.done run/done"
stage_times() { for f in $STAGES; do find "tw/$f" -maxdepth 0 -printf '%p %T@\n'; done; }
# remakes WANT ARGS...: mk ARGS remakes exactly the stages WANT (in the
# order of $STAGES; "" for none)
remakes() {
	want=$1; shift
	stage_times > before
	find tw -type f -printf '%p %T@\n' | sort > all.before
	mk "$@" > log 2>&1 || { tail -n 20 log; fail "mk $*"; }
	stage_times > after
	got=$(paste -d ' ' before after | awk '$2 != $4 { sub("^tw/", "", $1); print $1 }' | xargs)
	[ "$got" = "$want" ] || { tail -n 20 log; fail "mk $*: remade '$got', not '$want'"; }
	if [ -z "$want" ]; then
		grep -E 'mjai-parse|hydra-' log && fail "mk $*: an unchanged rerun ran programs"
		find tw -type f -printf '%p %T@\n' | sort | cmp -s - all.before ||
			fail "mk $*: an unchanged rerun changed files"
	fi
	return 0
}

mk > log 2>&1 || { tail -n 20 log; fail "train.mk"; }
grep -qx 'ARCH=tiny' tw/.bc-fit.settings && grep -qx 'STEPS=4' tw/.bc-fit.settings ||
	fail "the settings stamp of the training: $(cat tw/.bc-fit.settings)"
remakes ""
remakes "" EPOCHS=5    # EPOCHS does not count with STEPS

# the settings of the training: a fresh run, not a resumed one
remakes "run/done" LR=1e-3
grep -q -- "--lr 1e-3" log || fail "LR not given to hydra-fit"
grep -q "resuming" log && fail "a changed LR resumed the run"
if in_full; then
	remakes "run/done" ARCH=small
	grep -q -- "--arch small" log || fail "ARCH not given to hydra-fit"
fi
remakes "run/done" STEPS= EPOCHS=0.01
grep -q -- "--epochs 0.01" log || fail "EPOCHS not given to hydra-fit"
# the settings of the shards
remakes "shards.done augment.done run/done" STEPS= EPOCHS=0.01 VAL=0.4
remakes "" STEPS= EPOCHS=0.01 VAL=0.4

# the logs: a new one, a removed one, a hidden file
"$BIN/hydra-sp" --games 1 --policy baseline --seed 9 --log-dir more --no-samples 2>err ||
	{ cat err; fail "hydra-sp"; }
cp more/game-00000000.json.gz logs/game-extra.json.gz
remakes "events.bin events.checked shards.done augment.done run/done" STEPS= EPOCHS=0.01 VAL=0.4
grep -q "mjai-parse: 9 documents, 9 games" log || fail "the new log was not parsed"
if in_full; then
	rm logs/game-extra.json.gz
	remakes "events.bin events.checked shards.done augment.done run/done" STEPS= EPOCHS=0.01 VAL=0.4
	grep -q "mjai-parse: 8 documents, 8 games" log || fail "the removed log was parsed"
fi
echo notes > logs/.notes
remakes "" STEPS= EPOCHS=0.01 VAL=0.4

# a mistyped or empty LOGS fails, saying so, and leaves the stages as they were
stage_times > before
mk LOGS=lgos > log 2>&1 && fail "a LOGS that does not exist was accepted"
grep -q "LOGS='lgos': No such file or directory" log || { cat log; fail "message of a missing LOGS"; }
mkdir empty empty/sub
mk LOGS=empty > log 2>&1 && fail "a LOGS with no log was accepted"
grep -q "LOGS='empty' holds no log file" log || { cat log; fail "message of an empty LOGS"; }
mk LOGS= > log 2>&1 && fail "no LOGS accepted"
grep -q "LOGS is not set" log || { cat log; fail "message of no LOGS"; }
stage_times | cmp -s - before || fail "a failed LOGS changed the stages"

# selfplay.mk: the arena's settings remake the arena, the league, the best
# model, not the games or the training; the league follows ITERS
sp() { make --no-print-directory -f "$TOP/pipelines/selfplay.mk" BIN="$BIN" INIT=tw/run/latest \
	OUT=s GAMES=4 TABLES=4 SEEDS=2 BATCH=64 DEVICE=cpu THREADS=1 "$@" s/league.jsonl s/best.h5; }
SP="iter-1/samples.bin iter-1/run/done iter-1/arena.json iter-1/league.json iter-1/best.h5
league.jsonl best.h5"
sptimes() { for f in $SP; do find "s/$f" -maxdepth 0 -printf '%p %T@\n'; done; }
sp ITERS=1 > log 2>&1 || { tail -n 20 log; fail "selfplay.mk"; }
sptimes > before
sp ITERS=1 SEEDS=3 > log 2>&1 || { tail -n 20 log; fail "selfplay.mk SEEDS=3"; }
got=$(sptimes | paste -d ' ' before - | awk '$2 != $4 { sub("^s/", "", $1); print $1 }' | xargs)
[ "$got" = "iter-1/arena.json iter-1/league.json iter-1/best.h5 league.jsonl best.h5" ] ||
	fail "selfplay.mk SEEDS=3 remade '$got'"
jq -e '.seeds == 3' s/iter-1/league.json > /dev/null || fail "the league record is not of 3 seeds"
sptimes > before
sp ITERS=1 SEEDS=3 > log 2>&1 || fail "selfplay.mk again"
grep -q 'hydra-' log && fail "selfplay.mk: an unchanged rerun ran programs"
sptimes | cmp -s - before || fail "selfplay.mk: an unchanged rerun changed targets"
if in_full; then
sp ITERS=2 SEEDS=3 > log 2>&1 || { tail -n 20 log; fail "selfplay.mk ITERS=2"; }
[ "$(jq -s -c 'map(.iter)' s/league.jsonl)" = "[1,2]" ] || fail "league.jsonl after ITERS=2"
cmp -s s/best.h5 s/iter-2/best.h5 || fail "best.h5 after ITERS=2"
sp ITERS=1 SEEDS=3 > log 2>&1 || { tail -n 20 log; fail "selfplay.mk ITERS=1"; }
[ "$(jq -s -c 'map(.iter)' s/league.jsonl)" = "[1]" ] || fail "league.jsonl after ITERS=1"
cmp -s s/best.h5 s/iter-1/best.h5 || fail "best.h5 after ITERS=1"
fi

# paths with spaces: refused, and nothing made or removed
mkdir "my logs" keep
cp logs/*.gz "my logs/"
for args in "train.mk|LOGS=logs|OUT=my out" "train.mk|LOGS=my logs|OUT=tw" \
	"bc.mk|LOGS=logs|OUT=keep out|clean" "selfplay.mk|INIT=tw/run/latest|OUT=s p" \
	"selfplay.mk|INIT=my logs/x.h5|OUT=s" "demo.mk|OUT=d d" "plots.mk|RUN=tw/r un"; do
	IFS='|'
	set -- $args
	unset IFS
	f=$1; shift
	var=$(printf '%s\n' "$@" | grep ' ' | head -n 1)
	make --no-print-directory -f "$TOP/pipelines/$f" BIN="$BIN" "$@" > log 2>&1 &&
		fail "$f $*: a path with a space accepted"
	grep -q "${var%%=*}='${var#*=}' holds a space or a colon: make cannot handle such paths" log ||
		{ cat log; fail "$f $*: message"; }
done
[ -d keep ] || fail "clean removed a part of a path with a space"
ls -d my out "s p" "d d" 2>/dev/null | grep . && fail "made a directory"
exit 0
