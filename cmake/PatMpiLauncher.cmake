# Which MPI libpat is built against, and how its tests launch programs: the
# one place that knows launcher flags and environment of a particular MPI.
# Every test registration uses ${PAT_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} N
# ${PAT_MPIEXEC_FLAGS} prog and the ctest ENVIRONMENT ${PAT_MPIRUN_ENV}.
#
#   PAT_MPI_IMPL       OpenMPI, MPICH or unknown (the macro mpi.h defines)
#   PAT_MPIEXEC_FLAGS  flags for running more ranks than cores, unbound (and
#                      the cache variable PAT_MPIEXEC_EXTRA_FLAGS, empty)
#   PAT_MPIRUN_ENV     environment of the launcher (a ;-list)
#
# The MPI is chosen at configure time (README "Building for Open MPI or
# MPICH"): -DMPI_C_COMPILER=..., -DMPIEXEC_EXECUTABLE=... and, for Fortran,
# -DMPI_Fortran_COMPILER=....
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
check_symbol_exists(OPEN_MPI mpi.h PAT_HAVE_OPEN_MPI)
check_symbol_exists(MPICH mpi.h PAT_HAVE_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
if(PAT_HAVE_OPEN_MPI)
  set(PAT_MPI_IMPL OpenMPI)
elseif(PAT_HAVE_MPICH)
  set(PAT_MPI_IMPL MPICH)
else()
  set(PAT_MPI_IMPL unknown)
endif()

if(PAT_MPI_IMPL STREQUAL "OpenMPI")
  # mpirun refuses more ranks than cores, binds ranks to cores, and refuses
  # root (the CI container) without these
  set(PAT_MPIEXEC_FLAGS_DEFAULT --oversubscribe --bind-to none)
  set(PAT_MPIRUN_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
else()
  # MPICH's Hydra runs any number of ranks, unbound, as any user
  set(PAT_MPIEXEC_FLAGS_DEFAULT "")
  set(PAT_MPIRUN_ENV "")
endif()
# The tests run on one node, where auto without a model file defers to NATIVE
# (PAT_ONE_NODE): they exercise auto's exchanges and choices as on a network,
# and the tests of the default set PAT_ONE_NODE=native themselves.
list(APPEND PAT_MPIRUN_ENV "PAT_ONE_NODE=auto")
set(PAT_MPIEXEC_EXTRA_FLAGS "" CACHE STRING "more flags the tests give the MPI launcher before the program")
set(PAT_MPIEXEC_FLAGS ${PAT_MPIEXEC_FLAGS_DEFAULT} ${PAT_MPIEXEC_EXTRA_FLAGS})
set(PAT_MPIEXEC ${MPIEXEC_EXECUTABLE})
message(STATUS "libpat: MPI ${PAT_MPI_IMPL}, tests launch with ${PAT_MPIEXEC} ${PAT_MPIEXEC_FLAGS}")
