#!/usr/bin/env bash
# The main job: show where libpat's arrival-aware all-gathers pay.
#
# Where this machine can host the emulated cluster (root; ip netns, veth,
# bridge and the tc tbf qdisc: bench/cluster/README.md), it builds one, 8
# hosts whose links run at 500 Mbit/s, so that one block of the all-gather
# takes milliseconds.  Elsewhere it says why in one line and runs on 4 local
# ranks over shared memory, where a block takes 16-250 us and every algorithm
# is within noise of the others.  Then:
#  1. calibrates the cost model on that platform (pat-calibrate --quick from
#     64 B to 1 MiB, then pat-fit), unless the cache holds a model made with
#     the same key: host, CPU, libpat version and the commit that last changed
#     the library (plus any uncommitted change to it), build type, MPI, P,
#     the platform's settings (rate, queues...) and the calibration options.
#     The cache is $PAT_DEMO_CACHE, default <build>/demo-cache/ (git ignores
#     build*/); files <platform>-p<P>-<hash of the key>.{model,key,csv,log,fit.txt};
#  2. runs the grid with pat-minibench through bench/sweep/sweep.py, auto
#     selecting with that model.  Cluster: N = 256K and 512K floats (blocks
#     of 128 and 256 KiB), maxDelay 0, 10, 50, 100 ms; native, ring, bdr, ard
#     and auto, then in the same launch each algorithm auto ran that these
#     lack (pat-minibench --also-chosen: DIRECT, RELAY...), each on its own
#     communicator (--order blocked); 10 warm-up and 12 measured iterations;
#     compute phases of 40 ms + delay.  Shared memory: the grid of before
#     (N 16K-512K, maxDelay 0-20 ms, every algorithm, 15 iterations);
#  3. prints the table (every algorithm's mean time in the call, a column for
#     each algorithm auto ran, the fastest, what auto ran, auto's speed-up
#     over NATIVE with a 95% interval) and draws the plot (mean time against
#     maxDelay: NATIVE, auto, ARD);
#  4. on the cluster, the all-reduce beside it (bench/allreduce/cells.sh's
#     launches on the same hosts): 1M floats, balanced and one rank 100 ms
#     late with the others on time, MPI's own, ring, RELAY and auto, 12 calls
#     each; its table (ē and ē/ē_lb) and figure in the results folder's
#     allreduce/.
# One progress bar throughout, moving as each calibrated size and each cell
# ends (in place on a terminal, one line per step otherwise: no control
# characters in a log).  The cluster is torn down on exit, on Ctrl-C (INT), TERM and
# HUP.  Results in bench/results/<date>-demo/ (git ignores it).  On the
# 2-core development machine: see bench/README.md for the durations.
#
#   bench/demo.sh                 # the cluster if possible, else shared memory
#   bench/demo.sh --shm           # shared memory, 4 local ranks
#   bench/demo.sh --cluster       # the cluster, or fail
#   bench/demo.sh --recalibrate   # ignore the cached model (and replace it)
#   bench/demo.sh --tiny          # seconds: P=2, one small size (what the test tests/demo runs)
#   bench/demo.sh -- --iters 30   # after --: sweep.py options (they win)
#
# Environment: PAT_BUILD_DIR (default build), PAT_DEMO_CACHE, PAT_DEMO_OUT
# (results folder), PAT_DEMO_P, PAT_DEMO_RATE (default 500mbit),
# PAT_DEMO_MAX_SECONDS (default 1800: then the demo stops, and the cluster is
# torn down), PAT_MODEL (use that model: no calibration), PAT_DEMO_CALIBRATE=0
# (no model: auto's built-in estimate).  The cluster is named pdemo-* on
# 10.77.99.0/24, or pdemo2 on 10.77.98.0/24 (up to pdemo4) when those are
# taken (another demo); PAT_CLUSTER_PREFIX / PAT_CLUSTER_NET impose names,
# and the demo refuses if they are taken.  PAT_DEMO_CLUSTER: another
# pat-cluster script (tests).
#
# Build first: bash bench/setup.sh (or cmake -S . -B build && cmake --build build).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

