#!/usr/bin/env bash
# bench/runs/learn/random-arrivals/run.sh (from the repository root; OLD build in /tmp/oldbuild3 = 7db145e):
# random arrivals (no instrumentation, random delays per call), native vs auto, old (7db145e) and new builds, with/without model
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CL=bench/cluster/pat-cluster
MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model
OUT=${OUT:-bench/results/2026-11-24-learn/random-arrivals} # OUT: the output folder (default: the committed one)
mkdir -p $OUT
$CL down >/dev/null 2>&1
$CL up -n 8 --rate 500mbit >/dev/null
for seed in 1 2; do
  for v in old new; do
    MB=build/bench/minibench/pat-minibench; [ $v = old ] && MB=/tmp/oldbuild3/bench/minibench/pat-minibench
    for m in nomodel model; do
      X=""; [ $m = model ] && X="-x PAT_MODEL=$MODEL"
      $CL run --timeout 900 -np 8 $X $MB --instrument none --alg native,auto --iters 100 --warmup 4 --base-ms 10 \
        --max-delay 20 -N 1M --seed $seed --quiet --csv $OUT/random.csv --label "$v/$m/$seed" 2>&1 | grep -E "^(native|auto) " | sed "s|^|$v $m $seed |"
    done
  done
done
$CL down >/dev/null
