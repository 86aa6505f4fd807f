#!/bin/sh
# Sample stream and HDF5 shard benchmarks (issue 6): write/read samples/s,
# compressed shard bytes per sample.
set -e
B=${BUILD:-build}/bench
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
$pin "$B/samples_bench" 100000