PLATFORM=auto TINY=0 RECAL=0
SWEEP_ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --shm) PLATFORM=shm; shift ;;
    --cluster) PLATFORM=cluster; shift ;;
    --recalibrate) RECAL=1; shift ;;
    --tiny) TINY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; SWEEP_ARGS+=("$@"); break ;;
    *) SWEEP_ARGS+=("$1"); shift ;;  # as before: anything else goes to sweep.py
  esac
done

BUILD_DIR=${PAT_BUILD_DIR:-build}
[ "${BUILD_DIR:0:1}" = / ] || BUILD_DIR=$REPO/$BUILD_DIR
BENCH=$BUILD_DIR/bench/minibench/pat-minibench
for f in "$BENCH" "$BUILD_DIR/bench/calibrate/pat-calibrate" "$BUILD_DIR/pat-fit"; do
  if [ ! -x "$f" ]; then
    echo "demo: $f not found; build first: bash bench/setup.sh (or cmake -S . -B build && cmake --build build)" >&2
    exit 3
  fi
done
command -v mpirun >/dev/null || { echo "demo: mpirun not found (Debian: openmpi-bin)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "demo: python3 not found" >&2; exit 3; }
command -v gnuplot >/dev/null || echo "demo: gnuplot not found (Debian: gnuplot-nox): no plot will be drawn" >&2
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

CLUSTER=${PAT_DEMO_CLUSTER:-$REPO/bench/cluster/pat-cluster}
STATE_ROOT=${PAT_CLUSTER_STATE_ROOT:-/run/pat-cluster}
RATE=${PAT_DEMO_RATE:-500mbit}
CACHE=${PAT_DEMO_CACHE:-$BUILD_DIR/demo-cache}
MAX_SECONDS=${PAT_DEMO_MAX_SECONDS:-1800}
if ! [[ $MAX_SECONDS =~ ^[1-9][0-9]*$ ]]; then
  echo "demo: PAT_DEMO_MAX_SECONDS must be a positive integer" >&2
  exit 2
fi

# ----------------------------------------------------------------- cleanup
# Whatever happens, the processes this script started are stopped and a
# cluster it started to build is torn down (only ours: OUR_PREFIX is set just
# before 'up', after checking that nothing of that name existed).
CHILD="" WATCHDOG="" OUR_PREFIX="" OUR_NET="" CLEANED=0

descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$c"
    descendants "$c"
  done
}

alive() { # a process that exists and is not a zombie
  local s
  s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ -n "$s" ] && [ "${s:0:1}" != Z ]
}

# stop_tree PID GRACE: SIGTERM to PID (it stops what it started), then after
# GRACE seconds SIGTERM and SIGKILL to whatever is left of its tree.
stop_tree() {
  local pid=$1 grace=$2 tree p i
  alive "$pid" || return 0
  tree=$(descendants "$pid")
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do
    alive "$pid" || break
    sleep 0.2
  done
  for p in $pid $tree; do
    if alive "$p"; then kill -TERM "$p" 2>/dev/null || true; fi
  done
  sleep 0.5
  for p in $pid $tree; do
    if alive "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
  done
  wait "$pid" 2>/dev/null || true
}

cluster_down() {
  [ -n "$OUR_PREFIX" ] || return 0
  local out
  if out=$(PAT_CLUSTER_PREFIX=$OUR_PREFIX PAT_CLUSTER_NET=$OUR_NET timeout 120 "$CLUSTER" down 2>&1) ||
     out=$(PAT_CLUSTER_PREFIX=$OUR_PREFIX PAT_CLUSTER_NET=$OUR_NET timeout 120 "$CLUSTER" down 2>&1); then
    echo "demo: cluster '$OUR_PREFIX' torn down"
  else
    echo "demo: tearing down cluster '$OUR_PREFIX' failed: $out" >&2
    echo "demo: remove it with: PAT_CLUSTER_PREFIX=$OUR_PREFIX $CLUSTER down" >&2
  fi
  OUR_PREFIX=""
}

