#!/usr/bin/env bash
# bench/runs/link/random-arrivals/run.sh (from the repository root): arrivals libpat cannot predict
# (no instrumentation, random delays per call), NATIVE and auto, with the model without its link line (the rule
# before), with the link line (84debeb's calibration) and with the planned calibration (4e3026e), 2 seeds.
cd "$(dirname "$0")/../../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CL=bench/cluster/pat-cluster
R=bench/results/2026-11-24-link # the models it reads
OUT=${OUT:-$R/random-arrivals} # OUT: the output folder (default: the committed one)
MB=build/bench/minibench/pat-minibench
rm -f $OUT/random.csv
$CL up -n 8 --rate 500mbit >/dev/null
for seed in 1 2; do
  for m in nolink link planned; do
    case $m in
      nolink) MODEL=$R/model/cluster-p8-nolink.model ;;
      link) MODEL=$R/model/cluster-p8.model ;;
      planned) MODEL=$R/model-planned/cluster-p8.model ;;
    esac
    $CL run --timeout 900 -np 8 -x PAT_MODEL=$PWD/$MODEL $MB --instrument none --alg native,auto --iters 100 --warmup 4 \
      --base-ms 10 --max-delay 20 -N 1M --seed $seed --quiet --csv $OUT/random.csv --label "$m/$seed" 2>&1 |
      grep -E "^(native|auto) " | sed "s|^|$m $seed |"
  done
done
$CL down >/dev/null
