#!/usr/bin/env bash
# bench/results/2026-11-24-nohub: the runtime without a hub (8b2768e and after) against the
# library before it (4eca09d), side by side in one run, on a quiet 2-core VM.
#   bash bench/runs/nohub/run.sh [osu|cluster]
# "old" is built from 4eca09d in /tmp/oldbuild:
#   git worktree add /tmp/oldsrc 4eca09d && cmake -S /tmp/oldsrc -B /tmp/oldbuild -DPAT_BUILD_TESTS=OFF \
#     && cmake --build /tmp/oldbuild -j2 && git worktree remove --force /tmp/oldsrc
# OSU: osu_allgather from osu-micro-benchmarks 5.x, unmodified, built as bench/balanced/osu.sh says.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-nohub} # OUT: the output folder (default: the committed one)
OSU=${OSU:-/tmp/osu/osu_allgather}
part=${1:-all}

if [ "$part" = all ] || [ "$part" = osu ]; then
  # the balanced back-to-back loop through the drop-in, P = 2 on one node: as a user gets it
  # (auto passes through to MPI there), and with PAT_ONE_NODE=auto (the engine decides every call)
  bash bench/balanced/osu.sh --osu $OSU --out /tmp/nohub/osu-shm --configs shm2 --rounds 5 \
    --old-lib /tmp/oldbuild/libpat_mpi.so --osu-args "-m 1:1048576 -i 1000"
  bash bench/balanced/osu.sh --osu $OSU --out /tmp/nohub/osu-shm-auto --configs shm2 --rounds 5 \
    --old-lib /tmp/oldbuild/libpat_mpi.so --env "PAT_ONE_NODE=auto" --osu-args "-m 1:1048576 -i 1000"
  for d in osu-shm:osu-shm2 osu-shm-auto:osu-shm2-one-node-auto; do
    mkdir -p $R/${d#*:} && cp /tmp/nohub/${d%:*}/{table.md,osu.csv} $R/${d#*:}/
  done
fi

if [ "$part" = all ] || [ "$part" = cluster ]; then
  # two cells of the emulated cluster (P = 8, 500 Mbit/s) with the committed model, auto only,
  # new and old interleaved, three rounds
  CL=bench/cluster/pat-cluster
  MODEL=$PWD/bench/results/2026-11-23-gap/model/cluster-p8.model
  $CL up -n 8 --rate 500mbit
  for round in 1 2 3; do
    for v in new old; do
      MB=build/bench/minibench/pat-minibench
      [ $v = old ] && MB=/tmp/oldbuild/bench/minibench/pat-minibench
      for cell in "1M 50" "256K 0"; do
        set -- $cell
        echo "== round $round $v N=$1 delay=$2"
        PAT_MODEL=$MODEL $CL run --timeout 280 -x PAT_MODEL -np 8 $MB -N $1 --iters 24 --warmup 4 --base-ms 20 \
          --quiet --max-delay $2 --alg auto --order blocked 2>&1 | grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
      done
    done
  done > $R/cluster-cells.txt
  $CL down
  awk '/^==/{lab=$3","$4","$5","$6} /^auto/{print lab","$3","$4","$10","$NF}' $R/cluster-cells.txt |
    sed 's/N=//; s/delay=//' | (echo "round,variant,N,max_delay_ms,ebar_us,ci95_us,e_over_elb,chosen"; cat) \
    > $R/cluster-cells.csv
fi
