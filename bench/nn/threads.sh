#!/bin/sh
# Default thread count against --threads 1 (issue 10): wall seconds of
# `hydra-fit --arch tiny|small --steps N` on the shared logs, with no other
# load and with one busy background process (`while :; do :; done`). Each
# figure is the median of ROUNDS runs, the configurations interleaved so
# that the machine's other load falls on all of them alike. The third row
# of each net runs the default threads with libgomp's own spin-waiting
# (GOMP_SPINCOUNT=300000, libgomp's default, which hydra-fit respects when
# it is set), i.e. the behaviour before the fix. Figures on stdout.
#   ROUNDS (3), TINY_STEPS (150), SMALL_STEPS (30), SPIN (1; 0 skips the
#   spin-waiting rows, the slow ones under load), BUILD, SHARED, LOGS
set -e
BIN=${BUILD:-build}/bin
SHARED=${SHARED:-../shared}
LOGS=${LOGS:-$SHARED/data/logs}
ROUNDS=${ROUNDS:-3}
TINY_STEPS=${TINY_STEPS:-150}
SMALL_STEPS=${SMALL_STEPS:-30}
SPIN=${SPIN:-1}
[ -d "$LOGS" ] || { echo "threads bench: $LOGS not found: skipped"; exit 0; }
for p in mjai-parse hydra-encode hydra-fit; do
	[ -x "$BIN/$p" ] || { echo "threads bench: $BIN/$p not built: skipped"; exit 0; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
BG=
stop_load() { [ -z "$BG" ] || { kill "$BG" 2>/dev/null; wait "$BG" 2>/dev/null || :; BG=; }; }
trap 'stop_load; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

"$BIN/mjai-parse" -k "$LOGS" 2>/dev/null | "$BIN/hydra-encode" -k > "$T/s.bin" 2>/dev/null

# run NAME ARCH STEPS LOADED THREADS [ENV...]: appends "NAME LOADED seconds"
run() {
	name=$1 arch=$2 steps=$3 loaded=$4 j=$5
	shift 5
	if [ "$loaded" = 1 ]; then
		sh -c 'while :; do :; done' &
		BG=$!
		sleep 0.3
	fi
	rm -rf "$T/run"
	set -- env "$@" "$BIN/hydra-fit" --arch "$arch" --steps "$steps" -q --out "$T/run"
	[ "$j" = default ] || set -- "$@" --threads "$j"
	a=$(date +%s.%N)
	timeout 600 "$@" "$T/s.bin" 2>"$T/err" || { stop_load; cat "$T/err" >&2; exit 1; }
	b=$(date +%s.%N)
	stop_load
	grep -q 'input ended' "$T/err" && { echo "threads bench: too few samples for $steps steps" >&2; exit 1; }
	echo "$name $loaded $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }')" >> "$T/res"
}

echo "threads: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load average $(cut -d' ' -f1-3 /proc/loadavg) before"
: > "$T/res"
r=0
while [ $r -lt "$ROUNDS" ]; do
	for loaded in 0 1; do
		for arch in tiny small; do
			steps=$TINY_STEPS
			[ $arch = small ] && steps=$SMALL_STEPS
			run "$arch/default" $arch $steps $loaded default X=
			run "$arch/1" $arch $steps $loaded 1 X=
			[ "$SPIN" = 0 ] || run "$arch/spin" $arch $steps $loaded default GOMP_SPINCOUNT=300000
		done
	done
	r=$((r + 1))
done

# medians
med() { awk -v k="$1" -v l="$2" '$1 == k && $2 == l { print $3 }' "$T/res" | sort -n |
	awk '{ x[NR] = $1 } END { print x[int((NR + 1) / 2)] }'; }
printf '%-6s %5s  %-44s %9s %9s\n' net steps threads unloaded loaded
for arch in tiny small; do
	steps=$TINY_STEPS
	[ $arch = small ] && steps=$SMALL_STEPS
	printf '%-6s %5s  %-44s %8ss %8ss\n' $arch $steps "default (all CPUs)" \
		"$(med $arch/default 0)" "$(med $arch/default 1)"
	printf '%-6s %5s  %-44s %8ss %8ss\n' $arch $steps "--threads 1" \
		"$(med $arch/1 0)" "$(med $arch/1 1)"
	[ "$SPIN" = 0 ] ||
		printf '%-6s %5s  %-44s %8ss %8ss\n' $arch $steps "default, spin-waiting (GOMP_SPINCOUNT=300000)" \
			"$(med $arch/spin 0)" "$(med $arch/spin 1)"
done
for arch in tiny small; do
	awk -v a="$arch" -v d="$(med $arch/default 1)" -v o="$(med $arch/1 1)" 'BEGIN {
		printf "%s, one busy process: default threads %.2fx the time of --threads 1 (%s)\n",
			a, d / o, d <= o ? "not slower" : "SLOWER" }'
done
echo "($ROUNDS rounds; load average $(cut -d' ' -f1-3 /proc/loadavg) after)"
