! libpat's own API from Fortran (module pat, libpat_fortran): PAT_Init,
! instrumented iterations (PAT_ProcessingStart / PAT_Edge / PAT_ProcessingEnd)
! around PAT_Allgather, in place and not, under each algorithm named on the
! command line (PAT_UseAlg), then PAT_Finalize.  Every element is compared
! with the value its owner put there; every call must return MPI_SUCCESS.
program test_pat_module
  use mpi
  use pat
  implicit none
  integer, parameter :: n = 257, iterations = 6
  integer :: rank, nprocs, ierr, rc, a, it, i, q, failures, worst
  integer, allocatable :: mine(:), all(:)
  character(32) :: alg

  failures = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call check('PAT_Init', PAT_Init())
  allocate (mine(n), all(n * nprocs))
  do a = 1, command_argument_count()
    call get_command_argument(a, alg)
    call check('PAT_UseAlg ' // trim(alg), PAT_UseAlg(alg))
    do it = 1, iterations
      call check('PAT_ProcessingStart', PAT_ProcessingStart())
      mine = [(val(rank, i, it + 10 * a), i = 1, n)]
      call check('PAT_Edge', PAT_Edge(50d0))
      call check('PAT_ProcessingEnd', PAT_ProcessingEnd())
      all = -1
      call check('PAT_Allgather', PAT_Allgather(mine, n, MPI_INTEGER, all, n, MPI_INTEGER, MPI_COMM_WORLD))
      call expect(trim(alg))
      all = -1
      all(rank * n + 1:rank * n + n) = mine
      call check('PAT_Allgather in place', &
                 PAT_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INTEGER, MPI_COMM_WORLD))
      call expect(trim(alg) // ' in place')
    end do
  end do
  call check('PAT_Finalize', PAT_Finalize())
  call MPI_ALLREDUCE(failures, worst, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,a)', 'Fortran module pat, P=', nprocs, ': ', merge('passed', 'FAILED', worst == 0)
  call MPI_FINALIZE(ierr)
  if (worst /= 0) stop 1

contains

  integer function val(r, i, salt)
    integer, intent(in) :: r, i, salt
    val = r * 100003 + i * 7 + salt
  end function val

  subroutine check(what, code)
    character(*), intent(in) :: what
    integer, intent(in) :: code
    if (code /= MPI_SUCCESS) then
      write (0, '(a,i0,a,a,a,i0)') 'FAIL rank ', rank, ': ', what, ' returned ', code
      failures = failures + 1
    end if
  end subroutine check

  subroutine expect(what)
    character(*), intent(in) :: what
    do q = 0, nprocs - 1
      do i = 1, n
        if (all(q * n + i) /= val(q, i, it + 10 * a)) then
          write (0, '(a,i0,a,a,a,i0)') 'FAIL rank ', rank, ': ', what, ': wrong element ', q * n + i
          failures = failures + 1
          return
        end if
      end do
    end do
  end subroutine expect
end program test_pat_module
