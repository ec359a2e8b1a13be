#!/usr/bin/env bash
# Issue 55's cells: the non-blocking all-gather with compute overlapped (post, compute, wait) on the
# emulated cluster, P = 8, 500 Mbit/s: N in {1M, 4M} floats x maxDelay in {0, 50, 100} ms x compute
# after the post of {0, 50, 100}% of the call's time (the time of MPI's own blocking all-gather on
# balanced arrivals at that N, measured first in the same cluster). Per cell, two launches:
#   overlap: pat-minibench --overlap T with native (MPI's own MPI_Iallgather), ring and bruck
#            (libpat's schedules, run by its background thread);
#   persistent: pat-minibench --persistent --overlap T: each algorithm's call set up once
#            (PAT_Allgather_init), then per iteration the delay, PAT_Start, compute T, MPI_Wait; native
#            (MPI's own MPI_Iallgather per start, the baseline), relay and auto (libpat's rounds
#            chosen from the starts: RELAY started ahead where they spread, the last rank's block relayed); elb and e/elb are
#            against the persistent bound (issue 55's target: e/elb <= 1.3 under imbalance);
#   blocking: the same arrivals without overlap, native and auto (blocking libpat), for the column
#            "against blocking libpat" (e = exit - arrival includes T in the overlap launch: compare
#            e - T, or the time to completion after the last arrival, r - omega).
# Rows go to $R/nbc.csv (label N/delay/overlap%/mode), each cell's compute T to $R/cells.csv, the log
# to /tmp/nbc-cells.log.
# SERIES="persistent" (any of overlap persistent blocking; default all three) runs only those.
# OVERLAP_ALGS (default native,ring,bruck), SIZES, DELAYS and PCTS (compute in % of the call's time;
# default 0 50 100) narrow or change the overlap series' cells; PERSISTENT_ALGS (default native,relay,auto)
# the persistent series'; K (ranks per emulated host, default 1: 8 / K hosts, shared memory within one)
# and RATE (default 500mbit) the cluster; NP (default 8) the ranks.  MB and CL: the mini-benchmark
# and pat-cluster to use (default: build/'s and bench/cluster's; elsewhere, e.g. the 16-core kit's).
#   bash bench/nbc/run.sh cells        # the 18 cells, three launches each (about 45 min; needs root)
#   bash bench/nbc/run.sh dry          # the same sequence on this machine, tiny (P = 3, 3k floats, 2
#                                      # calls per algorithm, delays in ms / 10): checks the script
#   OUT=FOLDER bash bench/nbc/run.sh cells   # rows into FOLDER (default bench/results/nbc-new)
# Needs build/ (cmake --build build) and, for cells, root and a quiet machine. Tears the emulated
# cluster down at the end.
set -uo pipefail
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/nbc-new}
CL=${CL:-bench/cluster/pat-cluster}
MB=${MB:-build/bench/minibench/pat-minibench}
NP=${NP:-8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mode=${1:-}
SERIES=${SERIES:-overlap persistent blocking}
runs() { case " $SERIES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
case $mode in
  cells) SIZES=${SIZES:-1M 4M}; DELAYS=${DELAYS:-0 50 100}; ITERS=(--iters 12 --warmup 3 --base-ms 20)
         launch() { $CL run --timeout 900 -np $NP -x PAT_ALG=ring "$@"; } ;;
  dry) SIZES="3k"; DELAYS="0 5 10"; ITERS=(--iters 2 --warmup 1 --base-ms 2)
       launch() { timeout 300 mpirun --oversubscribe -np 3 -x PAT_ALG=ring "$@"; } ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
# PAT_ALG=ring at the launch: the background thread runs (auto on one node would not start it); the
# minibench then switches algorithm per series (PAT_UseAlg)
mkdir -p "$R"
quiet() { grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"; }
# ebar (us) of MPI's own blocking all-gather, balanced, at N
call_time_us() {
  launch $MB -N "$1" "${ITERS[@]}" --max-delay 0 --alg native --quiet 2>&1 | tee -a /tmp/nbc-cells.log |
    sed -n 's/^native  *ok  *\([0-9.]*\) .*/\1/p' | tail -1
}
{
  K=${K:-1}
  [ $mode = cells ] && { $CL down >/dev/null 2>&1; $CL up -n $((NP / K)) --ranks-per-host "$K" --rate "${RATE:-500mbit}" || exit 1; }
  for N in $SIZES; do
    T=$(call_time_us $N)
    [ -n "$T" ] || { echo "no call time at N=$N"; exit 1; }
    echo "== N=$N: MPI's own blocking call takes $T us balanced"
    for d in $DELAYS; do
      for pct in ${PCTS:-0 50 100}; do
        ms=$(python3 -c "print(round($T * $pct / 100 / 1000, 3))")
        echo "== N=$N delay=$d overlap=$pct% ($ms ms) $(date +%T)"
        [ -s $R/cells.csv ] || echo "N,delay_ms,compute_pct,compute_ms" > $R/cells.csv
        echo "$N,$d,$pct,$ms" >> $R/cells.csv
        runs overlap &&
          launch $MB -N $N "${ITERS[@]}" --max-delay $d --order blocked --overlap $ms --alg ${OVERLAP_ALGS:-native,ring,bruck} \
            --csv $R/nbc.csv --label "$N/$d/$pct/overlap" --quiet 2>&1 | quiet
        runs persistent &&
          launch $MB -N $N "${ITERS[@]}" --max-delay $d --order blocked --persistent --overlap $ms \
            --alg ${PERSISTENT_ALGS:-native,relay,auto} --csv $R/nbc.csv --label "$N/$d/$pct/persistent" --quiet 2>&1 | quiet
      done
      runs blocking &&
        launch $MB -N $N "${ITERS[@]}" --max-delay $d --order blocked --alg native,auto \
          --csv $R/nbc.csv --label "$N/$d/-/blocking" --quiet 2>&1 | quiet
    done
  done
  [ $mode = cells ] && $CL down
} 2>&1 | tee -a /tmp/nbc-cells.log
