# bench/nbc/overlap.gp: auto / MPI's own non-blocking all-gather per cell (overlap_table.py's DAT file)
#   gnuplot -e "dat='overlap.dat'; out='overlap.png'; title_text='...'" bench/nbc/overlap.gp
set terminal pngcairo size 1000,420 font ",10"
set output out
set title title_text
set style fill solid 0.6
set boxwidth 0.7
set yrange [0:1.4]
set ylabel "auto e-bar / MPI's own e-bar"
set xtics rotate by -45 noenhanced
set grid ytics
plot dat using 0:2:xtic(1) with boxes notitle, 1 with lines dt 2 lc rgb "black" title "MPI's own"
