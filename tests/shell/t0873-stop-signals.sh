#!/bin/sh
# hydra-fit's SIGINT and SIGTERM are taken by one thread of their own
# (lib/io/stopsig.h), never on a computing thread: oneDNN's JIT GEMM
# kernels (libdnnl 2.6; oneDNN issue 4845) point the stack pointer into
# the heap, and a handler run there wrote its signal frame over the heap
# (CI, 2026-12-04: "corrupted size vs. prev_size"; here one interrupt in
# about 35 under load).
# While a run trains, every thread but "hy-signals" blocks both signals
# (/proc/PID/task/*/status); an --on-eval command starts with them
# unblocked; the first SIGINT saves and stops (130), SIGTERM too, and a
# second signal ends the run at once, without a save or temporaries.
. tests/shell/lib.sh
[ -r /proc/self/status ] || skip "no /proc (skipped)"
gen_logs 4
"$BIN/mjai-parse" -k "$GEN" 2>/dev/null | "$BIN/hydra-encode" -k -o "$T/sh-%02d.h5" -n 3000 \
	2>/dev/null >/dev/null || fail "mjai-parse | hydra-encode -o shards"
cd "$T"

# start: a tiny run that trains for minutes unless stopped; PID in $fit
start() {
	rm -rf run
	"$BIN/hydra-fit" --arch tiny --epochs 1000 --batch 16 --save-every 20 --eval-every 20 \
		--val sh-00.h5 --on-eval 'exec grep SigBlk /proc/self/status > "$RUN/mask"' \
		--out run sh-*.h5 > log 2>&1 &
	fit=$!
	k=0
	while [ ! -s run/mask ] && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
	[ -s run/mask ] || { kill $fit; cat log; fail "no evaluation command ran"; }
}
# blocks MASK BIT: whether the hex mask has signal BIT's bit set
blocks() { [ $(( (0x$1 >> ($2 - 1)) & 1 )) -eq 1 ]; }

start
n=0 free=0
for t in /proc/$fit/task/*; do
	m=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$t/status" 2>/dev/null) || continue
	[ -n "$m" ] || continue # the thread ended meanwhile
	n=$((n + 1))
	name=$(cat "$t/comm" 2>/dev/null)
	if blocks "$m" 2 && blocks "$m" 15; then
		[ "$name" != hy-signals ] || fail "the signal thread blocks SIGINT and SIGTERM"
	else
		free=$((free + 1))
		[ "$name" = hy-signals ] || fail "thread '$name' of $n takes SIGINT or SIGTERM (SigBlk $m)"
	fi
done
[ $n -ge 2 ] && [ $free -eq 1 ] || fail "$n threads, $free taking the stop signals (want 1)"
m=$(sed 's/^SigBlk:[[:space:]]*//' run/mask)
blocks "$m" 2 || blocks "$m" 15 && fail "the --on-eval command starts with SIGINT/SIGTERM blocked ($m)"

kill -INT $fit
wait $fit
rc=$?
[ $rc -eq 130 ] || { cat log; fail "SIGINT: status $rc, want 130"; }
grep -q "interrupted, saved" log || { cat log; fail "SIGINT: not saved"; }

# SIGTERM also saves
start
kill -TERM $fit
wait $fit
grep -q "interrupted, saved" log || { cat log; fail "SIGTERM: not saved"; }

# a second signal ends the run at once, by that signal (no save, no
# temporaries left); a different one, as two SIGINTs sent together may
# arrive as one
start
kill -INT $fit
kill -TERM $fit
wait $fit
rc=$?
[ $rc -eq 143 ] || { cat log; fail "SIGINT then SIGTERM: status $rc, want 143"; }
grep -q "interrupted, saved" log && fail "SIGINT then SIGTERM: the run still saved"
ls run/*.tmp* run/.*.tmp* >/dev/null 2>&1 && fail "temporaries left"
exit 0
