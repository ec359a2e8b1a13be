#!/usr/bin/env bash
# bench/results/2026-11-24-link: the selection's level rule at the link's rate (issue 19, item 4).
# From the repository root after `bash bench/setup.sh`, on the idle 2-core VM, one part at a time:
#   bash bench/runs/link/run.sh [offline|calibrate|sweep|p16|planned|all]
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-link} # OUT: the output folder (default: the committed one)
MODEL=$PWD/$R/model/cluster-p8.model
unset PAT_MODEL
part=${1:-all}
# The 2026-11-23 sweep the offline part and the summaries compare against left bench/results; GAP is a
# copy of it from git history: mkdir -p /tmp/gap && git archive fd17eab bench/results/2026-11-23-gap |
# tar -x -C /tmp/gap --strip-components=3 (then GAP=/tmp/gap/2026-11-23-gap). Without GAP the summaries
# have no "before" columns and the offline part stops.
G=${GAP:-}

if [ "$part" = all ] || [ "$part" = offline ]; then
  # 1. the rule against the committed 2026-11-23 sweep (no cluster): its model, and its model with a link line
  #    from the minibench's ping-pong there (tau 8.2 ms per 512 KiB: alpha 130 us, beta 1.56e-8 s/B)
  [ -n "$G" ] || { echo "offline: GAP= a copy of the 2026-11-23 sweep (see the head of this script)" >&2; exit 1; }
  mkdir -p $R/offline
  (cat $G/model/cluster-p8.model; echo "link 130e-6 1.56e-8") > $R/offline/gap-with-link.model
  python3 bench/sweep/compare_model.py --model $G/model/cluster-p8.model --results $G/sweep-cluster-p8 \
    --pat-model build/pat-model --out $R/offline/gap-without-link.md > /dev/null
  python3 bench/sweep/compare_model.py --model $R/offline/gap-with-link.model --results $G/sweep-cluster-p8 \
    --pat-model build/pat-model --out $R/offline/gap-with-link.md > /dev/null
fi

if [ "$part" = all ] || [ "$part" = calibrate ]; then
  # 2. the cluster model recalibrated at this commit: pat-calibrate now measures the link (ranks 0 and 4 alone)
  mkdir -p $R/model
  $CL up -n 8 --rate 500mbit
  $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model/calibration-cluster-p8.csv \
    --quick --ci 0.02 --min-reps 5 --max-seconds 3
  $CL down
  build/pat-fit --in $R/model/calibration-cluster-p8.csv --out $R/model/cluster-p8.model > $R/model/fit-cluster-p8.txt
  grep -v '^link' $R/model/cluster-p8.model > $R/model/cluster-p8-nolink.model
fi

if [ "$part" = all ] || [ "$part" = sweep ]; then
  # 3. issue 19's P = 8 sweep with that model (every algorithm and auto, blocked order, 24 iterations), and the
  #    model's error as auto predicts, with the link line (the rule) and without it (the old rule)
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$MODEL python3 bench/sweep/sweep.py --label link-cluster-p8 --P 8 \
    --N 256K,1M,2M --delays 0,10,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 24 --warmup 4 \
    --base-ms 20 --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8 --bench $MB --quiet
  $CL down
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p8 ${G:+--before $G/sweep-cluster-p8} \
    > $R/sweep-cluster-p8/aa-summary.md
  python3 bench/sweep/compare_model.py --model $MODEL --results $R/sweep-cluster-p8 --pat-model build/pat-model \
    --out $R/sweep-cluster-p8/model-vs-measured.md > /dev/null
  python3 bench/sweep/compare_model.py --model $R/model/cluster-p8-nolink.model --results $R/sweep-cluster-p8 \
    --pat-model build/pat-model --out $R/sweep-cluster-p8/model-vs-measured-nolink.md > /dev/null
fi

if [ "$part" = all ] || [ "$part" = p16 ]; then
  # 4. P = 16 hosts at 200 Mbit/s, no model file (as a new user), N = 1M and 4M
  $CL up -n 16 --rate 200mbit
  python3 bench/sweep/sweep.py --label link-cluster-p16 --P 16 --N 1M,4M \
    --delays 0,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 12 --warmup 3 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 1800 -np {P}" --est-ns-per-byte 100 \
    --out $R/sweep-cluster-p16 --bench $MB --quiet
  $CL down
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p16 ${G:+--before $G/sweep-cluster-p16} \
    > $R/sweep-cluster-p16/aa-summary.md
fi

if [ "$part" = all ] || [ "$part" = planned ]; then
  # 5. the calibration with its pause instrumented as a compute phase (pat-calibrate at the next commit:
  #    arrival-aware algorithms planned from a prediction of the call), and the model's error against the
  #    sweep above (the fixed algorithms' times do not depend on the model file)
  mkdir -p $R/model-planned
  $CL up -n 8 --rate 500mbit
  $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model-planned/calibration-cluster-p8.csv \
    --quick --ci 0.02 --min-reps 5 --max-seconds 3
  $CL down
  build/pat-fit --in $R/model-planned/calibration-cluster-p8.csv --out $R/model-planned/cluster-p8.model \
    > $R/model-planned/fit-cluster-p8.txt
  python3 bench/sweep/compare_model.py --model $R/model-planned/cluster-p8.model --results $R/sweep-cluster-p8 \
    --pat-model build/pat-model --out $R/sweep-cluster-p8/model-vs-measured-planned.md > /dev/null
  # 6. the P = 8 sweep again, with that model (auto's choices with BDR's and ARD's levels as planned)
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$PWD/$R/model-planned/cluster-p8.model python3 bench/sweep/sweep.py --label planned-cluster-p8 --P 8 \
    --N 256K,1M,2M --delays 0,10,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 24 --warmup 4 \
    --base-ms 20 --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8-planned --bench $MB --quiet
  $CL down
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p8-planned --before $R/sweep-cluster-p8 \
    > $R/sweep-cluster-p8-planned/aa-summary.md
  python3 bench/sweep/compare_model.py --model $R/model-planned/cluster-p8.model --results $R/sweep-cluster-p8-planned \
    --pat-model build/pat-model --out $R/sweep-cluster-p8-planned/model-vs-measured.md > /dev/null
fi
