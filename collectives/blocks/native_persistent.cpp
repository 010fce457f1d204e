// Baseline: the MPI's own persistent collective (MPI-4's MPI_Alltoallv_init
// or, for uniform blocks, MPI_Alltoall_init; Open MPI 4.1's extensions of
// them) once, then MPI_Start / MPI_Test / MPI_Wait. Refused where the MPI
// has none.
#include "collectives/blocks/args.hpp"
#include "collectives/mpi_call_operations.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

void init_mpi(const AlltoallvArgs& args, MPI_Request* request) {
  if (args.uniform) {
    mpi_check(mpi_implementation::persistent_alltoall()(args.mpi_sendbuf(), args.sendcounts[0], args.sendtype,
                                                        args.recvbuf, args.recvcounts[0], args.recvtype,
                                                        args.comm->global(), MPI_INFO_NULL, request),
              "MPI_Alltoall_init");
    return;
  }
  mpi_check(mpi_implementation::persistent_alltoallv()(args.mpi_sendbuf(), args.sendcounts.data(),
                                                       args.sdispls.data(), args.sendtype, args.recvbuf,
                                                       args.recvcounts.data(), args.rdispls.data(), args.recvtype,
                                                       args.comm->global(), MPI_INFO_NULL, request),
            "MPI_Alltoallv_init");
}

std::optional<std::string> without_persistent_call(const AlltoallvArgs& args) {
  if (args.uniform)
    return mpi_implementation::persistent_alltoall() != nullptr
               ? std::nullopt
               : std::optional<std::string>(mpi_implementation::persistent_alltoall_why_not());
  return mpi_implementation::persistent_alltoallv() != nullptr
             ? std::nullopt
             : std::optional<std::string>(mpi_implementation::persistent_alltoallv_why_not());
}

}  // namespace

namespace block_rows {
extern const AlltoallvAlgorithm native_persistent{
    "native_persistent",
    "MPI_Alltoallv_init (MPI_Alltoall_init for uniform blocks) once, MPI_Start/MPI_Wait per iteration (MPI-4 "
    "persistent collective)",
    without_persistent_call, make_operation<PersistentMpiCall<AlltoallvArgs, init_mpi>>};
}  // namespace block_rows

}  // namespace mpix
