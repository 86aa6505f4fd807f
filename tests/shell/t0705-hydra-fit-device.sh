#!/bin/sh
# hydra-fit --device: without a usable GPU (this build host, CI) --device
# cuda and cuda:N exit 4 with the reason and make no output directory;
# --device auto says so in one line and trains on the CPU; --device cpu says
# nothing; --precision bf16 on the CPU is a usage error on OpenBLAS and
# trains (bf16 recorded in the checkpoint) on oneDNN. With a usable GPU
# and the CUDA backend built, --device cuda trains and reports the device.
. tests/shell/lib.sh
F="$BIN/hydra-fit"

expect_exit 2 "$F" --device cuda:x
expect_err "bad --device 'cuda:x'"
expect_exit 2 "$F" --precision fp16
expect_err "bad --precision 'fp16': bf16 or fp32"
expect_exit 2 "$F" --device cpu --cpu-path openblas --precision bf16 -o "$T/p" /dev/null
expect_err "precision bf16 on the CPU needs the oneDNN path \\(--cpu-path onednn; this run's is openblas"
[ -e "$T/p" ] && fail "--precision bf16 on OpenBLAS made an output directory"
if "$F" --cpu-path onednn --help >/dev/null 2>&1; then
	"$BIN/hydra-sp" --games 1 --seed 3 -o "$T/bf.bin" 2>/dev/null || fail "hydra-sp"
	expect_exit 0 "$F" --device cpu --cpu-path onednn --precision bf16 --arch tiny --steps 2 \
		--batch 16 -j 1 -o "$T/bf" "$T/bf.bin"
	h5dump -a train_precision "$T/bf/latest" | grep -q '(0): 1$' ||
		fail "the bf16 run's checkpoint does not record train_precision 1"
fi

gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 &&
	ldd "$F" 2>/dev/null | grep -q libcudart; then
	gpu=1
fi
if [ $gpu -eq 0 ]; then
	for dev in cuda cuda:3; do
		expect_exit 4 "$F" --device $dev --steps 1 -o "$T/cuda" /dev/null
		expect_err "^hydra-fit: requested device unavailable: --device $dev: [a-z]"
		[ "$(wc -l < "$T/err")" -eq 1 ] || { cat "$T/err" >&2; fail "--device $dev: one line"; }
		[ ! -e "$T/cuda" ] || fail "--device $dev made an output directory"
	done
fi

gen_logs 6  # self-play games in three formats (tests/shell/lib.sh)
[ -x "$BIN/mjai-parse" ] && [ -x "$BIN/hydra-encode" ] || skip "mjai-parse/hydra-encode not built (skipped)"
"$BIN/mjai-parse" -k "$GEN" 2>/dev/null | "$BIN/hydra-encode" -k 2>/dev/null >"$T/s.bin" ||
	fail "mjai-parse | hydra-encode"

if [ $gpu -eq 0 ]; then
	expect_exit 0 "$F" --device auto --arch tiny --steps 2 --batch 16 --threads 1 \
		-o "$T/auto" "$T/s.bin"
	[ "$(grep -c 'GPU' "$T/err")" -eq 1 ] || { cat "$T/err" >&2; fail "auto: not one GPU line"; }
	expect_err "^hydra-fit: no usable GPU \(.+\): training on the CPU$"
	[ -f "$T/auto/ckpt-00000002.h5" ] || fail "auto: no checkpoint"
	expect_exit 0 "$F" --device cpu --arch tiny --steps 1 --batch 16 --threads 1 \
		-o "$T/cpu" "$T/s.bin"
	grep -q GPU "$T/err" && { cat "$T/err" >&2; fail "--device cpu mentions a GPU"; }
	# quiet: the fallback line goes with the progress lines
	expect_exit 0 "$F" -q --arch tiny --steps 1 --batch 16 --threads 1 -o "$T/q" "$T/s.bin"
	[ ! -s "$T/err" ] || { cat "$T/err" >&2; fail "-q is not quiet"; }
else
	expect_exit 0 "$F" --device cuda --arch tiny --steps 2 --batch 16 -o "$T/gpu" "$T/s.bin"
	expect_err "cuda: device 0: "
	expect_err "cuda: precision bf16"
	[ -f "$T/gpu/ckpt-00000002.h5" ] || fail "cuda: no checkpoint"
	# the GPU checkpoint resumes on the CPU
	expect_exit 0 "$F" --device cpu --resume "$T/gpu" --steps 3 --threads 1
fi
exit 0
