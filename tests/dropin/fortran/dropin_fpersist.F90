! Persistent all-gathers from an unmodified Fortran program under libpat_mpi,
! built for mpif.h, `use mpi` and `use mpi_f08` as dropin_fortran.F90 is:
! MPI_ALLGATHER_INIT and MPI_ALLGATHERV_INIT (MPIX_, from the pcollreq
! extension, under Open MPI 4.1: PAT_OMPI) set up once on MPI_COMM_WORLD and
! on a reversed-order split, started ITERS times with new data (MPI_START
! one by one, or MPI_STARTALL), completed by MPI_WAITALL, MPI_WAIT or
! MPI_TEST polling; every block is compared with the value its owner put
! there and every gap must be untouched; the handles stay (inactive) and
! must be libpat's (fcheck.c); MPI_REQUEST_FREE gives MPI_REQUEST_NULL.
! MPI's own persistent requests (MPI_SEND_INIT, MPI_RECV_INIT round a ring)
! go through the same MPI_STARTALL and MPI_REQUEST_FREE and must stay MPI's
! own and work.  Erroneous calls in the second iteration, MPI_CANCEL and
! MPI_START of an active request, must return MPI_ERR_REQUEST (with
! MPI_ERRORS_RETURN on MPI_COMM_WORLD, where libpat_mpi raises them) and
! leave the round right.  MPI_ALLREDUCE_INIT (MPIX_ under Open MPI 4.1):
! integer sums, plain and in place, started ITERS times with new data,
! exact, the handle libpat's and kept, freed to MPI_REQUEST_NULL.
program dropin_fpersist
#if defined(PAT_F08)
  use mpi_f08
#if defined(PAT_OMPI)
  use mpi_f08_ext
#endif
#define HANDLE(kind) type(kind)
#define FINT(h) h%MPI_VAL
#define BINDING "use mpi_f08"
#elif defined(PAT_USE_MPI)
  use mpi
#if defined(PAT_OMPI)
  use mpi_ext
#endif
#define HANDLE(kind) integer
#define FINT(h) h
#define BINDING "use mpi"
#else
#define HANDLE(kind) integer
#define FINT(h) h
#define BINDING "mpif.h"
#endif
#if defined(PAT_OMPI)
#define ALLGATHER_INIT MPIX_ALLGATHER_INIT
#define ALLGATHERV_INIT MPIX_ALLGATHERV_INIT
#define ALLREDUCE_INIT MPIX_ALLREDUCE_INIT
#else
#define ALLGATHER_INIT MPI_ALLGATHER_INIT
#define ALLGATHERV_INIT MPI_ALLGATHERV_INIT
#define ALLREDUCE_INIT MPI_ALLREDUCE_INIT
#endif
  use, intrinsic :: iso_c_binding, only: c_int, c_long
  implicit none
#if !defined(PAT_F08) && !defined(PAT_USE_MPI)
  include 'mpif.h'
#if defined(PAT_OMPI)
  include 'mpif-ext.h'
