#!/usr/bin/env bash
# The measurements of 2026-11-23 (issues 19, 22, 25, 26), in the order they
# were run on the idle 2-core VM, from the repository root after
# `bash bench/setup.sh`.  OSU=path of an unmodified osu_allgather (OSU
# micro-benchmarks 5.3, built out of tree: see bench/balanced/osu.sh).
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-23-dataflow} # OUT: the output folder (default: the committed one)
OSU=${OSU:-/tmp/osu/osu_allgather}
MODEL_CL=$PWD/bench/results/2026-11-22-auto/model/cluster-p8.model
MODEL_SHM=$PWD/bench/results/2026-11-22-auto/model/shm-p4.model
unset PAT_MODEL

part=${1:-all}

if [ "$part" = all ] || [ "$part" = sweep ]; then
  # 1. cluster sweep, P = 8, 500 Mbit/s: every arrival-aware algorithm, the classic ones that
  #    win somewhere, NATIVE and auto (with the committed cluster model, as in 2026-11-22-auto)
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$MODEL_CL python3 bench/sweep/sweep.py --label dataflow-cluster-p8 --P 8 --N 256K,1M,2M --delays 0,10,50,100 \
    --algs native,ring,direct,bdr,ard,relay,auto --iters 16 --warmup 4 --base-ms 20 --compute sleep \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8 --bench build/bench/minibench/pat-minibench --quiet
  python3 bench/sweep/auto_summary.py $R/sweep-cluster-p8 > $R/sweep-cluster-p8/auto-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = guard ]; then
  # 2. issue 26: workloads libpat cannot predict, native against LD_PRELOAD without and with a model
  $CL up -n 8 --rate 500mbit
  python3 bench/examples/run.py --app bfs -P 8 -r 3 --cluster --configs native,preload,model --model $MODEL_CL \
    --out $R/bfs-cluster-p8 -- -v 131072 -n 64
  for round in 1 2 3; do
    $CL run --timeout 900 -np 8 build/bench/minibench/pat-minibench --instrument none \
      --alg native,auto --iters 100 --warmup 4 --base-ms 10 --max-delay 20 -N 1M --seed $round \
      > $R/random-arrivals/cluster-p8-nomodel-$round.txt 2>&1
    $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL_CL build/bench/minibench/pat-minibench --instrument none \
      --alg native,auto --iters 100 --warmup 4 --base-ms 10 --max-delay 20 -N 1M --seed $round \
      > $R/random-arrivals/cluster-p8-model-$round.txt 2>&1
  done
  $CL down
  python3 bench/examples/run.py --app bfs -P 4 -r 3 --configs native,preload,model --model $MODEL_SHM \
    --out $R/bfs-shm-p4 -- -v 131072 -n 64
  python3 bench/examples/run.py --app bfs -P 2 -r 3 --configs native,preload --out $R/bfs-shm-p2 -- -v 131072 -n 64
fi

if [ "$part" = all ] || [ "$part" = osu ]; then
  # 3. the never-slower check with an unmodified standard micro-benchmark (OSU), 1 B - 1 MiB
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 3 \
    --model-shm $MODEL_SHM --osu-args "-m 1:1048576"
fi
