# ē/ē_lb per cell of MPI's own all-gatherv, RELAY and auto, before and after, from the
# figures/cells-1M.dat and cells-4M.dat that bench/ab/compare.py --dat DIR writes. From the
# repository root:
#   gnuplot -e "dir='FOLDER/figures/'; name='NAME'" bench/ab/cells.gp     # writes FOLDER/figures/NAME.png
# Optional: title (the figure's title), b and a (what follows "relay"/"auto" in the key for the
# before and the after column; default " before", " after").
set terminal pngcairo size 1100,760 font ",10"
if (!exists("dir")) print "cells.gp: set dir (-e \"dir='FOLDER/figures/'\")"; exit
if (!exists("name")) name = "cells"
if (!exists("title")) title = "MPI\\_Allgatherv of unequal blocks, emulated cluster, P = 8, 500 Mbit/s, blocked order: ē / ē_{lb} (lower is better)"
if (!exists("b")) b = " before"
if (!exists("a")) a = " after"
set output dir.name.".png"
set multiplot layout 2,1 title title
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
plot d."cells-1M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", \
     '' using 3 title "relay".b lc rgb "#98df8a", '' using 4 title "relay".a lc rgb "#2ca02c", \
     '' using 5 title "auto".b lc rgb "#aec7e8", '' using 6 title "auto".a lc rgb "#1f77b4"
set title "N = 4M floats (16 MiB gathered)"
plot d."cells-4M.dat" using 2:xtic(1) title "NATIVE (Open MPI)" lc rgb "#888888", \
     '' using 3 title "relay".b lc rgb "#98df8a", '' using 4 title "relay".a lc rgb "#2ca02c", \
     '' using 5 title "auto".b lc rgb "#aec7e8", '' using 6 title "auto".a lc rgb "#1f77b4"
unset multiplot
