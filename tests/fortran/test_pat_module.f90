! libpat's own API from Fortran (module pat, libpat_fortran): PAT_Init,
! instrumented iterations (PAT_ProcessingStart / PAT_Edge / PAT_ProcessingEnd)
! around PAT_Allgather and PAT_Allgatherv, in place and not, under each
! algorithm named on the command line (PAT_UseAlg), then PAT_Finalize.  Every
! element is compared with the value its owner put there (and the gaps of
! PAT_Allgatherv's receive buffer must be untouched); every call must return
! MPI_SUCCESS.  PAT_PredictOn: the phases' predictions go to a duplicate of
! MPI_COMM_WORLD before its first all-gather (collective there: libpat's state
! for it is made then), whose results are checked the same way; MPI_COMM_NULL
! is refused with an error code (the handle reached C as C's MPI_COMM_NULL).
program test_pat_module
  use mpi
  use pat
  implicit none
  integer, parameter :: n = 257, iterations = 6
  integer :: rank, nprocs, ierr, rc, a, it, i, q, failures, worst, total, dup
  integer, allocatable :: mine(:), all(:), counts(:), displs(:), vall(:)
  character(32) :: alg

  failures = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call check('PAT_Init', PAT_Init())
  allocate (mine(n), all(n * nprocs))
  ! PAT_Allgatherv: rank q gives n - 2q elements (at least 0), placed in
  ! reverse rank order, a gap of 3 after each block (not before: MPICH 4.0's
  ! own MPI_Allgatherv, which auto and native run, puts a single process's
  ! block at the start of the buffer whatever its displacement)
  allocate (counts(nprocs), displs(nprocs))
  total = 0
  do q = nprocs - 1, 0, -1
    counts(q + 1) = max(0, n - 2 * q)
    displs(q + 1) = total
    total = total + counts(q + 1) + 3
  end do
  allocate (vall(total + 2))
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
      vall = -1
      call check('PAT_Allgatherv', PAT_Allgatherv(mine, counts(rank + 1), MPI_INTEGER, vall, counts, displs, &
                                                  MPI_INTEGER, MPI_COMM_WORLD))
      call expectv(trim(alg) // ' PAT_Allgatherv')
      vall = -1
      vall(displs(rank + 1) + 1:displs(rank + 1) + counts(rank + 1)) = mine(1:counts(rank + 1))
      call check('PAT_Allgatherv in place', PAT_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vall, counts, &
                                                           displs, MPI_INTEGER, MPI_COMM_WORLD))
      call expectv(trim(alg) // ' PAT_Allgatherv in place')
    end do
  end do
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  a = command_argument_count() + 1
  call check('PAT_UseAlg auto', PAT_UseAlg('auto'))
  do it = 1, iterations
    call check('PAT_PredictOn dup', PAT_PredictOn(dup))
    call check('PAT_ProcessingStart', PAT_ProcessingStart())
    mine = [(val(rank, i, it + 10 * a), i = 1, n)]
    call check('PAT_Edge', PAT_Edge(50d0))
    call check('PAT_ProcessingEnd', PAT_ProcessingEnd())
    all = -1
    call check('PAT_Allgather on dup', PAT_Allgather(mine, n, MPI_INTEGER, all, n, MPI_INTEGER, dup))
    call expect('PAT_PredictOn(dup), then PAT_Allgather on dup')
  end do
  if (PAT_PredictOn(MPI_COMM_NULL) == MPI_SUCCESS) then
    write (0, '(a,i0,a)') 'FAIL rank ', rank, ': PAT_PredictOn(MPI_COMM_NULL) returned MPI_SUCCESS'
    failures = failures + 1
  end if
  call check('PAT_PredictOn MPI_COMM_WORLD', PAT_PredictOn(MPI_COMM_WORLD))
  ! not a persistent all-gather's request: nothing to record, MPI_SUCCESS
  call check('PAT_Waited MPI_REQUEST_NULL', PAT_Waited(MPI_REQUEST_NULL))
  call MPI_COMM_FREE(dup, ierr)
  call check('PAT_Finalize', PAT_Finalize())
  call MPI_ALLREDUCE(failures, worst, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,a)', 'Fortran module pat, P=', nprocs, ': ', merge('passed', 'FAILED', worst == 0)
  call MPI_FINALIZE(ierr)
  if (worst /= 0) stop 1

contains

  include 'fvalues.inc'

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

  ! every block of vall holds its owner's first counts(q + 1) values, and
  ! nothing else was written
  subroutine expectv(what)
    character(*), intent(in) :: what
    integer :: at
    do q = 0, nprocs - 1
      do i = 1, counts(q + 1)
        at = displs(q + 1) + i
        if (vall(at) /= val(q, i, it + 10 * a)) then
          write (0, '(a,i0,a,a,a,i0)') 'FAIL rank ', rank, ': ', what, ': wrong element ', at
          failures = failures + 1
          return
        end if
        vall(at) = -1
      end do
    end do
    do at = 1, size(vall)
      if (vall(at) /= -1) then
        write (0, '(a,i0,a,a,a,i0)') 'FAIL rank ', rank, ': ', what, ': gap written at ', at
        failures = failures + 1
        return
      end if
    end do
  end subroutine expectv
end program test_pat_module
