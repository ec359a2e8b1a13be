#!/bin/sh
# timeline_check.sh PREFIX ROUND_PY MPIRUN-COMMAND...: runs test_timeline_nbc
# with PAT_TIMELINE=PREFIX (on fresh files) and PAT_REPORT=1, then checks the
# files with round.py and the report's rows of its calls (per rank: 6
# persistent RELAY starts (each a queued call too), 5 non-blocking ring calls
# (3 calls, 2 starts), 3 RELAY calls, 2 ring starts, 2 of MPI's own, shown as in-start where one completed
# inside PAT_Start).
prefix=$1
script=$2
shift 2
rm -f "$prefix".*
out=$prefix.out
"$@" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || exit 1
for row in "persistent +relay .* 6 " "non-blocking +ring .* 5 " "non-blocking +relay .* 9 " "persistent +ring .* 2 " \
           "persistent +(mpi-own|in-start) "; do
  grep -Eq "libpat report: $row" "$out" || { echo "FAIL: no report row '$row'"; exit 1; }
done
exec python3 "$script" "$prefix" --check relay=6,ring=2,mpi-own=2,nbc=14 --late
