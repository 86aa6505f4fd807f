#!/bin/sh
# The learning benchmark (issue 20): pipelines/strength.mk from nothing, on
# this machine's CPU, stage by stage with the wall time and the load of
# each: rulebot games -> behaviour cloning -> GRP -> rulebot tuned by
# self-play -> the BC start distilled from it -> PPO league -> final
# arenas at SEEDS seeds. Prints a markdown report (the commands, the
# machine, the stages' times, strength.mk's summary table) and writes it to
# OUT/learn-report.md beside the run; the plots are OUT/bc/run/plots/*.png,
# OUT/league/plots/league.png and OUT/league/iter-*/run/plots/*.png.
#
#   bench/learn/learn.sh                       # the full recipe (about 2 hours on 2 cores)
#   OUT=/tmp/learn ITERS=3 GAMES=64 bench/learn/learn.sh   # any variable of strength.mk
#
# Variables: OUT (default learn-run), and those of pipelines/strength.mk
# (TEACHER_GAMES, ARCH, BC_STEPS, GRP_EPOCHS, DISTIL, TUNE_SEEDS, TUNE_SEED,
# TUNE_SWEEPS, DISTIL_GAMES, DISTIL_SEED, DISTIL_STEPS, DISTIL_LR, ITERS,
# GAMES, LEAGUE_SEEDS, BATCH, PPO_FLAGS, SEQUENTIAL, SEEDS), passed on when set. A second run reuses the
# stages that are done (and says so: their time is then that of the check).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-learn-run}
vars=""
for v in TEACHER_GAMES TEACHER_PARAMS ARCH BC_STEPS BC_SEEDS BC_BATCH GRP_EPOCHS DISTIL TUNE_SEEDS TUNE_SEED TUNE_SWEEPS \
	DISTIL_GAMES DISTIL_SEED DISTIL_STEPS DISTIL_LR ITERS GAMES LEAGUE_SEEDS BATCH \
	PPO_FLAGS SEQUENTIAL SEEDS THREADS DEVICE BIN; do
	eval "val=\${$v+set}"
	[ "$val" = set ] && eval "vars=\"\$vars $v='\$$v'\""
done
MK="make --no-print-directory -f $top/pipelines/strength.mk OUT=$OUT$vars"
mkdir -p "$OUT"
report="$OUT/learn-report.md"
tmp="$report.tmp"
{
	echo "# bench/learn/learn.sh: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))," \
		"$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)," \
		"commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "- command: \`$MK\`"
	echo
	echo "| stage | wall time | load before | load after |"
	echo "|---|---|---|---|"
} > "$tmp"
total=0
for stage in teacher bc grp tune distil league final all; do
	l0=$(cut -d' ' -f1-3 /proc/loadavg)
	t0=$(date +%s)
	echo "== learn: stage $stage" >&2
	eval "$MK $stage" >&2
	t1=$(date +%s)
	l1=$(cut -d' ' -f1-3 /proc/loadavg)
	dt=$((t1 - t0))
	total=$((total + dt))
	printf '| %s | %d min %02d s | %s | %s |\n' "$stage" $((dt / 60)) $((dt % 60)) "$l0" "$l1" >> "$tmp"
done
{
	printf '| total | %d min %02d s | | |\n' $((total / 60)) $((total % 60))
	echo
	cat "$OUT/summary.md"
	echo
	echo "GRP calibration on its validation games (hydra-fit --mode grp; log-loss, uniform = ln 24):"
	echo
	jq -r 'select(.calibration) | .calibration | "    \(.games) games, \(.states) states: " +
		"log-loss \(.loss) (uniform \(.uniform), order frequencies \(.empirical)), top-1 \(.top1)"' \
		"$OUT/grp/metrics.jsonl"
} >> "$tmp"
mv "$tmp" "$report"
cat "$report"