#endif
#endif
  interface
    integer(c_int) function fdropin_is_libpat(request) bind(C, name="fdropin_is_libpat")
      import :: c_int
      integer(c_int), value :: request
    end function fdropin_is_libpat
    integer(c_int) function fdropin_check_queued() bind(C, name="fdropin_check_queued")
      import :: c_int
    end function fdropin_check_queued
  end interface
  integer, parameter :: iters = 5
  HANDLE(MPI_Comm) :: sub
  integer :: world_rank, nprocs, ierr, failures, starts

  failures = 0
  starts = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, world_rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(world_rank, 2), -world_rank, sub, ierr)
  call persistent(sub, 7, 10)
  call persistent(MPI_COMM_WORLD, 100, 20)
  call persistent(MPI_COMM_WORLD, 1000, 30)
  call persistent_sum(sub, 9, 40, .true.)
  call persistent_sum(MPI_COMM_WORLD, 1000, 50, .false.)
  call MPI_COMM_FREE(sub, ierr)
  call mpi_own()
  if (fdropin_check_queued() /= 0) failures = failures + 1
  call finish('dropin Fortran persistent (' // BINDING // ')', int(starts, c_long), 'starts')

contains

  include 'fvalues.inc'
  include 'fshared.inc'

  ! an all-gather of n integers and an all-gatherv (rank q: n + q integers,
  ! none from rank 1, in reverse rank order with a gap of 2 after each
  ! block), set up once, started iters times with new data
  subroutine persistent(comm, n, salt)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    ! MPI reads and writes the buffers between the calls that name them: volatile keeps the compiler from
    ! holding them in registers across MPI_WAIT (Fortran's asynchronous-buffer rule)
    integer, allocatable, volatile :: send(:), recv(:), vsend(:), vrecv(:)
    integer, allocatable :: rcounts(:), displs(:)
    HANDLE(MPI_Request) :: reqs(2), kept(2)
    integer :: p, me, q, i, e, it, total, at, k
    logical :: done(2), flag
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    call gatherv_layout(p, n, rcounts, displs, total)
    allocate (send(n), recv(n * p), vsend(rcounts(me + 1) + 1), vrecv(total))
    call ALLGATHER_INIT(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, comm, MPI_INFO_NULL, reqs(1), e)
    if (e /= MPI_SUCCESS) call fail('ALLGATHER_INIT: ierror', e)
    call ALLGATHERV_INIT(vsend, rcounts(me + 1), MPI_INTEGER, vrecv, rcounts, displs, MPI_INTEGER, comm, &
                         MPI_INFO_NULL, reqs(2), e)
    if (e /= MPI_SUCCESS) call fail('ALLGATHERV_INIT: ierror', e)
    if (failures > 0) return
    do k = 1, 2
      if (fdropin_is_libpat(FINT(reqs(k))) /= 1) call fail('the persistent request is not libpat''s', k)
    end do
    kept = reqs
    do it = 1, iters
      send = [(val(me, i, salt + it), i = 1, n)]
      vsend = [(val(me, i, salt + 50 + it), i = 1, rcounts(me + 1)), -7]
      recv = -1
      vrecv = -1
      if (mod(it, 2) == 1) then
        call MPI_STARTALL(2, reqs, e)
      else
        call MPI_START(reqs(1), e)
        if (e == MPI_SUCCESS) call MPI_START(reqs(2), e)
      end if
      if (e /= MPI_SUCCESS) then
        call fail('start: ierror', e)
        return
      end if
      starts = starts + 2
      if (it == 2) then
        call MPI_CANCEL(reqs(1), e)
        call expect_request_error('MPI_CANCEL of an active persistent all-gather: ierror', e)
        call MPI_START(reqs(2), e)
        call expect_request_error('MPI_START of an active persistent all-gather: ierror', e)
        e = MPI_SUCCESS
      end if
      select case (mod(it, 3))
      case (0)
        call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, e)
      case (1)
        call MPI_WAIT(reqs(2), MPI_STATUS_IGNORE, e)
        if (e == MPI_SUCCESS) call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, e)
      case default
        done = .false.
        do while (.not. all(done) .and. e == MPI_SUCCESS)
          do k = 1, 2
            if (done(k)) cycle
            call MPI_TEST(reqs(k), flag, MPI_STATUS_IGNORE, e)
            done(k) = flag
          end do
        end do
      end select
      if (e /= MPI_SUCCESS) then
        call fail('completion: ierror', e)
        return
      end if
      do k = 1, 2 ! persistent: the handles stay
        if (FINT(reqs(k)) /= FINT(kept(k))) call fail('a completed persistent request changed, iteration', it)
      end do
      do q = 0, p - 1
        do i = 1, n
          if (recv(q * n + i) /= val(q, i, salt + it)) then
            call fail('persistent all-gather: wrong element at index', q * n + i)
            return
          end if
        end do
        do i = 1, rcounts(q + 1)
          if (vrecv(displs(q + 1) + i) /= val(q, i, salt + 50 + it)) then
            call fail('persistent all-gatherv: wrong element at index', displs(q + 1) + i)
            return
          end if
          vrecv(displs(q + 1) + i) = -1
        end do
      end do
      do at = 1, total
        if (vrecv(at) /= -1) then
          call fail('persistent all-gatherv: gap written at index', at)
          return
        end if
      end do
    end do
    do k = 1, 2
      call MPI_REQUEST_FREE(reqs(k), e)
      if (e /= MPI_SUCCESS) call fail('MPI_REQUEST_FREE: ierror', e)
      if (FINT(reqs(k)) /= FINT(MPI_REQUEST_NULL)) call fail('MPI_REQUEST_FREE left a handle', k)
    end do
  end subroutine persistent

  ! a sum of n integers (in place where in_place), set up once, started iters times with new data
  subroutine persistent_sum(comm, n, salt, in_place)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    logical, intent(in) :: in_place
    integer, allocatable, volatile :: send(:), recv(:)
    HANDLE(MPI_Request) :: req, kept
    integer :: p, me, q, i, e, it, want
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    allocate (send(n), recv(n))
    if (in_place) then
      call ALLREDUCE_INIT(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, e)
    else
      call ALLREDUCE_INIT(send, recv, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, e)
    end if
    if (e /= MPI_SUCCESS) then
      call fail('ALLREDUCE_INIT: ierror', e)
      return
    end if
    if (fdropin_is_libpat(FINT(req)) /= 1) call fail('the persistent all-reduce is not libpat''s', n)
    kept = req
    do it = 1, iters
      send = [(val(me, i, salt + it), i = 1, n)]
      recv = -1
      if (in_place) recv = send
      call MPI_START(req, e)
      if (e == MPI_SUCCESS) call MPI_WAIT(req, MPI_STATUS_IGNORE, e)
      if (e /= MPI_SUCCESS) then
        call fail('persistent all-reduce: ierror', e)
        return
      end if
      starts = starts + 1
      if (FINT(req) /= FINT(kept)) call fail('a completed persistent all-reduce changed, iteration', it)
      do i = 1, n
        want = 0
        do q = 0, p - 1
          want = want + val(q, i, salt + it)
        end do
        if (recv(i) /= want) then
          call fail('persistent all-reduce: wrong sum at index', i)
          return
        end if
      end do
    end do
    call MPI_REQUEST_FREE(req, e)
    if (e /= MPI_SUCCESS .or. FINT(req) /= FINT(MPI_REQUEST_NULL)) call fail('MPI_REQUEST_FREE of an all-reduce', e)
  end subroutine persistent_sum

  subroutine expect_request_error(what, e)
    character(*), intent(in) :: what
    integer, intent(in) :: e
    integer :: cls, e2
    cls = MPI_SUCCESS
    if (e /= MPI_SUCCESS) call MPI_ERROR_CLASS(e, cls, e2)
    if (cls /= MPI_ERR_REQUEST) call fail(what, e)
  end subroutine expect_request_error

  ! MPI's own persistent requests through the same calls: a value round a ring
  subroutine mpi_own()
    HANDLE(MPI_Request) :: reqs(2)
    integer, volatile :: got, mine
    integer :: e, it, k
    call MPI_SEND_INIT(mine, 1, MPI_INTEGER, mod(world_rank + 1, nprocs), 5, MPI_COMM_WORLD, reqs(1), e)
    call MPI_RECV_INIT(got, 1, MPI_INTEGER, mod(world_rank + nprocs - 1, nprocs), 5, MPI_COMM_WORLD, reqs(2), e)
    do k = 1, 2
      if (fdropin_is_libpat(FINT(reqs(k))) /= 0) call fail('MPI''s own persistent request taken as libpat''s', k)
    end do
    do it = 1, 3
      mine = world_rank * 10 + it
      got = -1
      if (it == 2) then
        call MPI_START(reqs(2), e)
        call MPI_START(reqs(1), e)
      else
        call MPI_STARTALL(2, reqs, e)
      end if
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, e)
      if (e /= MPI_SUCCESS .or. got /= mod(world_rank + nprocs - 1, nprocs) * 10 + it) &
        call fail('MPI''s own persistent send/receive: got', got)
    end do
    do k = 1, 2
      call MPI_REQUEST_FREE(reqs(k), e)
      if (e /= MPI_SUCCESS .or. FINT(reqs(k)) /= FINT(MPI_REQUEST_NULL)) call fail('MPI_REQUEST_FREE of MPI''s own', k)
    end do
  end subroutine mpi_own
end program dropin_fpersist
