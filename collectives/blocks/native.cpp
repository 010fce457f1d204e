// Baseline: the MPI's own call, in Start (blocking, as applications call it
// today): MPI_Alltoall for uniform blocks (the Alltoall family's requests),
// MPI_Alltoallv otherwise; Wait has nothing left to do.
#include "collectives/blocks/args.hpp"
#include "collectives/mpi_call_operations.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

void call_mpi(const AlltoallvArgs& args) {
  if (args.uniform) {  // every block the same: block 0's count is the call's
    mpi_check(MPI_Alltoall(args.mpi_sendbuf(), args.sendcounts[0], args.sendtype, args.recvbuf, args.recvcounts[0],
                           args.recvtype, args.comm->global()),
              "MPI_Alltoall");
    return;
  }
  mpi_check(MPI_Alltoallv(args.mpi_sendbuf(), args.sendcounts.data(), args.sdispls.data(), args.sendtype,
                          args.recvbuf, args.recvcounts.data(), args.rdispls.data(), args.recvtype,
                          args.comm->global()),
            "MPI_Alltoallv");
}

}  // namespace

namespace block_rows {
extern const AlltoallvAlgorithm native{
    "native", "MPI_Alltoallv (MPI_Alltoall for uniform blocks) called in every Start (the non-persistent baseline)",
    runs_any_arguments, make_operation<BlockingMpiCall<AlltoallvArgs, call_mpi>>};
}  // namespace block_rows

}  // namespace mpix
