#!/bin/sh
# Pipes never lie, round two (no shared data: the games are hydra-sp's).
# hydra-sp fails a run in which a game aborted like mjai-parse and
# hydra-encode fail on a bad game: an abort record on a pipe, no -o file;
# --keep-going skips the failed games, counted and reported.
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
exit 0
