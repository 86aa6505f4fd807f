#!/bin/sh
# The fuzz harnesses without libFuzzer: every tests/fuzz/fuzz_NAME.c, built
# with the ordinary compiler as $HY_BUILD/fuzz/replay_NAME (the Makefile's
# fuzz section), replays its regression files tests/fuzz/regress/NAME/, its
# seed corpus tests/fuzz/corpus/NAME/, the files tests/fuzz/NAME.seeds names
# (golden files; shared data when present) and what tests/fuzz/NAME.gen
# makes. A harness that crashes, trips a sanitizer or exits non-zero fails the
# test. Inputs that crash inside libhdf5 itself are kept apart in
# tests/fuzz/hdf5/ (tests/fuzz/RESULTS.md) and not replayed here.
. tests/shell/lib.sh
FUZZ="$TOP/tests/fuzz"
RB="${HY_BUILD:?run through tests/run.sh}/fuzz"
[ -f "$FUZZ/replay.c" ] || fail "tests/fuzz/replay.c missing"
to=
command -v timeout >/dev/null 2>&1 && to="timeout 300"
n=0
cd "$TOP"
for src in "$FUZZ"/fuzz_*.c; do
	name=${src##*/fuzz_}
	name=${name%.c}
	rb="$RB/replay_$name"
	[ -x "$rb" ] || fail "$rb not built (make check builds it)"
	in="$T/in-$name"
	mkdir -p "$in"
	for d in "$FUZZ/regress/$name" "$FUZZ/corpus/$name"; do
		[ -d "$d" ] && for f in "$d"/*; do [ -f "$f" ] && cp "$f" "$in/"; done
	done
	if [ -f "$FUZZ/$name.seeds" ]; then
		SHARED="$SHARED" sh "$FUZZ/seeds.sh" "$FUZZ/$name.seeds" >"$T/list" ||
			fail "$name.seeds"
		while IFS= read -r f; do cp "$f" "$in/$(echo "$f" | tr '/' '_')"; done <"$T/list"
	fi
	if [ -f "$FUZZ/$name.gen" ]; then
		HY_BIN="$BIN" sh "$FUZZ/$name.gen" "$in" >"$T/gen.log" 2>&1 ||
			{ cat "$T/gen.log" >&2; fail "tests/fuzz/$name.gen failed"; }
	fi
	count=$(find "$in" -type f | wc -l)
	[ "$count" -gt 0 ] || fail "$name: no inputs to replay"
	# under SANITIZE=1 (as in make fuzz): libhdf5's own leaks are suppressed
	# (tests/fuzz/lsan.supp), which needs full malloc stacks, and a malloc
	# over 2 GB returns NULL as under `ulimit -v` (libhdf5 then fails cleanly)
	LSAN_OPTIONS="suppressions=$FUZZ/lsan.supp:print_suppressions=0" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0:allocator_may_return_null=1:max_allocation_size_mb=2048" \
		$to "$rb" "$in" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] || { tail -n 40 "$T/err" >&2; fail "replay_$name exited $rc"; }
	grep -q "$count inputs replayed" "$T/err" ||
		{ cat "$T/err" >&2; fail "replay_$name did not replay all $count inputs"; }
	echo "replay_$name: $count inputs"
	n=$((n + 1))
done
[ "$n" -ge 9 ] || fail "only $n harnesses found"

# the driver itself: a missing input is an error, no input is usage
"$RB/replay_hand" "$T/no-such-file" >/dev/null 2>&1
[ $? -eq 1 ] || fail "replay of a missing file should exit 1"
"$RB/replay_hand" >/dev/null 2>&1
[ $? -eq 2 ] || fail "replay without inputs should exit 2"
exit 0
