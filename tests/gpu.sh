#!/bin/sh
# make check-gpu: GPU ops against the CPU reference. Skips (exit 0, with a
# message) when there is no usable GPU or no CUDA build.
BIN=${BUILD:-build}/bin
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "check-gpu: no GPU found: skipped"
	exit 0
fi
if [ ! -x "$BIN/hydra-fit" ]; then
	echo "check-gpu: hydra-fit (the only GPU code) is not built yet: skipped"
	exit 0
fi
exec "$BIN/hydra-fit" --self-test
