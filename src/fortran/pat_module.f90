! libpat from Fortran: module `pat` (pat.mod, installed next to pat.h).
! The functions are C's (include/pat.h) with the same names and results, an
! MPI error code (MPI_SUCCESS = 0); handles are Fortran integer handles (from
! mpif.h or `use mpi`; with mpi_f08 pass comm%MPI_VAL, type%MPI_VAL).
!
!   ierr = PAT_Init()                  after MPI_INIT*, collective
!   ierr = PAT_ProcessingStart()       the compute phase begins
!   ierr = PAT_Edge(50d0)              half of it is done
!   ierr = PAT_ProcessingEnd()
!   ierr = PAT_Allgather(mine, n, MPI_REAL, all, n, MPI_REAL, MPI_COMM_WORLD)
!   ierr = PAT_Allgatherv(mine, n, MPI_REAL, all, counts, displs, MPI_REAL, MPI_COMM_WORLD)
!   ierr = PAT_UseAlg('ring')
!   ierr = PAT_PredictOn(comm)         the next predictions are for comm's next all-gather
!   ierr = PAT_Waited(request)         after MPI_WAIT / MPI_TEST of a persistent all-gather's request
!                                      (the drop-in's MPI_ALLGATHER_INIT): its time in PAT_TIMELINE
!   ierr = PAT_Finalize()              before MPI_FINALIZE, collective
!
! Under libpat_mpi (linked) only the instrumentation calls are needed: the
! drop-in runs PAT_Init/PAT_Finalize and takes MPI_ALLGATHER and
! MPI_ALLGATHERV over itself.
module pat
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_null_char
  implicit none
  private
  public :: PAT_Init, PAT_Finalize, PAT_ProcessingStart, PAT_Edge, PAT_ProcessingEnd, PAT_UseAlg, PAT_Allgather, &
            PAT_Allgatherv, PAT_PredictOn, PAT_Waited

  interface
    integer(c_int) function PAT_Init() bind(C, name="PAT_Init")
      import :: c_int
    end function PAT_Init
    integer(c_int) function PAT_Finalize() bind(C, name="PAT_Finalize")
      import :: c_int
    end function PAT_Finalize
    integer(c_int) function PAT_ProcessingStart() bind(C, name="PAT_ProcessingStart")
      import :: c_int
    end function PAT_ProcessingStart
    integer(c_int) function PAT_Edge(percent) bind(C, name="PAT_Edge")
      import :: c_int, c_double
      real(c_double), value :: percent
    end function PAT_Edge
    integer(c_int) function PAT_ProcessingEnd() bind(C, name="PAT_ProcessingEnd")
      import :: c_int
    end function PAT_ProcessingEnd
    integer(c_int) function c_use_alg(name) bind(C, name="PAT_UseAlg")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function c_use_alg
    ! pat_fortran.c: Fortran handles and sentinels (MPI_IN_PLACE, MPI_BOTTOM)
    ! to C's.  The buffers are addresses of any type and rank, scalars too
    ! (MPI_IN_PLACE): gfortran's NO_ARG_CHECK, as the MPI libraries' own
    ! modules do; other compilers ignore the directive.
    integer(c_int) function PAT_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) &
        bind(C, name="pat_allgather_f")
      import :: c_int
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf, recvbuf
      type(*), dimension(*), intent(in) :: sendbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
    end function PAT_Allgather
    integer(c_int) function PAT_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
                                           comm) bind(C, name="pat_allgatherv_f")
      import :: c_int
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf, recvbuf
      type(*), dimension(*), intent(in) :: sendbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, recvcounts(*), displs(*), sendtype, recvtype, comm
    end function PAT_Allgatherv
    integer(c_int) function PAT_PredictOn(comm) bind(C, name="pat_predict_on_f")
      import :: c_int
      integer, intent(in) :: comm
    end function PAT_PredictOn
    integer(c_int) function PAT_Waited(request) bind(C, name="pat_waited_f")
      import :: c_int
      integer, intent(in) :: request
    end function PAT_Waited
  end interface

contains

  ! C wants a NUL-terminated string
  integer function PAT_UseAlg(name)
    character(*), intent(in) :: name
    PAT_UseAlg = c_use_alg(trim(name) // c_null_char)
  end function PAT_UseAlg
end module pat
