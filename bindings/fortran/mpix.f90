! mpix-rma for Fortran: the module `mpix`, over mpi_f08.
!
!   use mpi_f08
!   use mpix
!   type(MPIX_Comm) :: xcomm
!   type(MPIX_Request) :: request
!   call MPIX_Comm_init(xcomm, MPI_COMM_WORLD)
!   call MPIX_Alltoallv_init(sendbuf, sendcounts, sdispls, MPI_DOUBLE_PRECISION, &
!                            recvbuf, recvcounts, rdispls, MPI_DOUBLE_PRECISION, &
!                            xcomm, MPIX_INFO_NULL, request)
!   do it = 1, iterations
!     call MPIX_Start(request)
!     call MPIX_Wait(request, MPI_STATUS_IGNORE)
!   end do
!   call MPIX_Request_free(request)
!   call MPIX_Comm_free(xcomm)
!
! The calls are the C API's (include/mpix/mpix.h, `man MPIX_<name>`), in its
! argument order, with mpi_f08's conventions: communicators and datatypes
! are mpi_f08's types, buffers are assumed-type and assumed-rank, ierror is
! optional and, as in mpi_f08, an error is also raised on the communicator's
! error handler (so under MPI_ERRORS_ARE_FATAL the job ends with the
! message). Counts and displacements are default integers, as in mpi_f08.
!
! Buffers: a persistent request keeps the buffers' addresses, so a buffer
! must be contiguous in memory and stay where it is until the request is
! freed (give it the TARGET or ASYNCHRONOUS attribute, as MPI-3 asks of
! nonblocking and persistent buffers). A non-contiguous section is refused
! with MPI_ERR_BUFFER instead of silently copied into a temporary that the
! request would outlive. MPI_IN_PLACE is not taken here: pass the buffer.
module mpix
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_null_ptr, c_char, c_null_char, &
                                          c_associated, c_intptr_t
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Status, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_SUCCESS, &
                     MPI_ERR_BUFFER, MPI_ERR_ARG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_ADDRESS_KIND
  implicit none
  private

  !> The library's communicator (MPIX_Comm_init).
  type, public :: MPIX_Comm
    type(c_ptr) :: handle = c_null_ptr
  end type
  !> A persistent request of any family.
  type, public :: MPIX_Request
    type(c_ptr) :: handle = c_null_ptr
  end type
  !> Hints (MPIX_Info_init); MPIX_INFO_NULL for none.
  type, public :: MPIX_Info
    type(c_ptr) :: handle = c_null_ptr
  end type
  !> An RMA window of the library.
  type, public :: MPIX_Win
    type(c_ptr) :: handle = c_null_ptr
  end type

  type(MPIX_Info), parameter, public :: MPIX_INFO_NULL = MPIX_Info(c_null_ptr)
  type(MPIX_Request), parameter, public :: MPIX_REQUEST_NULL = MPIX_Request(c_null_ptr)
  type(MPIX_Comm), parameter, public :: MPIX_COMM_NULL = MPIX_Comm(c_null_ptr)
  integer, parameter, public :: MPIX_MAX_OBJECT_NAME = 64
  integer, parameter, public :: MPIX_MAX_ERROR_STRING = 1024

  !> Handles compare as MPI's do in mpi_f08: equal when they are the same
  !> object (or both null).
  interface operator(==)
    module procedure comm_eq, request_eq, info_eq, win_eq
  end interface
  interface operator(/=)
    module procedure comm_ne, request_ne, info_ne, win_ne
  end interface
  public :: operator(==), operator(/=)

  public :: MPIX_Comm_init, MPIX_Comm_free, MPIX_Comm_get_comm
  public :: MPIX_Info_init, MPIX_Info_set, MPIX_Info_get, MPIX_Info_free
  ! Every family's MPIX_<Name>_init (collectives/families.def).
  include "family_public.f90"
  public :: MPIX_Start, MPIX_Startall, MPIX_Wait, MPIX_Waitall, MPIX_Test, MPIX_Request_free
  public :: MPIX_Request_get_algorithm, MPIX_Error_string
  public :: MPIX_Alloc_mem, MPIX_Free_mem

  interface
    ! Where a status variable is.
    type(c_ptr) function c_status_address(status) bind(C, name="mpix_fortran_address")
      import :: c_ptr, MPI_Status
      type(MPI_Status), intent(in) :: status
    end function
    ! The buffer's address from its descriptor, or NULL if not contiguous.
    type(c_ptr) function c_buffer_address(buffer) bind(C, name="mpix_fortran_buffer_address")
      import :: c_ptr
      type(*), dimension(..), intent(in) :: buffer
    end function
    integer(c_int) function c_comm_init(xcomm, comm) bind(C, name="mpix_fortran_comm_init")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: xcomm
      integer(c_int), value :: comm
    end function
    integer(c_int) function c_comm_get_comm(xcomm, comm) bind(C, name="mpix_fortran_comm_get_comm")
      import :: c_int, c_ptr
      type(c_ptr), value :: xcomm
      integer(c_int), intent(out) :: comm
    end function
    integer(c_int) function c_info_init(info) bind(C, name="mpixrma_Info_init")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: info
    end function
    integer(c_int) function c_info_set(info, key, value) bind(C, name="mpixrma_Info_set")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: info
      character(kind=c_char), dimension(*), intent(in) :: key, value
    end function
    integer(c_int) function c_info_get(info, key, valuelen, value, flag) bind(C, name="mpixrma_Info_get")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: info
      character(kind=c_char), dimension(*), intent(in) :: key
      integer(c_int), value :: valuelen
      character(kind=c_char), dimension(*), intent(out) :: value
      integer(c_int), intent(out) :: flag
    end function
    integer(c_int) function c_error_string(code, string, resultlen) bind(C, name="mpixrma_Error_string")
      import :: c_int, c_char
      integer(c_int), value :: code
      character(kind=c_char), dimension(*), intent(out) :: string
      integer(c_int), intent(out) :: resultlen
    end function
    integer(c_int) function c_startall(count, requests) bind(C, name="mpixrma_Startall")
      import :: c_int, c_ptr
      integer(c_int), value :: count
      type(c_ptr), dimension(*), intent(inout) :: requests
    end function
    integer(c_int) function c_waitall(count, requests) bind(C, name="mpix_fortran_waitall")
      import :: c_int, c_ptr
      integer(c_int), value :: count
      type(c_ptr), dimension(*), intent(inout) :: requests
    end function
    integer(c_int) function c_test(request, flag) bind(C, name="mpix_fortran_test")
      import :: c_int, c_ptr
      type(c_ptr), value :: request
      integer(c_int), intent(out) :: flag
    end function
    integer(c_int) function c_request_get_algorithm(request, name, resultlen) &
        bind(C, name="mpixrma_Request_get_algorithm")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: request
      character(kind=c_char), dimension(*), intent(out) :: name
      integer(c_int), intent(out) :: resultlen
    end function
    integer(c_int) function c_alloc_mem(size, info, baseptr) bind(C, name="mpixrma_Alloc_mem")
      import :: c_int, c_ptr, c_intptr_t
      integer(c_intptr_t), value :: size
      type(c_ptr), value :: info
      type(c_ptr), intent(out) :: baseptr
    end function
    integer(c_int) function c_free_mem(base) bind(C, name="mpixrma_Free_mem")
      import :: c_int, c_ptr
      type(c_ptr), value :: base
    end function
    ! Every family's C init with Fortran datatype handles (family_shims.c).
    include "family_interfaces.f90"
  end interface

  ! Frees a handle and sets it to NULL (MPIX_Comm_free, MPIX_Info_free,
  ! MPIX_Request_free), and the calls on a request alone.
  abstract interface
    integer(c_int) function handle_free_c(handle) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: handle
    end function
    integer(c_int) function request_call_c(request) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: request
    end function
  end interface
  procedure(handle_free_c), bind(C, name="mpixrma_Comm_free") :: c_comm_free
  procedure(handle_free_c), bind(C, name="mpixrma_Info_free") :: c_info_free
  procedure(handle_free_c), bind(C, name="mpixrma_Request_free") :: c_request_free
  procedure(request_call_c), bind(C, name="mpixrma_Start") :: c_start
  procedure(request_call_c), bind(C, name="mpix_fortran_wait") :: c_wait

