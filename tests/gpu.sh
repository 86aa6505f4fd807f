#!/bin/sh
# make check-gpu: the CUDA backend against the CPU reference. Run from the
# top of the tree with BUILD set (the Makefile does). On a machine without
# a usable GPU, or with a build without the CUDA backend, it prints
# "check-gpu: skipped: no GPU (reason)" and exits 0.
#   1. $BUILD/tests/check_gpu: every op on awkward sizes in fp32 and bf16,
#      the model forward/backward, 50 steps of small on both backends, a
#      checkpoint CPU -> GPU -> CPU, the same GPU run twice (tests/gpu/);
#   2. hydra-fit end to end: --device cuda on samples of the shared logs (or
#      of the logs in GPU_LOGS, as gpu-acceptance makes them), resumed on
#      the CPU and back on the GPU (checkpoints are interchangeable).
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
CG="$BUILD/tests/check_gpu"
[ -x "$CG" ] || { echo "check-gpu: $CG not built (make check-gpu builds it)" >&2; exit 1; }
if [ -n "$GPU_LOGS" ]; then
	# gpu-acceptance ran check_gpu already: only ask whether a GPU is there
	out=$("$CG" --probe)
else
	out=$("$CG") || { printf '%s\n' "$out"; echo "check-gpu: FAILED" >&2; exit 1; }
fi
printf '%s\n' "$out"
case $out in
"check-gpu: skipped"*) exit 0 ;;
esac

F="$BUILD/bin/hydra-fit"
DATA=${GPU_LOGS:-$SHARED/data/logs}
if [ ! -d "$DATA" ]; then
	echo "check-gpu: hydra-fit part skipped: no shared logs at $DATA (make gpu-acceptance makes its own)"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/check-gpu.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "check-gpu: FAIL: $*" >&2; exit 1; }
"$BUILD/bin/mjai-parse" -k "$DATA" 2>/dev/null | "$BUILD/bin/hydra-encode" -k 2>/dev/null \
	>"$T/s.bin" || fail "mjai-parse | hydra-encode"
"$F" --device cuda --arch small --steps 20 --batch 64 --save-every 10 -o "$T/run" \
	"$T/s.bin" 2>"$T/gpu.err" || { cat "$T/gpu.err" >&2; fail "hydra-fit --device cuda"; }
grep '^hydra-fit: cuda: ' "$T/gpu.err"
# a batch that does not fit is refused before training, naming one that does
"$F" --device cuda --arch full --batch 1000000 --steps 1 -o "$T/big" "$T/s.bin" \
	2>"$T/big.err" && fail "--batch 1000000 of full was not refused"
grep -q 'the largest batch that fits is [1-9]' "$T/big.err" ||
	{ cat "$T/big.err" >&2; fail "refusal of a too-large batch"; }
[ ! -e "$T/big/ckpt-00000001.h5" ] || fail "a refused batch trained"
"$F" --device cpu --resume "$T/run" --steps 30 --threads 2 "$T/s.bin" 2>"$T/cpu.err" ||
	{ cat "$T/cpu.err" >&2; fail "GPU checkpoint resumed on the CPU"; }
"$F" --device cuda --resume "$T/run" --steps 40 "$T/s.bin" 2>"$T/gpu2.err" ||
	{ cat "$T/gpu2.err" >&2; fail "CPU checkpoint resumed on the GPU"; }
[ -f "$T/run/ckpt-00000040.h5" ] || fail "no checkpoint of step 40"
# the same GPU run twice: bit-identical metrics (deterministic by default)
"$F" --device cuda --arch small --steps 10 --batch 64 -o "$T/a" "$T/s.bin" 2>/dev/null &&
	"$F" --device cuda --arch small --steps 10 --batch 64 -o "$T/b" "$T/s.bin" 2>/dev/null ||
	fail "hydra-fit --device cuda twice"
strip_time() { sed 's/"samples_per_s":[^,}]*//; s/"elapsed_s":[^,}]*//' "$1"; }
[ "$(strip_time "$T/a/metrics.jsonl")" = "$(strip_time "$T/b/metrics.jsonl")" ] ||
	fail "two identical GPU runs logged different metrics"
echo "check-gpu: hydra-fit: GPU -> CPU -> GPU resume and a repeated run: ok"
