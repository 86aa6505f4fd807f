# Strength over the iterations of pipelines/selfplay.mk, from the TSV that
# pipelines/plots.mk extracts from league.jsonl. Called as
#   gnuplot -e "tsv='sp/plots/league.tsv'; out='sp/plots'" pipelines/league.gp
# Columns: 1 iteration, 2 mean placement points of the candidate against
# the best so far, 3 and 4 its 95% interval, 5 mean rank against the best,
# 6 promoted (0/1), 7 and 8 that rank's 95% interval, 9 mean rank against
# the fixed yardstick (the rule bot), 10 and 11 its 95% interval (NaN where
# a record has none).
set terminal pngcairo size 1000,760 noenhanced font ",10"
set datafile separator "\t"
set output out."/league.png"
set multiplot layout 2,1 title "self-play league: the candidate of each iteration (1 vs 3, duplicate)"
set grid
set offsets 0.5, 0.5, 0, 0
set xtics 1
set xlabel "iteration"
set ylabel "placement points vs the best so far"
set xzeroaxis lt -1
plot tsv using 1:2:3:4 with yerrorbars pt 7 title "mean and 95% interval", \
     tsv using 1:($6 > 0 ? $2 : 1/0) with points pt 6 ps 3 title "promoted"
set ylabel "mean rank (2.5 = parity; lower is stronger)"
set yrange [*:*] reverse
set arrow from graph 0, first 2.5 to graph 1, first 2.5 nohead lt 0 lw 2
plot tsv using ($1 - 0.05):5:7:8 with yerrorlines pt 7 title "vs the best so far", \
     tsv using ($1 + 0.05):9:10:11 with yerrorlines pt 5 title "vs the yardstick (rule bot)"
unset multiplot
