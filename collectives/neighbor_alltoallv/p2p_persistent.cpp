// Persistent point-to-point over every edge (collectives/neighbor_alltoallv/edge_messages.hpp):
// what a sparse code writes by hand, without the per-call set-up of
// MPI_Neighbor_alltoallv. Buffers that move get requests of their own
// (a few pairs kept).
#include "collectives/neighbor_alltoallv/args.hpp"
#include "collectives/neighbor_alltoallv/edge_messages.hpp"

namespace mpix {

namespace {

class P2pPersistentNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit P2pPersistentNeighborAlltoallv(const NeighborArgs& args)
      : args_(args),
        edges_(args_.comm->global(), neighbor_tag, args_.sendtype, args_.recvtype,
               edge_messages(args_, [](int, MPI_Count) { return true; }), args_.sendbuf, args_.recvbuf) {}

  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    edges_.use(args_.sendbuf, args_.recvbuf);
  }
  void start() override { edges_.start(); }
  bool test() override { return edges_.test(); }
  void wait() override { edges_.wait(); }

 private:
  NeighborArgs args_;
  PersistentEdges edges_;
};

}  // namespace

namespace neighbor_alltoallv_rows {
extern const NeighborAlgorithm p2p_persistent{
    "p2p_persistent", "MPI_Recv_init/MPI_Send_init per edge once, MPI_Startall/MPI_Waitall per iteration",
    runs_any_arguments, make_operation<P2pPersistentNeighborAlltoallv>};
}  // namespace neighbor_alltoallv_rows

}  // namespace mpix
