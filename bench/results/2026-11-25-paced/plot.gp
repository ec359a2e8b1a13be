# gnuplot bench/results/2026-11-25-paced/plot.gp (from the repository root, after
# bash bench/results/2026-11-25-paced/run.sh sweep, which writes figures/cells-*.dat):
# ē/ē_lb per cell of MPI's own all-gatherv, RELAY and auto with the committed cluster model (no link line: no pacing) and with the model recalibrated with its link line (pacing by default).
set terminal pngcairo size 1100,760 font ",10"
set output "bench/results/2026-11-25-paced/figures/paced.png"
set multiplot layout 2,1 title "MPI\\_Allgatherv of unequal blocks, emulated cluster, P = 8, 500 Mbit/s, blocked order, pacing by the model's link line: ē / ē_{lb} (lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set grid ytics
set key outside top center horizontal
set ylabel "ē / ē_{lb}"
set xtics rotate by -20 scale 0
d = "bench/results/2026-11-25-paced/figures/"
set title "N = 1M floats (4 MiB gathered); cell = block sizes, maxDelay (ms)"
plot d."cells-1M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", \
     '' using 3 title "relay, no link line" lc rgb "#98df8a", '' using 4 title "relay, paced (link line)" lc rgb "#2ca02c", \
     '' using 5 title "auto, no link line" lc rgb "#aec7e8", '' using 6 title "auto, paced (link line)" lc rgb "#1f77b4"
set title "N = 4M floats (16 MiB gathered)"
plot d."cells-4M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", \
     '' using 3 title "relay, no link line" lc rgb "#98df8a", '' using 4 title "relay, paced (link line)" lc rgb "#2ca02c", \
     '' using 5 title "auto, no link line" lc rgb "#aec7e8", '' using 6 title "auto, paced (link line)" lc rgb "#1f77b4"
unset multiplot
