#!/usr/bin/env bash
# The churn loop of defect 7, launched R times (each a fresh mpirun: the hang
# showed per run), with a time limit per launch; counts hangs and failures.
#
# usage: churn.sh [--runs R] [--np P] [--alg NAME] [--reps N] [--timeout SEC]
#                 [--bin PATH] [--mpirun PATH] [--mpirun-flags "FLAGS"] [--logs DIR] [--stacks]
#
#   --runs 10 --np 4 --alg bslb --reps 1 --timeout 120 (defaults)
#   --bin     stress_churn (default: build/tests/stress/stress_churn)
#   --mpirun-flags  the launcher's flags before the program (default Open MPI's
#             "--oversubscribe --bind-to none"; ctest passes cmake/PatMpiLauncher.cmake's)
#   --logs    where logs of failed and hung runs go (default: a new /tmp/stress_churn.* directory)
#   --stacks  on a hang, save every rank's threads' stacks (gdb) next to the
#             log instead of letting the program's watchdog abort it
#
# A launch hangs if it outlives --timeout, or if stress_churn's own watchdog
# (at two thirds of it) reports "HANG"; it fails on any other nonzero exit.
# Last line: "churn: R runs, H hangs, F failures"; exit status 1 if H + F > 0.
set -u

runs=10 np=4 alg=bslb reps=1 limit=120 bin= mpirun=mpirun logs= stacks=0
mpirun_flags="--oversubscribe --bind-to none"
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  sed -n '5,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --alg) alg=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --mpirun-flags) mpirun_flags=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --stacks) stacks=1; shift ;;
    *) usage ;;
  esac
done

bin=$(realpath "${bin:-$here/../../build/tests/stress/stress_churn}")
[ -x "$bin" ] || { echo "churn.sh: no program $bin (build first, or --bin)" >&2; exit 2; }
logs=${logs:-$(mktemp -d /tmp/stress_churn.XXXXXX)}
mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
watchdog=$((limit * 2 / 3))
[ "$stacks" = 1 ] && watchdog=0

# The ranks of one launch: processes running $bin whose parent is that mpirun
# (Open MPI; under MPICH their parent is Hydra's proxy, and a hung launch's
# ranks end with the proxy when mpiexec is killed).
ranks_of() {
  local d a0 parent
  for d in /proc/[0-9]*; do
    a0=$(tr '\0' '\n' < "$d/cmdline" 2>/dev/null | head -n 1)
    [ "$a0" = "$bin" ] || continue
    parent=$(awk '/^PPid:/ {print $2}' "$d/status" 2>/dev/null)
    [ "$parent" = "$1" ] && echo "${d#/proc/}"
  done
}

save_stacks() {
  local out=$1 pid
  shift
  for pid in "$@"; do
    echo "=== rank process $pid"
    gdb -p "$pid" -batch -ex "thread apply all bt" 2>/dev/null | grep -E '^(#|Thread)'
  done > "$out" 2>&1
}

# Ends a hung launch: mpirun, then any of its ranks still there (by pid).
end_launch() {
  local mpid=$1 log=$2 pids
  pids=$(ranks_of "$mpid")
  [ "$stacks" = 1 ] && [ -n "$pids" ] && save_stacks "$log.stacks" $pids
  kill -TERM "$mpid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$mpid" 2>/dev/null
  for pid in $pids; do kill -KILL "$pid" 2>/dev/null; done
  wait "$mpid" 2>/dev/null
}

# One launch: prints ok, hang or fail.
launch() {
  local log=$1 start=$SECONDS rc
  # shellcheck disable=SC2086 # the flags are words
  "$mpirun" -np "$np" $mpirun_flags "$bin" --alg "$alg" --reps "$reps" --timeout "$watchdog" \
    > "$log" 2>&1 &
  local mpid=$!
  while kill -0 "$mpid" 2>/dev/null && [ $((SECONDS - start)) -lt "$limit" ]; do sleep 0.2; done
  if kill -0 "$mpid" 2>/dev/null; then
    echo "churn.sh: launch still running after ${limit} s" >> "$log"
    end_launch "$mpid" "$log"
    echo hang
    return
  fi
  wait "$mpid"
  rc=$?
  if grep -q '^HANG' "$log"; then echo hang
  elif [ "$rc" -ne 0 ]; then echo fail
  else echo ok
  fi
}

hangs=0 failures=0 t0=$SECONDS
for i in $(seq "$runs"); do
  log="$logs/run$i.log"
  result=$(launch "$log")
  case "$result" in
    hang)
      hangs=$((hangs + 1))
      echo "run $i: HANG, log $log"
      grep -m 3 '^HANG' "$log"
      [ -f "$log.stacks" ] && echo "  stacks of the ranks: $log.stacks" ;;
    fail) failures=$((failures + 1)); echo "run $i: FAILED, log $log"; grep -m 3 -E '^(FAIL|HANG)' "$log" ;;
    *) rm -f "$log" ;;
  esac
done
echo "churn: $runs runs, $hangs hangs, $failures failures"
echo "(alg=$alg P=$np reps=$reps per launch, $((SECONDS - t0)) s; logs of failed or hung runs in $logs)"
[ $((hangs + failures)) -eq 0 ]
