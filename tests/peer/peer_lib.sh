# What the peer runs (run_*.sh) share, sourced by them: the drop-in they preload and Open MPI's
# launch as root.  peer_lib SCRIPT sets lib to the absolute path of PAT_PEER_LIB (relative to the
# current directory) or of this checkout's build/libpat_mpi.so, or says SCRIPT has none and exits 2.
peer_lib() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  lib=${PAT_PEER_LIB:-$root/build/libpat_mpi.so}
  [ -f "$lib" ] || { echo "$1: no $lib (bash bench/setup.sh)" >&2; exit 2; }
  lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}
