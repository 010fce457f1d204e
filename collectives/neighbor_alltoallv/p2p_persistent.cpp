// Persistent point-to-point: one MPI_Recv_init per source edge and one
// MPI_Send_init per destination edge, made once; Start starts them all
// (receives first), Wait waits for them. What a sparse code writes by hand,
// without the per-call set-up of MPI_Neighbor_alltoallv.
//
// Matching: the k-th edge from a to b is a's k-th send to b and b's k-th
// receive from a, under one tag; MPI's non-overtaking rule pairs them in
// that order, which is the pairing MPI defines for duplicate edges. Edges
// that carry no bytes (agreed at init: both ends see 0) post nothing.
// Persistent requests on one communicator are started in the same order on
// every rank (MPI's rule for persistent collectives), so the messages of
// several live requests match in order as well.
#include <vector>

#include "collectives/neighbor_alltoallv_args.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int neighbor_tag = 0x6e62;

class P2pPersistentNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit P2pPersistentNeighborAlltoallv(const NeighborArgs& args) : args_(args) {
    const MPI_Comm comm = args_.comm->global();
    try {
      for (int edge = 0; edge < args_.indegree(); ++edge) {
        if (args_.recv_bytes(edge) == 0) continue;
        MPI_Request& r = requests_.emplace_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Recv_init(args_.recv_block(edge), args_.recvcounts[edge], args_.recvtype,
                                args_.sources[edge], neighbor_tag, comm, &r),
                  "MPI_Recv_init");
      }
      for (int edge = 0; edge < args_.outdegree(); ++edge) {
        if (args_.send_bytes(edge) == 0) continue;
        MPI_Request& r = requests_.emplace_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Send_init(args_.send_block(edge), args_.sendcounts[edge], args_.sendtype,
                                args_.destinations[edge], neighbor_tag, comm, &r),
                  "MPI_Send_init");
      }
    } catch (...) {
      free_requests();
      throw;
    }
  }
  ~P2pPersistentNeighborAlltoallv() override { free_requests(); }

  void start() override {
    if (!requests_.empty())
      mpi_check(MPI_Startall(static_cast<int>(requests_.size()), requests_.data()), "MPI_Startall");
  }
  bool test() override {
    int done = 1;
    if (!requests_.empty())
      mpi_check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE),
                "MPI_Testall");
    return done != 0;
  }
  void wait() override {
    if (!requests_.empty())
      mpi_check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
                "MPI_Waitall");
  }

 private:
  void free_requests() {
    for (MPI_Request& r : requests_)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    requests_.clear();
  }

  NeighborArgs args_;
  std::vector<MPI_Request> requests_;  // receives, then sends
};

}  // namespace

namespace neighbor_algorithms {
extern const NeighborAlgorithm p2p_persistent{
    "p2p_persistent", "MPI_Recv_init/MPI_Send_init per edge once, MPI_Startall/MPI_Waitall per iteration",
    runs_any_arguments, make_operation<P2pPersistentNeighborAlltoallv>};
}  // namespace neighbor_algorithms

}  // namespace mpix
