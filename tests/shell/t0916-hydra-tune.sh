#!/bin/sh
# hydra-tune (lib/play/ruletune.c): rulebot's parameters tuned by arenas.
# The usage errors; a short search whose file, read back by
# `rulebot:FILE`, plays the mean rank the file's first line reports on the
# same walls; the same file with other threads; no file after an error or
# SIGINT; `rulebot:` accepted by every policy-taking program and its bad
# entries named.
. tests/shell/lib.sh
TUNE="$BIN/hydra-tune"

expect_exit 0 "$TUNE" --help
grep -q "^usage: hydra-tune" "$T/out" || fail "--help"
expect_exit 2 "$TUNE" --seeds 10
expect_err "no output: give -o PARAMS"
expect_exit 2 "$TUNE" --freeze push_value,nope -o "$T/x"
expect_err "unknown rulebot parameter 'nope'"
expect_exit 2 "$TUNE" --start score_danger=9 -o "$T/x"
expect_err "'score_danger': 9 outside \[0, 3\]"
expect_exit 2 "$TUNE" --opponent random -o "$T/x"
expect_err "samples its moves"
expect_exit 2 "$TUNE" --step 0 -o "$T/x"
[ ! -e "$T/x" ] || fail "a file after a usage error"

# a short search: four parameters, 12 seeds, one sweep
FROZEN=$("$TUNE" -o - --sweeps 0 --seeds 3 -q | awk -F= '!/^#/ { print $1 }' |
	grep -v -e '^fold_open_shanten$' -e '^push_wall$' -e '^score_danger$' -e '^danger_honour3$' |
	paste -sd, -)
[ -n "$FROZEN" ] || fail "no parameter list"
expect_exit 0 "$TUNE" --seeds 12 --seed 77 --sweeps 1 --step 0.5 --margin 0 --freeze "$FROZEN" \
	-j 2 -o "$T/a.params"
expect_err "start: mean rank 2.5000"
grep -q "^fold_open_shanten=" "$T/a.params" || fail "no parameters written"
[ "$(grep -vc '^#' "$T/a.params")" -ge 20 ] || fail "not every parameter written"
want=$(sed -n '1s/.*mean rank \([0-9.]*\) on those walls.*/\1/p' "$T/a.params")
[ -n "$want" ] || fail "no mean rank in the header: $(head -1 "$T/a.params")"
got=$("$BIN/hydra-eval" --challenger "rulebot:$T/a.params" --opponent rulebot --seeds 12 --seed 77 |
	awk '/^average rank/ { print $3 }')
[ "$got" = "$want" ] || fail "the file plays $got on the tuning walls, the search said $want"
awk -v r="$want" 'BEGIN { exit !(r < 2.5) }' || fail "the search found nothing on these walls ($want)"
# the same search on one thread and other tables: the same file
expect_exit 0 "$TUNE" -q --seeds 12 --seed 77 --sweeps 1 --step 0.5 --margin 0 --freeze "$FROZEN" \
	-j 1 --tables 3 -o "$T/b.params"
same_file "$T/a.params" "$T/b.params"

# rulebot reading with a wait reader (--reader, --read): checked before the
# search; the file, played as rulebot:FILE,reader=R,read=MODE, gives the
# mean rank its header reports
expect_exit 2 "$TUNE" --read danger -o "$T/x"
expect_err "--read needs --reader"
expect_exit 1 "$TUNE" --reader "$T/none.h5" -o "$T/x"
[ ! -e "$T/x" ] || fail "a file after a missing reader"
expect_exit 0 "$BIN/hydra-sp" --policy rulebot --games 2 -o "$T/rs.bin" -q
expect_exit 0 "$BIN/hydra-fit" --mode reader --arch tiny --steps 2 --batch 64 --out "$T/rd" -q \
	"$T/rs.bin"
R="$T/rd/latest"
expect_exit 2 "$TUNE" --reader "$R" --read nope -o "$T/x"
expect_err "read=nope: all, threats or danger"
expect_exit 0 "$TUNE" -q --reader "$R" --read danger --seeds 6 --seed 77 --sweeps 1 --step 0.5 \
	--margin 0 --freeze "$FROZEN" -j 2 -o "$T/r.params"
grep -q "^# for rulebot reading with reader=.*,read=danger" "$T/r.params" || fail "no reader line"
want=$(sed -n '1s/.*mean rank \([0-9.]*\) on those walls.*/\1/p' "$T/r.params")
got=$("$BIN/hydra-eval" --challenger "rulebot:$T/r.params,reader=$R,read=danger" \
	--opponent rulebot --seeds 6 --seed 77 | awk '/^average rank/ { print $3 }')
[ -n "$want" ] && [ "$got" = "$want" ] ||
	fail "the reader's file plays $got on the tuning walls, the search said $want"

# interrupted: no file, no temporary
mkdir -p "$T/int"
env --default-signal=INT "$TUNE" -q --seeds 2000 -j 1 -o "$T/int/c.params" 2>/dev/null &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid" && fail "hydra-tune exited 0 after SIGINT"
[ -z "$(ls -A "$T/int")" ] || fail "files left after SIGINT: $(ls -A "$T/int")"

# rulebot:PARAMS where policies are taken, and its errors
expect_exit 0 "$BIN/hydra-sp" --games 1 --policy rulebot:push_value=3000 --no-samples \
	--log-dir "$T/logs"
expect_exit 2 "$BIN/hydra-eval" --challenger rulebot:push_value=x --opponent rulebot --seeds 3
expect_err "'push_value': 'x' is not a number"
printf 'push_wall=12\nnope=3\n' > "$T/bad.params"
expect_exit 2 "$BIN/hydra-eval" --challenger "rulebot:$T/bad.params" --opponent rulebot --seeds 3
expect_err "bad.params:2: unknown rulebot parameter 'nope'"
echo ok
