# gnuplot bench/runs/pieces/ab.gp (from the repository root, after
# python3 bench/runs/pieces/table.py bench/results/2026-11-25-pieces/ab.csv old figures/ab.dat):
# e-bar of the change over e-bar of 5177e31, paired by round, geometric mean and 95% interval, RELAY and auto.
set terminal pngcairo size 1200,520 font ",10"
set output "bench/results/2026-11-25-pieces/figures/ab.png"
set title "RELAY: blocks of 512 KiB or more in pieces of at most 16 KiB, against 5177e31 (37 KiB pieces at 1M floats)\nemulated cluster P = 8, 500 Mbit/s, 4 interleaved rounds: ē new / ē old (below 1: faster); at 4M the pieces did not change (noise)"
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0.6:1.3]
set grid ytics
set key outside top center horizontal
set ylabel "ē new / ē old"
set xtics rotate by -20 scale 0
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#444444"
f = "bench/results/2026-11-25-pieces/figures/ab.dat"
plot f using 2:3:4:xtic(1) title "RELAY" lc rgb "#2ca02c", '' using 5:6:7 title "auto" lc rgb "#1f77b4"
