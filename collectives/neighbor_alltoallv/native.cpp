// Baseline: MPI_Neighbor_alltoallv itself, called in Start (blocking, as
// applications call it today); Wait has nothing left to do.
#include "collectives/neighbor_alltoallv/args.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class NativeNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit NativeNeighborAlltoallv(const NeighborArgs& args) : args_(args) {}

  void start() override {
    mpi_check(
        MPI_Neighbor_alltoallv(args_.sendbuf, NeighborArgs::array(args_.sendcounts), NeighborArgs::array(args_.sdispls),
                               args_.sendtype, args_.recvbuf, NeighborArgs::array(args_.recvcounts),
                               NeighborArgs::array(args_.rdispls), args_.recvtype, args_.comm->global()),
        "MPI_Neighbor_alltoallv");
  }
  bool test() override { return true; }
  void wait() override {}
  void rebind(const void* sendbuf, void* recvbuf) override { args_.move_buffers(sendbuf, recvbuf); }

 private:
  NeighborArgs args_;
};

}  // namespace

namespace neighbor_algorithms {
extern const NeighborAlgorithm native{"native",
                                      "MPI_Neighbor_alltoallv called in every Start (the non-persistent baseline)",
                                      runs_any_arguments, make_operation<NativeNeighborAlltoallv>};
}  // namespace neighbor_algorithms

}  // namespace mpix
