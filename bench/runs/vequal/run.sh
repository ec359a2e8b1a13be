#!/usr/bin/env bash
# bench/results/2026-11-24-vequal: an all-gatherv of equal blocks under auto takes the all-gather's path
# (exchanges, plans ahead; src/runtime/call.h), issue 23.
#   bash bench/runs/vequal/run.sh cluster  # equal blocks through MPI_Allgatherv on the emulated cluster
#   bash bench/runs/vequal/run.sh osu      # osu_allgatherv under the drop-in, before (OLD) and after
# Needs root, build/ (cmake --build build), a quiet machine; `osu` needs OSU's osu_allgatherv built
# unmodified (bench/balanced/osu.sh; OSU=path, default /tmp/osu/osu_allgatherv) and the libpat of the
# commit before (OLD=its build dir, default /tmp/oldbuild2; this run used 96769e7).  `cluster` tears the
# emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-vequal} # OUT: the output folder (default: the committed one)
H=bench/runs/vequal # this script's helpers
MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model # calibrated on the same emulated cluster (P = 8, 500 Mbit/s)
cell() { # label, then minibench arguments; the rest of the environment in ENVX
  local label=$1; shift
  echo "== $label"
  $CL run --timeout 900 -np 8 ${ENVX:-} $MB --iters 12 --warmup 3 --base-ms 20 --quiet --counts equalv \
    --alg native,auto,relay,direct --csv $R/minibench.csv --label "$label" "$@" 2>&1 |
    grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
}
case ${1:-} in
  cluster)
    rm -f $R/minibench.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    {
      for N in 1M 4M; do
        for d in 0 50 100; do ENVX="-x PAT_MODEL=$MODEL" cell "model/edges/$d" -N $N --max-delay $d; done
      done
      # an unmodified code: no instrumentation (history only), with and without the model file
      for d in 0 100; do ENVX="-x PAT_MODEL=$MODEL" cell "model/none/$d" -N 4M --max-delay $d --instrument none; done
      for d in 0 100; do ENVX="" cell "nomodel/none/$d" -N 4M --max-delay $d --instrument none; done
    } > $R/cluster.log
    $CL down
    OUT=$R python3 $H/summarise.py > $R/summary.md
    ;;
  osu)
    OLD=${OLD:-/tmp/oldbuild2}
    OSU=${OSU:-/tmp/osu/osu_allgatherv}
    bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 9 \
      --old-lib $OLD/libpat_mpi.so --osu-args "-m 1:1048576 -i 1000"
    bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-cluster --configs cluster8 --rounds 5 \
      --old-lib $OLD/libpat_mpi.so --osu-args "-m 1:1048576 -i 50"
    ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
