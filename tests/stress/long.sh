#!/usr/bin/env bash
# The long conformance stress run (issue 13): random cases of every algorithm
# at P = 2..8, then the defect-7 churn loop launched many times.  See
# tests/stress/README.md.
#
# usage: long.sh [--build DIR] [--logs DIR] [--nps "2 3 4 5 6 7 8"] [--cases-per-alg N]
#                [--chunk N] [--seed S] [--free-under ALG|none] [--churn-runs R] [--timeout SEC]
#
#   --cases-per-alg 300   random cases per algorithm at each P (10 algorithms)
#   --chunk 500           cases per launch (launch i runs cases i*chunk ..; a hang
#                         or crash loses at most one chunk)
#   --seed 1000           P's cases use seed S + P
#   --free-under ALG      passed to stress_conformance (free communicators and
#                         finalize under ALG); none (the default): free
#                         under the case's own setting
#   --churn-runs 500      launches of stress_churn with bslb at P=4
#   --timeout 120         the programs' watchdog: a phase stuck this long is a hang
#
# Every launch's output is kept in the logs directory (default
# /tmp/stress_long.<time>); the last lines are the totals.  Exit status 1 if
# any case failed or hung.
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build logs= nps="2 3 4 5 6 7 8" per_alg=300 chunk=500 seed=1000 free_under=none churn_runs=500 limit=120
algs=native,ring,nex,rdb,bruck,lnbc,bdr,bslb,ard,direct,auto
nalgs=11

usage() {
  sed -n '6,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --nps) nps=$2; shift 2 ;;
    --cases-per-alg) per_alg=$2; shift 2 ;;
    --chunk) chunk=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --free-under) free_under=$2; shift 2 ;;
    --churn-runs) churn_runs=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) usage ;;
  esac
done

bin=$(realpath "$build/tests/stress/stress_conformance")
[ -x "$bin" ] || { echo "long.sh: no $bin (build first, or --build)" >&2; exit 2; }
logs=${logs:-/tmp/stress_long.$(date +%Y%m%d-%H%M%S)}
mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
under=()
[ "$free_under" != none ] && under=(--free-under "$free_under")
counts=$logs/counts # lines: P alg cases
: > "$counts"
failed_cases=0 hangs=0 crashes=0 t0=$SECONDS

# Per-algorithm counts from a launch's summary line: "... N cases (native 50, ring 50, ...), T s".
record_counts() {
  grep -m 1 '^stress_conformance: seed=' "$2" | sed 's/.*cases (//; s/), .*//' | tr ',' '\n' |
    awk -v P="$1" 'NF == 2 {print P, $1, $2}' >> "$counts"
}

# One launch of cases first .. first+n-1 at P; classifies it by its output.
run_chunk() {
  local P=$1 first=$2 n=$3 log="$logs/conformance.np$1.first$2.log" rc
  timeout -k 30 $((5 * limit + n * 2)) mpirun -np "$P" --oversubscribe --bind-to none "$bin" --seed $((seed + P)) \
    --first "$first" --cases "$n" --algs "$algs" --timeout "$limit" "${under[@]}" > "$log" 2>&1
  rc=$?
  record_counts "$P" "$log"
  local failed
  failed=$(grep -m 1 -E '^[0-9]+ passed, [0-9]+ failed' "$log" | awk '{print $3}')
  failed_cases=$((failed_cases + ${failed:-0}))
  if grep -q '^HANG' "$log" || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    hangs=$((hangs + 1))
    echo "  P=$P cases $first..$((first + n - 1)): HANG (log $log)"
    grep -m 1 -A 1 '^HANG' "$log" | sed 's/^/    /'
  elif [ "$rc" != 0 ] && [ "${failed:-0}" = 0 ]; then
    crashes=$((crashes + 1))
    echo "  P=$P cases $first..$((first + n - 1)): exit status $rc without a summary (log $log)"
  elif [ "${failed:-0}" != 0 ]; then
    echo "  P=$P cases $first..$((first + n - 1)): $failed failed cases (log $log)"
    grep -m 3 -A 3 '^FAIL' "$log" | sed 's/^/    /'
  fi
}

echo "long stress run: P in {$nps}, $per_alg cases per algorithm at each P, chunks of $chunk," \
  "seed $seed+P, free-under $free_under; logs in $logs"
total=$((per_alg * nalgs))
for P in $nps; do
  start=$SECONDS
  for ((first = 0; first < total; first += chunk)); do
    n=$((total - first < chunk ? total - first : chunk))
    run_chunk "$P" "$first" "$n"
  done
  echo "P=$P: $(awk -v P="$P" '$1 == P {s += $3} END {print s + 0}' "$counts") cases in $((SECONDS - start)) s"
done
conf_time=$((SECONDS - t0))

echo "cases per algorithm (over P = ${nps// /,}):"
awk '{s[$2] += $3; t += $3} END {for (a in s) printf "  %-7s %d\n", a, s[a]; printf "  total   %d\n", t}' "$counts" | sort
echo "conformance: $(awk '{t += $3} END {print t + 0}' "$counts") cases, $failed_cases failed cases," \
  "$hangs hangs, $crashes launches ended without a summary, $conf_time s"

churn_start=$SECONDS
"$here/churn.sh" --runs "$churn_runs" --np 4 --alg bslb --timeout $((limit * 3 / 2)) --bin "$build/tests/stress/stress_churn" \
  --logs "$logs/churn" | grep -E '^(churn:|\(|run )'
churn_rc=${PIPESTATUS[0]}
echo "churn time: $((SECONDS - churn_start)) s; total wall time: $((SECONDS - t0)) s"
[ "$failed_cases" = 0 ] && [ "$hangs" = 0 ] && [ "$crashes" = 0 ] && [ "$churn_rc" = 0 ]
