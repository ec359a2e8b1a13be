#!/usr/bin/env bash
# The measurements of the fifth session of 2026-11-23 (issue 19: calibration
# after a pause, RELAY keeps its pieces at balanced arrivals, auto's model
# error as auto predicts), in the order they were run on the idle 2-core VM,
# from the repository root after `bash bench/setup.sh`.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-23-gap} # OUT: the output folder (default: the committed one)
MODEL=$PWD/$R/model/cluster-p8.model
unset PAT_MODEL
part=${1:-all}

if [ "$part" = all ] || [ "$part" = calibrate ]; then
  # 1. the cluster model, calibrated with the 2 ms pause before each timed call (pat-calibrate --gap)
  mkdir -p $R/model
  $CL up -n 8 --rate 500mbit
  $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model/calibration-cluster-p8.csv \
    --quick --ci 0.02 --min-reps 5 --max-seconds 3
  $CL down
  build/pat-fit --in $R/model/calibration-cluster-p8.csv --out $R/model/cluster-p8.model > $R/model/fit-cluster-p8.txt
fi

if [ "$part" = all ] || [ "$part" = sweep ]; then
  # 2. the issue's cluster sweep, P = 8, 500 Mbit/s, every algorithm and auto (with the model above),
  #    blocked order, 24 measured iterations per cell; then the summary against the fourth session's
  #    sweep and the model's error as auto predicts
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$MODEL python3 bench/sweep/sweep.py --label gap-cluster-p8 --P 8 \
    --N 256K,1M,2M --delays 0,10,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 24 --warmup 4 \
    --base-ms 20 --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8 --bench $MB --quiet
  $CL down
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p8 --before bench/results/2026-11-23-eager/sweep-cluster-p8 \
    > $R/sweep-cluster-p8/aa-summary.md
  python3 bench/sweep/compare_model.py --model $MODEL --results $R/sweep-cluster-p8 --pat-model build/pat-model
fi

if [ "$part" = all ] || [ "$part" = rate ]; then
  # 3. balanced arrivals at three link rates: how far every algorithm stays from the ping-pong bound
  for rate in 100mbit 250mbit 500mbit; do
    $CL up -n 8 --rate $rate
    echo "rate $rate"
    $CL run $MB -N 1M --iters 10 --warmup 2 --flat-iters 0 --base-ms 20 --quiet --max-delay 0 \
      --alg direct,ring --order blocked
    $CL down
  done > $R/balanced-rates.txt 2>&1
fi

if [ "$part" = all ] || [ "$part" = p16 ]; then
  # 4. P = 16 hosts at 200 Mbit/s, no model file (as a new user), N = 1M and 4M, as the fourth session
  $CL up -n 16 --rate 200mbit
  python3 bench/sweep/sweep.py --label gap-cluster-p16 --P 16 --N 1M,4M \
    --delays 0,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 12 --warmup 3 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 1800 -np {P}" --est-ns-per-byte 100 \
    --out $R/sweep-cluster-p16 --bench $MB --quiet
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p16 --before bench/results/2026-11-23-eager/sweep-cluster-p16 \
    > $R/sweep-cluster-p16/aa-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = osu ]; then
  # 5. never slower on one node: OSU osu_allgather unmodified, native, OLD (commit 7dd157e, before the
  #    one-node pass-through) and this library, 1 B - 1 MiB, 7 interleaved rounds (run twice)
  OLD=${OLD:-/tmp/oldbuild}
  OSU=${OSU:-/tmp/osu/osu_allgather}
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 7 \
    --old-lib $OLD/libpat_mpi.so --osu-args "-m 1:1048576 -i 2000"
fi

if [ "$part" = all ] || [ "$part" = osucluster ]; then
  # 6. the same on the emulated cluster, P = 8, without and with the model file (OSU's default iterations)
  OSU=${OSU:-/tmp/osu/osu_allgather}
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-cluster --configs cluster8 --rounds 3 \
    --model-cluster $MODEL --osu-args "-m 1:1048576"
fi

if [ "$part" = all ] || [ "$part" = random ]; then
  # 7. arrivals libpat cannot predict (no instrumentation, random delays per call), auto against native,
  #    without and with the model file, 2 seeds
  mkdir -p $R/random-arrivals
  $CL up -n 8 --rate 500mbit
  for round in 1 2; do
    $CL run --timeout 900 -np 8 $MB --instrument none --alg native,auto --iters 100 --warmup 4 --base-ms 10 \
      --max-delay 20 -N 1M --seed $round > $R/random-arrivals/cluster-p8-nomodel-$round.txt 2>&1
    $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL $MB --instrument none --alg native,auto --iters 100 \
      --warmup 4 --base-ms 10 --max-delay 20 -N 1M --seed $round > $R/random-arrivals/cluster-p8-model-$round.txt 2>&1
  done
  $CL down
fi

# By hand (BENCHMARKS.md, *Balanced calls on one node* and *on the emulated cluster*), on the same quiet machine:
#   one size of osu_allgather alone, shared memory:
#     mpirun -np 2 [-x LD_PRELOAD=build/libpat_mpi.so] $OSU -m 1:1 -i 50000 -x 5000   (also -m 2:2, 4:4, 1:8, 1:64)
#   the cluster's small sizes side by side (pat-cluster up -n 8 --rate 500mbit):
#     pat-cluster run [-x LD_PRELOAD=build/libpat_mpi.so -x PAT_THREAD=0 [-x PAT_ALG=native]] $OSU -m 1:64 -i 4000
#     (the "MPI_THREAD_MULTIPLE + MPI_Comm_dup" preload: a 6-line MPI_Init wrapper calling PMPI_Init_thread and
#      PMPI_Comm_dup, not kept)
