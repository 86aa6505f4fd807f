#!/bin/sh
# tests/gpu/bundle.sh OUT.tgz: the built programs, check_gpu, the GPU
# benchmarks and the shared libraries they load (all but the C library's,
# the compiler runtime's and CUDA's), for running make gpu-acceptance's
# script on a GPU host that has CUDA but not this build's -dev packages:
#   tar xzf OUT.tgz && LD_LIBRARY_PATH=$PWD/bundle-lib:CUDA-LIBS \
#     BUILD=build sh tests/gpu/acceptance.sh
# Run from the top of the tree after make gpu-acceptance's build.
set -e
BUILD=${BUILD:-build}
out=${1:?usage: tests/gpu/bundle.sh OUT.tgz}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
files="$BUILD/bin/* $BUILD/tests/check_gpu $BUILD/bench/gpu_bench $BUILD/bench/feed_bench"
mkdir "$T/bundle-lib"
for f in $files; do ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|libgcc_s|libstdc\+\+)\.so|/(libcud|libcublas|libnv)' |
	while read -r l; do cp -L "$l" "$T/bundle-lib/"; done
tar czf "$out" $files -C "$T" bundle-lib
echo "bundle: $out: $(du -h "$out" | cut -f1), $(ls "$T/bundle-lib" | wc -l) libraries"
