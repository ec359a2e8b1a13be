#!/usr/bin/env bash
# bench/results/2026-11-24-onenode: a one-node job with a model file.  OSU's osu_allgather,
# unmodified, on shared memory (P = 2, one rank per core; P = 4, oversubscribed) under LD_PRELOAD:
# native, libpat without a model file (preload) and with one (model), and the library before
# 87e523c (09a914c: with a model file it asked for MPI_THREAD_MULTIPLE, ran the background thread
# and the whole call path) without (old) and with (oldlibmodel) the model; 7 interleaved rounds.
#   bash bench/runs/onenode/run.sh osu|osuv|single
# osu:    the table above (osu/table.md, osu/osu.csv).
# osuv:   osu_allgatherv (equal counts) the same way, no model file, 5 rounds (osu-allgatherv/);
#         OSUV is its binary (default /tmp/osu/osu_allgatherv).
# single: one size per launch (1 B and 4 B, 300 000 calls), native, a plain PMPI wrapper
#         (pmpi_wrapper.c; SHIM_DUP=1 adds the communicators libpat makes at PAT_Init) and libpat,
#         3 interleaved rounds: what OSU's size loop hides (single.txt).
# Needs root, build/ at 87e523c or later, the old library at $OLD (default /tmp/oldbuild5/libpat_mpi.so:
#   git worktree add /tmp/oldsrc5 09a914c && cmake -S /tmp/oldsrc5 -B /tmp/oldbuild5 && cmake --build /tmp/oldbuild5 --target pat_mpi)
# and OSU's osu_allgather at $OSU (bench/balanced/osu.sh says how to build it); a quiet machine.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-onenode} # OUT: the output folder (default: the committed one)
H=bench/runs/onenode # this script's helpers
OSU=${OSU:-/tmp/osu/osu_allgather}
OLD=${OLD:-/tmp/oldbuild5/libpat_mpi.so}
MODEL=$PWD/bench/results/2026-11-22-auto/model/shm-p4.model
case ${1:-} in
  osu)
    bash bench/balanced/osu.sh --osu "$OSU" --out /tmp/onenode-osu --configs shm2,shm4 --rounds 7 \
      --model-shm "$MODEL" --old-lib "$OLD"
    mkdir -p $R/osu && cp /tmp/onenode-osu/osu.csv /tmp/onenode-osu/table.md $R/osu/ ;;
  osuv)
    bash bench/balanced/osu.sh --osu "${OSUV:-/tmp/osu/osu_allgatherv}" --out /tmp/onenode-osuv --configs shm2,shm4 \
      --rounds 5 --old-lib "$OLD"
    mkdir -p $R/osu-allgatherv && cp /tmp/onenode-osuv/osu.csv /tmp/onenode-osuv/table.md $R/osu-allgatherv/ ;;
  single)
    mpicc -O2 -shared -fPIC -o /tmp/pmpi_wrapper.so $H/pmpi_wrapper.c || exit 1
    for round in 1 2 3; do
      for v in native wrap wrapdup libpat libpatmodel; do
        case $v in
          native) X=() ;;
          wrap) X=(-x LD_PRELOAD=/tmp/pmpi_wrapper.so) ;;
          wrapdup) X=(-x LD_PRELOAD=/tmp/pmpi_wrapper.so -x SHIM_DUP=1) ;;
          libpat) X=(-x LD_PRELOAD=$PWD/build/libpat_mpi.so) ;;
          libpatmodel) X=(-x LD_PRELOAD=$PWD/build/libpat_mpi.so -x PAT_MODEL=$MODEL) ;;
        esac
        for s in 1 4; do
          us=$(timeout 60 mpirun -np 2 --bind-to core "${X[@]}" "$OSU" -m $s:$s -i 300000 | awk '/^ *[0-9]/ {print $2}')
          echo "$round $v $s $us"
        done
      done
    done | tee $R/single.txt ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
