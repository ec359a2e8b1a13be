set terminal pngcairo size 960,600 noenhanced
set output 'ebar_vs_delay_P8_N512K_ms.png'
set title 'ebar vs maxDelay, P=8, N=512K (error bars +-sigma)'
set xlabel 'maxDelay (ms)'
set ylabel 'mean elapsed time (us)'
set key outside right top
set grid
set offsets graph 0.03, graph 0.03, graph 0.05, 0
plot 'ebar_vs_delay_P8_N512K_ms.dat' index 0 using 1:2:3 with yerrorlines lw 2 dt 3 pt 1 title 'auto'
