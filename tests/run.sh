#!/bin/sh
# Test driver: every cmocka unit binary in $BUILD/tests, then every program
# test tests/shell/t*.sh. A test exits 0 (pass), 77 (skipped) or anything
# else (fail). Ends with "N passed, N failed, N skipped"; exit 1 on failure.
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
top=$(pwd)
# BUILD relative to the repository, or absolute (make check BUILD=/tmp/b)
case $BUILD in /*) build=$BUILD ;; *) build=$top/$BUILD ;; esac
export HY_BIN="$build/bin" HY_SHARED="$SHARED" HY_TOP="$top" HY_BUILD="$build"
# sanitizer builds: leaks inside libhdf5 on its error paths are known (the file
# says which and why); every other leak fails its test
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
pass=0 fail=0 skip=0 failed="" skipped=""
log=$(mktemp -d "${TMPDIR:-/tmp}/hydra-tests.XXXXXX")
run() { # name, command...
	name=$1; shift
	out="$log/$(echo "$name" | tr '/' '_').log"
	"$@" >"$out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "ok    $name"
	elif [ $rc -eq 77 ]; then skip=$((skip + 1)); skipped="$skipped $name"
		echo "skip  $name: $(tail -n 1 "$out")"
	else fail=$((fail + 1)); failed="$failed $name"; echo "FAIL  $name (exit $rc)"
		sed 's/^/      | /' "$out" | tail -n 40
	fi
}
for t in "$BUILD"/tests/test_*; do
	case $t in *.o|*.d) continue;; esac
	[ -x "$t" ] || continue
	run "unit/$(basename "$t")" "$t"
done
for t in tests/shell/t*.sh; do
	[ -f "$t" ] || continue
	run "shell/$(basename "$t" .sh)" sh "$t"
done
rm -rf "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ -n "$failed" ] && echo "failed:$failed"
[ -n "$skipped" ] && echo "skipped:$skipped"
[ $fail -eq 0 ]
