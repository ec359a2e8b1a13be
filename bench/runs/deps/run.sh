#!/usr/bin/env bash
# bench/results/2026-11-24-deps: the fluid replay's dependencies indexed by block (1b84b3e) against
# the library before it (de159a4), side by side on the quiet VM: the same decisions (bit-identical
# replays), less CPU per selection; does a cluster cell where auto replays RELAY move?
#   bash bench/runs/deps/run.sh
# "old" is built from de159a4 in /tmp/oldbuild:
#   git worktree add /tmp/oldsrc de159a4 && cmake -S /tmp/oldsrc -B /tmp/oldbuild -DPAT_BUILD_TESTS=OFF \
#     && cmake --build /tmp/oldbuild -j2 && git worktree remove --force /tmp/oldsrc
set -uo pipefail
cd "$(dirname "$0")/../../.."
R=${OUT:-bench/results/2026-11-24-deps} # OUT: the output folder (default: the committed one)
CL=bench/cluster/pat-cluster
MODEL=$PWD/bench/results/2026-11-23-gap/model/cluster-p8.model
$CL up -n 8 --rate 500mbit
for round in 1 2 3; do
  for v in new old; do
    MB=build/bench/minibench/pat-minibench
    [ $v = old ] && MB=/tmp/oldbuild/bench/minibench/pat-minibench
    echo "== round $round $v N=1M delay=50"
    PAT_MODEL=$MODEL $CL run --timeout 280 -x PAT_MODEL -np 8 $MB -N 1M --iters 24 --warmup 4 --base-ms 20 \
      --quiet --max-delay 50 --alg auto --order blocked 2>&1 | grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
  done
done > $R/cluster-cell.txt
$CL down
awk '/^==/{lab=$3","$4","$5","$6} /^auto/{print lab","$3","$4","$10","$NF}' $R/cluster-cell.txt |
  sed 's/N=//; s/delay=//' | (echo "round,variant,N,max_delay_ms,ebar_us,ci95_us,e_over_elb,chosen"; cat) \
  > $R/cluster-cell.csv
