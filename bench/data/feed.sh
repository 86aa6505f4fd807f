#!/bin/sh
# The data feed for GPU training (bench/data/feed_bench.c): HDF5 shards made
# from the shared logs, read by loader threads into double-buffered batches
# (pinned, with a host-to-device copy, where a GPU is usable). Figures: the
# samples/s of one loader thread for each batch layout (f32: the model's
# input; f16: the compact form; read: reading alone); then the scaling of
# the compact form over FEED_THREADS readers (default "1 2"), the chunks
# decoded outside HDF5 (samples/shard.h hy_shard_decode: the default) and
# the old way (FEED_DECODE=hdf5: HDF5 decompresses under its one lock),
# each with the speed-up over one reader; then FEED_PROCS (default "1 2")
# separate processes of one reader each (bench/data/feed_procs.sh); then the
# trainer's own feed.
# Every line carries the load average (/proc/loadavg) at its start: on a
# shared machine the scaling means little under a load near the cores.
# FEED_SECONDS (default 8) per run.
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
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
echo "feed: $(ls "$T"/train-*.h5 | wc -l) shards, $(du -sh "$T" | cut -f1), batch 1024, ${S} s a run," \
	"$(nproc 2>/dev/null || echo '?') cores"
for layout in read f16 f32; do
	printf 'load %s: ' "$(load)"
	"$FB" 1 1024 "$S" $layout "$T"/train-*.h5 || exit 1
done
# scaling of the compact form: samples/s and the speed-up over 1 reader
for how in shard hdf5; do
	one=
	for n in ${FEED_THREADS:-1 2}; do
		l=$(load)
		out=$(FEED_DECODE=$how "$FB" "$n" 1024 "$S" f16 "$T"/train-*.h5) || exit 1
		sps=$(echo "$out" | sed -n 's/.*batch 1024: \([0-9]*\) samples\/s.*/\1/p')
		[ -n "$one" ] || one=$sps
		echo "scaling f16, decode $how, $n reader(s): $sps samples/s," \
			"$(awk -v a="$sps" -v b="$one" -v n="$n" 'BEGIN { printf "%.0f per reader, %.2fx one reader", a / n, a / b }'), load $l"
	done
done
# separate processes of one reader each (bench/data/feed_procs.sh)
BUILD="$BUILD" sh "$(dirname "$0")/feed_procs.sh" "$S" "${FEED_PROCS:-1 2}" "$T"/train-*.h5 || exit 1
# the trainer's own feed (train/feed.h), as hydra-fit uses it: 200 batches
for n in ${FEED_THREADS:-1 2}; do
	printf 'load %s: ' "$(load)"
	"$BUILD/bin/hydra-fit" --feed-only --loader-threads "$n" --batch 1024 --steps 200 \
		"$T"/train-*.h5 2>/dev/null | head -1 ||
		{ echo "feed: hydra-fit --feed-only failed" >&2; exit 1; }
done
exit 0
