#!/usr/bin/env bash
# A change on the call path, before against after, in one run on the 16-core machine (one device
# call; under ../shared/device's kit).  Two measurements:
#   osu:   unmodified OSU benchmarks through the drop-in (OSUS, default osu_allgather, osu_allgatherv,
#          osu_iallgather, osu_iallgatherv, osu_allreduce; bench/balanced/osu.sh: native, the change
#          ("preload") and the library before ("old"), interleaved, order rotated per round), shared
#          memory P = 2 and the emulated cluster P = 8; the non-blocking ones under PAT_ALG=auto;
#   cells: pat-minibench, P = 8 hosts x 1 rank, N = 1M floats, maxDelay 100 ms (and 0): RELAY and auto,
#          each alone in its launch, the change and the library before, interleaved rounds.
# The kit's proj/ holds the change (libpat.so.0, libpat_mpi.so, pat-minibench, the OSU binaries);
# old/ (optional: without it, libpat against native only) the library before, each file linked with DT_RPATH $ORIGIN so that it loads its own
# libpat.so.0 whatever LD_LIBRARY_PATH says.  No model file (a new user's setting); 500 Mbit/s.
#   KIT=.device-kit DEADLINE_S=540 bash .device-kit/run.sh bash bench/device/callpath.sh OUT
# CONFIGS=shm2 CELL_ROUNDS=0: the OSU part on shared memory only.
# DRY=1: shared memory only, three sizes, one round (a check on this machine first).
set -uo pipefail
OUT=${1:?usage: callpath.sh OUTDIR}
cd "$(dirname "$0")/../.."
KIT=${KIT:-.device-kit}
K=$(cd "$KIT" && pwd)
END=$(($(date +%s) + ${DEADLINE_S:-540}))
OSUS=${OSUS:-osu_allgather osu_allgatherv osu_iallgather osu_iallgatherv osu_allreduce}
ROUNDS=${ROUNDS:-2} CONFIGS=${CONFIGS:-shm2,cluster8} OSU_ARGS=${OSU_ARGS:-"-m 1:1048576 -i 40 -x 4"} CELL_ROUNDS=${CELL_ROUNDS:-2}
if [ "${DRY:-0}" = 1 ]; then ROUNDS=1 CONFIGS=shm2 OSU_ARGS="-m 1:4096 -i 10 -x 2" CELL_ROUNDS=0; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patc}
CL=bench/cluster/pat-cluster
mkdir -p "$OUT"
LOG=$OUT/log.txt
say() { echo "$*" | tee -a "$LOG"; }
left() { echo $((END - $(date +%s))); }
trap '$CL down >/dev/null 2>&1' EXIT

for osu in $OSUS; do
  [ "$(left)" -lt 60 ] && { say "skipped $osu (deadline)"; continue; }
  script=bench/balanced/osu.sh extra=()
  case $osu in osu_i*) script=bench/balanced/osu_iallgather.sh extra=(--alg auto) ;; esac
  s=$(date +%s)
  [ -f "$K/old/libpat_mpi.so" ] && extra+=(--old-lib "$K/old/libpat_mpi.so") # without old/: libpat against native only
  bash $script --osu "$K/proj/$osu" --out "$OUT/$osu" --lib "$K/proj/libpat_mpi.so" \
    --configs $CONFIGS --rounds "$ROUNDS" --osu-args "$OSU_ARGS" --timeout 90 "${extra[@]}" >>"$LOG" 2>&1
  say "$osu rc $? $(( $(date +%s) - s )) s"
done

if [ "$CELL_ROUNDS" -gt 0 ] && [ "$(left)" -gt 60 ]; then
  $CL down >/dev/null 2>&1
  $CL up -n 8 --rate 500mbit >>"$LOG" 2>&1 || say "cluster up failed"
  for r in $(seq 1 "$CELL_ROUNDS"); do for d in 100 0; do for alg in relay auto; do for lib in new old; do
    t=$(left); [ "$t" -lt 20 ] && { say "skipped cells $r $d $alg $lib (deadline)"; continue; }
    [ "$t" -gt 60 ] && t=60
    mb=$K/proj/pat-minibench; [ $lib = old ] && mb=$K/old/pat-minibench
    s=$(date +%s)
    $CL run --timeout "$t" -np 8 "$mb" --quiet --flat-iters 0 --iters 12 --warmup 3 --base-ms 20 -N 1M \
      --max-delay $d --alg $alg --csv "$OUT/cells.csv" --label "$r/$d/$alg/$lib" >>"$LOG" 2>&1
    say "cells $r $d $alg $lib rc $? $(( $(date +%s) - s )) s"
  done; done; done; done
fi
say "done, $(left) s left"