contains

  ! ierror, where the caller gave one.
  subroutine set_error(code, ierror)
    integer(c_int), intent(in) :: code
    integer, optional, intent(out) :: ierror
    if (present(ierror)) ierror = int(code)
  end subroutine

  ! The address of a buffer the library may keep, or c_null_ptr where the
  ! buffer is not contiguous (its elements not one block of memory).
  function kept_address(buffer) result(address)
    type(*), dimension(..), target, asynchronous :: buffer
    type(c_ptr) :: address
    address = c_buffer_address(buffer)
  end function

  ! MPI_ERR_BUFFER where a non-empty buffer is not contiguous: the library
  ! would otherwise keep the address of a compiler's temporary copy.
  logical function buffer_usable(address, elements, ierror)
    type(c_ptr), intent(in) :: address
    integer, intent(in) :: elements
    integer, optional, intent(out) :: ierror
    buffer_usable = c_associated(address) .or. elements == 0
    if (.not. buffer_usable) call set_error(int(MPI_ERR_BUFFER, c_int), ierror)
  end function

  !> MPIX_Comm_init: the library's communicator over comm. Collective.
  subroutine MPIX_Comm_init(xcomm, comm, ierror)
    type(MPIX_Comm), intent(out) :: xcomm
    type(MPI_Comm), intent(in) :: comm
    integer, optional, intent(out) :: ierror
    call set_error(c_comm_init(xcomm%handle, int(comm%MPI_VAL, c_int)), ierror)
  end subroutine

  !> MPIX_Comm_free. Collective.
  subroutine MPIX_Comm_free(xcomm, ierror)
    type(MPIX_Comm), intent(inout) :: xcomm
    integer, optional, intent(out) :: ierror
    call set_error(c_comm_free(xcomm%handle), ierror)
  end subroutine

  !> MPIX_Comm_get_comm: the library's duplicate of the communicator.
  subroutine MPIX_Comm_get_comm(xcomm, comm, ierror)
    type(MPIX_Comm), intent(in) :: xcomm
    type(MPI_Comm), intent(out) :: comm
    integer, optional, intent(out) :: ierror
    integer(c_int) :: value
    call set_error(c_comm_get_comm(xcomm%handle, value), ierror)
    comm%MPI_VAL = value
  end subroutine

  !> MPIX_Info_init.
  subroutine MPIX_Info_init(info, ierror)
    type(MPIX_Info), intent(out) :: info
    integer, optional, intent(out) :: ierror
    call set_error(c_info_init(info%handle), ierror)
  end subroutine

  !> MPIX_Info_set (trailing blanks of key and value are not part of them).
  subroutine MPIX_Info_set(info, key, value, ierror)
    type(MPIX_Info), intent(in) :: info
    character(len=*), intent(in) :: key, value
    integer, optional, intent(out) :: ierror
    call set_error(c_info_set(info%handle, trim(key) // c_null_char, trim(value) // c_null_char), ierror)
  end subroutine

  !> MPIX_Info_get, as mpi_f08's MPI_Info_get: value gets at most valuelen
  !> characters of key's value (blank-padded), flag whether key is set.
  subroutine MPIX_Info_get(info, key, valuelen, value, flag, ierror)
    type(MPIX_Info), intent(in) :: info
    character(len=*), intent(in) :: key
    integer, intent(in) :: valuelen
    character(len=*), intent(out) :: value
    logical, intent(out) :: flag
    integer, optional, intent(out) :: ierror
    character(kind=c_char) :: buffer(max(valuelen, 0) + 1)
    integer(c_int) :: code, found
    integer :: i
    value = ""
    flag = .false.
    if (valuelen < 0) then
      call set_error(int(MPI_ERR_ARG, c_int), ierror)
      return
    end if
    code = c_info_get(info%handle, trim(key) // c_null_char, int(valuelen, c_int), buffer, found)
    if (code == MPI_SUCCESS .and. found /= 0) then
      flag = .true.
      do i = 1, min(valuelen, len(value))
        if (buffer(i) == c_null_char) exit
        value(i:i) = buffer(i)
      end do
    end if
    call set_error(code, ierror)
  end subroutine

  !> MPIX_Info_free.
  subroutine MPIX_Info_free(info, ierror)
    type(MPIX_Info), intent(inout) :: info
    integer, optional, intent(out) :: ierror
    call set_error(c_info_free(info%handle), ierror)
  end subroutine

  ! Every family's MPIX_<Name>_init: its buffers' addresses checked, its C
  ! init called (family_bindings.py writes them from the families table).
  include "family_procedures.f90"

  !> MPIX_Start.
  subroutine MPIX_Start(request, ierror)
    type(MPIX_Request), intent(in) :: request
    integer, optional, intent(out) :: ierror
    call set_error(c_start(request%handle), ierror)
  end subroutine

  !> MPIX_Startall: starts the count requests, as MPIX_Start in turn.
  subroutine MPIX_Startall(count, requests, ierror)
    integer, intent(in) :: count
    type(MPIX_Request), intent(in) :: requests(count)
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: handles(count)
    integer :: i
    do i = 1, count
      handles(i) = requests(i)%handle
    end do
    call set_error(c_startall(int(count, c_int), handles), ierror)
  end subroutine

  !> MPIX_Waitall; each status is empty, and statuses may be
  !> MPI_STATUSES_IGNORE.
  subroutine MPIX_Waitall(count, requests, statuses, ierror)
    integer, intent(in) :: count
    type(MPIX_Request), intent(in) :: requests(count)
    type(MPI_Status) :: statuses(*)
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: handles(count)
    integer(c_int) :: code
    integer :: i
    do i = 1, count
      handles(i) = requests(i)%handle
    end do
    code = c_waitall(int(count, c_int), handles)
    if (code == MPI_SUCCESS .and. count > 0) then
      if (.not. c_associated(c_status_address(statuses(1)), c_status_address(MPI_STATUSES_IGNORE(1)))) then
        do i = 1, count
          call set_empty(statuses(i))
        end do
      end if
    end if
    call set_error(code, ierror)
  end subroutine

  ! The status of a completed persistent collective: empty, as MPI defines it.
  subroutine set_empty(status)
    type(MPI_Status), intent(inout) :: status
    status%MPI_SOURCE = MPI_ANY_SOURCE
    status%MPI_TAG = MPI_ANY_TAG
    status%MPI_ERROR = MPI_SUCCESS
  end subroutine

  !> MPIX_Wait; status is empty, as for MPI's persistent collectives, and may
  !> be MPI_STATUS_IGNORE.
  subroutine MPIX_Wait(request, status, ierror)
    type(MPIX_Request), intent(in) :: request
    type(MPI_Status) :: status
    integer, optional, intent(out) :: ierror
    integer(c_int) :: code
    code = c_wait(request%handle)
    if (code == MPI_SUCCESS .and. .not. is_ignore(status)) call set_empty(status)
    call set_error(code, ierror)
  end subroutine

  !> MPIX_Test.
  subroutine MPIX_Test(request, flag, status, ierror)
    type(MPIX_Request), intent(in) :: request
    logical, intent(out) :: flag
    type(MPI_Status) :: status
    integer, optional, intent(out) :: ierror
    integer(c_int) :: code, done
    code = c_test(request%handle, done)
    flag = done /= 0
    if (code == MPI_SUCCESS .and. flag .and. .not. is_ignore(status)) call set_empty(status)
    call set_error(code, ierror)
  end subroutine

  ! Whether status is mpi_f08's MPI_STATUS_IGNORE (which has no TARGET
  ! attribute on every MPI, so its address comes from C).
  logical function is_ignore(status)
    type(MPI_Status), intent(in) :: status
    is_ignore = c_associated(c_status_address(status), c_status_address(MPI_STATUS_IGNORE))
  end function

  !> MPIX_Request_free; request becomes MPIX_REQUEST_NULL. Collective for
  !> the RMA algorithms (free on every rank, in the same order).
  subroutine MPIX_Request_free(request, ierror)
    type(MPIX_Request), intent(inout) :: request
    integer, optional, intent(out) :: ierror
    call set_error(c_request_free(request%handle), ierror)
  end subroutine

  !> MPIX_Request_get_algorithm: the registry name of what runs the request.
  subroutine MPIX_Request_get_algorithm(request, name, resultlen, ierror)
    type(MPIX_Request), intent(in) :: request
    character(len=*), intent(out) :: name
    integer, intent(out) :: resultlen
    integer, optional, intent(out) :: ierror
    character(kind=c_char) :: buffer(MPIX_MAX_OBJECT_NAME)
    integer(c_int) :: code, length
    code = c_request_get_algorithm(request%handle, buffer, length)
    call copy_result(code, buffer, length, name, resultlen)
    call set_error(code, ierror)
  end subroutine

  ! A C call's text result into a Fortran string, blank-padded: the first
  ! length characters of buffer (as many as fit) where code is
  ! MPI_SUCCESS, nothing otherwise.
  subroutine copy_result(code, buffer, length, string, resultlen)
    integer(c_int), intent(in) :: code, length
    character(kind=c_char), intent(in) :: buffer(*)
    character(len=*), intent(out) :: string
    integer, intent(out) :: resultlen
    integer :: i
    string = ""
    resultlen = 0
    if (code /= MPI_SUCCESS) return
    resultlen = min(int(length), len(string))
    do i = 1, resultlen
      string(i:i) = buffer(i)
    end do
  end subroutine

  !> MPIX_Error_string: the message of a code the library returned (the
  !> argument, its value and the rank), blank-padded; MPI's own text for
  !> MPI's codes.
  subroutine MPIX_Error_string(errorcode, string, resultlen, ierror)
    integer, intent(in) :: errorcode
    character(len=*), intent(out) :: string
    integer, intent(out) :: resultlen
    integer, optional, intent(out) :: ierror
    character(kind=c_char) :: buffer(MPIX_MAX_ERROR_STRING)
    integer(c_int) :: code, length
    code = c_error_string(int(errorcode, c_int), buffer, length)
    call copy_result(code, buffer, length, string, resultlen)
    call set_error(code, ierror)
  end subroutine

  logical function comm_eq(a, b)
    type(MPIX_Comm), intent(in) :: a, b
    comm_eq = same(a%handle, b%handle)
  end function
  logical function comm_ne(a, b)
    type(MPIX_Comm), intent(in) :: a, b
    comm_ne = .not. same(a%handle, b%handle)
  end function
  logical function request_eq(a, b)
    type(MPIX_Request), intent(in) :: a, b
    request_eq = same(a%handle, b%handle)
  end function
  logical function request_ne(a, b)
    type(MPIX_Request), intent(in) :: a, b
    request_ne = .not. same(a%handle, b%handle)
  end function
  logical function info_eq(a, b)
    type(MPIX_Info), intent(in) :: a, b
    info_eq = same(a%handle, b%handle)
  end function
  logical function info_ne(a, b)
    type(MPIX_Info), intent(in) :: a, b
    info_ne = .not. same(a%handle, b%handle)
  end function
  logical function win_eq(a, b)
    type(MPIX_Win), intent(in) :: a, b
    win_eq = same(a%handle, b%handle)
  end function
  logical function win_ne(a, b)
    type(MPIX_Win), intent(in) :: a, b
    win_ne = .not. same(a%handle, b%handle)
  end function

  ! Whether two handles are the same object, null ones included.
  logical function same(a, b)
    type(c_ptr), intent(in) :: a, b
    if (c_associated(a)) then
      same = c_associated(a, b)
    else
      same = .not. c_associated(b)
    end if
  end function

  !> MPIX_Alloc_mem: size bytes that node peers can map; baseptr is its
  !> address (c_f_pointer gives it a Fortran shape).
  subroutine MPIX_Alloc_mem(size, info, baseptr, ierror)
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: size
    type(MPIX_Info), intent(in) :: info
    type(c_ptr), intent(out) :: baseptr
    integer, optional, intent(out) :: ierror
    call set_error(c_alloc_mem(int(size, c_intptr_t), info%handle, baseptr), ierror)
  end subroutine

  !> MPIX_Free_mem.
  subroutine MPIX_Free_mem(base, ierror)
    type(c_ptr), intent(in) :: base
    integer, optional, intent(out) :: ierror
    call set_error(c_free_mem(base), ierror)
  end subroutine
end module mpix
