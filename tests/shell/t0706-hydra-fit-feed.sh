#!/bin/sh
# hydra-fit's data feed (train/feed.h) on the CPU: the loader threads only
# prefetch, so a run with --loader-threads 1 or 2 gives the losses of the
# run without them bit for bit, on a stream and on shards; a run resumed
# with the feed from a feed run's checkpoint repeats the rest exactly (the
# checkpoint saves the cursor of the last batch trained on, not the
# source's, which is ahead); --feed-only runs the feed alone and reports
# samples/s per loader thread; bad --loader-threads is a usage error.
. tests/shell/lib.sh
F="$BIN/hydra-fit"

expect_exit 2 "$F" --loader-threads 0
expect_err "bad --loader-threads '0': 1 to 64"
expect_exit 2 "$F" --loader-threads 65
expect_err "bad --loader-threads '65'"

gen_logs 6  # self-play games in three formats (tests/shell/lib.sh)
[ -x "$BIN/mjai-parse" ] && [ -x "$BIN/hydra-encode" ] || skip "mjai-parse/hydra-encode not built (skipped)"
"$BIN/mjai-parse" -k "$GEN" 2>/dev/null | "$BIN/hydra-encode" -k 2>/dev/null >"$T/s.bin" ||
	fail "mjai-parse | hydra-encode"
"$BIN/mjai-parse" -k "$GEN" 2>/dev/null |
	"$BIN/hydra-encode" -k -o "$T/sh-%02d.h5" -n 3000 2>/dev/null >/dev/null ||
	fail "mjai-parse | hydra-encode -o shards"
ls "$T"/sh-*.h5 >/dev/null 2>&1 || fail "no shards"

# losses of a run: the "loss" of every metrics line
losses() { sed -n 's/.*"step":\([0-9]*\),.*"loss":\([^,]*\),.*/\1 \2/p' "$1/metrics.jsonl"; }
COMMON="--device cpu --arch tiny --batch 32 --threads 1 --log-every 1 --shuffle-buffer 256 -q"

for kind in stream shards; do
	if [ $kind = stream ]; then IN="$T/s.bin"; else IN=$(ls "$T"/sh-*.h5); fi
	expect_exit 0 "$F" $COMMON --steps 8 -o "$T/$kind-0" $IN
	losses "$T/$kind-0" >"$T/$kind-0.l"
	[ "$(wc -l <"$T/$kind-0.l")" -eq 8 ] || fail "$kind: 8 logged steps"
	for n in 1 2; do
		expect_exit 0 "$F" $COMMON --steps 8 --loader-threads $n -o "$T/$kind-$n" $IN
		expect_err "^hydra-fit: feed: $n loader threads?; the steps waited [0-9.]+ s for data$"
		losses "$T/$kind-$n" >"$T/$kind-$n.l"
		cmp -s "$T/$kind-0.l" "$T/$kind-$n.l" ||
			{ diff "$T/$kind-0.l" "$T/$kind-$n.l" >&2; fail "$kind: --loader-threads $n changes the losses"; }
	done
	# the checkpoint of step 3 of a feed run (its cursor: of the batches
	# trained on), resumed with the feed, repeats steps 4-8 exactly
	expect_exit 0 "$F" $COMMON --steps 8 --loader-threads 2 --save-every 3 --keep 10 \
		-o "$T/$kind-s" $IN
	mkdir "$T/$kind-r"
	cp "$T/$kind-s/ckpt-00000003.h5" "$T/$kind-s/metrics.jsonl" "$T/$kind-r/"
	sed -i '4,$d' "$T/$kind-r/metrics.jsonl"
	ln -s ckpt-00000003.h5 "$T/$kind-r/latest"
	expect_exit 0 "$F" -q --device cpu --loader-threads 2 --resume "$T/$kind-r" $IN
	expect_err "resuming from .* at step 3 "
	losses "$T/$kind-r" >"$T/$kind-r.l"
	cmp -s "$T/$kind-0.l" "$T/$kind-r.l" ||
		{ diff "$T/$kind-0.l" "$T/$kind-r.l" >&2; fail "$kind: resume with the feed is not exact"; }
done

# --feed-only: the feed alone, figures on stdout, nothing written
for n in 1 2; do
	expect_exit 0 "$F" --device cpu --feed-only --loader-threads $n --batch 64 -o "$T/fo" $(ls "$T"/sh-*.h5)
	grep -Eq "^feed: [0-9]+ samples in [0-9]+ batches of 64, .* samples/s with $n loader thread" "$T/out" ||
		{ cat "$T/out" "$T/err" >&2; fail "--feed-only $n: no figures"; }
	[ "$(grep -c '^feed: thread ' "$T/out")" -eq $n ] || fail "--feed-only $n: per-thread lines"
	[ ! -e "$T/fo" ] || fail "--feed-only made an output directory"
done
expect_exit 0 "$F" --device cpu --feed-only --steps 3 --batch 16 "$T/s.bin"
grep -q "^feed: 48 samples in 3 batches of 16" "$T/out" || { cat "$T/out" >&2; fail "--feed-only --steps 3"; }
exit 0
