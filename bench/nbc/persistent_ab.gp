# Persistent all-gathers, libpat's starts / MPI's own non-blocking all-gather per start, two variants
# per cell (N, maxDelay), columns c2 and c3 (default 2 and 3) of DIR/ratios.dat (label, ratio, ratio, ...):
#   gnuplot -e "dat='DIR/ratios.dat'; out='FIG.png'" persistent_ab.gp                       (before, after)
#   gnuplot -e "dat='DIR/ratios.dat'; out='FIG.png'; t2='auto'; t3='relay'" persistent_ab.gp
#   gnuplot -e "dat='DIR/ratios.dat'; out='FIG.png'; c2=4; c3=5; t2='auto'; t3='auto before'" persistent_ab.gp
if (!exists("t2")) t2 = "two modes (30a8796)"
if (!exists("t3")) t3 = "before (ce7ce7e)"
if (!exists("c2")) c2 = 2
if (!exists("c3")) c3 = 3
if (!exists("title")) title = "P = 8 emulated cluster, 500 Mbit/s: persistent starts against MPI's own (3 rounds, medians)"
set terminal pngcairo size 900,420 font ",11"
set output out
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "e-bar / MPI's own per start"
set yrange [0.5:1.5]
set grid ytics
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2
set title title
plot dat using c3:xtic(1) title t3, '' using c2 title t2
