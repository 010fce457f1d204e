! An unmodified Fortran program looping MPI_Alltoallv, checked, then a few
! calls with MPI_IN_PLACE, then MPI_Alltoall of the same blocks, then
! MPI_Neighbor_alltoallv on a ring graph
! (rank +- 1; at 2 ranks two edges to one peer), checked; where PERSISTENT
! is defined (an MPI-4 MPI), each persistent collective and each
! nonblocking exchange, as many times, completed by every wait and test
! call in turn, checked; built with
! `use mpi`, with `use mpi_f08` when F08 is defined, and with mpif.h when
! MPIFH is.
program dropin_fortran
  use, intrinsic :: iso_fortran_env, only: error_unit
#if defined(F08)
  use mpi_f08
#elif !defined(MPIFH)
  use mpi
#endif
  implicit none
#ifdef MPIFH
  include 'mpif.h'
#endif
  interface
    function dropin_c_dup_world() bind(C, name='dropin_c_dup_world')
      use, intrinsic :: iso_c_binding, only: c_int
      integer(c_int) :: dropin_c_dup_world
    end function dropin_c_dup_world
  end interface
  integer, parameter :: block = 1000, calls = 40
  integer :: ierr, rank, nranks, i, call_no, wrong, src, k
  integer, allocatable :: counts(:), displs(:)
  ! Asynchronous: a persistent request's MPI_Wait writes recvbuf.
  integer, allocatable, asynchronous :: sendbuf(:), recvbuf(:)
  integer :: ends(2), starts(2), edge_counts(2), edge_displs(2)
#if defined(F08)
  type(MPI_Comm) :: ring, requests_comm, c_comm
  type(MPI_Request) :: request
#else
  integer :: ring, requests_comm, c_comm, request
