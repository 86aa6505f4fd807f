#!/bin/sh
# Training from a sample stream against training from a shard (issue 22
# item 8): the same samples as one stream file (hydra-encode -o s.bin) and
# as one shard (-o s.h5), hydra-fit on each for the same steps, net, batch
# and threads, side by side, twice in alternation. Figure: samples/s over
# the logged intervals after the first (metrics.jsonl samples_per_s; the
# start-up and the first batches not counted), and stream / shard.
# The shared logs when present (SHARED, default ../shared), else 64
# rule-bot hanchan made here. ARCHS (default "tiny small"), STEPS (300),
# LOG_EVERY (25: the metrics interval; 1 for a few steps),
# THREADS (2).
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
B=$BUILD/bin
T=$(mktemp -d "${TMPDIR:-/tmp}/streamfit.XXXXXX")
trap 'rm -rf "$T"' EXIT
if [ -d "$SHARED/data/logs" ]; then
	src="the shared logs"
	"$B/mjai-parse" -k "$SHARED/data/logs" 2>/dev/null > "$T/ev.bin"
else
	src="64 rule-bot hanchan"
	"$B/hydra-sp" --games 64 --policy rulebot --seed 5 --no-samples --log-dir "$T/logs" 2>/dev/null &&
		"$B/mjai-parse" "$T/logs" > "$T/ev.bin"
fi || { echo "streamfit: cannot make events" >&2; exit 1; }
"$B/hydra-encode" -k -o "$T/s.bin" "$T/ev.bin" 2>/dev/null &&
	"$B/hydra-encode" -k -o "$T/s.h5" "$T/ev.bin" 2>/dev/null ||
	{ echo "streamfit: cannot encode" >&2; exit 1; }
steps=${STEPS:-300}
th=${THREADS:-2}
echo "streamfit: $src, $(du -h "$T/s.bin" | cut -f1) stream, $(du -h "$T/s.h5" | cut -f1) shard;" \
	"$steps steps of batch 256 on $th threads; load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
rate() { # mean samples/s of the logged intervals after the first
	sed -n 's/.*"samples_per_s":\([0-9.e+-]*\).*/\1/p' "$1/metrics.jsonl" |
		awk 'NR > 1 { s += $1; n++ } END { if (n) printf "%.0f", s / n; else print "?" }'
}
for arch in ${ARCHS:-tiny small}; do
	for round in 1 2; do
		for f in bin h5; do
			rm -rf "$T/run"
			"$B/hydra-fit" -q --device cpu --arch "$arch" --threads "$th" --batch 256 \
				--steps "$steps" --log-every "${LOG_EVERY:-25}" --save-every 100000 --out "$T/run" "$T/s.$f" \
				2>/dev/null || { echo "streamfit: hydra-fit on s.$f failed" >&2; exit 1; }
			eval "r_$f=$(rate "$T/run")"
		done
		echo "$arch round $round: stream $r_bin samples/s, shard $r_h5 samples/s," \
			"stream/shard $(awk -v a="$r_bin" -v b="$r_h5" 'BEGIN { printf "%.2f", a / b }')"
	done
done
