! The Fortran module `mpix` in a program: a persistent Alltoallv, a
! persistent Alltoall and a neighbourhood Alltoallv on a ring, each started
! and waited on a few times with new data, two Alltoalls started and
! completed together, every result compared with MPI's own call
! (MPI_Alltoallv, MPI_Alltoall, MPI_Neighbor_alltoallv) on the same data;
! hints read back, and an error's message. Prints "persistent_exchanges: ok" on rank 0, or WRONG with
! what differed. Built in the tree (examples/) and, by the install test,
! from the installed package (find_package(mpixrma) with Fortran enabled).
program persistent_exchanges
  use mpi_f08
  use mpix
  implicit none
  integer, parameter :: iterations = 3
  type(MPIX_Comm) :: xcomm, ring_xcomm
  type(MPIX_Request) :: request, requests(2)
  type(MPIX_Info) :: info
  type(MPI_Status) :: statuses(2)
  character(len=MPIX_MAX_ERROR_STRING) :: message
  character(len=MPIX_MAX_OBJECT_NAME) :: value
  logical :: found
  integer, allocatable, target :: jsend(:), jrecv(:), jexpected(:)
  type(MPI_Comm) :: ring
  type(MPI_Status) :: status
  type(MPI_Datatype) :: pair
  logical :: done
  integer :: rank, ranks, i, it, ierror, ierr, error_class, length, wrong
  integer, allocatable :: sendcounts(:), sdispls(:), recvcounts(:), rdispls(:)
  double precision, allocatable, target :: send(:), recv(:), expected(:)
  integer, allocatable, target :: isend(:), irecv(:), iexpected(:)
  double precision, target :: matrix(4, 4)
  character(len=MPIX_MAX_OBJECT_NAME) :: algorithm

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  wrong = 0
  call MPIX_Comm_init(xcomm, MPI_COMM_WORLD)

  ! Alltoallv, uneven both ways: rank r sends r + 2d + 1 elements to rank d
  ! (so a rank's send and receive layouts differ).
  allocate(sendcounts(ranks), sdispls(ranks), recvcounts(ranks), rdispls(ranks))
  do i = 1, ranks
    sendcounts(i) = rank + 2 * (i - 1) + 1
    recvcounts(i) = (i - 1) + 2 * rank + 1
  end do
  sdispls(1) = 0
  rdispls(1) = 0
  do i = 2, ranks
    sdispls(i) = sdispls(i - 1) + sendcounts(i - 1)
    rdispls(i) = rdispls(i - 1) + recvcounts(i - 1)
  end do
  allocate(send(sum(sendcounts)), recv(sum(recvcounts)), expected(sum(recvcounts)))
  call MPIX_Alltoallv_init(send, sendcounts, sdispls, MPI_DOUBLE_PRECISION, recv, recvcounts, rdispls, &
                           MPI_DOUBLE_PRECISION, xcomm, MPIX_INFO_NULL, request, ierror)
  call expect(ierror == MPI_SUCCESS, "MPIX_Alltoallv_init failed")
  do it = 1, iterations
    send = [(1000.0d0 * rank + 10.0d0 * it + i, i = 1, size(send))]
    recv = -1
    call MPIX_Start(request)
    call MPIX_Wait(request, MPI_STATUS_IGNORE)
    call MPI_Alltoallv(send, sendcounts, sdispls, MPI_DOUBLE_PRECISION, expected, recvcounts, rdispls, &
                       MPI_DOUBLE_PRECISION, MPI_COMM_WORLD)
    call expect(all(recv == expected), "Alltoallv: data differs from MPI_Alltoallv")
  end do
  call MPIX_Request_get_algorithm(request, algorithm, length)
  call expect(length > 0, "Alltoallv: no algorithm name")
  call MPIX_Request_free(request)

  ! Alltoall, int32 blocks of 3, completed by polling MPIX_Test: its status
  ! is empty, as for MPI's persistent collectives.
  allocate(isend(3 * ranks), irecv(3 * ranks), iexpected(3 * ranks))
  call MPIX_Alltoall_init(isend, 3, MPI_INTEGER, irecv, 3, MPI_INTEGER, xcomm, MPIX_INFO_NULL, request)
  do it = 1, iterations
    isend = [(100 * rank + 7 * it + i, i = 1, size(isend))]
    call MPIX_Start(request)
    status%MPI_SOURCE = -7
    done = .false.
    do while (.not. done)
      call MPIX_Test(request, done, status)
    end do
    call expect(status%MPI_SOURCE == MPI_ANY_SOURCE .and. status%MPI_ERROR == MPI_SUCCESS, &
                "Alltoall: MPIX_Test did not return an empty status")
    call MPI_Alltoall(isend, 3, MPI_INTEGER, iexpected, 3, MPI_INTEGER, MPI_COMM_WORLD)
    call expect(all(irecv == iexpected), "Alltoall: data differs from MPI_Alltoall")
  end do
  call MPIX_Request_free(request)

  ! Alltoall with a send count and a receive count that differ: 4 integers
  ! sent per rank, received as 2 pairs of integers.
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  deallocate(isend, irecv, iexpected)
  allocate(isend(4 * ranks), irecv(4 * ranks), iexpected(4 * ranks))
  call MPIX_Alltoall_init(isend, 4, MPI_INTEGER, irecv, 2, pair, xcomm, MPIX_INFO_NULL, request, ierror)
  call expect(ierror == MPI_SUCCESS, "MPIX_Alltoall_init with counts 4 and 2 (pairs) failed")
  if (ierror == MPI_SUCCESS) then
    do it = 1, iterations
      isend = [(1000 * rank + 13 * it + i, i = 1, size(isend))]
      irecv = -1
      call MPIX_Start(request)
      call MPIX_Wait(request, MPI_STATUS_IGNORE)
      call MPI_Alltoall(isend, 4, MPI_INTEGER, iexpected, 2, pair, MPI_COMM_WORLD)
      call expect(all(irecv == iexpected), "Alltoall (counts 4 and 2): data differs from MPI_Alltoall")
    end do
    call MPIX_Request_free(request)
  end if
  call MPI_Type_free(pair)

  ! Two Alltoalls started and completed together, one of them built with a
  ! hint that its info gives back; the handles compare as mpi_f08's do.
  call MPIX_Info_init(info)
  call MPIX_Info_set(info, "mpix_alltoall_algorithm", "native")
  call MPIX_Info_get(info, "mpix_alltoall_algorithm", MPIX_MAX_OBJECT_NAME, value, found)
  call expect(found .and. value == "native", "MPIX_Info_get did not give back the value set")
  call MPIX_Info_get(info, "mpix_no_such_key", 8, value, found)
  call expect(.not. found, "MPIX_Info_get found a key that was never set")
  deallocate(isend, irecv)
  allocate(isend(2 * ranks), irecv(2 * ranks), jsend(ranks), jrecv(ranks), jexpected(ranks))
  deallocate(iexpected)
  allocate(iexpected(2 * ranks))
  call MPIX_Alltoall_init(isend, 2, MPI_INTEGER, irecv, 2, MPI_INTEGER, xcomm, info, requests(1))
  call MPIX_Alltoall_init(jsend, 1, MPI_INTEGER, jrecv, 1, MPI_INTEGER, xcomm, MPIX_INFO_NULL, requests(2))
  call MPIX_Info_free(info)
  call expect(requests(1) /= requests(2) .and. requests(1) == requests(1) .and. info == MPIX_INFO_NULL, &
              "handles do not compare as they should")
  do it = 1, iterations
    isend = [(100 * rank + 3 * it + i, i = 1, size(isend))]
    jsend = [(-100 * rank - 5 * it - i, i = 1, size(jsend))]
    statuses(:)%MPI_SOURCE = -7
    call MPIX_Startall(2, requests)
    call MPIX_Waitall(2, requests, statuses)
    call expect(all(statuses(:)%MPI_SOURCE == MPI_ANY_SOURCE), "MPIX_Waitall did not return empty statuses")
    call MPI_Alltoall(isend, 2, MPI_INTEGER, iexpected, 2, MPI_INTEGER, MPI_COMM_WORLD)
    call MPI_Alltoall(jsend, 1, MPI_INTEGER, jexpected, 1, MPI_INTEGER, MPI_COMM_WORLD)
    call expect(all(irecv == iexpected) .and. all(jrecv == jexpected), &
                "Startall/Waitall: data differs from MPI_Alltoall")
  end do
  call MPIX_Startall(2, requests)
  call MPIX_Waitall(2, requests, MPI_STATUSES_IGNORE)
  call MPIX_Request_free(requests(1))
  call MPIX_Request_free(requests(2))
  call expect(requests(1) == MPIX_REQUEST_NULL, "a freed request is not MPIX_REQUEST_NULL")

  ! An argument error: its code, and the library's message for it.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPIX_Alltoall_init(jsend, 1, MPI_INTEGER, jrecv, -4, MPI_INTEGER, xcomm, MPIX_INFO_NULL, request, ierror)
  call expect(ierror /= MPI_SUCCESS, "a negative recvcount was accepted")
  call MPIX_Error_string(ierror, message, length)
  call expect(index(message(1:length), "recvcount = -4 is negative") > 0, &
              "MPIX_Error_string gave: " // message(1:length))
  call MPI_Error_class(ierror, error_class, ierr)
  call expect(error_class == MPI_ERR_COUNT, "a negative recvcount was not of class MPI_ERR_COUNT")

  ! A section with a stride is not one block of memory: refused, not copied.
  call MPIX_Alltoall_init(matrix(1, :), 1, MPI_DOUBLE_PRECISION, matrix(2, :), 1, MPI_DOUBLE_PRECISION, &
                          xcomm, MPIX_INFO_NULL, request, ierror)
  call MPI_Error_class(ierror, error_class, ierr)
  call expect(error_class == MPI_ERR_BUFFER, "a strided buffer was not refused with MPI_ERR_BUFFER")

  ! The neighbourhood exchange on a ring: 2 elements to each neighbour, the
  ! left one's landing in the second half (send and receive layouts differ).
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, [modulo(rank - 1, ranks), modulo(rank + 1, ranks)], &
                                      MPI_UNWEIGHTED, 2, [modulo(rank - 1, ranks), modulo(rank + 1, ranks)], &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring)
  call MPIX_Comm_init(ring_xcomm, ring)
  deallocate(send, recv, expected)
  allocate(send(4), recv(4), expected(4))
  call MPIX_Neighbor_alltoallv_init(send, [2, 2], [0, 2], MPI_DOUBLE_PRECISION, recv, [2, 2], [2, 0], &
                                    MPI_DOUBLE_PRECISION, ring_xcomm, MPIX_INFO_NULL, request)
  do it = 1, iterations
    send = [(10.0d0 * rank + it + 0.5d0 * i, i = 1, 4)]
    call MPIX_Start(request)
    call MPIX_Wait(request, MPI_STATUS_IGNORE)
    call MPI_Neighbor_alltoallv(send, [2, 2], [0, 2], MPI_DOUBLE_PRECISION, expected, [2, 2], [2, 0], &
                                MPI_DOUBLE_PRECISION, ring)
    call expect(all(recv == expected), "neighbourhood: data differs from MPI_Neighbor_alltoallv")
  end do
  call MPIX_Request_free(request)
  call MPIX_Comm_free(ring_xcomm)
  call MPI_Comm_free(ring)
  call MPIX_Comm_free(xcomm)
  deallocate(sendcounts, sdispls, recvcounts, rdispls, send, recv, expected, isend, irecv, iexpected)
  deallocate(jsend, jrecv, jexpected)

  call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. wrong == 0) print '(a, i0, a, a)', "persistent_exchanges: ok at ", ranks, &
                                        " ranks; Alltoallv ran ", trim(algorithm)
  call MPI_Finalize()

contains

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      print '(a, i0, a, a)', "persistent_exchanges: WRONG on rank ", rank, ": ", what
      wrong = wrong + 1
    end if
  end subroutine
end program persistent_exchanges
