set terminal pngcairo size 960,600 noenhanced
set output 'ebar_vs_delay_P4_N128K_ms.png'
set title 'ebar vs maxDelay, P=4, N=128K (error bars +-sigma)'
set xlabel 'maxDelay (ms)'
set ylabel 'mean elapsed time (us)'
set key outside right top
set grid
set offsets graph 0.03, graph 0.03, graph 0.05, 0
plot 'ebar_vs_delay_P4_N128K_ms.dat' index 0 using 1:2:3 with yerrorlines lw 2 dt 1 pt 1 title 'native', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 1 using 1:2:3 with yerrorlines lw 2 dt 1 pt 2 title 'ring', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 2 using 1:2:3 with yerrorlines lw 2 dt 1 pt 3 title 'nex', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 3 using 1:2:3 with yerrorlines lw 2 dt 1 pt 4 title 'rdb', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 4 using 1:2:3 with yerrorlines lw 2 dt 1 pt 5 title 'bruck', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 5 using 1:2:3 with yerrorlines lw 2 dt 1 pt 6 title 'lnbc', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 6 using 1:2:3 with yerrorlines lw 2 dt 2 pt 7 title 'bdr', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 7 using 1:2:3 with yerrorlines lw 2 dt 2 pt 8 title 'bslb', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 8 using 1:2:3 with yerrorlines lw 2 dt 2 pt 9 title 'ard', \
     'ebar_vs_delay_P4_N128K_ms.dat' index 9 using 1:2:3 with yerrorlines lw 2 dt 3 pt 10 title 'auto'
