#!/bin/sh
# Runs libFuzzer harnesses: `make fuzz` calls this after building them.
#   FUZZ_BUILD=build-fuzz FUZZ_SECONDS=60 sh tests/fuzz/run.sh NAME...
# Each $FUZZ_BUILD/fuzz_NAME runs for FUZZ_SECONDS over a scratch corpus
# ($FUZZ_BUILD/corpus/NAME, kept between runs) seeded from
# tests/fuzz/corpus/NAME, tests/fuzz/regress/NAME and the files named in
# tests/fuzz/NAME.seeds (tests/fuzz/seeds.sh) or made by tests/fuzz/NAME.gen
# (with the programs in $HY_BIN), with the dictionary
# tests/fuzz/NAME.dict, the libFuzzer flags of tests/fuzz/NAME.options and
# the leak suppressions of tests/fuzz/lsan.supp (libhdf5's own leaks).
# Crash, leak, timeout and out-of-memory inputs are copied into
# tests/fuzz/regress/NAME/ (minimise them with -minimize_crash=1) and the
# run fails. One line of figures per harness on stdout; the whole libFuzzer
# output is in $FUZZ_BUILD/logs/NAME.log. Harnesses run one at a time.
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
HY_BIN=${HY_BIN:-$(pwd)/build/bin}
export HY_BIN
SHARED=${SHARED:-../shared}
top=$(pwd)
fail=0
case $FUZZ_SECONDS in ''|*[!0-9]*) echo "fuzz: FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2;; esac
[ $# -gt 0 ] || { echo "usage: run.sh NAME..." >&2; exit 2; }
mkdir -p "$FUZZ_BUILD/logs"
for name in "$@"; do
	bin="$FUZZ_BUILD/fuzz_$name"
	[ -x "$bin" ] || { echo "fuzz: $bin not built" >&2; fail=1; continue; }
	work="$FUZZ_BUILD/corpus/$name" art="$FUZZ_BUILD/artifacts/$name"
	log="$FUZZ_BUILD/logs/$name.log"
	mkdir -p "$work" "$art"
	rm -f "$art"/*
	# extra seeds named in tests/fuzz/NAME.seeds (golden files; shared data,
	# read in place: never committed), copied into the build directory
	seeds="$FUZZ_BUILD/seeds/$name"
	rm -rf "$seeds"
	mkdir -p "$seeds"
	[ -f "tests/fuzz/$name.seeds" ] && sh tests/fuzz/seeds.sh "tests/fuzz/$name.seeds" |
		while IFS= read -r f; do cp "$f" "$seeds/$(echo "$f" | tr '/' '_')"; done
	# seeds too large to commit are made by tests/fuzz/NAME.gen (HY_BIN)
	if [ -f "tests/fuzz/$name.gen" ] && ! sh "tests/fuzz/$name.gen" "$seeds" >"$log" 2>&1; then
		echo "fuzz: $name: tests/fuzz/$name.gen failed; see $log" >&2
		fail=1
		continue
	fi
	set -- "$seeds"
	[ -d "tests/fuzz/corpus/$name" ] && set -- "$@" "tests/fuzz/corpus/$name"
	[ -d "tests/fuzz/regress/$name" ] && set -- "$@" "tests/fuzz/regress/$name"
	dict=
	[ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
	# NAME.options: libFuzzer flags, and sanitizer settings as VAR=value lines
	opts= envs=
	if [ -f "tests/fuzz/$name.options" ]; then
		opts=$(grep -v '^#' "tests/fuzz/$name.options" | grep -v '^[A-Z_]*=')
		envs=$(grep '^[A-Z_]*=' "tests/fuzz/$name.options")
	fi
	start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) t0=$(date +%s)
	# shellcheck disable=SC2086
	env LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0" $envs \
		"$bin" $dict $opts -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
		-artifact_prefix="$art/" "$work" "$@" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	if [ -z "$execs" ]; then # -fork mode prints no final stats
		execs=$(sed -n 's/^#\([0-9][0-9]*\):* .*/\1/p' "$log" | tail -n 1)
		[ -n "$execs" ] && rate=$((execs / (secs > 0 ? secs : 1)))
	fi
	files=$(find "$work" -type f | wc -l)
	found=$(find "$art" -type f | wc -l)
	echo "fuzz: $name: ${secs}s, ${execs:-?} execs, ${rate:-?} execs/s, corpus $files files, $found artifacts, exit $rc, load $start -> $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	if [ "$found" -gt 0 ]; then
		mkdir -p "tests/fuzz/regress/$name"
		for a in "$art"/*; do
			known=
			for r in "tests/fuzz/regress/$name"/*; do
				[ -f "$r" ] && cmp -s "$a" "$r" && known=$r
			done
			if [ -n "$known" ]; then
				echo "fuzz: $name: still crashes on $known"
			else
				cp "$a" "tests/fuzz/regress/$name/" &&
					echo "fuzz: $name: new regression file tests/fuzz/regress/$name/$(basename "$a")"
			fi
		done
		grep -E '^(==[0-9]+==ERROR|SUMMARY|    #[0-9]+ )' "$log" | head -n 30 | sed 's/^/  | /'
		fail=1
	elif [ $rc -ne 0 ]; then
		echo "fuzz: $name: libFuzzer exited $rc; see $top/$log" >&2
		tail -n 20 "$log" | sed 's/^/  | /'
		fail=1
	fi
done
exit $fail
