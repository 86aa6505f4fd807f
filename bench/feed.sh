#!/bin/sh
# The data feed for GPU training (bench/feed_bench.c): HDF5 shards made
# from the shared logs, read by loader threads into double-buffered batches
# (pinned, with a host-to-device copy, where a GPU is usable). Figures: the
# samples/s of one loader thread for each batch layout (f32: the model's
# input; f16: the compact form; read: reading alone), and of two threads.
# FEED_SECONDS (default 8) per run; FEED_THREADS (default "1 2").
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
FB="$BUILD/bench/feed_bench"
DATA="$SHARED/data/logs"
[ -x "$FB" ] || { echo "feed: $FB not built" >&2; exit 1; }
[ -d "$DATA" ] || { echo "feed: skipped: no shared logs at $DATA"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/feed.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$BUILD/bin/mjai-parse" -k "$DATA" 2>/dev/null |
	"$BUILD/bin/hydra-encode" -k -o "$T/train-%02d.h5" -n 20000 2>/dev/null ||
	{ echo "feed: cannot make shards" >&2; exit 1; }
S=${FEED_SECONDS:-8}
echo "feed: $(ls "$T"/train-*.h5 | wc -l) shards, $(du -sh "$T" | cut -f1), batch 1024, ${S} s a run"
for layout in read f16 f32; do
	"$FB" 1 1024 "$S" $layout "$T"/train-*.h5 || exit 1
done
for n in ${FEED_THREADS:-1 2}; do
	[ "$n" -gt 1 ] && { "$FB" "$n" 1024 "$S" f32 "$T"/train-*.h5 || exit 1; }
done
# the trainer's own feed (train/feed.h), as hydra-fit uses it: 200 batches
for n in ${FEED_THREADS:-1 2}; do
	"$BUILD/bin/hydra-fit" --feed-only --loader-threads "$n" --batch 1024 --steps 200 \
		"$T"/train-*.h5 2>/dev/null || { echo "feed: hydra-fit --feed-only failed" >&2; exit 1; }
done
exit 0
