#!/usr/bin/env bash
# The measurements of the plan-ahead RELAY and of auto on one node (issues 19
# and 21), second session of 2026-11-23, in the order they were run on the
# idle 2-core VM, from the repository root after `bash bench/setup.sh`.
# OSU=path of an unmodified osu_allgather (OSU micro-benchmarks 5.3, built out
# of tree: see bench/balanced/osu.sh); OLD_LIB=libpat_mpi.so of the landed
# main 60594e1 (built from a worktree of that commit).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=bench/results/2026-11-23-planahead
OSU=${OSU:-/tmp/osu/osu_allgather}
OLD_LIB=${OLD_LIB:-/tmp/oldbuild/libpat_mpi.so}
MODEL_CL=$PWD/bench/results/2026-11-22-auto/model/cluster-p8.model
CL=bench/cluster/pat-cluster
unset PAT_MODEL
part=${1:-all}

if [ "$part" = all ] || [ "$part" = sweep ]; then
  # 1. cluster sweep, P = 8, 500 Mbit/s, 24 measured iterations per cell.  Blocked order
  #    (each algorithm on its own duplicate of MPI_COMM_WORLD): in interleaved order the
  #    call before a RELAY call is another algorithm's, so nothing is planned ahead for it.
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$MODEL_CL python3 bench/sweep/sweep.py --label planahead-cluster-p8 --P 8 --N 256K,1M,2M \
    --delays 0,10,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 24 --warmup 4 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8 --bench build/bench/minibench/pat-minibench --quiet
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p8 --before bench/results/2026-11-23-dataflow/sweep-cluster-p8 \
    > $R/sweep-cluster-p8/aa-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = probe ]; then
  # 2. the plain-MPI probe (../shared/probes/relay.c) beside libpat's RELAY, same cell
  mpicc -O2 ../shared/probes/relay.c -o /tmp/relay -lpthread
  $CL up -n 8 --rate 500mbit
  for round in 1 2 3; do
    $CL run /tmp/relay 524288 100 24 0
    $CL run /tmp/relay 524288 100 24 1
    $CL run -x PAT_MODEL=$MODEL_CL build/bench/minibench/pat-minibench -N 1M --iters 24 --warmup 3 \
      --max-delay 100 --base-ms 20 --alg relay,direct,auto --order blocked --quiet
  done > $R/probe-vs-relay.txt 2>&1
  $CL down
fi

if [ "$part" = all ] || [ "$part" = osu ]; then
  # 3. never slower on one node: OSU osu_allgather unmodified, native against the drop-in
  #    (this library, then the landed one), 1 B - 1 MiB, OSU's defaults
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 5 --osu-args "-m 1:1048576" \
    --old-lib "$OLD_LIB"
fi
