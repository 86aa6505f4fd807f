#!/bin/sh
# Pipes never lie, round two (no shared data: the games are hydra-sp's).
# hydra-sp fails a run in which a game aborted like mjai-parse and
# hydra-encode fail on a bad game: an abort record on a pipe, no -o file;
# --keep-going skips the failed games, counted and reported.
# --keep-going skips bad games, never an input that cannot be opened, and a
# run left with no game fails; a failed run never replaces its output.
# hydra-fit without --steps reads a sample-stream file once, as stdin.
# Tests leave nothing in $TMPDIR. A damaged shard is one clear line from
# every thread (no libhdf5 error stack), saying "checksum mismatch". A
# resume keeps the run's mode; an empty stream is called empty.
. tests/shell/lib.sh
SP="$BIN/hydra-sp" F="$BIN/hydra-fit"
cd "$T" || exit 1
export PATH="$BIN:$PATH"

# ---- hydra-sp: a seat-0 bot that fails in the first game only (the next
# tables' bots find the marker and serve the baseline)
flaky='mjai:[ -e once ] && exec hydra-bot baseline; touch once; exit 1'
( "$SP" --games 3 --tables 1 --seat0 "$flaky" --others baseline 2>err1; echo $? > st1 ) |
	( "$F" --arch tiny --steps 3 --batch 16 --device cpu -q --out R 2>err2; echo $? > st2 )
[ "$(cat st1)" -eq 1 ] || { cat err1; fail "hydra-sp with an aborted game exited $(cat st1)"; }
[ "$(cat st2)" -ne 0 ] || { cat err2; fail "hydra-fit trained on a failed self-play run"; }
grep -q "game 1 (index 0) aborted: " err1 || { cat err1; fail "the aborted game is not named"; }
grep -q "hint: --keep-going" err1 || fail "no hint"
grep -q "input stream was aborted by its producer: hydra-sp failed: game 1 (index 0) aborted" err2 ||
	{ cat err2; fail "hydra-fit does not say that hydra-sp failed"; }
ls R/*.h5 R/latest >/dev/null 2>&1 && fail "checkpoints written after a failed self-play run"
rm -f once
expect_exit 1 "$SP" --games 3 --tables 1 --seat0 "$flaky" --others baseline -o sp.bin
[ ! -e sp.bin ] || fail "hydra-sp -o left its output after an aborted game"
ls | grep -q 'sp.bin.tmp' && fail "hydra-sp left a temporary"
# --keep-going: the other games' samples, the count on stderr, exit 0
rm -f once
expect_exit 0 "$SP" --keep-going --games 3 --tables 1 --seat0 "$flaky" --others baseline -o sp.bin
expect_err "game 1 \(index 0\) aborted: "
expect_err "1 of 3 games aborted and skipped"
"$SP" --first 1 --games 2 -o two.bin 2>/dev/null || fail "hydra-sp --first 1"
same_file sp.bin two.bin
# every game aborted: an error even with --keep-going
expect_exit 1 "$SP" --keep-going --games 2 --seat0 'mjai:exit 1' --others baseline -o none.bin
expect_err "all 2 games aborted"
[ ! -e none.bin ] || fail "hydra-sp left an output when every game aborted"

# ---- --keep-going: bad games are skipped; a missing input, or nothing left, fails
"$SP" --games 2 --log-dir logs --no-samples 2>/dev/null || fail "hydra-sp logs"
mkdir bad
gzip -dc logs/game-00000000.json.gz | sed '10s/.*/{"type":"dahai","actor":9}/' > bad/bad.json
echo old > ev.bin
cp ev.bin s.bin
for p in mjai-parse hydra-encode; do
	case $p in mjai-parse) out=ev.bin;; *) out=s.bin;; esac
	expect_exit 1 "$BIN/$p" --keep-going missing.tar.zst -o $out
	expect_err "missing.tar.zst: cannot open: No such file or directory"
	grep -q "skipped" "$T/err" && fail "$p: a missing input counted as a skipped game"
	expect_exit 1 "$BIN/$p" --keep-going logs missing.tar.zst -o $out
	expect_err "missing.tar.zst: cannot open"
	expect_exit 1 "$BIN/$p" --keep-going bad -o $out
	expect_err "no games: all 1 games read were bad"
	[ "$(cat $out)" = old ] || fail "$p: a failed run replaced its output"
	ls | grep -q "$out.tmp" && fail "$p: temporary left"
	expect_exit 0 "$BIN/$p" --keep-going bad logs -o $out
	expect_err "1 bad games skipped"
