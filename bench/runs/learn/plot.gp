# gnuplot bench/runs/learn/plot.gp (from the repository root, after summarise.py):
# auto's ē over NATIVE's per cell, before and after it learned a call's cost before the next choice.
set terminal pngcairo size 1100,420 font ",10"
if (!exists("dir")) dir = "bench/results/2026-11-24-learn/figures/"  # -e "dir='FOLDER/figures/'": another folder
set output dir."learn.png"
set title "auto on the emulated cluster (P = 16 at 200 Mbit/s, P = 8 at 500 Mbit/s, N = 1M), 12 calls per cell: ē / NATIVE's ē (lower is better)\nbefore and after auto learns a call's cost before the choice it informs; no model file unless marked"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:1.15]
set grid ytics
set key outside top center horizontal
set ylabel "ē / ē(NATIVE)"
set xtics scale 0 rotate by -12
d = dir
plot d."cells.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", '' using 3 title "auto, before (7db145e)" lc rgb "#9ecae1", \
     '' using 4 title "auto, after" lc rgb "#1f77b4", '' using 5 title "best of RING and RELAY" lc rgb "#2ca02c"
