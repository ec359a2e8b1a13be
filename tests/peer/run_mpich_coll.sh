#!/usr/bin/env bash
# Peer run: MPICH's tests of the other collectives (test/mpi/coll: all-to-all(v, w), broadcast,
# gather(v), scatter(v), reduce, reduce-scatter, scan, the neighbourhood collectives, blocking,
# non-blocking and persistent) as unmodified programs under the drop-in: libpat's background
# thread and its interposed all-gathers and all-reduces beside every collective it leaves to MPI.
# The all-gather, all-reduce and non-blocking tests have scripts of their own (run_mpich_*.sh).
#   bash tests/peer/run_mpich_coll.sh MPICH_SOURCE_DIR [LAUNCHES]
# Settings: without the drop-in (what the MPI library alone gets); RELAY for both collectives with
# a node a rank (the thread started); HRELAY on nodes of two; auto with a node a rank; native.
# Environment: PAT_PEER_LIB, PAT_PEER_TESTS, PAT_PEER_NPS (default 2 4 5), PAT_PEER_SETTINGS
# (';'-separated), PEER_TIMEOUT (60 s) as in run_mpich_allgather.sh.  Prints a line per failure,
# a pass/fail table per setting and P, and "N passed, N failed" (exit status 1 if any failed).
set -u
. "$(dirname "$0")/peer_lib.sh"
peer_start run_mpich_coll.sh "$@"
cases=${PAT_PEER_TESTS:-"alltoallv alltoallv0 alltoallw1 alltoallw2 alltoallw_zeros bcastzerotype coll4 coll5 coll6
  coll7 coll8 coll9 coll10 coll13 exscan exscan2 gather gather2 gather_big gatherv ibarrier neighb_allgather
  neighb_allgatherv neighb_alltoall neighb_alltoallv neighb_alltoallw neighb_alltoallw2 p_neighb_allgather
  p_neighb_allgatherv p_neighb_alltoall p_neighb_alltoallv p_neighb_alltoallw red3 red4 red_scat_block
  red_scat_block2 redscat2 redscatbkinter redscatblk3 reduce reduce_local ring_neighbor_alltoall scantst scatter2
  scatter3 scattern scatterv uoplong"}
nps=${PAT_PEER_NPS:-"2 4 5"}
all_settings="none;PAT_ALG=relay PAT_ALLREDUCE=relay PAT_NODE_SIZE=1;PAT_ALG=hrelay PAT_ALLREDUCE=hrelay PAT_NODE_SIZE=2"
all_settings+=";PAT_ALG=auto PAT_NODE_SIZE=1;PAT_ALG=native"
IFS=';' read -r -a settings <<<"${PAT_PEER_SETTINGS:-$all_settings}"
peer_build run_mpich_coll.sh "$src" "$work"
# What a test asks of P (MPICH's testlist runs it only so): coll6, coll7 and gatherv a P that
# divides 10, gather_big eight ranks or more, ring_neighbor_alltoall one or two.
fits() {
  case $1 in
    coll6 | coll7 | gatherv) [ $((10 % $2)) = 0 ] ;;
    gather_big) [ "$2" -ge 8 ] ;;
    ring_neighbor_alltoall) [ "$2" -le 2 ] ;;
    *) true ;;
  esac
}
peer_run "$work"
