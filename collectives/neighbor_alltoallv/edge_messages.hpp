// The messages of a neighbourhood exchange's edges, for persistent
// point-to-point (collectives/persistent_edges.hpp): p2p_persistent runs
// every edge this way, channel its off-node edges.
#pragma once

#include <vector>

#include "collectives/neighbor_alltoallv/args.hpp"
#include "collectives/persistent_edges.hpp"

namespace mpix {

// The messages of a neighbourhood exchange's edges that keep(peer, bytes)
// accepts, receives first, each in edge order. A filter must keep or drop
// both ends of an edge alike: one that looks at the peer's node, or at the
// edge's bytes (MPI makes both ends carry the same) does. Edges that carry
// no bytes (agreed at init: both ends see 0) post nothing.
template <class Keep>
std::vector<PointToPointMessage> edge_messages(const NeighborArgs& args, Keep keep) {
  std::vector<PointToPointMessage> messages;
  for (int edge = 0; edge < args.indegree(); ++edge) {
    const int peer = args.sources[static_cast<std::size_t>(edge)];
    if (args.recv_bytes(edge) > 0 && keep(peer, args.recv_bytes(edge)))
      messages.push_back({peer, false, args.rdispls[static_cast<std::size_t>(edge)] * args.recv_layout.extent,
                          args.recvcounts[static_cast<std::size_t>(edge)]});
  }
  for (int edge = 0; edge < args.outdegree(); ++edge) {
    const int peer = args.destinations[static_cast<std::size_t>(edge)];
    if (args.send_bytes(edge) > 0 && keep(peer, args.send_bytes(edge)))
      messages.push_back({peer, true, args.sdispls[static_cast<std::size_t>(edge)] * args.send_layout.extent,
                          args.sendcounts[static_cast<std::size_t>(edge)]});
  }
  return messages;
}

}  // namespace mpix
