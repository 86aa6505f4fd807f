#!/bin/sh
# Arena benchmarks (issue 11): hydra-eval games/s on one core for baseline
# against three random players and baseline against itself (rule policies,
# 4 rotations per seed, no logs), and the strength figure of the issue:
# baseline challenging three random players over 200 seeds (800 games),
# average rank with its 95% interval (goal <= 1.6); then, when hydra-sp and
# hydra-fit are built, a tiny checkpoint (2x32, one training step on two
# self-play games: its strength is not the point) against three baseline
# players. SEEDS=N changes the number of seeds of the rule-policy speed runs
# (default 500: 2000 games each).
set -e
BUILD=${BUILD:-build}
SEEDS=${SEEDS:-500}
E="$BUILD/bin/hydra-eval"
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# runs hydra-eval ARGS... with its JSON report in $tmp/$1.json and its CPU
# seconds (user + system, from time(1)) in $tmp/$1.cpu
eval_json() {
	name=$1; shift
	/usr/bin/time -f '%U %S' -o "$tmp/$name.cpu" $pin "$E" "$@" --json -q > "$tmp/$name.json"
}

# one JSON report -> one line of figures: games/s of wall time (the machine
# may be shared) and of CPU time
show() {
	python3 - "$tmp/$1.json" "$tmp/$1.cpu" "$2" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
u, s = (float(x) for x in open(sys.argv[2]).read().split()[-2:])
g = r["games"] + r["aborted"]
print("%s: %d games in %.2f s: %.0f games/s (%.0f games per CPU second); challenger average "
      "rank %.4f, 95%% CI [%s, %s]" % (
    sys.argv[3], g, r["elapsed_s"], r["games_per_s"], g / max(u + s, 1e-9), r["rank"]["mean"],
    "-" if r["rank"]["lo"] is None else "%.4f" % r["rank"]["lo"],
    "-" if r["rank"]["hi"] is None else "%.4f" % r["rank"]["hi"]))
PYEOF
}

for opp in random baseline; do
	eval_json "$opp" --challenger baseline --opponent "$opp" --seeds "$SEEDS" --threads 1 --tables 16
	show "$opp" "arena baseline vs 3x $opp, 1 core, $SEEDS seeds x 4"
done

eval_json 200 --challenger baseline --opponent random --seeds 200 --seed 0 --threads 1
show 200 "baseline vs 3x random, 200 seeds (goal: average rank <= 1.6)"
python3 - "$tmp/200.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["rank_count"]
print("  ranks 1st-4th %s, placement points %.2f, challenger win/deal-in/call/riichi per kyoku "
      "%.3f/%.3f/%.3f/%.3f" % (c, r["points"]["mean"], r["rates"]["challenger"]["win"],
      r["rates"]["challenger"]["deal_in"], r["rates"]["challenger"]["call"],
      r["rates"]["challenger"]["riichi"]))
PYEOF

if [ -x "$BUILD/bin/hydra-sp" ] && [ -x "$BUILD/bin/hydra-fit" ]; then
	"$BUILD/bin/hydra-sp" --games 2 --policy baseline -o "$tmp/sp.bin" 2>/dev/null
	"$BUILD/bin/hydra-fit" --arch tiny --steps 1 --threads 1 --out "$tmp/run" -q "$tmp/sp.bin"
	eval_json tiny --challenger "$tmp/run/ckpt-00000001.h5" --opponent baseline --seeds 50 \
		--threads 1 --tables 16
	show tiny "arena tiny checkpoint vs 3x baseline, 1 core, 50 seeds x 4"
fi
