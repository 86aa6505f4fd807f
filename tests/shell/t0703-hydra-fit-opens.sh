#!/bin/sh
# Each checkpoint a training run reads is opened once (issue 55: one
# handle, opened at the edge and passed down): the opens of a file are
# counted by strace and compared with those of one handle (hydra-export
# --weights opens its checkpoint once) — for --init, for a --resume that
# reads the inputs its checkpoint recorded, and for PPO's --init and
# --anchor. The inputs too: a run whose plan opens them to learn their
# length (--epochs on a shard, PPO on a stream file with no --steps) opens
# each as often as a run that does not (--steps given): one handle, made by
# the plan and taken by the trainer. Skipped without strace.
. tests/shell/lib.sh
need_cmd strace
F="$BIN/hydra-fit"
opens() { # FILE CMD...: the openat calls of FILE's path by CMD and its children,
	# into $T/n (a command, not $(...): a failure must end the test)
	f=$1; shift
	# (LeakSanitizer cannot run under ptrace: off for the traced runs of a
	# SANITIZE=1 build; the same programs run leak-checked everywhere else)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o "$T/trace" "$@" > "$T/out" 2> "$T/err" ||
		{ cat "$T/err" >&2; fail "'$*' failed"; }
	grep -c "openat(AT_FDCWD, \"$f\"" "$T/trace" > "$T/n"
}

expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 2 --policy rulebot -q -o "$T/s.bin"
expect_exit 0 "$F" -q --arch tiny --steps 2 --batch 32 -j 1 -o "$T/run" "$T/s.bin"
CK="$T/ck.h5"
cp -L "$T/run/latest" "$CK"
opens "$CK" "$BIN/hydra-export" --weights -o "$T/w.h5" "$CK"
one=$(cat "$T/n")
[ "$one" -ge 1 ] || fail "hydra-export did not open $CK"

opens "$CK" "$F" -q --init "$CK" --steps 2 --batch 32 -j 1 -o "$T/init" "$T/s.bin"
n=$(cat "$T/n")
[ "$n" -eq "$one" ] || fail "--init opened its checkpoint $n times ($one: once)"

# a resume with no inputs named: the recorded ones, the checkpoint read once
expect_exit 0 "$F" -q --arch tiny --steps 4 --batch 32 -j 1 --save-every 2 -o "$T/res" "$T/s.bin"
R=$(cd "$T/res" && pwd)/ckpt-00000002.h5
[ -f "$R" ] || fail "no step-2 checkpoint"
cp "$T/res/ckpt-00000002.h5" "$T/mid.h5"
rm -f "$T/res/ckpt-00000004.h5" "$T/res/latest"
ln -s ckpt-00000002.h5 "$T/res/latest"
opens "$R" "$F" -q --resume "$R" -j 1
n=$(cat "$T/n")
[ "$n" -eq "$one" ] || fail "--resume opened its checkpoint $n times ($one: once)"

# PPO: the policy's games, --init and --anchor each opened once
expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 3 --policy "$CK" -T 1 -q -o "$T/ppo.bin"
cp "$CK" "$T/anchor.h5"
opens "$T/anchor.h5" "$F" -q --mode ppo --init "$CK" --anchor "$T/anchor.h5" --batch 64 \
	--minibatch 32 --ppo-epochs 1 -j 1 -o "$T/ppo" "$T/ppo.bin"
[ "$(cat "$T/n")" -eq "$one" ] || fail "--anchor opened $(cat "$T/n") times ($one: once)"
[ "$(grep -c "openat(AT_FDCWD, \"$CK\"" "$T/trace")" -eq "$one" ] ||
	fail "PPO's --init opened $(grep -c "openat(AT_FDCWD, \"$CK\"" "$T/trace") times ($one: once)"

# the inputs: the plan's handle is the trainer's
expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 4 --policy rulebot -q --log-dir "$T/lg" --no-samples
"$BIN/mjai-parse" -q "$T/lg" 2>/dev/null | "$BIN/hydra-encode" -q -o "$T/in.h5" > /dev/null ||
	fail "mjai-parse | hydra-encode -o in.h5"
IN=$(cd "$T" && pwd)/in.h5
opens "$IN" "$F" -q --arch tiny --steps 3 --batch 32 -j 1 -o "$T/st" "$IN"
ref=$(cat "$T/n")
[ "$ref" -ge 1 ] || fail "hydra-fit did not open its input $IN"
opens "$IN" "$F" -q --arch tiny --epochs 1 --batch 32 -j 1 -o "$T/ep" "$IN"
[ "$(cat "$T/n")" -eq "$ref" ] || fail "--epochs opened its input $(cat "$T/n") times (--steps: $ref)"
PB=$(cd "$T" && pwd)/ppo.bin
opens "$PB" "$F" -q --mode ppo --init "$CK" --batch 64 --minibatch 32 --ppo-epochs 1 \
	--steps 1 -j 1 -o "$T/p1" "$PB"
ref=$(cat "$T/n")
opens "$PB" "$F" -q --mode ppo --init "$CK" --batch 64 --minibatch 32 --ppo-epochs 1 \
	-j 1 -o "$T/p2" "$PB"
[ "$(cat "$T/n")" -le "$ref" ] || fail "PPO with no --steps opened its stream $(cat "$T/n") times (--steps 1: $ref)"
exit 0
