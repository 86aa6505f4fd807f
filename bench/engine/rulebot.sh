#!/bin/sh
# rulebot against its targets (issue 20, item 5), in one run beside the
# baseline it must beat:
#   strength  rulebot against three baseline bots, duplicate arena at SEEDS
#             seeds (default 400) for each master seed in MASTERS (default
#             "0 3 7 11"): mean rank with the 95% interval (target <= 2.35),
#             deal-in per kyoku (target <= 0.12) beside baseline's;
#   speed     hanchan per CPU-second (user + system, time(1)) with the bot at
#             all four seats, one thread pinned to one core, for rulebot
#             (target >= 300) and baseline side by side.
# Prints one line per figure; the machine and its load go in the results.
set -e
BUILD=${BUILD:-build}
SEEDS=${SEEDS:-400}
MASTERS=${MASTERS:-"0 3 7 11"}
E="$BUILD/bin/hydra-eval"
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) CPUs, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
for m in $MASTERS; do
	"$E" --challenger rulebot --opponent baseline --seeds "$SEEDS" --seed "$m" -j 2 --json -q \
		> "$tmp/s$m.json"
	python3 - "$tmp/s$m.json" "$m" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))
r, c, o = a["rank"], a["rates"]["challenger"], a["rates"]["opponents"]
print("strength  master seed %-3s rulebot vs 3 baseline, %d seeds: rank %.4f [%.4f, %.4f]  "
      "deal-in %.4f (baseline %.4f)  win %.4f (baseline %.4f)"
      % (sys.argv[2], a["seeds_counted"], r["mean"], r["lo"], r["hi"], c["deal_in"],
         o["deal_in"], c["win"], o["win"]))
PYEOF
done
# the CPU of a 1-seed run (4 hanchan) is the start-up: the programs load
# their libraries (CUDA's included) twice, nn/threads.h starting the
# program again; the rate is given with and without it
for p in rulebot baseline; do
	/usr/bin/time -f '%U %S' -o "$tmp/$p.cpu" $pin "$E" --challenger $p --opponent $p \
		--seeds "$SEEDS" -j 1 --json -q > "$tmp/$p.json"
	/usr/bin/time -f '%U %S' -o "$tmp/$p.cpu1" $pin "$E" --challenger $p --opponent $p \
		--seeds 1 -j 1 --json -q > "$tmp/$p.1.json"
	python3 - "$tmp/$p.json" "$tmp/$p.cpu" "$tmp/$p.cpu1" "$p" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
u1, s1 = map(float, open(sys.argv[3]).read().split()[-2:])
cpu, start = u + s, u1 + s1
# time(1) counts CPU in 10 ms steps: a small run (the test suite's) can
# take no more than its start-up, and then has no rate without it
net = cpu - start
without = "%.1f" % ((a["games"] - 4) / net) if net >= 0.05 else "not measurable"
print("speed     %-8s at 4 seats: %d hanchan in %.2f CPU-s: %.1f per CPU-second with the "
      "start-up, %s without it (a 1-seed run's %.2f CPU-s); %.1f per wall second in the arena"
      % (sys.argv[4], a["games"], cpu, a["games"] / max(cpu, 0.01), without, start,
         a["games_per_s"]))
PYEOF
done
