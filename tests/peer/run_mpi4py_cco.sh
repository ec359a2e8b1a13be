#!/usr/bin/env bash
# Peer run: mpi4py's collective tests (test/test_cco_*.py of the mpi4py release that
# Debian's python3-mpi4py is, from a checkout of mpi4py's sources, which this repository
# does not carry) under the drop-in, every setting that runs libpat's schedules, native
# and auto with nodes, P = 2, 3, 5.
#   bash tests/peer/run_mpi4py_cco.sh MPI4PY_TEST_DIR
# Needs build/ (bench/setup.sh) and /usr/bin/python3 with mpi4py and numpy.  Each launch
# is bounded (300 s); prints one line per failure and "N passed, N failed".
set -u
dir=${1:?usage: run_mpi4py_cco.sh MPI4PY_TEST_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/build/libpat_mpi.so
[ -f "$lib" ] || { echo "run_mpi4py_cco.sh: no $lib (bash bench/setup.sh)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$dir" || exit 2
pass=0 fail=0
for t in test_cco_buf test_cco_vec test_cco_obj test_cco_nb_buf test_cco_nb_vec; do
  for setting in "PAT_ALG=native" "PAT_ALG=ring" "PAT_ALG=relay" "PAT_ALG=direct" "PAT_ALG=hrelay PAT_NODE_SIZE=2" \
                 "PAT_ALG=auto PAT_ONE_NODE=auto PAT_NODE_SIZE=2"; do
    for np in 2 3 5; do
      out=$(timeout 300 mpirun -np "$np" --oversubscribe env LD_PRELOAD="$lib" $setting /usr/bin/python3 -m unittest "$t" 2>&1)
      rc=$?
      if [ $rc = 0 ] && grep -q "^OK" <<<"$out"; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1))
        echo "FAIL $t np $np $setting (rc $rc): $(grep -E 'FAIL:|ERROR:|Ran ' <<<"$out" | head -3 | tr '\n' ' ')"
      fi
    done
  done
  echo "$t: done"
done
echo "$pass passed, $fail failed"
