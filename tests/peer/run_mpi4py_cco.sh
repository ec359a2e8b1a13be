#!/usr/bin/env bash
# Peer run: mpi4py's collective tests (test/test_cco_*.py of the mpi4py release that
# Debian's python3-mpi4py is, from a checkout of mpi4py's sources, which this repository
# does not carry; for 3.1.4 from a bare mirror:
#   git --git-dir=MIRROR archive 3.1.4 test | tar x -C /tmp/mpi4py, then /tmp/mpi4py/test)
# under the drop-in, in two parts:
#   allgather  test_cco_buf, _vec, _obj, _nb_buf, _nb_vec, every PAT_ALG setting that
#              runs libpat's schedules, native and auto with nodes, P = 2, 3, 5;
#   allreduce  test_cco_buf and test_cco_nb_buf, the modules that call MPI_Allreduce and
#              MPI_Iallreduce (plain and in place, every array type mpi4py has, on
#              MPI_COMM_SELF, MPI_COMM_WORLD and duplicates; Reduce, Reduce_scatter and
#              the rest there are MPI's own), under every PAT_ALLREDUCE setting: native,
#              ring, rdb, rabenseifner, relay, slt, hring and hrelay on nodes of 2, and
#              auto with a node a rank (PAT_NODE_SIZE=1), P = 2, 3, 4, 5, 8.  (Debian's package ships no tests,
#              and mpi4py's lower-case allreduce of Python objects is point-to-point or
#              an all-gather, not MPI_Allreduce.)
#   bash tests/peer/run_mpi4py_cco.sh MPI4PY_TEST_DIR
# Needs build/ (bench/setup.sh; PAT_PEER_LIB names another libpat_mpi.so) and
# /usr/bin/python3 with mpi4py and numpy; PAT_PEER_PARTS="allreduce" runs one part.  Each
# launch is bounded (300 s); prints one line per failure and "N passed, N failed".
set -u
dir=${1:?usage: run_mpi4py_cco.sh MPI4PY_TEST_DIR}
. "$(dirname "$0")/peer_lib.sh"
peer_lib run_mpi4py_cco.sh
cd "$dir" || exit 2
pass=0 fail=0

# one_case TEST NP SETTING: a launch, counted
one_case() {
  local out rc
  out=$(timeout 300 mpirun -np "$2" --oversubscribe env LD_PRELOAD="$lib" $3 /usr/bin/python3 -m unittest "$1" 2>&1)
  rc=$?
  if [ $rc = 0 ] && grep -q "^OK" <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $1 np $2 $3 (rc $rc): $(grep -E 'FAIL:|ERROR:|Ran ' <<<"$out" | head -3 | tr '\n' ' ')"
  fi
}

for part in ${PAT_PEER_PARTS:-allgather allreduce}; do
  case $part in
    allgather)
      for t in test_cco_buf test_cco_vec test_cco_obj test_cco_nb_buf test_cco_nb_vec; do
        for setting in "PAT_ALG=native" "PAT_ALG=ring" "PAT_ALG=relay" "PAT_ALG=direct" "PAT_ALG=hrelay PAT_NODE_SIZE=2" \
                       "PAT_ALG=auto PAT_ONE_NODE=auto PAT_NODE_SIZE=2"; do
          for np in 2 3 5; do one_case "$t" "$np" "$setting"; done
        done
        echo "$t: done"
      done
      ;;
    allreduce)
      for t in test_cco_buf test_cco_nb_buf; do
        for setting in "PAT_ALLREDUCE=native" "PAT_ALLREDUCE=ring" "PAT_ALLREDUCE=rdb" "PAT_ALLREDUCE=rabenseifner" \
                       "PAT_ALLREDUCE=relay" "PAT_ALLREDUCE=slt" "PAT_ALLREDUCE=hring PAT_NODE_SIZE=2" \
                       "PAT_ALLREDUCE=hrelay PAT_NODE_SIZE=2" "PAT_ALLREDUCE=auto PAT_NODE_SIZE=1"; do
          for np in 2 3 4 5 8; do one_case "$t" "$np" "$setting"; done
        done
        echo "$t (all-reduce settings): done"
      done
      ;;
    *) echo "run_mpi4py_cco.sh: no part $part (allgather, allreduce)" >&2; exit 2 ;;
  esac
done
echo "$pass passed, $fail failed"
