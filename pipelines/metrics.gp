# Learning curves of a hydra-fit run, from the TSV that pipelines/plots.mk
# extracts from metrics.jsonl (one row per logged step; NaN where a column
# has no value: no validation at that step, or a supervised run's PPO
# columns). Called as
#   gnuplot -e "tsv='run/plots/metrics.tsv'; out='run/plots'; ppo=0" pipelines/metrics.gp
# (a TSV of several PPO iterations in a row, steps made continuous, plots the
# same way: plots.mk RUNS=...).
# Columns: 1 step, 2 loss, 3 policy, 4 value, 5 grp, 6 tenpai, 7 danger,
# 8 acc, 9 lr, 10 grad_norm, 11 samples_per_s, 12 val_loss, 13 val_acc,
# 14 approx_kl, 15 clip_frac, 16 entropy, 17 explained_var, 18 surrogate,
# 19 val_policy, 20 val_value, 21 val_grp, 22 val_tenpai, 23 val_danger.
#
# Training curves are per-batch values: each is drawn faint, with its
# exponential moving average (weight 0.9 on the past) over it; validation
# values are points on the head's own colour.
set terminal pngcairo size 1200,800 noenhanced font ",10"
set datafile separator "\t"
set datafile missing "NaN"
set key top right
set grid
set xlabel "step"

# emaN(x): the moving average of column N (its state in eN; NaN: none yet);
# `reset` restarts them all before a plot
do for [i=2:24] {
	eval sprintf("e%d = NaN; ema%d(x) = (e%d = (e%d != e%d) ? x : 0.9 * e%d + 0.1 * x)", \
		i, i, i, i, i, i)
}
reset = "do for [i=2:24] { eval sprintf('e%d = NaN', i) }"
faint(c) = c + 0xc0000000 # the colour c, mostly transparent
C1 = 0x1f77b4; C2 = 0xd62728; C3 = 0x2ca02c; C4 = 0x9467bd; C5 = 0xff7f0e; C6 = 0x000000

set output out."/losses.png"
set multiplot layout 2,1 title "losses"
set ylabel "loss"
@reset
plot tsv using 1:2 with lines lc rgb faint(C6) notitle, \
     tsv using 1:(ema2($2)) with lines lw 2 lc rgb C6 title "total (training, smoothed)", \
     tsv using 1:12 with linespoints pt 7 lc rgb C2 title "total (validation)"
set logscale y
set key outside right top
@reset
plot tsv using 1:3 with lines lc rgb faint(C1) notitle, \
     tsv using 1:(ema3($3)) with lines lw 2 lc rgb C1 title "policy", \
     tsv using 1:19 with points pt 7 lc rgb C1 title "policy (val)", \
     tsv using 1:4 with lines lc rgb faint(C2) notitle, \
     tsv using 1:(ema4($4)) with lines lw 2 lc rgb C2 title "value", \
     tsv using 1:20 with points pt 7 lc rgb C2 title "value (val)", \
     tsv using 1:5 with lines lc rgb faint(C3) notitle, \
     tsv using 1:(ema5($5)) with lines lw 2 lc rgb C3 title "grp", \
     tsv using 1:21 with points pt 7 lc rgb C3 title "grp (val)", \
     tsv using 1:6 with lines lc rgb faint(C4) notitle, \
     tsv using 1:(ema6($6)) with lines lw 2 lc rgb C4 title "tenpai", \
     tsv using 1:22 with points pt 7 lc rgb C4 title "tenpai (val)", \
     tsv using 1:7 with lines lc rgb faint(C5) notitle, \
     tsv using 1:(ema7($7)) with lines lw 2 lc rgb C5 title "danger", \
     tsv using 1:23 with points pt 7 lc rgb C5 title "danger (val)", \
     log(24) with lines dt 2 lc rgb C3 title "grp uninformed (ln 24)"
unset logscale y
set key inside top right
unset multiplot

set output out."/training.png"
set multiplot layout 2,2 title "training"
set ylabel "accuracy"
@reset
plot tsv using 1:8 with lines lc rgb faint(C1) notitle, \
     tsv using 1:(ema8($8)) with lines lw 2 lc rgb C1 title "policy top-1 (train, smoothed)", \
     tsv using 1:13 with linespoints pt 7 lc rgb C2 title "policy top-1 (validation)"
set ylabel "learning rate"
set format y "%.1e"
plot tsv using 1:9 with lines lc rgb C1 title "lr"
set format y "% h"
set ylabel "gradient norm"
@reset
plot tsv using 1:10 with lines lc rgb faint(C1) notitle, \
     tsv using 1:(ema10($10)) with lines lw 2 lc rgb C1 title "grad norm (before clipping)"
set ylabel "samples/s"
plot tsv using 1:11 with lines lc rgb C1 title "samples/s"
unset multiplot

if (ppo) {
	set output out."/ppo.png"
	set multiplot layout 2,2 title "PPO"
	@reset
	set ylabel "approx. KL"
	plot tsv using 1:14 with lines lc rgb faint(C1) notitle, \
	     tsv using 1:(ema14($14)) with lines lw 2 lc rgb C1 title "approx KL"
	set ylabel "clip fraction"
	plot tsv using 1:15 with lines lc rgb faint(C2) notitle, \
	     tsv using 1:(ema15($15)) with lines lw 2 lc rgb C2 title "clip fraction"
	set ylabel "entropy"
	plot tsv using 1:16 with lines lc rgb faint(C3) notitle, \
	     tsv using 1:(ema16($16)) with lines lw 2 lc rgb C3 title "policy entropy"
	set ylabel "explained variance"
	plot tsv using 1:17 with lines lc rgb faint(C4) notitle, \
	     tsv using 1:(ema17($17)) with lines lw 2 lc rgb C4 title "value explained variance"
	unset multiplot
}