done
"$BIN/mjai-parse" --json ev.bin | grep -c '"type":"start_game"' > n
[ "$(cat n)" -eq 2 ] || fail "mjai-parse --keep-going kept $(cat n) games, want 2"
# on a pipe the next stage fails too, naming the missing input
( "$BIN/hydra-encode" --keep-going missing.tar.zst 2>/dev/null; echo $? > st1 ) |
	( "$F" --arch tiny --steps 1 --batch 16 --device cpu -q --out R3 2>err3; echo $? > st3 )
[ "$(cat st1)" -eq 1 ] && [ "$(cat st3)" -eq 1 ] || fail "hydra-encode | hydra-fit: $(cat st1) $(cat st3)"
grep -q "aborted by its producer: hydra-encode failed: missing.tar.zst: cannot open" err3 ||
	{ cat err3; fail "hydra-fit does not name the missing input"; }

# ---- hydra-fit, no --steps: one pass over a stream file (BC and PPO)
"$SP" --games 2 --seed 3 -o one.bin 2>/dev/null || fail "hydra-sp one.bin"
n=$(( $(wc -c < one.bin) / 5888 - 1 ))  # records less the trailer (32-byte header)
timeout 60 "$F" --arch tiny --batch 256 --device cpu --out P1 one.bin 2>err
[ $? -eq 0 ] || { cat err; fail "hydra-fit on a stream file without --steps did not end"; }
grep -q "the input ended after [0-9]* steps (one pass)" err || { cat err; fail "no one-pass notice"; }
grep -q "done at step [0-9]*: $n samples" err || { cat err; fail "one pass is not $n samples"; }
timeout 60 "$F" --mode ppo --init P1/latest --batch 512 --log-every 1 --device cpu -q --out P2 one.bin 2>err
[ $? -eq 0 ] || { cat err; fail "hydra-fit --mode ppo on a stream file without --steps did not end"; }
tail -n 1 P2/metrics.jsonl | grep -q "\"epoch\":0,\"samples\":$n," ||
	{ tail -n 1 P2/metrics.jsonl; fail "PPO: one pass is not $n samples"; }

# ---- --resume goes on in the run's mode: another mode is a usage error
for m in bc ppo; do
	case $m in bc) run=P2 was=ppo;; *) run=P1 was=bc;; esac
	expect_exit 2 "$F" --resume $run --mode $m --steps 100 --device cpu -q one.bin
	expect_err "is of a --mode $was run: --resume goes on in that mode \(give --mode $was\)"
done
expect_exit 2 "$F" --resume P2 --steps 100 --device cpu -q one.bin  # bc is the default
expect_err "is of a --mode ppo run"

# ---- a stream with no samples (every game aborted) says so, in both modes
EMPTY="$TOP/tests/golden/samples/empty.bin"
for mode in "--mode ppo --init P1/latest" "--arch tiny"; do
	expect_exit 1 "$F" $mode --device cpu -q --out E1 "$EMPTY"
	expect_err "empty.bin: no samples: the stream is empty \(no game was encoded into it, or every game"
	grep -q "look like logs" "$T/err" && fail "$mode: an empty stream taken for logs"
	expect_exit 1 "$F" $mode --device cpu -q --out E1 - < "$EMPTY"
	expect_err "standard input: no samples: the stream is empty"
done

