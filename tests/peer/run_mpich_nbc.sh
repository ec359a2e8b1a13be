#!/usr/bin/env bash
# Peer run: MPICH's own tests of non-blocking collectives (test/mpi/coll/nonblocking.c,
# nonblocking2.c, nonblocking3.c, from a checkout of MPICH's sources, which this
# repository does not carry) as unmodified programs under the drop-in, every setting
# that runs libpat's schedules, native and auto with nodes, P = 2, 3, 4, 5, 8.
#   bash tests/peer/run_mpich_nbc.sh MPICH_SOURCE_DIR [LAUNCHES]
# Needs build/ (bench/setup.sh; PAT_PEER_LIB names another libpat_mpi.so).  Each launch
# is bounded (60 s: a hang counts as a failure); prints one line per case and "N passed,
# N failed".
set -u
src=${1:?usage: run_mpich_nbc.sh MPICH_SOURCE_DIR [LAUNCHES]}
launches=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer_lib.sh"
peer_lib run_mpich_nbc.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in nonblocking nonblocking2 nonblocking3; do
  mpicc -O1 -I"$here" -o "$work/$t" "$src/test/mpi/coll/$t.c" || exit 2
done
pass=0 fail=0
for t in nonblocking nonblocking2 nonblocking3; do
  for setting in "PAT_ALG=native" "PAT_ALG=ring" "PAT_ALG=relay" "PAT_ALG=direct" "PAT_ALG=hrelay PAT_NODE_SIZE=2" \
                 "PAT_ALG=auto PAT_ONE_NODE=auto PAT_NODE_SIZE=2"; do
    for np in 2 3 4 5 8; do
      for _ in $(seq "$launches"); do
        out=$(timeout 60 mpirun -np "$np" --oversubscribe env LD_PRELOAD="$lib" $setting "$work/$t" 2>&1)
        rc=$?
        if [ $rc = 0 ] && grep -q "No Errors" <<<"$out"; then
          pass=$((pass + 1))
        else
          fail=$((fail + 1))
          echo "FAIL $t np $np $setting (rc $rc): $(tail -2 <<<"$out" | tr '\n' ' ')"
        fi
      done
    done
    echo "$t $setting: done"
  done
done
echo "$pass passed, $fail failed"
