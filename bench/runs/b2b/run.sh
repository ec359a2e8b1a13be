#!/usr/bin/env bash
# bench/results/2026-11-24-b2b: the cluster model recalibrated with back-to-back times
# (pat-calibrate --b2b-max 16k, the default), and OSU's osu_allgather, unmodified, on the emulated
# cluster P = 8 under LD_PRELOAD: native, no model, the new model and the 2026-11-23 model
# (before), 3 interleaved rounds.
#   bash bench/runs/b2b/run.sh [calibrate|osu|all]
# Needs root, build/ and OSU's osu_allgather at $OSU (default /tmp/osu/osu_allgather; build it as
# bench/balanced/osu.sh says), a quiet machine.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-b2b} # OUT: the output folder (default: the committed one)
part=${1:-all}
if [ "$part" = all ] || [ "$part" = calibrate ]; then
  # the same settings as 2026-11-23-gap's calibration, plus the back-to-back times
  $CL up -n 8 --rate 500mbit
  $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model/calibration-cluster-p8.csv \
    --quick --ci 0.02 --min-reps 5 --max-seconds 3
  $CL down
  build/pat-fit --in $R/model/calibration-cluster-p8.csv --out $R/model/cluster-p8.model > $R/model/fit-cluster-p8.txt
fi
if [ "$part" = all ] || [ "$part" = osu ]; then
  OSU=${OSU:-/tmp/osu/osu_allgather}
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-cluster --configs cluster8 --rounds 3 \
    --model-cluster $PWD/$R/model/cluster-p8.model \
    --old-model $PWD/bench/results/2026-11-23-gap/model/cluster-p8.model --osu-args "-m 1:1048576"
fi
