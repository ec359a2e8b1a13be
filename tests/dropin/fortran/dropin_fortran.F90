! An unmodified Fortran MPI program under libpat_mpi (preloaded or linked),
! built three times from this one source: with mpif.h, `use mpi` and
! `use mpi_f08` (PAT_USE_MPI / PAT_F08 select; the handle types differ only
! in their declaration).  On MPI_COMM_WORLD and on a reversed-order split:
! all-gathers of several sizes, in place and not, with a derived datatype on
! both sides, and all-gathervs (MPI_ALLGATHERV: unequal blocks, one rank's
! empty, placed in reverse rank order with gaps), in place and not; every
! element is compared with the value its owner put there (the result MPI
! must give, computed without MPI), and every gap must be untouched.  Wrong
! uses must give the error classes a C program gets, through the
! communicator's error handler.  At the end, libpat must have counted every
! all-gather and all-gatherv (fcheck.c), so a binding that bypassed the
! drop-in fails the test.  And the non-blocking forms (MPI_IALLGATHER,
! MPI_IALLGATHERV, completed by MPI_WAITALL) on both communicators, and
! integer sums by MPI_ALLREDUCE (plain and in place) and MPI_IALLREDUCE.
program dropin_fortran
#if defined(PAT_F08)
  use mpi_f08
#define HANDLE(kind) type(kind)
#define FINT(h) h%MPI_VAL
#define BINDING "use mpi_f08"
#elif defined(PAT_USE_MPI)
  use mpi
#define HANDLE(kind) integer
#define FINT(h) h
#define BINDING "use mpi"
#else
#define HANDLE(kind) integer
#define FINT(h) h
#define BINDING "mpif.h"
#endif
  use, intrinsic :: iso_c_binding, only: c_int, c_long
  implicit none
#if !defined(PAT_F08) && !defined(PAT_USE_MPI)
  include 'mpif.h'
#endif
  interface
    integer(c_int) function fdropin_check(comm, calls) bind(C, name="fdropin_check")
      import :: c_int, c_long
      integer(c_int), value :: comm
      integer(c_long), value :: calls
    end function fdropin_check
    integer(c_int) function fdropin_check_queued() bind(C, name="fdropin_check_queued")
      import :: c_int
    end function fdropin_check_queued
  end interface
  integer, parameter :: counts(4) = [1, 7, 100, 1000]
  HANDLE(MPI_Comm) :: sub
  integer :: world_rank, nprocs, ierr, provided, query, failures, k
  integer(c_long) :: calls

  failures = 0
  calls = 0
#if defined(PAT_F08) || defined(PAT_USE_MPI)
  ! the level the application asked for, never more (libpat asks MPI for MULTIPLE)
  call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_QUERY_THREAD(query, ierr)
  if (provided /= MPI_THREAD_FUNNELED .or. query /= provided) call fail('thread level', provided)
#else
  call MPI_INIT(ierr)
  call MPI_QUERY_THREAD(query, ierr)
  if (query /= MPI_THREAD_SINGLE) call fail('thread level after MPI_INIT', query)
