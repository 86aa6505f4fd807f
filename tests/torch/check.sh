#!/bin/sh
# PyTorch cross-check (issue 7): nn_dump writes a checkpoint, a batch, our
# outputs, losses and gradients; check_torch.py recomputes them in PyTorch.
# Needs $BUILD/bench/nn_dump (make BUILD=... $BUILD/bench/nn_dump). Then the
# same for the PPO loss (issue 12): ppo_dump and check_ppo.py.
# Exit 0 pass, 1 fail, 77 skipped (no torch/h5py for /usr/bin/python3).
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import torch, h5py' 2>/dev/null; then
	echo "check-torch: skipped: $PY cannot import torch and h5py (apt-get install python3-torch python3-h5py)"
	exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/hydra-torch.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
rc=0
for spec in "tiny 8 1" "small 16 2"; do
	set -- $spec
	"$BUILD/bench/nn_dump" "$dir" "$1" "$2" "$3" >/dev/null || { rc=1; continue; }
	"$PY" "$(dirname "$0")/check_torch.py" "$dir" || rc=1
done
# The PPO loss of hydra-fit --mode ppo (issue 12): $BUILD/bench/ppo_dump,
# brought up to date here (a no-op when it is).
${MAKE:-make} --no-print-directory BUILD="$BUILD" "$BUILD/bench/ppo_dump" >/dev/null ||
	{ echo "check-torch: FAIL: cannot build $BUILD/bench/ppo_dump"; exit 1; }
for spec in "tiny 8 1" "small 16 2"; do
	set -- $spec
	"$BUILD/bench/ppo_dump" "$dir" "$1" "$2" "$3" >/dev/null || { rc=1; continue; }
	"$PY" "$(dirname "$0")/check_ppo.py" "$dir" || rc=1
done
exit $rc
