// The arguments of one persistent neighbourhood Alltoallv, copied and checked
// once at init: per edge of the distributed graph, never per rank.
//
// The edges are the communicator's: MPI_Dist_graph_neighbors lists the
// sources (receives, recvcounts/rdispls in that order) and the
// destinations (sends, sendcounts/sdispls). A rank may appear several times
// in either list (duplicate edges) and may be its own neighbour
// (self-loops); MPI_Neighbor_alltoallv pairs the k-th edge from a to b in
// a's destinations with the k-th edge from a in b's sources (MPICH and Open
// MPI alike; the standard leaves it open, and MPICH's
// MPI_Neighbor_alltoall pairs them in reverse), and so does every
// algorithm here.
// MPI does not allow MPI_IN_PLACE in neighbourhood collectives.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/auto/settings.hpp"
#include "src/datatype_layout.hpp"
#include "collectives/vector_user_args.hpp"
#include "collectives/family.hpp"
#include "src/comm.hpp"

namespace mpix {

struct NeighborArgs {
  std::shared_ptr<const Comm> comm;
  std::vector<int> sources, destinations;  // ranks of comm, per edge, in MPI's order
  const void* sendbuf = nullptr;
  std::vector<int> sendcounts, sdispls;  // per destination edge
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  DatatypeLayout send_layout{};
  void* recvbuf = nullptr;
  std::vector<int> recvcounts, rdispls;  // per source edge
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  DatatypeLayout recv_layout{};
  // Starts may point the arguments at other buffers of the same layout
  // (PersistentOperation::rebind): no path may depend on their addresses.
  bool buffers_move = false;
  AutoHints auto_hints;  // the request's info for auto, unparsed
  // Agreed at init: why the requested algorithm cannot run (on the lowest
  // rank that says so, the same text on every rank), if it cannot.
  std::optional<std::string> algorithm_refused;

  // Local checks and copies; throws an Error naming the bad argument.
  static NeighborArgs from_user(const VectorUserArgs& user, std::shared_ptr<const Comm> comm);
  // Points the arguments at other buffers of the same layout (buffers_move):
  // checked as at init; throws an Error naming the bad buffer.
  void move_buffers(const void* new_sendbuf, void* new_recvbuf);

  // What MPI's calls take for a count or displacement array: never NULL
  // (Open MPI's persistent call refuses NULL even for degree 0).
  static const int* array(const std::vector<int>& values) {
    static const int none = 0;
    return values.empty() ? &none : values.data();
  }

  int indegree() const { return static_cast<int>(sources.size()); }
  int outdegree() const { return static_cast<int>(destinations.size()); }
  MPI_Count send_bytes(int edge) const { return sendcounts[edge] * send_layout.size; }
  MPI_Count recv_bytes(int edge) const { return recvcounts[edge] * recv_layout.size; }
  const char* send_block(int edge) const {
    return static_cast<const char*>(sendbuf) + static_cast<MPI_Aint>(sdispls[edge]) * send_layout.extent;
  }
  char* recv_block(int edge) const {
    return static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(rdispls[edge]) * recv_layout.extent;
  }
};

// The tag of the family's point-to-point messages (p2p_persistent, and
// channel's off-node edges) on the library's communicator.
inline constexpr int neighbor_tag = 0x6e62;

// The neighbourhood family's rows (collectives/neighbor_alltoallv/registry.def).
using NeighborAlgorithm = CollectiveAlgorithm<NeighborArgs>;

// Collective over the communicator, O(degree) data and O(log P) steps: one
// MPI_Neighbor_alltoallv checks what each source sends on each edge against
// what its receiver expects, one MPI_Allreduce that every rank asks for
// the same algorithm and whether any refuses it; any violation becomes the
// same Error on every rank. A communicator without a distributed-graph
// topology is the same MPI_ERR_TOPOLOGY on every rank (it is one
// communicator).
NeighborArgs make_neighbor_args(const VectorUserArgs& user, std::shared_ptr<const Comm> comm,
                                const Requested<NeighborAlgorithm>& algorithm);

}  // namespace mpix
