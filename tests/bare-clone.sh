#!/bin/sh
# A newcomer's first hour, as a test: clones the committed repository into a
# fresh directory with no ../shared beside it, builds it and runs make check
# there (t0860 runs the README's blocks in order on self-made logs/), and
# fails unless every test passes and at most 3 skip. Not part of make check
# (it runs make check); run it from the checkout:
#     sh tests/bare-clone.sh [MAKEFLAGS...]     e.g. NO_CUDA=1 -j2
# It takes as long as a build and a make check (the fast tier; README.md,
# "Tests"); .ci/run runs it after make check-full.
top=$(git rev-parse --show-toplevel) || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bare.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-local "$top" "$tmp/hydra" || exit 1
[ -e "$tmp/shared" ] && { echo "bare-clone: $tmp/shared exists"; exit 1; }
cd "$tmp/hydra" || exit 1
make "$@" all > "$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log"; echo "bare-clone: build failed"; exit 1; }
make "$@" check > "$tmp/check.log" 2>&1
rc=$?
grep -E '^(skip|FAIL) ' "$tmp/check.log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped( |$)' "$tmp/check.log" | tail -n 1)
echo "bare-clone: $line"
[ $rc -eq 0 ] || { tail -n 40 "$tmp/check.log"; echo "bare-clone: make check failed"; exit 1; }
skipped=$(echo "$line" | sed 's/.* failed, \([0-9]*\) skipped.*/\1/')
[ -n "$skipped" ] && [ "$skipped" -le 3 ] || { echo "bare-clone: $skipped tests skipped (at most 3)"; exit 1; }
echo "bare-clone: ok"