# ---- a bit flipped in a shard's data: one line, in the feed's thread too
"$BIN/hydra-encode" -o one.h5 logs 2>/dev/null || fail "hydra-encode one.h5"
cp one.h5 flip.h5  # a bit of the middle byte flipped: inside the sample data's chunks
at=$(( $(wc -c < one.h5) / 2 ))
byte=$(od -An -tu1 -j $at -N1 one.h5 | tr -d ' ')
printf "$(printf '\\%03o' $(( byte ^ 16 )))" | dd of=flip.h5 bs=1 seek=$at conv=notrunc 2>/dev/null
cmp -s one.h5 flip.h5 && fail "no bit flipped"
for mode in --feed-only "--steps 2 --batch 16 --arch tiny --out FL"; do
	expect_exit 1 "$F" $mode --device cpu -q flip.h5
	expect_err "^hydra-fit: flip.h5: checksum mismatch: the file is damaged"
	grep -q "HDF5-DIAG" "$T/err" && { cat "$T/err"; fail "$mode: libhdf5's error stack printed"; }
	[ "$(wc -l < "$T/err")" -eq 1 ] || { cat "$T/err"; fail "$mode: not one line"; }
done

# ---- any fatal signal that can be caught removes the temporaries; the one
# SIGKILL leaves is removed by the next run writing the same file (and a
# live process's is kept). The input is a FIFO held open with a stream cut
# short, so the program sits mid-run with its temporary created.
wait_tmp() { # dir
	k=0
	while [ $k -lt 100 ]; do
		ls "$1" 2>/dev/null | grep -q 'tmp-' && return 0
		sleep 0.1; k=$((k + 1))
	done
	return 1
}
head -c 3000000 one.bin > part.bin
mkdir o
signal() { # sig feed cmd...: leaves o/ as the signal left it
	sig=$1 feed=$2; shift 2
	rm -f f; mkfifo f
	# a background job of a non-interactive shell starts with SIGINT and
	# SIGQUIT ignored (and a program keeps an ignored signal): restore them
	env --default-signal "$@" < f 2>/dev/null &
	pid=$!
	exec 3>f
	cat "$feed" >&3
	wait_tmp o || { kill $pid; exec 3>&-; fail "$*: no temporary appeared"; }
	kill -"$sig" $pid
	( sleep 30; kill -9 $pid 2>/dev/null ) & # a signal the program survived: no hang
	dog=$!
	wait $pid
	st=$?
	kill $dog 2>/dev/null
	exec 3>&-
	[ $st -gt 128 ] || fail "$*: exit $st after SIG$sig, want death by the signal"
}
for sig in QUIT USR1 USR2 ALRM XCPU VTALRM; do
	signal $sig part.bin "$BIN/hydra-augment" --perms all -o o/a.bin
	[ -z "$(ls o)" ] || fail "hydra-augment: SIG$sig left $(ls o)"
done
"$BIN/mjai-parse" logs -o ev.bin 2>/dev/null || fail "mjai-parse logs"
head -c 200000 ev.bin > evpart.bin
signal USR1 evpart.bin "$BIN/mjai-parse" -o o/e.bin
[ -z "$(ls o)" ] || fail "mjai-parse: SIGUSR1 left $(ls o)"
signal KILL part.bin "$BIN/hydra-augment" --perms all -o o/a.bin
[ -n "$(ls o)" ] || fail "SIGKILL: no temporary left (the test needs one)"
stale=$(ls o)
sleep 60 &
live=$!
: > "o/a.bin.tmp-$live-AbC123"
"$BIN/hydra-augment" --perms 0 -o o/a.bin one.bin 2>err || { cat err; fail "hydra-augment after SIGKILL"; }
[ ! -e "o/$stale" ] || fail "the temporary a SIGKILL left ($stale) was not removed by the next run"
[ -e "o/a.bin.tmp-$live-AbC123" ] || fail "a running process's temporary was removed"
kill $live
[ -e o/a.bin ] || fail "no output"

# ---- the unit tests clean up their scratch files in $TMPDIR
U="${HY_BUILD:-$TOP/build}/tests/test_nn_ckpt"
if [ -x "$U" ]; then
	mkdir tmp
	TMPDIR="$T/tmp" "$U" >unit.log 2>&1 || { cat unit.log; fail "test_nn_ckpt"; }
	[ -z "$(ls tmp)" ] || fail "test_nn_ckpt left in \$TMPDIR: $(ls tmp) ($(ls tmp/*))"
fi
exit 0
