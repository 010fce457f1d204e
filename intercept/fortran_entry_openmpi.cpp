// Open MPI's Fortran bindings reach MPI_ALLTOALLV without passing through
// the C MPI_Alltoallv: mpif.h and `use mpi` programs call mpi_alltoallv_
// (an alias of ompi_alltoallv_f in libmpi_mpifh), `use mpi_f08` programs
// call mpi_alltoallv_f08_, which calls ompi_alltoallv_f, and that calls
// PMPI_Alltoallv. (MPICH's bindings call MPI_Alltoallv, so there the C
// drop-in sees Fortran calls as they are.) This file is the drop-in's door
// for them, built only against Open MPI: it defines ompi_alltoallv_f and
// the Fortran names of the same function, converts the handles and the
// Fortran sentinels, and calls MPI_Alltoallv, the drop-in's C entry.
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

}  // namespace

extern "C" {

void ompi_alltoallv_f(char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype, char* recvbuf,
                      MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr) {
  const void* send = is(sendbuf, &mpi_fortran_in_place_) ? MPI_IN_PLACE
                     : is(sendbuf, &mpi_fortran_bottom_) ? MPI_BOTTOM
                                                         : sendbuf;
  void* recv = is(recvbuf, &mpi_fortran_bottom_) ? MPI_BOTTOM : recvbuf;
  const int rc = MPI_Alltoallv(send, sendcounts, sdispls, MPI_Type_f2c(*sendtype), recv, recvcounts, rdispls,
                               MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));
  if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
}

// The names Fortran compilers give MPI_ALLTOALLV, as libmpi_mpifh has them.
#define MPIX_FORTRAN_NAME(name)                                                                                    \
  void name(char*, MPI_Fint*, MPI_Fint*, MPI_Fint*, char*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*) \
      __attribute__((alias("ompi_alltoallv_f")));
MPIX_FORTRAN_NAME(mpi_alltoallv_)
MPIX_FORTRAN_NAME(mpi_alltoallv__)
MPIX_FORTRAN_NAME(mpi_alltoallv)
MPIX_FORTRAN_NAME(MPI_ALLTOALLV)
#undef MPIX_FORTRAN_NAME

}  // extern "C"
