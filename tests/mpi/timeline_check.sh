#!/bin/sh
# timeline_check.sh PREFIX ROUND_PY MPIRUN-COMMAND...: runs test_timeline_nbc
# with PAT_TIMELINE=PREFIX on fresh files, then checks them with round.py.
prefix=$1
script=$2
shift 2
rm -f "$prefix".*
"$@" || exit 1
exec python3 "$script" "$prefix" --check prefetch=6,ring=2,mpi-own=2,nbc=5 --late-odd
