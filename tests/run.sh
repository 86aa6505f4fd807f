#!/bin/sh
# Test driver: the cmocka unit binaries in $BUILD/tests and the program
# tests tests/shell/t*.sh of one tier, in parallel, each timed.
#
#   sh tests/run.sh [-j N] [--tier fast|full] [--list] [PATTERN...]
#
# Tiers: every test runs in `full`; a test runs in `fast` (the default, `make
# check`) unless its file says `# tier: full` (a shell test) or
# `/* tier: full */` (tests/unit/NAME.c) in its first 15 lines. Each test sees
# HY_TIER=fast|full and sizes itself by it (tests/shell/lib.sh: tier_size).
# PATTERNs are shell globs matched against the start of a test's name
# (t0815, 't08*', test_engine, 'unit/*'); several are OR'ed; none runs the
# whole tier.
# Environment: TIER, J (jobs), T (patterns) as make check passes them.
#
# A test exits 0 (pass), 77 (skipped) or anything else (fail). Each line
# says the test's seconds; the run ends with the five slowest, "N passed, N
# failed, N skipped" and exit 1 on failure. Tests start longest-first by
# the times of the last run (kept in $BUILD/tests/times.TIER), so -j packs
# the slow ones together instead of leaving one alone at the end.
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
tier=${TIER:-fast}
jobs=${J:-}
list=""
patterns=${T:-}
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	--tier) tier=$2; shift ;;
	--tier=*) tier=${1#--tier=} ;;
	--list) list=1 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
	*) patterns="$patterns $1" ;;
	esac
	shift
done
case $tier in fast|full) ;; *) echo "run.sh: --tier is fast or full, not '$tier'" >&2; exit 2 ;; esac
# (make passes them in the environment: no test should see them)
unset T J TIER
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || echo 1)
case $jobs in ''|*[!0-9]*|0) echo "run.sh: -j wants a positive number, not '$jobs'" >&2; exit 2 ;; esac

