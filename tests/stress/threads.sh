#!/usr/bin/env bash
# The thread stress test (stress_threads), launched R times, each a fresh
# mpirun with its own seed, under a time limit; counts hangs and failures.
#
# usage: threads.sh [--runs R] [--np P] [--threads T] [--calls N] [--seed S]
#                   [--timeout SEC] [--bin PATH] [--mpirun PATH] [--mpirun-flags "FLAGS"] [--logs DIR]
#
#   --mpirun-flags: the launcher's flags before the program (default Open MPI's
#   "--oversubscribe --bind-to none"; MPICH's mpiexec takes none of them)
#   defaults: --runs 2 --np 2 --threads 3 --calls 25 --seed 1 --timeout 90
#   launch i uses seed S+i; a failure's log names it (reproduce with
#   stress_threads --seed S+i ...).  The program's watchdog, at two thirds of
#   --timeout, prints every thread's stack (gdb) and aborts a hung launch.
# Last line: "threads: R runs, H hangs, F failures"; exit status 1 if H + F > 0.
set -u
runs=2 np=2 T=3 calls=25 seed=1 limit=90 bin= mpirun=mpirun logs=
mpirun_flags="--oversubscribe --bind-to none"
here=$(cd "$(dirname "$0")" && pwd)
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --threads) T=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --mpirun-flags) mpirun_flags=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    *) sed -n '5,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
bin=$(realpath "${bin:-$here/../../build/tests/stress/stress_threads}")
[ -x "$bin" ] || { echo "threads.sh: no program $bin (build first, or --bin)" >&2; exit 2; }
logs=${logs:-$(mktemp -d /tmp/stress_threads.XXXXXX)}
mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
hangs=0 failures=0
for i in $(seq 0 $((runs - 1))); do
  s=$((seed + i)) log="$logs/run$i.log"
  timeout -k 10 "$limit" "$mpirun" -np "$np" $mpirun_flags "$bin" --seed "$s" --threads "$T" \
    --calls "$calls" --timeout $((limit * 2 / 3)) >"$log" 2>&1
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ] || grep -q '^HANG' "$log"; then
    hangs=$((hangs + 1)); echo "threads: run $i (seed $s) HUNG, log $log"
  elif [ $rc -ne 0 ]; then
    failures=$((failures + 1)); echo "threads: run $i (seed $s) FAILED ($rc), log $log"
  else
    rm -f "$log"
  fi
done
echo "threads: $runs runs, $hangs hangs, $failures failures (np $np, $T threads, $calls calls per algorithm)"
[ $((hangs + failures)) -eq 0 ]
