# bench/nbc/model_vs_measured.gp: auto / MPI's own per cell, measured against the non-blocking
# form's model (model_table.py's DAT files; dat1 and dat2 two sets of cells, t1 and t2 their keys)
#   gnuplot -e "dat1='a.dat'; t1='...'; dat2='b.dat'; t2='...'; out='x.png'" bench/nbc/model_vs_measured.gp
set terminal pngcairo size 640,560 font ",10"
set output out
set title "auto / MPI's own non-blocking all-gather: measured against the model"
set xlabel "modelled (pat-model --overlap)"
set ylabel "measured"
set xrange [0.3:1.15]
set yrange [0.3:1.15]
set size square
set grid
set key top left
plot dat1 using 2:3 with points pt 7 ps 1.2 title t1, \
     dat2 using 2:3 with points pt 5 ps 1.2 title t2, \
     x with lines dt 2 lc rgb "black" title "measured = modelled"
