# Learning curves of a hydra-fit run, from the TSV that pipelines/plots.mk
# extracts from metrics.jsonl (one row per logged step; NaN where a column
# has no value: no validation at that step, or a supervised run's PPO
# columns). Called as
#   gnuplot -e "tsv='run/plots/metrics.tsv'; out='run/plots'" pipelines/metrics.gp
# Columns: 1 step, 2 loss, 3 policy, 4 value, 5 grp, 6 tenpai, 7 danger,
# 8 acc, 9 lr, 10 grad_norm, 11 samples_per_s, 12 val_loss, 13 val_acc,
# 14 approx_kl, 15 clip_frac, 16 entropy, 17 explained_var, 18 surrogate.
set terminal pngcairo size 1200,800 noenhanced font ",10"
set datafile separator "\t"
set datafile missing "NaN"
set key top right
set grid
set xlabel "step"

set output out."/losses.png"
set multiplot layout 2,1 title "losses"
set ylabel "loss"
plot tsv using 1:2 with lines lw 2 title "total", \
     tsv using 1:12 with linespoints pt 7 title "validation"
set logscale y
plot tsv using 1:3 with lines title "policy", tsv using 1:4 with lines title "value", \
     tsv using 1:5 with lines title "grp", tsv using 1:6 with lines title "tenpai", \
     tsv using 1:7 with lines title "danger"
unset logscale y
unset multiplot

set output out."/training.png"
set multiplot layout 2,2 title "training"
set ylabel "accuracy"
plot tsv using 1:8 with lines title "policy top-1 (train)", \
     tsv using 1:13 with linespoints pt 7 title "policy top-1 (validation)"
set ylabel "learning rate"
plot tsv using 1:9 with lines title "lr"
set ylabel "gradient norm"
plot tsv using 1:10 with lines title "grad norm (before clipping)"
set ylabel "samples/s"
plot tsv using 1:11 with lines title "samples/s"
unset multiplot

if (ppo) {
	set output out."/ppo.png"
	set multiplot layout 2,2 title "PPO"
	set ylabel "approx. KL"
	plot tsv using 1:14 with lines title "approx KL"
	set ylabel "clip fraction"
	plot tsv using 1:15 with lines title "clip fraction"
	set ylabel "entropy"
	plot tsv using 1:16 with lines title "policy entropy"
	set ylabel "explained variance"
	plot tsv using 1:17 with lines title "value explained variance"
	unset multiplot
}
