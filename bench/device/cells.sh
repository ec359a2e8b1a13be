#!/usr/bin/env bash
# The emulated cluster with a core per rank, on the 16-core machine the device tool lends at times
# (run under ../shared/device's kit: bash .device-kit/run.sh bash bench/device/cells.sh OUT).
# Four measurements the 2-core machine cannot take cleanly, each bounded by one deadline so the whole
# run fits one device call (what is not reached is skipped and said so in the log):
#   bfs:   graph500 BFS (scale 20) native against the drop-in, P = 8 hosts, interleaved pairs whose
#          order alternates (as bench/bfs/run.sh);
#   pers:  P = 8, N = 4M, maxDelay 50 ms: MPI's own non-blocking all-gather per start, libpat's
#          persistent RELAY (runs started ahead of each start) and blocking DIRECT, each alone in its launch;
#   p16:   16 hosts x 1 rank, N = 1M, maxDelay 0 and 100 ms: native, ring, relay, auto alone each;
#   probe: 4 hosts x 4 ranks (shared memory inside a host): one short launch (HRELAY, 3 calls);
#   nodes: when the probe gave its row, that shape again: native, ring, hring, hrelay, auto alone each
#          at maxDelay 0 and 100 ms.
# No model file anywhere (a new user's setting). All at 500 Mbit/s. Rows: OUT/cells.csv (pat-minibench,
# label step/round/N/delay/alg), OUT/bfs.csv, the launches' output in OUT/log.txt.
#   KIT=.device-kit DEADLINE_S=470 ROUNDS=2 PAIRS=5 STEPS="probe bfs pers p16 nodes" bash bench/device/cells.sh OUT
# DRY=1 runs every step tiny (for a check on this machine before spending device time).
set -uo pipefail
OUT=${1:?usage: cells.sh OUTDIR}
cd "$(dirname "$0")/../.."
KIT=${KIT:-.device-kit}
MB=$KIT/proj/pat-minibench LIB=$PWD/$KIT/proj/libpat_mpi.so G500=$KIT/proj/graph500_mpi_replicated
CL=$KIT/cluster/pat-cluster
ROUNDS=${ROUNDS:-2} PAIRS=${PAIRS:-5} STEPS=${STEPS:-probe bfs pers p16 nodes} RATE=${RATE:-500mbit}
SCALE=20 BIG=4M MID=1M ITERS=12 WARM=3 DELAYS="0 100" PDELAY=50
if [ "${DRY:-0}" = 1 ]; then SCALE=16 BIG=64K MID=16K ITERS=2 WARM=1 DELAYS="0 4" PDELAY=4 ROUNDS=1 PAIRS=1; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patd}
END=$(($(date +%s) + ${DEADLINE_S:-470}))
mkdir -p "$OUT"; LOG=$OUT/log.txt; : >"$LOG"
say() { echo "$*" | tee -a "$LOG"; }
left() { echo $((END - $(date +%s))); }
trap '$CL down >/dev/null 2>&1' EXIT

run() { # timeout-cap, then pat-cluster run's arguments; skipped when under 15 s are left
  local cap=$1 t; shift
  t=$(left); [ "$t" -lt 15 ] && { say "   skipped (deadline): $*"; return 99; }
  [ "$t" -gt "$cap" ] && t=$cap
  $CL run --timeout "$t" "$@" >>"${RUNLOG:-$LOG}" 2>&1
}
mb() { # label cap mpirun-args... -- minibench-args...
  local label=$1 cap=$2 s=$(date +%s); shift 2
  local mpi=() ; while [ "$1" != -- ]; do mpi+=("$1"); shift; done; shift
  echo "== $label" >>"$LOG"
  run "$cap" "${mpi[@]}" "$MB" --quiet --flat-iters 0 --iters "$ITERS" --warmup "$WARM" --base-ms 20 \
    --csv "$OUT/cells.csv" --label "$label" "$@"
  say "   $label rc $? $(( $(date +%s) - s )) s"
}
up() { $CL down >/dev/null 2>&1; $CL up "$@" >>"$LOG" 2>&1 || { say "up $* failed"; return 1; }; }

for step in $STEPS; do
  say "== step $step at $(date -u +%T), $(left) s left"
  case $step in
  bfs)
    up -n 8 --rate "$RATE" || continue
    echo "pair,variant,scale,P,mean_time_s,median_time_s" >"$OUT/bfs.csv"
    for pair in $(seq 1 "$PAIRS"); do
      order="native preload"; [ $((pair % 2)) = 0 ] && order="preload native"
      for v in $order; do
        env=(-x OMP_NUM_THREADS=1 -x SKIP_VALIDATION=1); [ $v = preload ] && env+=(-x "LD_PRELOAD=$LIB")
        s=$(date +%s); echo "== bfs $pair $v" >>"$LOG"
        : >"$OUT/bfs-run.log"; RUNLOG=$OUT/bfs-run.log run 120 -np 8 "${env[@]}" "$G500" "$SCALE"; rc=$?
        cat "$OUT/bfs-run.log" >>"$LOG"
        grep -q "Validation failed" "$OUT/bfs-run.log" && say "   validation failed"
        echo "$pair,$v,$SCALE,8,$(awk '/^mean_time:/{print $2}' "$OUT/bfs-run.log"),$(awk '/^median_time:/{print $2}' "$OUT/bfs-run.log")" >>"$OUT/bfs.csv"
        say "   bfs $pair $v rc $rc $(( $(date +%s) - s )) s"
      done
    done
    rm -f "$OUT/bfs-run.log" ;;
  pers)
    up -n 8 --rate "$RATE" || continue
    for r in $(seq 1 "$ROUNDS"); do
      mb "pers/$r/$BIG/$PDELAY/native-persistent" 60 -np 8 -x PAT_ALG=ring -- -N $BIG --max-delay $PDELAY --order blocked --persistent --overlap 0 --alg native
      mb "pers/$r/$BIG/$PDELAY/relay-persistent" 60 -np 8 -x PAT_ALG=ring -- -N $BIG --max-delay $PDELAY --order blocked --persistent --overlap 0 --alg relay
      mb "pers/$r/$BIG/$PDELAY/direct" 60 -np 8 -- -N $BIG --max-delay $PDELAY --alg direct
    done ;;
  p16)
    up -n 16 --rate "$RATE" || continue
    algs=(native ring relay auto)
    for r in $(seq 1 "$ROUNDS"); do for d in $DELAYS; do for i in 0 1 2 3; do
      a=${algs[$(((i + r) % 4))]}
      mb "p16/$r/$MID/$d/$a" 60 -np 16 -- -N $MID --max-delay "$d" --alg "$a"
    done; done; done ;;
  probe)
    up -n 4 --ranks-per-host 4 --rate "$RATE" || continue
    mb "nodes/probe/$MID/0/hrelay" 40 --np-all -- -N $MID --max-delay 0 --alg hrelay --iters 3 --warmup 1 ;;
  nodes)
    grep -q "nodes/probe" "$OUT/cells.csv" 2>/dev/null || { say "   no 4x4 probe row: nodes step skipped"; continue; }
    up -n 4 --ranks-per-host 4 --rate "$RATE" || continue
    algs=(native ring hring hrelay auto)
    for r in $(seq 1 "$ROUNDS"); do for d in $DELAYS; do for i in 0 1 2 3 4; do
      a=${algs[$(((i + r) % 5))]}
      mb "nodes/$r/$MID/$d/$a" 60 --np-all -- -N $MID --max-delay "$d" --alg "$a"
    done; done; done ;;
  esac
done
$CL down >/dev/null 2>&1
say "done at $(date -u +%T), $(left) s left"
