#!/bin/sh
# Event stream I/O and Tenhou conversion benchmarks (issues 2 and 3).
set -e
B=${BUILD:-build}/bench
SHARED=${SHARED:-../shared}
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
$pin "$B/evs_bench"
d="$SHARED/data/logs/mjx-project_mjx/tests_py/resources/mjlog"
if [ -d "$d" ]; then $pin "$B/tenhou_bench" "$d"; else echo "tenhou bench: $d not found: skipped"; fi