cleanup() {
  [ "$CLEANED" = 1 ] && return 0
  CLEANED=1
  trap '' INT TERM HUP # a second Ctrl-C must not cut the teardown short
  [ -z "$CHILD" ] || stop_tree "$CHILD" 15
  [ -z "$WATCHDOG" ] || stop_tree "$WATCHDOG" 1
  cluster_down
}

# shellcheck disable=SC2317  # invoked by the traps
on_signal() {
  local sig=$1 code=$2
  echo >&2
  echo "demo: interrupted (SIG$sig): stopping the run${OUR_PREFIX:+ and tearing the cluster down}" >&2
  cleanup
  trap - EXIT
  exit "$code"
}
trap cleanup EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM
trap 'on_signal HUP 129' HUP

# The whole demo is bounded in time.
{
  sleep "$MAX_SECONDS"
  echo "demo: still running after ${MAX_SECONDS}s (PAT_DEMO_MAX_SECONDS): stopping" >&2
  kill -TERM $$
} &
WATCHDOG=$!

# ------------------------------------------------------------ the platform
# A cluster of that prefix or on that subnet exists already (then it is not
# ours to use or to remove).
taken() {
  local p=$1 n=$2
  [ -e "$STATE_ROOT/$p" ] && return 0
  command -v ip >/dev/null || return 1
  ip netns list 2>/dev/null | awk '{print $1}' | grep -qE "^$p-h[0-9]+$" && return 0
  ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -qE "^$p-(br|v[0-9]+)$" && return 0
  ip -4 route show 2>/dev/null | grep -qE "^${n//./\\.}\.0/24 " && return 0
  ip -4 addr show 2>/dev/null | grep -q "inet ${n}\." && return 0
  return 1
}

