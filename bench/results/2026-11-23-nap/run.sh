#!/usr/bin/env bash
# The measurements of the third session of 2026-11-23 (issue 19: the
# foreground's naps; issue 21: OSU after the fast path), in the order they
# were run on the idle 2-core VM, from the repository root after
# `bash bench/setup.sh`.  OSU=path of an unmodified osu_allgather (OSU
# micro-benchmarks 5.3, built out of tree: see bench/balanced/osu.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=bench/results/2026-11-23-nap
OSU=${OSU:-/tmp/osu/osu_allgather}
MODEL_CL=$PWD/bench/results/2026-11-22-auto/model/cluster-p8.model
CL=bench/cluster/pat-cluster
MB=build/bench/minibench/pat-minibench
unset PAT_MODEL
part=${1:-all}

if [ "$part" = all ] || [ "$part" = nap ]; then
  # 1. the nap, side by side: PAT_WAIT_NAP=0 (spin in MPI, as before) against the default, and the
  #    plain-MPI probe (../shared/probes/relay.c), P = 8, 500 Mbit/s, N = 1M, rounds interleaved
  mpicc -O2 ../shared/probes/relay.c -o /tmp/relay -lpthread
  $CL up -n 8 --rate 500mbit
  for round in 1 2 3; do
    for d in 0 100; do
      for nap in 0 model; do
        echo "round $round maxDelay $d PAT_WAIT_NAP=$nap"
        $CL run -x PAT_MODEL=$MODEL_CL -x PAT_WAIT_NAP=$nap $MB -N 1M --iters 24 --warmup 3 --base-ms 20 \
          --order blocked --quiet --max-delay $d --alg native,ring,direct,bdr,ard,relay
      done
    done
    echo "round $round probe"; $CL run /tmp/relay 524288 100 24 1; $CL run /tmp/relay 524288 100 24 0
  done > $R/nap-vs-spin.txt 2>&1
  $CL down
fi

if [ "$part" = all ] || [ "$part" = sweep ]; then
  # 2. cluster sweep, P = 8, 500 Mbit/s, as bench/results/2026-11-23-planahead (blocked order)
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$MODEL_CL python3 bench/sweep/sweep.py --label nap-cluster-p8 --P 8 --N 256K,1M,2M \
    --delays 0,10,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 24 --warmup 4 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8 --bench $MB --quiet
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p8 --before bench/results/2026-11-23-planahead/sweep-cluster-p8 \
    > $R/sweep-cluster-p8/aa-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = p16 ]; then
  # 3. P = 16 hosts at 200 Mbit/s, no model file (as a new user), N = 1M and 4M
  $CL up -n 16 --rate 200mbit
  python3 bench/sweep/sweep.py --label nap-cluster-p16 --P 16 --N 1M,4M \
    --delays 0,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 12 --warmup 3 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 1800 -np {P}" --est-ns-per-byte 100 \
    --out $R/sweep-cluster-p16 --bench $MB --quiet
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p16 > $R/sweep-cluster-p16/aa-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = calibrate ]; then
  # 4. auto's cluster model fitted again on this executor (naps): the 2026-11-22 file's measured
  #    balanced times made RING auto's static choice at N >= 1M, where DIRECT is now faster
  mkdir -p $R/model
  $CL up -n 8 --rate 500mbit
  $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model/calibration-cluster-p8.csv --quick
  $CL down
  build/pat-fit --in $R/model/calibration-cluster-p8.csv --out $R/model/cluster-p8.model > $R/model/fit-cluster-p8.txt
fi

if [ "$part" = all ] || [ "$part" = auto ]; then
  # 5. auto with the new model file beside DIRECT, RELAY and NATIVE, the P = 8 grid
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$PWD/$R/model/cluster-p8.model python3 bench/sweep/sweep.py --label nap-auto-cluster-p8 --P 8 \
    --N 256K,1M,2M --delays 0,10,50,100 --algs native,direct,relay,auto --iters 24 --warmup 4 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-auto-cluster-p8 --bench $MB --quiet
  $CL down
fi

if [ "$part" = all ] || [ "$part" = osu ]; then
  # 6. never slower on one node: OSU osu_allgather unmodified, native against the drop-in, 1 B - 1 MiB
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 5 --osu-args "-m 1:1048576"
fi
