// Baseline: the MPI's own persistent neighbourhood collective (MPI-4's
// MPI_Neighbor_alltoallv_init, Open MPI 4.1's extension of it) once, then
// MPI_Start / MPI_Test / MPI_Wait. Refused where the MPI has none.
#include "collectives/mpi_call_operations.hpp"
#include "collectives/neighbor_alltoallv/args.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

void init_mpi(const NeighborArgs& args, MPI_Request* request) {
  const mpi_implementation::AlltoallvInit init = mpi_implementation::persistent_neighbor_alltoallv();
  mpi_check(init(args.sendbuf, NeighborArgs::array(args.sendcounts), NeighborArgs::array(args.sdispls),
                 args.sendtype, args.recvbuf, NeighborArgs::array(args.recvcounts), NeighborArgs::array(args.rdispls),
                 args.recvtype, args.comm->global(), MPI_INFO_NULL, request),
            "MPI_Neighbor_alltoallv_init");
}

std::optional<std::string> without_persistent_neighbor_alltoallv(const NeighborArgs&) {
  if (mpi_implementation::persistent_neighbor_alltoallv() != nullptr) return std::nullopt;
  return std::string(mpi_implementation::persistent_neighbor_alltoallv_why_not());
}

}  // namespace

namespace neighbor_alltoallv_rows {
extern const NeighborAlgorithm native_persistent{
    "native_persistent",
    "MPI_Neighbor_alltoallv_init once, MPI_Start/MPI_Wait per iteration (MPI-4 persistent collective)",
    without_persistent_neighbor_alltoallv, make_operation<PersistentMpiCall<NeighborArgs, init_mpi>>};
}  // namespace neighbor_alltoallv_rows

}  // namespace mpix
