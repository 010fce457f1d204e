// Baseline: MPI_Neighbor_alltoallv itself, called in Start (blocking, as
// applications call it today); Wait has nothing left to do.
#include "collectives/mpi_call_operations.hpp"
#include "collectives/neighbor_alltoallv/args.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

void call_mpi(const NeighborArgs& args) {
  mpi_check(MPI_Neighbor_alltoallv(args.sendbuf, NeighborArgs::array(args.sendcounts),
                                   NeighborArgs::array(args.sdispls), args.sendtype, args.recvbuf,
                                   NeighborArgs::array(args.recvcounts), NeighborArgs::array(args.rdispls),
                                   args.recvtype, args.comm->global()),
            "MPI_Neighbor_alltoallv");
}

}  // namespace

namespace neighbor_alltoallv_rows {
extern const NeighborAlgorithm native{"native",
                                      "MPI_Neighbor_alltoallv called in every Start (the non-persistent baseline)",
                                      runs_any_arguments, make_operation<BlockingMpiCall<NeighborArgs, call_mpi>>};
}  // namespace neighbor_alltoallv_rows

}  // namespace mpix
