# libpat / native per message size from two osu.sh tables' variants, side by side:
#   gnuplot -e "dat='ratios.dat'; out='fig.png'" bench/balanced/osu_ratios.gp
# dat: columns size_bytes, ratio of variant 1, ratio of variant 2; the first line names them (# size a b)
set terminal pngcairo size 900,420 font ",10"
set output out
set logscale x 2
set xlabel "message size per rank (bytes)"
set ylabel "time / MPI's own (median over rounds)"
set key top left
set grid ytics
set yrange [0.85:1.25]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set style data linespoints
plot dat using 1:2 title columnhead(2) lw 2 pt 7, '' using 1:3 title columnhead(3) lw 2 pt 5
