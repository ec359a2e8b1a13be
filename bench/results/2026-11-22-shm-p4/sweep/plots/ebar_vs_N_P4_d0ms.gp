set terminal pngcairo size 960,600 noenhanced
set output 'ebar_vs_N_P4_d0ms.png'
set title 'ebar vs N, P=4, maxDelay=0ms (error bars +-sigma)'
set xlabel 'N (floats gathered, total)'
set ylabel 'mean elapsed time (us)'
set key outside right top
set grid
set logscale x 2
set xtics ('128K' 131072, '256K' 262144, '512K' 524288, '1M' 1048576, '2M' 2097152)
set offsets graph 0.03, graph 0.03, graph 0.05, 0
plot 'ebar_vs_N_P4_d0ms.dat' index 0 using 1:2:3 with yerrorlines lw 2 dt 1 pt 1 title 'native', \
     'ebar_vs_N_P4_d0ms.dat' index 1 using 1:2:3 with yerrorlines lw 2 dt 1 pt 2 title 'ring', \
     'ebar_vs_N_P4_d0ms.dat' index 2 using 1:2:3 with yerrorlines lw 2 dt 1 pt 3 title 'nex', \
     'ebar_vs_N_P4_d0ms.dat' index 3 using 1:2:3 with yerrorlines lw 2 dt 1 pt 4 title 'rdb', \
     'ebar_vs_N_P4_d0ms.dat' index 4 using 1:2:3 with yerrorlines lw 2 dt 1 pt 5 title 'bruck', \
     'ebar_vs_N_P4_d0ms.dat' index 5 using 1:2:3 with yerrorlines lw 2 dt 1 pt 6 title 'lnbc', \
     'ebar_vs_N_P4_d0ms.dat' index 6 using 1:2:3 with yerrorlines lw 2 dt 2 pt 7 title 'bdr', \
     'ebar_vs_N_P4_d0ms.dat' index 7 using 1:2:3 with yerrorlines lw 2 dt 2 pt 8 title 'bslb', \
     'ebar_vs_N_P4_d0ms.dat' index 8 using 1:2:3 with yerrorlines lw 2 dt 2 pt 9 title 'ard', \
     'ebar_vs_N_P4_d0ms.dat' index 9 using 1:2:3 with yerrorlines lw 2 dt 3 pt 10 title 'auto'
