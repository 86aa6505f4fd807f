# Strength over the iterations of pipelines/selfplay.mk, from the TSV that
# pipelines/plots.mk extracts from league.jsonl. Called as
#   gnuplot -e "tsv='sp/plots/league.tsv'; out='sp/plots'" pipelines/league.gp
# Columns: 1 iteration, 2 mean placement points of the candidate against
# the best so far, 3 and 4 its 95% interval, 5 mean rank, 6 promoted (0/1).
set terminal pngcairo size 1000,700 noenhanced font ",10"
set datafile separator "\t"
set output out."/league.png"
set multiplot layout 2,1 title "self-play league: candidate vs the best so far (1 vs 3, duplicate)"
set grid
set offsets 0.5, 0.5, 0, 0
set xtics 1
set xlabel "iteration"
set ylabel "placement points (90/45/0/-135)"
set xzeroaxis lt -1
plot tsv using 1:2:3:4 with yerrorbars pt 7 title "mean and 95% interval", \
     tsv using 1:($6 > 0 ? $2 : 1/0) with points pt 6 ps 3 title "promoted"
set ylabel "mean rank"
set yrange [1:4]
plot tsv using 1:5 with linespoints pt 7 title "candidate's mean rank"
unset multiplot
