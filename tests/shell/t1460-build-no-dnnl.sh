#!/bin/sh
# tier: full
# A build without oneDNN (issue 54; NO_DNNL=1, as on a machine without
# libdnnl-dev): it builds in a tree of its own, prints that the oneDNN path
# is not built, links no libdnnl, and its programs refuse the oneDNN paths
# with the install hint while auto and openblas work: the oneDNN unit test
# (which then checks the refusal only) passes, a tiny model trains and
# plays on the CPU, hydra-fit --precision bf16 is a usage error, and the -v
# line says openblas. NO_CUDA=1 keeps the build to the CPU code (the CUDA
# build is checked elsewhere). The fast tier's build has oneDNN where
# libdnnl-dev is installed; this is its twin without.
. tests/shell/lib.sh
need_cmd make
B=$T/build-nodnnl
# the sanitizer flags of the suite's own build, so SANITIZE=1 checks this one too;
# MAKELEVEL=0: a top-level build, which prints what it found
san=""
grep -q fsanitize "${HY_BUILD:-$TOP/build}/.flags" 2>/dev/null && san="SANITIZE=1"
MAKELEVEL=0 make -C "$TOP" --no-print-directory -j2 NO_DNNL=1 NO_CUDA=1 $san BUILD="$B" all \
	"$B/tests/test_nn_onednn" > "$T/make.out" 2>&1 || { tail -40 "$T/make.out" >&2; fail "the NO_DNNL=1 build failed"; }
grep -q "oneDNN CPU path: not built (NO_DNNL=1)" "$T/make.out" || fail "make did not say oneDNN is not built"
grep -q HY_HAVE_DNNL "$B/.flags" && fail "NO_DNNL=1 still defines HY_HAVE_DNNL"
if command -v ldd >/dev/null 2>&1; then
	ldd "$B/bin/hydra-bot" | grep -q libdnnl && fail "hydra-bot links libdnnl in a NO_DNNL=1 build"
fi
"$B/tests/test_nn_onednn" > "$T/unit.out" 2>&1 || { cat "$T/unit.out" >&2; fail "test_nn_onednn without oneDNN"; }
for p in hydra-fit hydra-sp hydra-eval hydra-bot hydra-review; do
	for path in onednn onednn-bf16; do
		expect_exit 2 "$B/bin/$p" --cpu-path $path --help
		expect_err "cpu path '$path': this build has no oneDNN \\(install libdnnl-dev and rebuild: 'make deps'\\)"
	done
done
"$B/bin/hydra-sp" --games 1 --seed 5 -o "$T/s.bin" 2> "$T/err" || { cat "$T/err" >&2; fail "hydra-sp"; }
expect_exit 2 "$B/bin/hydra-fit" --precision bf16 --arch tiny --steps 1 -o "$T/bf" "$T/s.bin"
expect_err "precision bf16 on the CPU needs the oneDNN path"
expect_exit 0 "$B/bin/hydra-fit" -v --arch tiny --steps 2 --batch 16 -j 1 -o "$T/run" "$T/s.bin"
expect_err "cpu path openblas$"
expect_exit 0 "$B/bin/hydra-sp" --games 1 --seed 6 --policy "$T/run/latest" --no-samples
exit 0
