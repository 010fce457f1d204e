// Baseline: the MPI's own persistent neighbourhood collective (MPI-4's
// MPI_Neighbor_alltoallv_init, Open MPI 4.1's extension of it) once, then
// MPI_Start / MPI_Test / MPI_Wait. Refused where the MPI has none.
#include "collectives/neighbor_alltoallv/args.hpp"
#include "collectives/persistent_mpi_request.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

class NativePersistentNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit NativePersistentNeighborAlltoallv(const NeighborArgs& args) : args_(args) {
    // MPI reads the count and displacement arrays until the request is freed:
    // they point into args_, which lives exactly as long as request_.
    const mpi_implementation::AlltoallvInit init = mpi_implementation::persistent_neighbor_alltoallv();
    mpi_check(
        init(args_.sendbuf, NeighborArgs::array(args_.sendcounts), NeighborArgs::array(args_.sdispls), args_.sendtype,
             args_.recvbuf, NeighborArgs::array(args_.recvcounts), NeighborArgs::array(args_.rdispls), args_.recvtype,
             args_.comm->global(), MPI_INFO_NULL, request_.out()),
        "MPI_Neighbor_alltoallv_init");
  }

  void start() override { request_.start(); }
  bool test() override { return request_.test(); }
  void wait() override { request_.wait(); }

 private:
  NeighborArgs args_;
  PersistentMpiRequest request_;  // freed before args_, whose arrays MPI reads
};

std::optional<std::string> without_persistent_neighbor_alltoallv(const NeighborArgs&) {
  if (mpi_implementation::persistent_neighbor_alltoallv() != nullptr) return std::nullopt;
  return std::string(mpi_implementation::persistent_neighbor_alltoallv_why_not());
}

}  // namespace

namespace neighbor_algorithms {
extern const NeighborAlgorithm native_persistent{
    "native_persistent",
    "MPI_Neighbor_alltoallv_init once, MPI_Start/MPI_Wait per iteration (MPI-4 persistent collective)",
    without_persistent_neighbor_alltoallv, make_operation<NativePersistentNeighborAlltoallv>};
}  // namespace neighbor_algorithms

}  // namespace mpix
