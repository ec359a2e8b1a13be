#!/usr/bin/env bash
# Issue 55's cells on the 16-core machine (the device tool; kit: ../shared/device/README.md), where
# every rank and its background thread have cores of their own, which the 2-core machine cannot give:
#   p8/  P = 8, a host per rank, 500 Mbit/s: the balanced 4M cell with no compute (auto 1.02-1.07x MPI's
#        own on 2 cores), twice, and 1M at maxDelay 0 and 100 ms with 0 and 50% compute after the post;
#   k2/  4 hosts x 2 ranks (shared memory within a host), 500 Mbit/s, 1M, the same four cells, non-blocking
#        and persistent (the shape that stayed CPU-bound on 2 cores);
#   osu.txt  osu_iallgather 1 KiB - 256 KiB, P = 8, a host per rank, native and through the drop-in
#        under PAT_ALG=relay: where libpat's schedule starts to pay, with a core per rank.
# Here (after building):
#   bash ../shared/device/make-kit.sh build/libpat.so.0 build/libpat_mpi.so \
#        build/bench/minibench/pat-minibench /tmp/osu/osu_iallgather
# then the device tool's run with carry [".device-kit"] and the command
#   bash .device-kit/run.sh bash bench/nbc/device16.sh
# Rows go to $OUT (the tool's folder; default /tmp/device16).
set -u
cd "$(dirname "$0")/../.."
O=${OUT:-/tmp/device16}
mkdir -p "$O"
export CL=.device-kit/cluster/pat-cluster MB=.device-kit/proj/pat-minibench
log=$O/run.log
nproc >>"$log"
{
  date +%T
  OUT=$O/p8 SIZES=4M DELAYS=0 PCTS=0 OVERLAP_ALGS=native,auto,native,auto SERIES=overlap bash bench/nbc/run.sh cells
  date +%T
  OUT=$O/p8 SIZES=1M DELAYS="0 100" PCTS="0 50" OVERLAP_ALGS=native,auto SERIES=overlap bash bench/nbc/run.sh cells
  date +%T
  OUT=$O/k2 K=2 SIZES=1M DELAYS="0 100" PCTS="0 50" OVERLAP_ALGS=native,auto PERSISTENT_ALGS=native,auto \
    SERIES="overlap persistent" bash bench/nbc/run.sh cells
  date +%T
  $CL up -n 8 --rate 500mbit >/dev/null
  pre=$(pwd)/.device-kit/proj/libpat_mpi.so
  for what in native relay; do
    echo "== osu_iallgather $what"
    if [ $what = native ]; then
      $CL run --timeout 120 -np 8 .device-kit/proj/osu_iallgather -m 1024:262144 -i 20
    else
      $CL run --timeout 120 -np 8 -x LD_PRELOAD="$pre" -x PAT_ALG=relay -x PAT_REPORT=1 .device-kit/proj/osu_iallgather -m 1024:262144 -i 20
    fi
  done >"$O/osu.txt" 2>&1
  $CL down
  date +%T
} >>"$log" 2>&1
grep -v "^(\|^ r'" /tmp/nbc-cells.log >"$O/cells.log" 2>/dev/null
tail -5 "$log"
