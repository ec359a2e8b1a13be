# gnuplot -e "name='sweep'" bench/runs/allgatherv-sweep/plot.gp (from the repository root; run.sh table
# writes figures/NAME-cells-*.dat first): e-bar/e_lb per cell, mean of two launches, of MPI's own all-gatherv,
# auto, RELAY and DIRECT.
set terminal pngcairo size 1200,780 font ",10"
if (!exists("name")) name = "sweep"
if (!exists("dir")) dir = "bench/results/2026-11-25-allgatherv-sweep/figures/"  # run.sh sets it for SWEEP_DIR
set output dir.name.".png"
set multiplot layout 2,1 title "MPI\\_Allgatherv on the emulated cluster, P = 8, 500 Mbit/s, blocked order: ē / ē_{lb} (lower is better; 1 = the lower bound)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set grid ytics
set key outside top center horizontal
set ylabel "ē / ē_{lb}"
set xtics rotate by -25 scale 0
d = dir
set title "N = 1M floats (4 MiB gathered); cell = block sizes, maxDelay ms (∝: compute proportional to data)"
plot d.name."-cells-1M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", \
     '' using 3 title "auto" lc rgb "#1f77b4", '' using 4 title "RELAY" lc rgb "#2ca02c", \
     '' using 5 title "DIRECT" lc rgb "#ff7f0e"
set title "N = 4M floats (16 MiB gathered)"
plot d.name."-cells-4M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", \
     '' using 3 title "auto" lc rgb "#1f77b4", '' using 4 title "RELAY" lc rgb "#2ca02c", \
     '' using 5 title "DIRECT" lc rgb "#ff7f0e"
unset multiplot