#endif
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  allocate(counts(nranks), displs(nranks), sendbuf(block * nranks), recvbuf(block * nranks))
  do i = 1, nranks
    counts(i) = block
    displs(i) = (i - 1) * block
  end do
  wrong = 0
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Alltoallv(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    call check(recvbuf, call_no)
  end do
  ! In place: the received blocks replace the sent ones.
  do call_no = calls + 1, calls + 3
    call fill(recvbuf, call_no)
    call MPI_Alltoallv(MPI_IN_PLACE, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    call check(recvbuf, call_no)
  end do
  ! MPI_Alltoall: the same blocks, uniform.
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Alltoall(sendbuf, block, MPI_INTEGER, recvbuf, block, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call check(recvbuf, call_no)
  end do
  ! The ring: destinations rank+1, rank-1; sources rank-1, rank+1, so that
  ! source edge j is its sender's destination edge j. Kept until
  ! MPI_Finalize, where the drop-in reports on it.
  ends = (/ mod(rank + 1, nranks), mod(rank - 1 + nranks, nranks) /)
  starts = (/ mod(rank - 1 + nranks, nranks), mod(rank + 1, nranks) /)
  edge_counts = block
  edge_displs = (/ 0, block /)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, starts, MPI_UNWEIGHTED, 2, ends, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., ring, ierr)
  call MPI_Comm_set_name(ring, 'serve:ring', ierr)
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Neighbor_alltoallv(sendbuf, edge_counts, edge_displs, MPI_INTEGER, recvbuf, edge_counts, &
                                edge_displs, MPI_INTEGER, ring, ierr)
    call check_ring(recvbuf, call_no)
  end do
#ifdef PERSISTENT
  ! MPI-4's persistent collectives, each made once and started once per
  ! call (start), then completed (complete), on a ring of its own, made in
  ! this binding (the drop-in reports on it when it is freed).
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, starts, MPI_UNWEIGHTED, 2, ends, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., requests_comm, ierr)
  call MPI_Comm_set_name(requests_comm, 'serve:requests', ierr)
  call MPI_Alltoallv_init(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                          requests_comm, MPI_INFO_NULL, request, ierr)
  call run_persistent(request, .false.)
  call MPI_Alltoall_init(sendbuf, block, MPI_INTEGER, recvbuf, block, MPI_INTEGER, requests_comm, MPI_INFO_NULL, &
                         request, ierr)
  call run_persistent(request, .false.)
  call MPI_Neighbor_alltoallv_init(sendbuf, edge_counts, edge_displs, MPI_INTEGER, recvbuf, edge_counts, &
                                   edge_displs, MPI_INTEGER, requests_comm, MPI_INFO_NULL, request, ierr)
  call run_persistent(request, .true.)
  ! The nonblocking exchanges, each completed as above: on the same ring,
  ! and MPI_Ialltoallv on a communicator made in C
  ! (dropin_fortran_c_comm.c).
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Ialltoall(sendbuf, block, MPI_INTEGER, recvbuf, block, MPI_INTEGER, requests_comm, request, ierr)
    call complete(request, call_no, .false.)
    call check(recvbuf, call_no)
  end do
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Ineighbor_alltoallv(sendbuf, edge_counts, edge_displs, MPI_INTEGER, recvbuf, edge_counts, &
                                 edge_displs, MPI_INTEGER, requests_comm, request, ierr)
    call complete(request, call_no, .false.)
    call check_ring(recvbuf, call_no)
  end do
  call MPI_Comm_free(requests_comm, ierr)
#if defined(F08)
  c_comm%MPI_VAL = dropin_c_dup_world()
#else
  c_comm = dropin_c_dup_world()
#endif
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Ialltoallv(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                        c_comm, request, ierr)
    call complete(request, call_no, .false.)
    call check(recvbuf, call_no)
  end do
  call MPI_Comm_free(c_comm, ierr)
#endif
  call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (wrong == 0) then
      write (error_unit, '(a)') 'dropin_fortran: ok'
    else
      write (error_unit, '(a,i0)') 'dropin_fortran: WRONG DATA ', wrong
    end if
  end if
  call MPI_Finalize(ierr)
  deallocate(counts, displs, sendbuf, recvbuf)
contains
  ! The blocks this rank sends in a call: each names the call, the sender,
  ! the element and the destination.
  subroutine fill(buffer, call_no)
    integer, intent(out) :: buffer(:)
    integer, intent(in) :: call_no
    do i = 1, block * nranks
      buffer(i) = call_no * 100000 + rank * 1000 + mod(i - 1, block) + ((i - 1) / block) * 7
    end do
  end subroutine fill
  ! Counts the received ring blocks that are not what their sender sent.
  subroutine check_ring(buffer, call_no)
    integer, intent(in) :: buffer(:), call_no
    do k = 0, 1
      do i = 0, block - 1
        if (buffer(k * block + i + 1) /= call_no * 100000 + starts(k + 1) * 1000 + i + k * 7) wrong = wrong + 1
      end do
    end do
  end subroutine check_ring
#ifdef PERSISTENT
  ! Runs a persistent request, checked, then frees it.
  subroutine run_persistent(request, on_ring)
#if defined(F08)
    type(MPI_Request), intent(inout) :: request
#else
    integer, intent(inout) :: request
#endif
    logical, intent(in) :: on_ring
    do call_no = 1, calls
      call fill(sendbuf, call_no)
      recvbuf = -1
      call start(request, call_no)
      call complete(request, call_no, .true.)
      if (on_ring) then
        call check_ring(recvbuf, call_no)
      else
        call check(recvbuf, call_no)
      end if
    end do
    call MPI_Request_free(request, ierr)
  end subroutine run_persistent
  ! Starts a persistent request: by MPI_Start, or MPI_Startall every
  ! other call.
  subroutine start(request, call_no)
#if defined(F08)
    type(MPI_Request), intent(inout) :: request
    type(MPI_Request) :: one(1)
#else
    integer, intent(inout) :: request
    integer :: one(1)
#endif
    integer, intent(in) :: call_no
    if (mod(call_no, 2) == 0) then
      call MPI_Start(request, ierr)
    else
      one(1) = request
      call MPI_Startall(1, one, ierr)
      request = one(1)
    end if
  end subroutine start
  ! Completes a request by one of the wait and test calls, a different one
  ! from call to call: alone; in an array after MPI's own request (an
  ! MPI_Ibarrier) or MPI_REQUEST_NULL; with the statuses ignored or not.
  ! Counts as wrong what the call says that MPI would not: the index of
  ! the request completed, and the handle left (a persistent request's
  ! stays, a nonblocking one's is freed).
  subroutine complete(request, call_no, persistent)
    integer, intent(in) :: call_no
    logical, intent(in) :: persistent
#if defined(F08)
    type(MPI_Request), intent(inout) :: request
    type(MPI_Request) :: both(2)
    type(MPI_Status) :: status, statuses(2)
#else
    integer, intent(inout) :: request
    integer :: both(2)
    integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
#endif
    logical :: flag
    integer :: index, outcount, indices(2)
    both(1) = MPI_REQUEST_NULL
    both(2) = request
    flag = .false.
    select case (mod(call_no, 9))
    case (0)
      call MPI_Wait(both(2), MPI_STATUS_IGNORE, ierr)
    case (1)
      do while (.not. flag)
        call MPI_Test(both(2), flag, status, ierr)
      end do
    case (2)
      call MPI_Ibarrier(MPI_COMM_WORLD, both(1), ierr)
      call MPI_Waitall(2, both, statuses, ierr)
    case (3)
      call MPI_Waitany(2, both, index, status, ierr)
      if (index /= 2) wrong = wrong + 1
    case (4)
      call MPI_Waitsome(2, both, outcount, indices, MPI_STATUSES_IGNORE, ierr)
      if (outcount /= 1 .or. indices(1) /= 2) wrong = wrong + 1
    case (5)
      call MPI_Ibarrier(MPI_COMM_WORLD, both(1), ierr)
      do while (.not. flag)
        call MPI_Testall(2, both, flag, MPI_STATUSES_IGNORE, ierr)
      end do
    case (6)
      do while (.not. flag)
        call MPI_Testany(2, both, index, flag, MPI_STATUS_IGNORE, ierr)
      end do
      if (index /= 2) wrong = wrong + 1
    case (7)
      outcount = 0
      do while (outcount == 0)
        call MPI_Testsome(2, both, outcount, indices, statuses, ierr)
      end do
      if (outcount /= 1 .or. indices(1) /= 2) wrong = wrong + 1
    case default
      ! MPI_Request_get_status leaves the request as it is: then MPI_Wait.
      do while (.not. flag)
        call MPI_Request_get_status(both(2), flag, MPI_STATUS_IGNORE, ierr)
      end do
      call MPI_Wait(both(2), status, ierr)
    end select
    if (persistent .eqv. (both(2) == MPI_REQUEST_NULL)) wrong = wrong + 1
    request = both(2)
  end subroutine complete
#endif
  ! Counts the received elements that are not what their sender sent.
  subroutine check(buffer, call_no)
    integer, intent(in) :: buffer(:), call_no
    do src = 0, nranks - 1
      do k = 0, block - 1
        if (buffer(src * block + k + 1) /= call_no * 100000 + src * 1000 + k + rank * 7) wrong = wrong + 1
      end do
    end do
  end subroutine check
end program dropin_fortran
