# Fortran, where there is a Fortran compiler and the MPI has Fortran
# bindings: the `pat` module for programs (src/fortran) and the Fortran
# drop-in tests.  A C-only machine builds everything else.  The drop-in's
# Fortran bindings (src/dropin/fortran_*.c) are C and are always built.
include(CheckLanguage)
check_language(Fortran)
set(PAT_FORTRAN OFF)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
  if(MPI_Fortran_FOUND)
    set(PAT_FORTRAN ON)
  else()
    message(STATUS "libpat: the MPI has no Fortran bindings: no Fortran module or Fortran tests")
  endif()
else()
  message(STATUS "libpat: no Fortran compiler: no Fortran module or Fortran tests")
endif()
