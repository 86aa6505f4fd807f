#!/bin/sh
# Pipes never lie: a failed stage fails every stage after it, no partial
# output or temporary survives a failure or an interrupt, the split does not
# depend on how the games were named, --keep-going skips bad games whole,
# and --check cannot be read as clean when it stopped early or when final
# scores were edited.
. tests/shell/lib.sh
# six self-play games as Tenhou mjlog (tests/shell/lib.sh: gen_tenhou)
gen_tenhou "$T/tenhou" 6
mkdir "$T/logs"
cp "$T/tenhou"/*.xml "$T/logs/"
n=$(ls "$T/logs" | wc -l)
[ "$n" -eq 6 ] || fail "$n generated mjlog games"
cd "$T"

# ---- a truncated log in the middle of the three-stage pipe
mkdir bad
cp logs/*.xml bad/
victim=$(ls bad/*.xml | sed -n 4p)
head -c 4000 "$victim" > "$victim.cut" && mv "$victim.cut" "$victim"
# bash-free PIPESTATUS: each stage writes its own status
( "$BIN/mjai-parse" bad/ 2>err1; echo $? > st1 ) |
	( "$BIN/hydra-encode" 2>err2; echo $? > st2 ) |
	( "$BIN/hydra-fit" --arch tiny --batch 64 --out run/ 2>err3; echo $? > st3 )
for i in 1 2 3; do
	[ "$(cat st$i)" -ne 0 ] || { cat err1 err2 err3; fail "stage $i exited 0 after a failure upstream"; }
done
grep -q "truncated" err1 || fail "mjai-parse does not name the truncation"
grep -q "input stream was aborted by its producer: mjai-parse failed" err2 || { cat err2; fail "hydra-encode message"; }
grep -q "input stream was aborted by its producer: hydra-encode failed" err3 || { cat err3; fail "hydra-fit message"; }
ls run/*.h5 run/latest run/best >/dev/null 2>&1 && fail "a checkpoint was written after a failed pipe"

# the same pipe on good logs trains
"$BIN/mjai-parse" logs/ | "$BIN/hydra-encode" | "$BIN/hydra-fit" --arch tiny --batch 64 --steps 3 --out ok/ 2>err ||
	{ cat err; fail "good pipe"; }
[ -e ok/latest ] || fail "good pipe wrote no checkpoint"

# ---- an unrecognised input: status 3, and the stream on stdout is aborted
( "$BIN/mjai-parse" "$TOP/README.md" 2>err1; echo $? > st1 ) | ( "$BIN/hydra-encode" -o x.bin 2>err2; echo $? > st2 )
[ "$(cat st1)" -eq 3 ] || fail "mjai-parse README.md exited $(cat st1), want 3"
[ "$(cat st2)" -eq 1 ] || fail "hydra-encode after an aborted stream exited $(cat st2), want 1"
grep -q "aborted by its producer" err2 || fail "no abort message"
[ -e x.bin ] && fail "hydra-encode left an output file"
ls x.bin.tmp-* >/dev/null 2>&1 && fail "hydra-encode left a temporary"

# ---- --keep-going skips the bad game whole
expect_exit 0 "$BIN/mjai-parse" --keep-going --json bad/
sg=$(grep -c '"type":"start_game"' "$T/out")
eg=$(grep -c '"type":"end_game"' "$T/out")
[ "$sg" -eq $((n - 1)) ] && [ "$eg" -eq $((n - 1)) ] ||
	fail "keep-going kept $sg start_game and $eg end_game of $n games (one bad)"
expect_err "1 bad games skipped"
# the count is on stderr only, never in the data
grep -q "skipped" "$T/out" && fail "skip count mixed into the data"

# ---- --check: stopped early, and final scores
expect_exit 1 "$BIN/mjai-parse" --check bad/
expect_err "check STOPPED after 3 games"
expect_err "check \(incomplete\)"
mkdir edited
f=$(ls logs/*.xml | head -n 1)
cp "$f" edited/
g="edited/$(basename "$f")"
# change the first final score of owari (a number after owari=")
sed 's/owari="\(-\{0,1\}\)\([0-9]*\),/owari="\1\21,/' "$f" > "$g"
cmp -s "$f" "$g" && fail "could not edit the owari scores"
expect_exit 1 "$BIN/mjai-parse" --check edited/
expect_err "final scores differ: end_game: computed final scores"
expect_err "1 score mismatches in 1 games"
expect_exit 0 "$BIN/mjai-parse" --check logs/
expect_err "0 illegal events, 0 score mismatches"

# ---- the same games give the same split whatever path names them
"$BIN/hydra-encode" --val-fraction 0.4 --val-output va.bin -o ta.bin logs/ 2>err || { cat err; fail "encode logs/"; }
"$BIN/hydra-encode" --val-fraction 0.4 --val-output vb.bin -o tb.bin ./logs 2>err || fail "encode ./logs"
"$BIN/hydra-encode" --val-fraction 0.4 --val-output vc.bin -o tc.bin "$T/logs/" 2>err || fail "encode abs"
"$BIN/mjai-parse" logs/ -o ev.bin && "$BIN/hydra-encode" --val-fraction 0.4 --val-output vd.bin -o td.bin ev.bin ||
	fail "encode events"
for x in b c d; do same_file va.bin v$x.bin; same_file ta.bin t$x.bin; done
[ "$(wc -c < va.bin)" -gt 6000 ] || fail "the validation split is empty at 0.4"

# ---- an empty validation split is a data error from hydra-encode, with a hint
expect_exit 1 "$BIN/hydra-encode" --val-fraction 0.000001 --val-output 'sv/val-%04d.h5' \
	-o 'st/train-%04d.h5' --shard-size 1000 logs/
expect_err "the validation split is empty: none of the $n games"
expect_err "val-fraction [0-9.e-]+ or more puts at least one game there"
[ -e st ] && ls st | grep -q . && fail "files left after the failed encode: $(ls st)"

# ---- shards: directories are created, the set appears whole
expect_exit 0 "$BIN/hydra-encode" -o 'sh/train-%04d.h5' --shard-size 1000 logs/
ls sh/train-0000.h5 sh/train-0001.h5 >/dev/null || fail "no shard set in a created directory"
ls sh | grep -q tmp && fail "temporaries left: $(ls sh)"

# ---- interrupts leave no temporaries and no partial set
# The input is a FIFO held open, so each program sits mid-run with its
# temporary created; the test checks the temporary exists, then interrupts.
wait_tmp() { # dir pattern
	k=0
	while [ $k -lt 100 ]; do
		ls "$1" 2>/dev/null | grep -q "$2" && return 0
		sleep 0.1; k=$((k + 1))
	done
	return 1
}
interrupt() { # sig dir pattern cmd... (reads the FIFO f)
	sig=$1 dir=$2 pat=$3; shift 3
	rm -f f; mkfifo f
	# a background job of a non-interactive shell starts with SIGINT
	# ignored (and a program keeps an ignored SIGINT): restore it
	env --default-signal=INT "$@" < f 2>/dev/null &
	pid=$!
	exec 3>f
	cat "$feed" >&3
	wait_tmp "$dir" "$pat" || { kill $pid; exec 3>&-; fail "$*: no temporary appeared"; }
	kill -"$sig" $pid
	wait $pid
	st=$?
	exec 3>&-
	[ $st -ne 0 ] || fail "$*: exit 0 after SIG$sig"
	ls "$dir" | grep -q 'tmp' && fail "$*: SIG$sig left $(ls "$dir")"
	return 0
}
"$BIN/mjai-parse" logs/ -o ev.bin
head -c 300000 ev.bin > part.bin  # a stream cut short: the programs wait for more
feed=part.bin
mkdir o1 o2 o3
interrupt INT o1 'ev.bin.tmp-' "$BIN/mjai-parse" -o o1/ev.bin
interrupt TERM o1 'ev.bin.tmp-' "$BIN/mjai-parse" -o o1/ev.bin
interrupt INT o2 'train-0000.h5.tmp-' "$BIN/hydra-encode" -o 'o2/train-%04d.h5' --shard-size 100
[ -z "$(ls o2)" ] || fail "an interrupted encode left a partial set: $(ls o2)"
interrupt TERM o2 'x.bin.tmp-' "$BIN/hydra-encode" -o o2/x.bin
"$BIN/hydra-encode" ev.bin -o s.bin
head -c 3000000 s.bin > part.bin
interrupt INT o3 'a.bin.tmp-' "$BIN/hydra-augment" --perms all -o o3/a.bin
interrupt INT o3 'a.h5.tmp-' "$BIN/hydra-augment" --perms all -o o3/a.h5
exit 0