#endif
  call MPI_COMM_RANK(MPI_COMM_WORLD, world_rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

  call wrong_uses()
  ! a sub-communicator whose ranks are in reverse order
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(world_rank, 2), -world_rank, sub, ierr)
  do k = 1, size(counts)
    call plain(sub, counts(k), 10 + k)
    call in_place(sub, counts(k), 20 + k)
    call derived(sub, counts(k), 30 + k)
    call gatherv(sub, counts(k), 70 + k, .false.)
    call gatherv(sub, counts(k), 80 + k, .true.)
    call nonblocking(sub, counts(k), 110 + k)
    call reductions(sub, counts(k), 130 + k)
  end do
  call MPI_COMM_FREE(sub, ierr)
  do k = 1, size(counts)
    call plain(MPI_COMM_WORLD, counts(k), 40 + k)
    call in_place(MPI_COMM_WORLD, counts(k), 50 + k)
    call derived(MPI_COMM_WORLD, counts(k), 60 + k)
    call gatherv(MPI_COMM_WORLD, counts(k), 90 + k, .false.)
    call gatherv(MPI_COMM_WORLD, counts(k), 100 + k, .true.)
    call nonblocking(MPI_COMM_WORLD, counts(k), 120 + k)
    call reductions(MPI_COMM_WORLD, counts(k), 140 + k)
  end do

  if (fdropin_check(FINT(MPI_COMM_WORLD), calls) /= 0) failures = failures + 1
  if (fdropin_check_queued() /= 0) failures = failures + 1
  call finish('dropin Fortran (' // BINDING // ')', calls, 'all-gathers')

contains

  include 'fvalues.inc'
  include 'fshared.inc'

  ! every block of recv holds its owner's values, and the call succeeded
  subroutine expect(comm, recv, n, salt, rc, what)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: recv(:), n, salt, rc
    character(*), intent(in) :: what
    integer :: p, q, i, e
    call MPI_COMM_SIZE(comm, p, e)
    if (rc /= MPI_SUCCESS) then
      call fail(what // ': ierror', rc)
      return
    end if
    do q = 0, p - 1
      do i = 1, n
        if (recv(q * n + i) /= val(q, i, salt)) then
          call fail(what // ': wrong element at index', q * n + i)
          return
        end if
      end do
    end do
  end subroutine expect

  subroutine plain(comm, n, salt)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    integer, allocatable :: send(:), recv(:)
    integer :: p, me, i, e
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    allocate (send(n), recv(n * p))
    send = [(val(me, i, salt), i = 1, n)]
    recv = -1
    call MPI_ALLGATHER(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, comm, e)
    calls = calls + 1
    call expect(comm, recv, n, salt, e, 'all-gather')
  end subroutine plain

  subroutine in_place(comm, n, salt)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    integer, allocatable :: recv(:)
    integer :: p, me, i, e
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    allocate (recv(n * p))
    recv = -1
    recv(me * n + 1:me * n + n) = [(val(me, i, salt), i = 1, n)]
    ! the send count and type are ignored in place (MPI_DATATYPE_NULL proves it)
    call MPI_ALLGATHER(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INTEGER, comm, e)
    calls = calls + 1
    call expect(comm, recv, n, salt, e, 'in-place all-gather')
  end subroutine in_place

  ! sent as one strided vector (every other integer), received as one
  ! contiguous block type: the same type signature, different type maps
  subroutine derived(comm, n, salt)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    HANDLE(MPI_Datatype) :: strided, block
    integer, allocatable :: send(:), recv(:)
    integer :: p, me, i, e
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    allocate (send(2 * n), recv(n * p))
    send = -7
    send(1:2 * n:2) = [(val(me, i, salt), i = 1, n)]
    recv = -1
    call MPI_TYPE_VECTOR(n, 1, 2, MPI_INTEGER, strided, e)
    call MPI_TYPE_CONTIGUOUS(n, MPI_INTEGER, block, e)
    call MPI_TYPE_COMMIT(strided, e)
    call MPI_TYPE_COMMIT(block, e)
    call MPI_ALLGATHER(send, 1, strided, recv, 1, block, comm, e)
    calls = calls + 1
    call expect(comm, recv, n, salt, e, 'derived-type all-gather')
    call MPI_TYPE_FREE(strided, e)
    call MPI_TYPE_FREE(block, e)
  end subroutine derived

  ! MPI_ALLGATHERV: rank q sends n + q elements (none from rank 1), placed
  ! in reverse rank order with a gap of 2 after each block; with in_place,
  ! from MPI_IN_PLACE (its own block already in recv).  (Gaps after, not
  ! before: MPICH 4.0's own MPI_Allgatherv, which auto runs, puts a single
  ! process's block at the start of recv whatever its displacement.)
  subroutine gatherv(comm, n, salt, in_place)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    logical, intent(in) :: in_place
    integer, allocatable :: send(:), recv(:), rcounts(:), displs(:)
    integer :: p, me, q, i, e, total, at
    character(40) :: what
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    call gatherv_layout(p, n, rcounts, displs, total)
    allocate (send(rcounts(me + 1) + 1), recv(total + 1))
    send = [(val(me, i, salt), i = 1, rcounts(me + 1)), -7]
    recv = -1
    what = merge('in-place all-gatherv', 'all-gatherv         ', in_place)
    if (in_place) then
      recv(displs(me + 1) + 1:displs(me + 1) + rcounts(me + 1)) = send(1:rcounts(me + 1))
      call MPI_ALLGATHERV(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, rcounts, displs, MPI_INTEGER, comm, e)
    else
      call MPI_ALLGATHERV(send, rcounts(me + 1), MPI_INTEGER, recv, rcounts, displs, MPI_INTEGER, comm, e)
    end if
    calls = calls + 1
    if (e /= MPI_SUCCESS) then
      call fail(trim(what) // ': ierror', e)
      return
    end if
    ! block by block, then every element outside the blocks
    do q = 0, p - 1
      do i = 1, rcounts(q + 1)
        if (recv(displs(q + 1) + i) /= val(q, i, salt)) then
          call fail(trim(what) // ': wrong element at index', displs(q + 1) + i)
          return
        end if
        recv(displs(q + 1) + i) = -1
      end do
    end do
    do at = 1, size(recv)
      if (recv(at) /= -1) then
        call fail(trim(what) // ': gap written at index', at)
        return
      end if
    end do
  end subroutine gatherv

  ! MPI_IALLGATHER and MPI_IALLGATHERV (blocks of n + q, in rank order) in
  ! flight together, completed by one MPI_WAITALL
  subroutine nonblocking(comm, n, salt)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    integer, allocatable :: send(:), recv(:), vsend(:), vrecv(:), rcounts(:), displs(:)
    HANDLE(MPI_Request) :: reqs(2)
    integer :: p, me, q, i, e, total
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    allocate (send(n), recv(n * p), rcounts(p), displs(p))
    send = [(val(me, i, salt), i = 1, n)]
    recv = -1
    total = 0
    do q = 0, p - 1
      rcounts(q + 1) = n + q
      displs(q + 1) = total
      total = total + n + q
    end do
    allocate (vsend(n + me), vrecv(total))
    vsend = [(val(me, i, salt + 1), i = 1, n + me)]
    vrecv = -1
    call MPI_IALLGATHER(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, comm, reqs(1), e)
    if (e /= MPI_SUCCESS) call fail('MPI_IALLGATHER: ierror', e)
    call MPI_IALLGATHERV(vsend, n + me, MPI_INTEGER, vrecv, rcounts, displs, MPI_INTEGER, comm, reqs(2), e)
    if (e /= MPI_SUCCESS) call fail('MPI_IALLGATHERV: ierror', e)
    call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, e)
    call expect(comm, recv, n, salt, e, 'MPI_IALLGATHER')
    do q = 0, p - 1
      do i = 1, n + q
        if (vrecv(displs(q + 1) + i) /= val(q, i, salt + 1)) then
          call fail('MPI_IALLGATHERV: wrong element at index', displs(q + 1) + i)
          return
        end if
      end do
    end do
  end subroutine nonblocking

  ! integer sums of every rank's values: MPI_ALLREDUCE plain and in place, MPI_IALLREDUCE and MPI_WAIT
  subroutine reductions(comm, n, salt)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n, salt
    integer, allocatable :: send(:), sum(:), inplace(:), nb(:)
    HANDLE(MPI_Request) :: req
    integer :: p, me, q, i, e, want
    call MPI_COMM_SIZE(comm, p, e)
    call MPI_COMM_RANK(comm, me, e)
    allocate (send(n), sum(n), inplace(n), nb(n))
    send = [(val(me, i, salt), i = 1, n)]
    inplace = send
    call MPI_ALLREDUCE(send, sum, n, MPI_INTEGER, MPI_SUM, comm, e)
    if (e /= MPI_SUCCESS) call fail('MPI_ALLREDUCE: ierror', e)
    call MPI_ALLREDUCE(MPI_IN_PLACE, inplace, n, MPI_INTEGER, MPI_SUM, comm, e)
    if (e /= MPI_SUCCESS) call fail('MPI_ALLREDUCE in place: ierror', e)
    call MPI_IALLREDUCE(send, nb, n, MPI_INTEGER, MPI_SUM, comm, req, e)
    if (e /= MPI_SUCCESS) call fail('MPI_IALLREDUCE: ierror', e)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, e)
    do i = 1, n
      want = 0
      do q = 0, p - 1
        want = want + val(q, i, salt)
      end do
      if (sum(i) /= want .or. inplace(i) /= want .or. nb(i) /= want) then
        call fail('MPI_ALLREDUCE / MPI_IALLREDUCE: wrong sum at index', i)
        return
      end if
    end do
  end subroutine reductions

  ! the classes a C program gets (tests/dropin/test_dropin_programs.c
  ! `errors`), returned through MPI_ERRORS_RETURN; refused calls are not counted
  subroutine wrong_uses()
    HANDLE(MPI_Comm) :: comm
    integer :: buf(4), out(4 * 64), rcounts(64), displs(64), e, cls, p, i
    buf = 0
    call MPI_COMM_DUP(MPI_COMM_WORLD, comm, e)
    call MPI_COMM_SET_ERRHANDLER(comm, MPI_ERRORS_RETURN, e)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, e)
    call MPI_ALLGATHER(buf, 1, MPI_INTEGER, out, -1, MPI_INTEGER, comm, e)
    call MPI_ERROR_CLASS(e, cls, ierr)
    if (e == MPI_SUCCESS .or. cls /= MPI_ERR_COUNT) call fail('negative count: error class', cls)
    call MPI_ALLGATHER(buf, 1, MPI_INTEGER, out, 1, MPI_DATATYPE_NULL, comm, e)
    call MPI_ERROR_CLASS(e, cls, ierr)
    if (e == MPI_SUCCESS .or. cls /= MPI_ERR_TYPE) call fail('null datatype: error class', cls)
    call MPI_ALLGATHER(buf, 1, MPI_INTEGER, out, 1, MPI_INTEGER, MPI_COMM_NULL, e)
    call MPI_ERROR_CLASS(e, cls, ierr)
    if (e == MPI_SUCCESS .or. cls /= MPI_ERR_COMM) call fail('null communicator: error class', cls)
    ! MPI_ALLGATHERV's (blocks of 1 at 0..P-1; every rank passes the same
    ! wrong argument, so every rank refuses the call).  MPICH's own classes;
    ! Open MPI 4.1's own MPI_Allgatherv does not check the counts (it runs
    ! the call, and the next ones go wrong), libpat does.
    call MPI_COMM_SIZE(comm, p, e)
    rcounts(1:p) = 1
    displs(1:p) = [(i, i = 0, p - 1)]
    rcounts(p) = -1
    call MPI_ALLGATHERV(buf, 1, MPI_INTEGER, out, rcounts, displs, MPI_INTEGER, comm, e)
    call MPI_ERROR_CLASS(e, cls, ierr)
    if (e == MPI_SUCCESS .or. cls /= MPI_ERR_COUNT) call fail('all-gatherv negative count: error class', cls)
    rcounts(p) = 1
    call MPI_ALLGATHERV(buf, 1, MPI_INTEGER, out, rcounts, displs, MPI_DATATYPE_NULL, comm, e)
    call MPI_ERROR_CLASS(e, cls, ierr)
    if (e == MPI_SUCCESS .or. cls /= MPI_ERR_TYPE) call fail('all-gatherv null datatype: error class', cls)
    call MPI_ALLGATHERV(buf, 1, MPI_INTEGER, out, rcounts, displs, MPI_INTEGER, MPI_COMM_NULL, e)
    call MPI_ERROR_CLASS(e, cls, ierr)
    if (e == MPI_SUCCESS .or. cls /= MPI_ERR_COMM) call fail('all-gatherv null communicator: error class', cls)
    call plain(comm, 3, 5) ! still usable
    call gatherv(comm, 3, 6, .false.)
    call MPI_COMM_FREE(comm, e)
  end subroutine wrong_uses
end program dropin_fortran
