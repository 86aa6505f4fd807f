#!/bin/sh
# Self-play benchmarks (issue 11), one core pinned: full hanchan/s of the
# game runner with the baseline at every seat (goal >= 500/s per core), and
# with random-initialised tiny and small models at every seat on the CPU
# (goals >= 20 and >= 5 hanchan/s per core), on OpenBLAS and on oneDNN; then hydra-sp end to end
# (nothing written, logs, samples). GAMES=N scales the baseline runs.
set -e
BUILD=${BUILD:-build}
G=${GAMES:-2000}
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
B="$BUILD/bench/selfplay_bench"
SP="$BUILD/bin/hydra-sp"
$pin "$B" run baseline "$G" 16 1
$pin "$B" run baseline $((G / 5)) 16 1 1
$pin "$B" run random "$G" 16 1
"$B" ckpt tiny "$tmp/tiny.h5"
"$B" ckpt small "$tmp/small.h5"
# the models on each CPU path side by side (issue 54; nn/cpupath.h):
# OpenBLAS (and, where the machine leaves OPENBLAS_CORETYPE unset,
# OpenBLAS on Haswell kernels: issue 54's machine), oneDNN fp32, oneDNN
# with bf16 inference; then one small seat against three rulebot
paths="openblas onednn onednn-bf16"
[ -z "$OPENBLAS_CORETYPE" ] && paths="haswell $paths"
for path in $paths; do
	case $path in onednn*)
		if ! HYDRA_CPU_PATH=onednn "$B" run "$tmp/tiny.h5" 1 1 1 >/dev/null 2>&1; then
			echo "runner, cpu path $path: skipped (not built)"
			continue
		fi
	esac
	case $path in
	haswell) env="OPENBLAS_CORETYPE=Haswell HYDRA_CPU_PATH=openblas"; printf 'OPENBLAS_CORETYPE=Haswell: ' ;;
	*) env="HYDRA_CPU_PATH=$path" ;;
	esac
	env $env $pin "$B" run "$tmp/tiny.h5" 60 64 1
	[ $path = haswell ] && printf 'OPENBLAS_CORETYPE=Haswell: '
	env $env $pin "$B" run "$tmp/small.h5" 20 64 1
	/usr/bin/time -f "%U %S %e" -o "$tmp/time" env $env $pin "$SP" --games 100 --seed 1 \
		--seat0 "$tmp/small.h5" --others rulebot --tables 64 --no-samples
	awk -v p="$path" '{ printf "hydra-sp one small seat, three rulebot, cpu path %s: 100 hanchan in %.2f s CPU: %.1f hanchan per CPU-second\n", p, $1 + $2, 100 / ($1 + $2) }' "$tmp/time"
done
$pin "$B" run "$tmp/tiny.h5" 20 64 1 1

# hydra-sp, end to end (one thread): hanchan per CPU-second (user + system)
run_sp() { # label, games, options...
	label=$1; n=$2; shift 2
	/usr/bin/time -f "%U %S %e" -o "$tmp/time" $pin "$SP" --games "$n" --seed 1 "$@"
	awk -v l="$label" -v g="$n" '{
		printf "hydra-sp %s: %d hanchan in %.2f s wall, %.2f s CPU: %.1f hanchan per CPU-second\n", l, g, $3, $1 + $2, g / ($1 + $2) }' "$tmp/time"
}
run_sp "baseline, nothing written" "$G" --no-samples
run_sp "baseline, gzip'd mjai logs" $((G / 2)) --no-samples --log-dir "$tmp/logs"
run_sp "baseline, sample stream to /dev/null" $((G / 5)) -o /dev/null
run_sp "tiny model, sample stream to /dev/null" 20 --policy "$tmp/tiny.h5" --tables 64 -o /dev/null
pin="" run_sp "baseline, nothing written, 2 threads (not pinned)" "$G" --no-samples --threads 2
du -sk "$tmp/logs" | awk -v g=$((G / 2)) '{ printf "mjai logs: %.1f KB per game (gzip -6)\n", $1 / g }'
