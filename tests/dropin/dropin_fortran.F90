! An unmodified Fortran program looping MPI_Alltoallv, checked, then a few
! calls with MPI_IN_PLACE, then MPI_Alltoall of the same blocks, then
! MPI_Neighbor_alltoallv on a ring graph
! (rank +- 1; at 2 ranks two edges to one peer), checked; where PERSISTENT
! is defined (an MPI-4 MPI), an MPI_Alltoallv_init started as many times,
! checked, and MPI_Ialltoallv completed by MPI_Wait as many times on a
! communicator made in C (dropin_fortran_c_comm.c), checked; built with
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
  type(MPI_Comm) :: ring, persistent_comm, c_comm
  type(MPI_Request) :: persistent, nonblocking
#else
  integer :: ring, persistent_comm, persistent, c_comm, nonblocking
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
    do k = 0, 1
      do i = 0, block - 1
        if (recvbuf(k * block + i + 1) /= call_no * 100000 + starts(k + 1) * 1000 + i + k * 7) wrong = wrong + 1
      end do
    end do
  end do
#ifdef PERSISTENT
  ! MPI-4's persistent Alltoallv, made once on a communicator of its own
  ! (the drop-in reports it when it is freed), started once per call.
  call MPI_Comm_dup(MPI_COMM_WORLD, persistent_comm, ierr)
  call MPI_Comm_set_name(persistent_comm, 'serve:persistent', ierr)
  call MPI_Alltoallv_init(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                          persistent_comm, MPI_INFO_NULL, persistent, ierr)
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Start(persistent, ierr)
    call MPI_Wait(persistent, MPI_STATUS_IGNORE, ierr)
    call check(recvbuf, call_no)
  end do
  call MPI_Request_free(persistent, ierr)
  call MPI_Comm_free(persistent_comm, ierr)
  ! MPI_Ialltoallv on a communicator made in C, which the drop-in serves:
  ! completed by this binding's MPI_Wait (mpi_f08's calls PMPI_Wait, so
  ! there the drop-in must leave the call to MPICH).
#if defined(F08)
  c_comm%MPI_VAL = dropin_c_dup_world()
#else
  c_comm = dropin_c_dup_world()
#endif
  do call_no = 1, calls
    call fill(sendbuf, call_no)
    recvbuf = -1
    call MPI_Ialltoallv(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                        c_comm, nonblocking, ierr)
    call MPI_Wait(nonblocking, MPI_STATUS_IGNORE, ierr)
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
