#!/usr/bin/env bash
# The measurements of the fourth session of 2026-11-23 (issue 19: the
# refinement's replay out of the call's tail, RELAY's eager pieces, auto
# planning ahead), in the order they were run on the idle 2-core VM, from the
# repository root after `bash bench/setup.sh`.
#   OLD: a build of the library before the change, e.g.
#     git worktree add /tmp/oldsrc 63123d7 && cmake -S /tmp/oldsrc -B /tmp/oldbuild -DCMAKE_BUILD_TYPE=RelWithDebInfo \
#       && cmake --build /tmp/oldbuild --target pat-minibench pat pat_mpi
#   OSU: an unmodified osu_allgather (OSU micro-benchmarks 5.3, built out of tree: bench/balanced/osu.sh)
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-23-eager} # OUT: the output folder (default: the committed one)
OLD=${OLD:-/tmp/oldbuild}
OSU=${OSU:-/tmp/osu/osu_allgather}
MODEL_OLD=$PWD/bench/results/2026-11-22-auto/model/cluster-p8.model
MODEL_NEW=$PWD/$R/model/cluster-p8.model
unset PAT_MODEL
part=${1:-all}

if [ "$part" = all ] || [ "$part" = ab ]; then
  # 1. RELAY alone per launch, before (OLD) and after, rounds interleaved (relay-old-new.md), and the
  #    plain-MPI probe.  (RELAY interleaved with another algorithm in one launch is not a fair
  #    comparison: its plan-ahead exchange makes the other algorithm's next call exchange too.)
  mpicc -O2 ../shared/probes/relay.c -o /tmp/relay -lpthread
  $CL up -n 8 --rate 500mbit
  for round in 1 2 3; do
    for cell in "1M 100" "2M 100" "256K 50"; do
      set -- $cell
      for v in old new; do
        bench=$MB; [ $v = old ] && bench=$OLD/bench/minibench/pat-minibench
        echo "round $round N $1 maxDelay $2 version $v"
        $CL run -x PAT_MODEL=$MODEL_OLD $bench -N $1 --iters 24 --warmup 3 --flat-iters 0 --base-ms 20 --quiet \
          --max-delay $2 --alg relay
      done
    done
    echo "round $round probe"; $CL run /tmp/relay 524288 100 24 1; $CL run /tmp/relay 524288 100 24 0
  done
  $CL down
fi

if [ "$part" = all ] || [ "$part" = sweep ]; then
  # 2. cluster sweep, P = 8, 500 Mbit/s, as bench/results/2026-11-23-nap (blocked order, the
  #    2026-11-22 model file, auto as it was then: PAT_PLAN_AHEAD_AUTO=0; it ran at dda99e4, whose
  #    minibench still made the flat run before the measured calls)
  $CL up -n 8 --rate 500mbit
  PAT_PLAN_AHEAD_AUTO=0 PAT_MODEL=$MODEL_OLD python3 bench/sweep/sweep.py --label eager-cluster-p8 --P 8 \
    --N 256K,1M,2M --delays 0,10,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 24 --warmup 4 \
    --base-ms 20 --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -x PAT_PLAN_AHEAD_AUTO -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-cluster-p8 --bench $MB --quiet
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p8 --before bench/results/2026-11-23-nap/sweep-cluster-p8 \
    > $R/sweep-cluster-p8/aa-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = calibrate ]; then
  # 3. auto's cluster model fitted again on this library
  mkdir -p $R/model
  $CL up -n 8 --rate 500mbit
  $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model/calibration-cluster-p8.csv --quick
  $CL down
  build/pat-fit --in $R/model/calibration-cluster-p8.csv --out $R/model/cluster-p8.model > $R/model/fit-cluster-p8.txt
fi

if [ "$part" = all ] || [ "$part" = auto ]; then
  # 4. auto with the new model beside NATIVE, DIRECT and RELAY, planning ahead (1) and not (0)
  $CL up -n 8 --rate 500mbit
  for pa in 1 0; do
    PAT_PLAN_AHEAD_AUTO=$pa PAT_MODEL=$MODEL_NEW python3 bench/sweep/sweep.py --label auto-pa$pa-cluster-p8 --P 8 \
      --N 256K,1M,2M --delays 0,10,50,100 --algs native,direct,relay,auto --iters 24 --warmup 4 --base-ms 20 \
      --compute sleep --bench-args "--order blocked" \
      --launcher "$CL run --timeout 900 -x PAT_MODEL -x PAT_PLAN_AHEAD_AUTO -np {P}" --est-ns-per-byte 30 \
      --out $R/sweep-auto-pa$pa-cluster-p8 --bench $MB --quiet
  done
  $CL down
fi

