# auto / the fastest fixed algorithm per maxDelay, one line per model condition (bench/auto/summarize.py --dat):
#   gnuplot -e "dat='ratios.dat'; out='auto.png'; titles='none quick'; title='...'" bench/auto/plot.gp
# dat: blocks in the order of titles (one word per block); the dashed line is the 5% target.
# first, step (default 0, 1): plot blocks first, first + step, ... (one size of a run of several:
#   summarize.py writes a block per condition and size, sizes inner, sorted as text: 1048576 before 262144).
if (!exists("title")) title = "auto alone per launch / the fastest fixed algorithm alone"
set terminal pngcairo size 900,500 font ",11"
set output out
set title title
set xlabel "maxDelay (ms)"
set ylabel "auto / fastest fixed (median of rounds, 95% interval)"
set key top left
set grid ytics
set yrange [0.9:*]
set xrange [-10:110]
if (!exists("first")) first = 0
if (!exists("step")) step = 1
nb = words(titles)
plot for [i=1:nb] dat index (first + (i-1)*step) using ($1+(i-(nb+1)/2.0)*2):2:3:4 with yerrorlines lw 2 pt 7 title word(titles, i), \
     1.05 with lines dt 2 lc rgb "black" title "target 1.05"