top=$(pwd)
# BUILD relative to the repository, or absolute (make check BUILD=/tmp/b)
case $BUILD in /*) build=$BUILD ;; *) build=$top/$BUILD ;; esac
# SHARED likewise (a test may cd elsewhere; make passes it absolute)
case $SHARED in /*) ;; *) SHARED=$top/$SHARED ;; esac
export HY_BIN="$build/bin" HY_SHARED="$SHARED" HY_TOP="$top" HY_BUILD="$build" HY_TIER="$tier"
# sanitizer builds: leaks inside libhdf5 on its error paths are known (the file
# says which and why); every other leak fails its test
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# the tier a test's source declares: full or fast
tier_of() { # source file
	head -n 15 "$1" 2>/dev/null | grep -Eq '^(#|/\*) tier: full' && echo full || echo fast
}
selected() { # name
	[ -z "$patterns" ] && return 0
	for p in $patterns; do
		# shellcheck disable=SC2254
		case $1 in $p*|unit/$p*|shell/$p*) return 0 ;; esac
	done
	return 1
}

log=$(mktemp -d "${TMPDIR:-/tmp}/hydra-tests.XXXXXX")
trap 'rm -rf "$log"' EXIT
trap 'exit 130' INT TERM
# the plan: one line per test, "NAME<TAB>COMMAND-ARG"
: >"$log/plan"
for t in "$build"/tests/test_*; do
	case $t in *.o|*.d) continue;; esac
	[ -x "$t" ] || continue
	n=$(basename "$t")
	[ "$tier" = full ] || [ "$(tier_of "tests/unit/$n.c")" = fast ] || continue
	selected "unit/$n" && printf 'unit/%s\t%s\n' "$n" "$t" >>"$log/plan"
done
for t in tests/shell/t*.sh; do
	[ -f "$t" ] || continue
	n=$(basename "$t" .sh)
	[ "$tier" = full ] || [ "$(tier_of "$t")" = fast ] || continue
	selected "shell/$n" && printf 'shell/%s\t%s\n' "$n" "$t" >>"$log/plan"
done
count=$(wc -l <"$log/plan")
[ "$count" -gt 0 ] || { echo "run.sh: no test of tier '$tier' matches:$patterns" >&2; exit 2; }
if [ -n "$list" ]; then cut -f1 "$log/plan"; exit 0; fi

# longest first, by the last run's times (unknown tests count as slow)
times="$build/tests/times.$tier"
if [ -f "$times" ]; then
	awk -F'\t' 'NR == FNR { s[$1] = $2; next }
		{ print (($1 in s) ? s[$1] : 1e9) "\t" $0 }' "$times" "$log/plan"
else
	awk '{ print 1e9 "\t" $0 }' "$log/plan"
fi | sort -t "$(printf '\t')" -k1,1gr | cut -f2- >"$log/ordered"

echo "tests: $count of tier $tier, $jobs at a time${patterns:+, matching$patterns}"
start=$(date +%s.%N)
# one job per test: its output to NAME.log, then "NAME RC SECONDS" to NAME.res;
# the status line is printed in one write as each test ends
tr '\t' ' ' <"$log/ordered" | HY_RUN_LOG=$log xargs -P "$jobs" -L 1 sh -c '
	name=$1 path=$2 f="$HY_RUN_LOG/$(echo "$1" | tr "/" "_")"
	t0=$(date +%s.%N)
	case $path in *.sh) sh "$path" ;; *) "$path" ;; esac >"$f.log" 2>&1 </dev/null
	rc=$?
	t1=$(date +%s.%N)
	s=$(echo "$t0 $t1" | awk "{ printf \"%.1f\", \$2 - \$1 }")
	echo "$name $rc $s" >"$f.res"
	if [ $rc -eq 0 ]; then line=$(printf "ok    %6ss  %s" "$s" "$name")
	elif [ $rc -eq 77 ]; then line=$(printf "skip  %6ss  %s: %s" "$s" "$name" "$(tail -n 1 "$f.log")")
	else line=$(printf "FAIL  %6ss  %s (exit %s)" "$s" "$name" "$rc"); fi
	echo "$line"' sh
end=$(date +%s.%N)

pass=0 fail=0 skip=0 failed="" skipped=""
cat "$log"/*.res >"$log/all" 2>/dev/null
while read -r name rc s; do
	if [ "$rc" -eq 0 ]; then pass=$((pass + 1))
	elif [ "$rc" -eq 77 ]; then skip=$((skip + 1)); skipped="$skipped $name"
	else fail=$((fail + 1)); failed="$failed $name"
		echo "--- $name (exit $rc), the last 40 lines of its output:"
		sed 's/^/      | /' "$log/$(echo "$name" | tr '/' '_').log" | tail -n 40
	fi
done <"$log/all"
# a test that never wrote its result (the runner was killed) is a failure
missing=$((count - pass - fail - skip))
[ "$missing" -le 0 ] || { fail=$((fail + missing)); failed="$failed (and $missing that did not finish)"; }

# keep the times for the next run's order: merged, so a subset run keeps the rest
mkdir -p "$build/tests"
{ awk '{ print $1 "\t" $3 }' "$log/all"; [ -f "$times" ] && cat "$times"; } |
	awk -F'\t' '!seen[$1]++' >"$log/times" && cp "$log/times" "$times" 2>/dev/null

echo "slowest:"
sort -k3,3gr "$log/all" | head -n 5 | awk '{ printf "  %6.1fs  %s\n", $3, $1 }'
wall=$(echo "$start $end" | awk '{ printf "%.0f", $2 - $1 }')
echo "$pass passed, $fail failed, $skip skipped in ${wall}s (tier $tier, -j $jobs)"
[ -n "$failed" ] && echo "failed:$failed"
[ -n "$skipped" ] && echo "skipped:$skipped"
[ "$fail" -eq 0 ]
