// MPICH's `use mpi_f08` binding and the drop-in's persistent collectives.
//
// Its persistent inits (mpi_alltoallv_init_f08ts_ and kin) reach the C
// MPI_Alltoallv_init, which the drop-in serves, but its request calls do
// not: mpi_start_f08_, mpi_wait_f08_, mpi_request_free_f08_ and the rest
// call PMPI_Start, PMPI_Wait, ... directly (objdump of libmpichfort, MPICH
// 4.0.2). A request served there would never run: MPI would start and
// complete its proxy, a send of nothing, at once, and the program would read
// a receive buffer nothing wrote. (`use mpi` and mpif.h call the C MPI_Start
// and kin, and are served.) So this file stands in for those three inits
// only to run MPICH's own with the drop-in stepped aside (InsideDropIn): the
// C init they reach then goes to PMPI_, and the request is MPI's own. The
// `_large` forms take MPI_Count arguments and call the C *_c inits, which
// the drop-in does not stand in for.
// The same holds for its nonblocking exchanges: mpi_ialltoallv_f08ts_,
// mpi_ialltoall_f08ts_ and mpi_ineighbor_alltoallv_f08ts_ reach the C
// MPI_Ialltoallv, MPI_Ialltoall and MPI_Ineighbor_alltoallv, which
// the drop-in serves on a communicator it set up, and the request they
// return would be completed by PMPI_Wait. mpi_f08's own MPI_Init and
// constructors call PMPI_ (no communicator of theirs is set up), but a
// program that mixes bindings may pass it one made in C or through `use
// mpi`; these three run MPICH's own stepped aside too.
//
// Every argument of these Fortran procedures is passed by reference (the
// buffers as TS 29113 descriptors, an absent optional ierror as null), so
// each is forwarded as the pointer it is, in order.
#include <dlfcn.h>
#include <mpi.h>

#include "intercept/inside_drop_in.hpp"

#if MPI_VERSION >= 4

namespace {

// MPICH's own procedure of that name: the next definition after the
// drop-in's, in libmpichfort (loaded: the program called it).
template <class Procedure>
Procedure mpich_own(const char* name) {
  return reinterpret_cast<Procedure>(dlsym(RTLD_NEXT, name));
}

// Runs MPICH's own procedure on the same arguments, the drop-in stepped
// aside for the call.
template <class... Pointers>
void run_stepped_aside(void (*own)(Pointers...), Pointers... arguments) {
  mpix::intercept::InsideDropIn stepped_aside;
  own(arguments...);
}

}  // namespace

extern "C" {

// MPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
// recvcounts, rdispls, recvtype, comm, info, request, ierror).
void mpi_alltoallv_init_f08ts_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7, void* a8,
                               void* a9, void* a10, void* a11, void* a12) {
  static const auto own = mpich_own<decltype(&mpi_alltoallv_init_f08ts_)>("mpi_alltoallv_init_f08ts_");
  run_stepped_aside(own, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);
}

// MPI_Neighbor_alltoallv_init: the same arguments.
void mpi_neighbor_alltoallv_init_f08ts_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7,
                                        void* a8, void* a9, void* a10, void* a11, void* a12) {
  static const auto own =
      mpich_own<decltype(&mpi_neighbor_alltoallv_init_f08ts_)>("mpi_neighbor_alltoallv_init_f08ts_");
  run_stepped_aside(own, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);
}

// MPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
// recvtype, comm, info, request, ierror).
void mpi_alltoall_init_f08ts_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7, void* a8,
                              void* a9, void* a10) {
  static const auto own = mpich_own<decltype(&mpi_alltoall_init_f08ts_)>("mpi_alltoall_init_f08ts_");
  run_stepped_aside(own, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);
}

// MPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
// recvcounts, rdispls, recvtype, comm, request, ierror).
void mpi_ialltoallv_f08ts_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7, void* a8, void* a9,
                           void* a10, void* a11) {
  static const auto own = mpich_own<decltype(&mpi_ialltoallv_f08ts_)>("mpi_ialltoallv_f08ts_");
  run_stepped_aside(own, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
}

// MPI_Ineighbor_alltoallv: the same arguments.
void mpi_ineighbor_alltoallv_f08ts_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7, void* a8,
                                    void* a9, void* a10, void* a11) {
  static const auto own = mpich_own<decltype(&mpi_ineighbor_alltoallv_f08ts_)>("mpi_ineighbor_alltoallv_f08ts_");
  run_stepped_aside(own, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
}

// MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
// comm, request, ierror).
void mpi_ialltoall_f08ts_(void* a1, void* a2, void* a3, void* a4, void* a5, void* a6, void* a7, void* a8,
                          void* a9) {
  static const auto own = mpich_own<decltype(&mpi_ialltoall_f08ts_)>("mpi_ialltoall_f08ts_");
  run_stepped_aside(own, a1, a2, a3, a4, a5, a6, a7, a8, a9);
}

}  // extern "C"

#endif  // MPI_VERSION >= 4
