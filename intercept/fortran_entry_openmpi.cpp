// Open MPI's Fortran bindings reach MPI_ALLTOALLV without passing through
// the C MPI_Alltoallv: mpif.h and `use mpi` programs call mpi_alltoallv_
// (an alias of ompi_alltoallv_f in libmpi_mpifh), `use mpi_f08` programs
// call mpi_alltoallv_f08_, which calls ompi_alltoallv_f, and that calls
// PMPI_Alltoallv; MPI_NEIGHBOR_ALLTOALLV and MPI_ALLTOALL likewise
// (ompi_neighbor_alltoallv_f, ompi_alltoall_f).
// (MPICH's bindings call the C functions, so there the C drop-in sees
// Fortran calls as they are.) This file is the drop-in's door for them,
// built only against Open MPI: it defines ompi_alltoallv_f,
// ompi_neighbor_alltoallv_f, ompi_alltoall_f and the Fortran names of the
// same functions,
// converts the handles and the Fortran sentinels, and calls the drop-in's C
// entries.
#include <mpi.h>

extern "C" {

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM: common blocks whose
// addresses the Fortran program passes (defined by Open MPI's libraries;
// weak, so a program without Fortran leaves them null).
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));

}  // extern "C"

namespace {

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran count arrays are passed to C as they are");

bool is(const void* buffer, const int* sentinel) { return sentinel != nullptr && buffer == sentinel; }

using CEntry = int (*)(const void*, const int[], const int[], MPI_Datatype, void*, const int[], const int[],
                       MPI_Datatype, MPI_Comm);

// The Fortran buffer arguments as C takes them: the sentinels' addresses
// become MPI_IN_PLACE and MPI_BOTTOM.
const void* c_send_buffer(char* sendbuf) {
  return is(sendbuf, &mpi_fortran_in_place_) ? MPI_IN_PLACE : is(sendbuf, &mpi_fortran_bottom_) ? MPI_BOTTOM : sendbuf;
}
void* c_recv_buffer(char* recvbuf) { return is(recvbuf, &mpi_fortran_bottom_) ? MPI_BOTTOM : recvbuf; }

// One Fortran call converted and handed to the C entry.
void call_from_fortran(CEntry entry, char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
                       char* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype, MPI_Fint* comm,
                       MPI_Fint* ierr) {
  const int rc = entry(c_send_buffer(sendbuf), sendcounts, sdispls, MPI_Type_f2c(*sendtype), c_recv_buffer(recvbuf),
                       recvcounts, rdispls, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));
  if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
}

}  // namespace

extern "C" {

void ompi_alltoallv_f(char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype, char* recvbuf,
                      MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr) {
  call_from_fortran(MPI_Alltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                    comm, ierr);
}

void ompi_neighbor_alltoallv_f(char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
                               char* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype,
                               MPI_Fint* comm, MPI_Fint* ierr) {
  call_from_fortran(MPI_Neighbor_alltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype, comm, ierr);
}

void ompi_alltoall_f(char* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, char* recvbuf, MPI_Fint* recvcount,
                     MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr) {
  const int rc = MPI_Alltoall(c_send_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_recv_buffer(recvbuf),
                              *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));
  if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
}

// The names Fortran compilers give the functions, as libmpi_mpifh has them.
#define MPIX_FORTRAN_NAME(name, target)                                                                            \
  void name(char*, MPI_Fint*, MPI_Fint*, MPI_Fint*, char*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*) \
      __attribute__((alias(#target)));
MPIX_FORTRAN_NAME(mpi_alltoallv_, ompi_alltoallv_f)
MPIX_FORTRAN_NAME(mpi_alltoallv__, ompi_alltoallv_f)
MPIX_FORTRAN_NAME(mpi_alltoallv, ompi_alltoallv_f)
MPIX_FORTRAN_NAME(MPI_ALLTOALLV, ompi_alltoallv_f)
MPIX_FORTRAN_NAME(mpi_neighbor_alltoallv_, ompi_neighbor_alltoallv_f)
MPIX_FORTRAN_NAME(mpi_neighbor_alltoallv__, ompi_neighbor_alltoallv_f)
MPIX_FORTRAN_NAME(mpi_neighbor_alltoallv, ompi_neighbor_alltoallv_f)
MPIX_FORTRAN_NAME(MPI_NEIGHBOR_ALLTOALLV, ompi_neighbor_alltoallv_f)
#undef MPIX_FORTRAN_NAME
#define MPIX_FORTRAN_NAME(name)                                                                                 \
  void name(char*, MPI_Fint*, MPI_Fint*, char*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*) \
      __attribute__((alias("ompi_alltoall_f")));
MPIX_FORTRAN_NAME(mpi_alltoall_)
MPIX_FORTRAN_NAME(mpi_alltoall__)
MPIX_FORTRAN_NAME(mpi_alltoall)
MPIX_FORTRAN_NAME(MPI_ALLTOALL)
#undef MPIX_FORTRAN_NAME

}  // extern "C"