if [ "$part" = all ] || [ "$part" = guard ]; then
  # 5. workloads libpat cannot predict, native against LD_PRELOAD (auto, plan ahead on), cluster P = 8
  $CL up -n 8 --rate 500mbit
  python3 bench/examples/run.py --app bfs -P 8 -r 3 --cluster --configs native,preload,model --model $MODEL_NEW \
    --out $R/bfs-cluster-p8 -- -v 131072 -n 64
  for round in 1 2 3 4; do   # bfs-plan-ahead.txt: without a model, plan ahead off and on
    for v in native pa0 pa1; do
      case $v in native) X="";; pa0) X="-x LD_PRELOAD=$PWD/build/libpat_mpi.so -x PAT_PLAN_AHEAD_AUTO=0";;
                 pa1) X="-x LD_PRELOAD=$PWD/build/libpat_mpi.so -x PAT_PLAN_AHEAD_AUTO=1";; esac
      echo "r$round $v"; $CL run --timeout 600 -np 8 $X $PWD/build/bench/examples/bfs -v 131072 -n 64
    done
  done > $R/bfs-plan-ahead.txt 2>&1
  for round in 1 2 3; do   # bfs-old-new.txt: without a model, OLD against this library
    for v in native old new; do
      case $v in native) X="";; old) X="-x LD_PRELOAD=$OLD/libpat_mpi.so";; new) X="-x LD_PRELOAD=$PWD/build/libpat_mpi.so";; esac
      echo "r$round $v"; $CL run --timeout 600 -np 8 $X $PWD/build/bench/examples/bfs -v 131072 -n 64
    done
  done > $R/bfs-old-new.txt 2>&1
  mkdir -p $R/random-arrivals
  for round in 1 2 3; do
    $CL run --timeout 900 -np 8 $MB --instrument none --alg native,auto --iters 100 --warmup 4 --base-ms 10 \
      --max-delay 20 -N 1M --seed $round > $R/random-arrivals/cluster-p8-nomodel-$round.txt 2>&1
    $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL_NEW $MB --instrument none --alg native,auto --iters 100 \
      --warmup 4 --base-ms 10 --max-delay 20 -N 1M --seed $round > $R/random-arrivals/cluster-p8-model-$round.txt 2>&1
  done
  $CL down
fi

if [ "$part" = all ] || [ "$part" = osu ]; then
  # 6. never slower on one node: OSU osu_allgather unmodified, native, OLD and this library, 1 B - 1 MiB
  bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 3 --old-lib $OLD/libpat_mpi.so \
    --osu-args "-m 1:1048576"
fi

if [ "$part" = all ] || [ "$part" = p16 ]; then
  # 7. P = 16 hosts at 200 Mbit/s, no model file (as a new user), N = 1M and 4M
  $CL up -n 16 --rate 200mbit
  python3 bench/sweep/sweep.py --label eager-cluster-p16 --P 16 --N 1M,4M \
    --delays 0,50,100 --algs native,ring,direct,bdr,ard,relay,auto --iters 12 --warmup 3 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 1800 -np {P}" --est-ns-per-byte 100 \
    --out $R/sweep-cluster-p16 --bench $MB --quiet
  python3 bench/sweep/aa_summary.py $R/sweep-cluster-p16 --before bench/results/2026-11-23-nap/sweep-cluster-p16 \
    > $R/sweep-cluster-p16/aa-summary.md
  $CL down
fi

if [ "$part" = all ] || [ "$part" = model ]; then
  # 8. the cost model against the P = 8 sweeps (pat-model replays only: no MPI job)
  python3 bench/sweep/compare_model.py --model $MODEL_NEW --results $R/sweep-auto-pa1-cluster-p8 \
    --pat-model build/pat-model --out $R/sweep-auto-pa1-cluster-p8/model-vs-measured.md
  python3 bench/sweep/compare_model.py --model $MODEL_NEW --results $R/sweep-cluster-p8 \
    --pat-model build/pat-model --out $R/sweep-cluster-p8/model-vs-measured.md
fi

if [ "$part" = all ] || [ "$part" = autofinal ]; then
  # 9. after commit c336e83 (a site's first call tells the policy what planning ahead would gain):
  #    auto's sweep again, the random arrivals and bfs against native
  $CL up -n 8 --rate 500mbit
  PAT_MODEL=$MODEL_NEW python3 bench/sweep/sweep.py --label auto-final-cluster-p8 --P 8 \
    --N 256K,1M,2M --delays 0,10,50,100 --algs native,direct,relay,auto --iters 24 --warmup 4 --base-ms 20 \
    --compute sleep --bench-args "--order blocked" \
    --launcher "$CL run --timeout 900 -x PAT_MODEL -np {P}" --est-ns-per-byte 30 \
    --out $R/sweep-auto-final-cluster-p8 --bench $MB --quiet
  mkdir -p $R/random-arrivals-final
  for round in 1 2 3; do
    $CL run --timeout 900 -np 8 $MB --instrument none --alg native,auto --iters 100 --warmup 4 --base-ms 10 \
      --max-delay 20 -N 1M --seed $round > $R/random-arrivals-final/cluster-p8-nomodel-$round.txt 2>&1
    $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL_NEW $MB --instrument none --alg native,auto --iters 100 \
      --warmup 4 --base-ms 10 --max-delay 20 -N 1M --seed $round > $R/random-arrivals-final/cluster-p8-model-$round.txt 2>&1
  done
  for round in 1 2 3; do
    for v in native new; do
      X=""; [ $v = new ] && X="-x LD_PRELOAD=$PWD/build/libpat_mpi.so"
      echo "r$round $v"; $CL run --timeout 600 -np 8 $X $PWD/build/bench/examples/bfs -v 131072 -n 64
    done
  done > $R/bfs-final.txt 2>&1
  $CL down
fi
