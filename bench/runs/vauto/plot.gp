# gnuplot bench/runs/vauto/plot.gp (from the repository root, after summarise.py):
# ē/ē_lb per cell for MPI's own all-gatherv, auto, RELAY and DIRECT, N = 1M and 4M floats.
set terminal pngcairo size 1100,760 font ",10"
if (!exists("dir")) dir = "bench/results/2026-11-24-vauto/figures/"  # -e "dir='FOLDER/figures/'": another folder
set output dir."vauto.png"
set multiplot layout 2,1 title "MPI\\_Allgatherv on the emulated cluster, P = 8, 500 Mbit/s: ē / ē_{lb} (lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set grid ytics
set key outside top center horizontal
set ylabel "ē / ē_{lb}"
set xtics rotate by -20 scale 0
d = dir
set title "N = 1M floats (4 MiB gathered); cell = block sizes, maxDelay (ms)"
plot d."cells-1M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", '' using 3 title "auto" lc rgb "#1f77b4", \
     '' using 4 title "relay" lc rgb "#2ca02c", '' using 5 title "direct" lc rgb "#ff7f0e"
set title "N = 4M floats (16 MiB gathered)"
plot d."cells-4M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", '' using 3 title "auto" lc rgb "#1f77b4", \
     '' using 4 title "relay" lc rgb "#2ca02c", '' using 5 title "direct" lc rgb "#ff7f0e"
unset multiplot