# Brings the cluster up (P hosts at RATE) under the first free names; sets
# OUR_PREFIX/OUR_NET.  Returns 0 (up), 77 (this machine cannot host it; the
# reason in WHY), 1 (the names are taken or 'up' failed; the reason in WHY).
cluster_up() {
  local hosts=$1 cands=() c p n out rc
  if [ -n "${PAT_CLUSTER_PREFIX:-}" ] || [ -n "${PAT_CLUSTER_NET:-}" ]; then
    cands=("${PAT_CLUSTER_PREFIX:-pdemo}/${PAT_CLUSTER_NET:-10.77.99}")
  else
    cands=(pdemo/10.77.99 pdemo2/10.77.98 pdemo3/10.77.97 pdemo4/10.77.96)
  fi
  WHY=""
  for c in "${cands[@]}"; do
    p=${c%/*} n=${c#*/}
    if taken "$p" "$n"; then
      WHY="a cluster named '$p' or on $n.0/24 exists already (another demo?"
      WHY+=" 'PAT_CLUSTER_PREFIX=$p $CLUSTER status' shows it)"
      [ ${#cands[@]} -gt 1 ] && echo "demo: $WHY; trying other names"
      continue
    fi
    OUR_PREFIX=$p OUR_NET=$n # from here on the trap removes whatever 'up' made
    rc=0
    out=$(PAT_CLUSTER_PREFIX=$p PAT_CLUSTER_NET=$n timeout 120 "$CLUSTER" up -n "$hosts" --rate "$RATE" 2>&1) || rc=$?
    if [ $rc -eq 0 ]; then
      return 0
    fi
    OUR_PREFIX="" OUR_NET=""
    WHY=$(printf '%s\n' "$out" | grep -v '^$' | tail -1)
    if [ $rc -eq 77 ]; then
      return 77
    fi
    if printf '%s' "$out" | grep -qE 'already exists|already routed|already in use|holds .*lock'; then
      continue # somebody took the names in the meantime: not ours, try the next
    fi
    OUR_PREFIX=$p OUR_NET=$n cluster_down >/dev/null 2>&1 || true # what a failed 'up' may have left
    WHY="'pat-cluster up' failed: $WHY"
    return 1
  done
  return 1
}

SHM_LAUNCHER="mpirun -np {P} --oversubscribe --bind-to none"
ON=shm
if [ "$PLATFORM" != shm ]; then
  HOSTS=${PAT_DEMO_P:-8}
  [ "$TINY" = 1 ] && HOSTS=2
  rc=0
  cluster_up "$HOSTS" || rc=$?
  if [ $rc -eq 0 ]; then
    ON=cluster
  elif [ "$PLATFORM" = cluster ]; then
    echo "demo: no emulated cluster: $WHY" >&2
    exit 1
  elif [ $rc -eq 77 ]; then
    echo "demo: no emulated cluster on this machine (${WHY#pat-cluster: }): running on shared memory instead"
  elif [ -n "${PAT_CLUSTER_PREFIX:-}${PAT_CLUSTER_NET:-}" ]; then
    echo "demo: refusing: $WHY; choose other PAT_CLUSTER_PREFIX/PAT_CLUSTER_NET, or bench/demo.sh --shm" >&2
    exit 1
  else
    echo "demo: no emulated cluster ($WHY): running on shared memory instead"
  fi
fi

ARGS=()
if [ "$ON" = cluster ]; then
  export PAT_CLUSTER_PREFIX=$OUR_PREFIX PAT_CLUSTER_NET=$OUR_NET
  KEY="hosts $HOSTS, rate $RATE"
  if [ -f "$STATE_ROOT/$OUR_PREFIX/config" ]; then
    KEY=$(grep -E '^PAT_CLUSTER_(HOSTS|RATE|BURST|NIC_QUEUE|SWITCH_QUEUE|GSO_MAX|DELAY)=' \
            "$STATE_ROOT/$OUR_PREFIX/config" | sed 's/^PAT_CLUSTER_//' | tr '\n' ' ')
  fi
  # one block of N/P floats at RATE: ~1.75x its wire time per byte gathered (bench/cluster/README.md)
  BITS=$(awk -v r="${RATE,,}" 'BEGIN { n = r + 0; u = substr(r, length(n "") + 1);
           m = u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1; print n * m }')
  EST=$(awk -v b="$BITS" 'BEGIN { printf "%.3g", (b > 0 ? 1.75 * 8e9 / b : 30) }')
  DESC="emulated cluster: $HOSTS hosts $OUR_PREFIX-h* ($OUR_NET.0/24), links at $RATE (tc tbf), Open MPI over TCP"
  ARGS+=(--platform cluster --P "$HOSTS" --key "emulated cluster: $KEY" --est-ns-per-byte "$EST" --est-call-ms 4
         --describe "$DESC"
         --launcher "$CLUSTER run --timeout 600 -np {P}")
  if [ "$TINY" = 1 ]; then
    ARGS+=(--N 8K --delays "0,2" --algs "native,ard,auto" --iters 3 --warmup 1 --base-ms 2)
  else
    # Blocks of 128 and 256 KiB (tau ~2 and ~4 ms): delays of many block times
    # at 50-100 ms, where the arrival-aware algorithms win (BENCHMARKS.md,
    # History, 2026-11-22); 0 and 10 ms, where they should not be used.  10 warm-up
    # calls: auto's first call at a call site exchanges arrivals, the 10th
    # is its first probe; an application makes thousands of calls, the demo
    # measures auto once it has had its first looks at the arrivals.
    # No BRUCK: slower than RING in every cell of the 2026-11-24 run (git show
    # fd17eab:BENCHMARKS.md, The main job), never the fastest; its time goes to the columns of what auto ran.
    ARGS+=(--N "256K,512K" --delays "0,10,50,100" --algs "native,ring,bdr,ard,auto"
           --iters 12 --warmup 10 --base-ms 20)
  fi
else
  P=${PAT_DEMO_P:-4}
  [ "$TINY" = 1 ] && P=2
  ARGS+=(--platform shm --P "$P" --key "shared memory, $(nproc) cores" --est-ns-per-byte 1
         --describe "shared memory: $P local ranks (blocks take 16-250 us here: expect every algorithm within noise)"
         --launcher "$SHM_LAUNCHER")
  if [ "$TINY" = 1 ]; then
    ARGS+=(--N 8K --delays "0,2" --algs "native,ard,auto" --iters 3 --warmup 1 --base-ms 2)
  else
    ARGS+=(--N "16K,128K,512K" --delays "0,5,20" --algs all --iters 15 --warmup 2 --base-ms 20)
  fi
fi
if [ "$TINY" = 1 ]; then
  ARGS+=("--calibrate=--quick --max-bytes 16k --points 3 --max-seconds 0.2")
else
  ARGS+=("--calibrate=--quick --min-bytes 64 --points 8") # 64 B - 1 MiB by factor 4
fi
ARGS+=(--cache "$CACHE" --build "$BUILD_DIR")
[ -z "${PAT_DEMO_OUT:-}" ] || ARGS+=(--out "$PAT_DEMO_OUT")
[ "$RECAL" = 1 ] && ARGS+=(--recalibrate)
if [ -n "${PAT_MODEL:-}" ]; then
  ARGS+=(--model "$PAT_MODEL")
elif [ "${PAT_DEMO_CALIBRATE:-1}" = 0 ]; then
  ARGS+=(--no-model)
fi

# The results folder (demo.py's default, named here so that the all-reduce's part joins it).
if [ -n "${PAT_DEMO_OUT:-}" ]; then
  OUT=$PAT_DEMO_OUT
else
  OUT=$REPO/bench/results/$(date +%F)-demo k=2
  base=$OUT
  while [ -e "$OUT" ]; do OUT=$base-$k k=$((k + 1)); done
  ARGS+=(--out "$OUT")
fi

# The all-reduce on the same cluster: each algorithm alone in its launch, as
# bench/allreduce/cells.sh runs them.
allreduce_part() {
  local dir=$OUT/allreduce mb=$BUILD_DIR/bench/minibench/pat-minibench late=$((HOSTS > 3 ? 3 : HOSTS - 1)) alg c
  mkdir -p "$dir"
  echo "demo: the all-reduce, 1M floats: MPI's own, ring, RELAY and auto, balanced and one rank 100 ms late"
  for c in balanced straggler; do
    for alg in native ring relay auto; do
      local pattern=(--max-delay 0)
      [ "$c" = straggler ] && pattern=(--max-delay 100 --straggler "$late")
      "$CLUSTER" run --timeout 120 -np "$HOSTS" -x PAT_ALLREDUCE="$alg" "$mb" --coll allreduce --quiet -N 1M \
        --iters 12 --warmup 3 --flat-iters 0 --base-ms 20 "${pattern[@]}" --csv "$dir/cells.csv" \
        --label "1/$c/$alg" >>"$dir/log.txt" 2>&1 || echo "demo: all-reduce $c $alg failed (see $dir/log.txt)"
      echo "demo: all-reduce $c $alg done"
    done
  done
  [ -s "$dir/cells.csv" ] || return 1
  python3 bench/allreduce/table.py "$dir/cells.csv" --png "$dir/cells.png" | tee "$dir/table.md"
  echo "demo: all-reduce figure $dir/cells.png"
}

# In the background, so that a signal is handled at once (bash runs a trap
# only once a foreground command has finished).
rc=0
python3 bench/sweep/demo.py "${ARGS[@]}" -- "${SWEEP_ARGS[@]}" &
CHILD=$!
wait "$CHILD" || rc=$?
CHILD=""
if [ "$rc" -eq 0 ] && [ "$ON" = cluster ] && [ "$TINY" = 0 ]; then
  allreduce_part &
  CHILD=$!
  wait "$CHILD" || rc=$?
  CHILD=""
fi
cleanup
trap - EXIT
took="$((SECONDS / 60)):$(printf %02d $((SECONDS % 60)))"
if [ "$rc" -eq 0 ]; then echo "demo: done in $took"; else echo "demo: failed (exit status $rc) after $took" >&2; fi
exit "$rc"
