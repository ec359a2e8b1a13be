# The figure of bench/nodes/run.sh's cells: median e-bar per algorithm, one bar per cell.
#   gnuplot -e "dat='cells-4x2.dat'; out='figures/cells-4x2.png'; title='...'" bench/nodes/plot.gp
set terminal pngcairo size 900,420 font ",10" noenhanced
set output out
set title title
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "mean time in the call, ebar (ms)"
set key top left autotitle columnheader
set grid ytics
set yrange [0:*]
set xtics rotate by -30
plot for [c=2:*] dat using c:xtic(1)
