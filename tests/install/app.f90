! The README's Fortran example ("Using it from Fortran") as a whole program,
! built by run_install_test.sh with pkg-config's pat_fortran against an
! installed libpat only.  Every element gathered is compared with the value
! its owner put there, and every PAT call must return MPI_SUCCESS; rank 0
! prints "install app (Fortran), P=<P>: passed" and the program stops with
! status 1 otherwise.
program app
  use mpi
  use pat
  implicit none
  integer, parameter :: n = 1000, iterations = 12
  integer :: provided, rank, nprocs, ierr, it, i, r, failures, total
  real, allocatable :: mine(:), all(:)

  failures = 0
  call MPI_INIT_THREAD(MPI_THREAD_MULTIPLE, provided, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  allocate (mine(n), all(n * nprocs))
  call check('PAT_Init', PAT_Init())
  do it = 1, iterations
    do i = 1, n
      mine(i) = value(rank, i, it)
    end do
    call check('PAT_ProcessingStart', PAT_ProcessingStart())
    call compute()
    call check('PAT_Edge', PAT_Edge(50d0))
    call compute()
    call check('PAT_ProcessingEnd', PAT_ProcessingEnd())
    call check('PAT_Allgather', PAT_Allgather(mine, n, MPI_REAL, all, n, MPI_REAL, MPI_COMM_WORLD))
    do r = 0, nprocs - 1
      do i = 1, n
        if (all(r * n + i) /= value(r, i, it)) then
          if (failures < 5) print '(a,i0,a,i0,a,i0,a,i0)', 'install app (Fortran): rank ', rank, ', call ', it, &
            ': wrong element ', i, ' of rank ', r
          failures = failures + 1
        end if
      end do
    end do
  end do
  call check('PAT_Finalize', PAT_Finalize())
  call MPI_ALLREDUCE(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'install app (Fortran), P=', nprocs, ': passed'
    else
      print '(a,i0,a,i0,a)', 'install app (Fortran), P=', nprocs, ': FAILED (', total, ' errors)'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1

contains

  ! exact in a real: small integers
  real function value(owner, i, it)
    integer, intent(in) :: owner, i, it
    value = real(owner * 100000 + i * 10 + mod(it, 10))
  end function value

  ! busy for (rank + 1) x 50 microseconds: the later ranks arrive late
  subroutine compute()
    double precision :: until
    until = MPI_WTIME() + (rank + 1) * 50d-6
    do while (MPI_WTIME() < until)
    end do
  end subroutine compute

  subroutine check(what, rc)
    character(*), intent(in) :: what
    integer, intent(in) :: rc
    if (rc /= MPI_SUCCESS) then
      print '(a,a,i0)', what, ' returned ', rc
      failures = failures + 1
    end if
  end subroutine check
end program app
