#!/bin/sh
# The test suite's own time (issue 44): each tier run as make check and make
# check-full run it (tests/run.sh, the build already done), with the machine
# and its load before and after; the per-test seconds and the five slowest
# are tests/run.sh's own lines. Targets on 2 cores: the fast tier within 3
# minutes, the full tier within 15, the fast tier under SANITIZE=1 within 10.
#
#   bench/tests.sh                  # both tiers, the build in build/
#   TIERS=fast BUILD=build-san bench/tests.sh    # the sanitizer build
#   SHARED=/nonexistent bench/tests.sh           # as a bare clone runs it
#
# Variables: TIERS ("fast full"), BUILD (build), SHARED (../shared), J.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
TIERS=${TIERS:-fast full}
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); commit $(git rev-parse --short HEAD 2>/dev/null)"
rc=0
for tier in $TIERS; do
	l0=$(cut -d' ' -f1-3 /proc/loadavg)
	t0=$(date +%s)
	TIER=$tier sh tests/run.sh > "${TMPDIR:-/tmp}/bench-tests-$tier.log" 2>&1 || rc=1
	t1=$(date +%s)
	l1=$(cut -d' ' -f1-3 /proc/loadavg)
	sed -n '/^slowest:/,$p' "${TMPDIR:-/tmp}/bench-tests-$tier.log"
	echo "tier $tier: $((t1 - t0)) s wall (load $l0 before, $l1 after); per-test lines in ${TMPDIR:-/tmp}/bench-tests-$tier.log"
done
exit $rc
