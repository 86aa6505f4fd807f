#!/bin/sh
# The slope of a strength curve (issue 52, step 3): reads curve.sh's
# curve.tsv (games, rank, lo, hi, minutes; a header line) and prints the
# weighted least-squares line rank = a + b * games (each point weighted by
# 1 / se^2, se its 95% interval's half-width / 1.966, the t quantile at
# 400 seeds), b's standard error and 95% interval, the reduced chi-square
# (above 1: the points scatter more than their intervals say, and se(b)
# is scaled by its root), and the games the TARGET (2.45) would need at
# that slope: at the point estimate and at b's interval's steeper end.
# Hours on this machine come from GAMES_PER_HOUR (PPO games an hour,
# self-play and update, curve.sh measures it), on a GPU from GPU_GAMES_PER_HOUR
# (default 40000: Mortal's published self-play rate on one GPU).
#
#   bench/learn/fit-curve.sh curve/curve.tsv
#   sh bench/learn/fit-curve.sh --self-test
set -e
TARGET=${TARGET:-2.45}
GAMES_PER_HOUR=${GAMES_PER_HOUR:-0}
GPU_GAMES_PER_HOUR=${GPU_GAMES_PER_HOUR:-40000}
if [ "$1" = --self-test ]; then
	# points on rank = 2.5 - 1e-6 games with equal intervals: the fit
	# gives the line back and the target at 50,000 games
	printf 'games\trank\tlo\thi\tminutes\n0\t2.5\t2.45\t2.55\t0\n10000\t2.49\t2.44\t2.54\t1\n20000\t2.48\t2.43\t2.53\t2\n' |
		GAMES_PER_HOUR=1000 sh "$0" /dev/stdin
	exit
fi
[ -r "$1" ] || { echo "usage: fit-curve.sh CURVE.tsv" >&2; exit 2; }
awk -F'\t' -v T="$TARGET" -v gph="$GAMES_PER_HOUR" -v gpu="$GPU_GAMES_PER_HOUR" '
NR == 1 { next }
NF >= 4 {
	se = ($4 - $3) / (2 * 1.966)
	if (se <= 0) { printf "fit-curve: line %d: an interval of width 0\n", NR > "/dev/stderr"; bad = 1; exit 2 }
	n++; x[n] = $1; y[n] = $2; w[n] = 1 / (se * se)
}
END {
	if (bad) exit 2
	if (n < 2) { print "fit-curve: fewer than two points" > "/dev/stderr"; exit 2 }
	for (i = 1; i <= n; i++) { sw += w[i]; sx += w[i] * x[i]; sy += w[i] * y[i]
		sxx += w[i] * x[i] * x[i]; sxy += w[i] * x[i] * y[i] }
	D = sw * sxx - sx * sx
	if (D <= 0) { print "fit-curve: all points at one number of games" > "/dev/stderr"; exit 2 }
	b = (sw * sxy - sx * sy) / D
	a = (sy - b * sx) / sw
	seb = sqrt(sw / D)
	for (i = 1; i <= n; i++) { r = y[i] - a - b * x[i]; chi += w[i] * r * r }
	rchi = n > 2 ? chi / (n - 2) : 0
	if (rchi > 1) seb *= sqrt(rchi)
	printf "points: %d, from %d to %d games\n", n, x[1], x[n]
	printf "fit: rank = %.4f %+.4f per 10,000 games (se %.4f; 95%% [%+.4f, %+.4f]); reduced chi-square %.2f\n",
		a, b * 1e4, seb * 1e4, (b - 1.96 * seb) * 1e4, (b + 1.96 * seb) * 1e4, rchi
	steep = b - 1.96 * seb
	if (b >= 0) printf "target %.2f: not reached at this slope (the rank does not fall with games)\n", T
	else {
		g = (T - a) / b
		printf "target %.2f: %.0f games at the fitted slope", T, g
		if (gph > 0) printf ", %.1f hours here at %d games an hour", g / gph, gph
		printf ", %.1f hours at %d games an hour on a GPU\n", g / gpu, gpu
	}
	if (steep < 0) {
		g = (T - a) / steep
		printf "target %.2f at the slope interval'"'"'s steeper end: %.0f games", T, g
		if (gph > 0) printf ", %.1f hours here", g / gph
		printf ", %.1f hours on a GPU\n", g / gpu
	}
}' "$1"
