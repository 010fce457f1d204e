// Persistent point-to-point over a fixed list of messages: one
// MPI_Recv_init or MPI_Send_init per message, made once per pair of
// buffers; start() starts them all, test() and wait() complete them. The
// neighbourhood family's p2p_persistent runs every edge this way, and both
// families' channel rows their off-node blocks.
//
// Matching: the messages to (or from) one peer are started in list order
// under one tag, so MPI's non-overtaking rule pairs the k-th send from a
// to b with b's k-th receive from a (the pairing MPI_Neighbor_alltoallv
// has for duplicate edges). Persistent requests on one communicator are
// started in the same order on every rank (MPI's rule for persistent
// collectives), so the messages of several live requests match in order.
//
// Buffers that move (mpix_buffers_move): a message is an offset into the
// send or receive buffer, and use() points the requests at another pair.
// Codes that move their buffers mostly alternate among a few pairs (an
// FFT's two arrays, the drop-in's callers), so the requests of the last few
// pairs are kept: going back to one re-creates nothing.
#pragma once

#include <mpi.h>

#include <vector>

#include "collectives/neighbor_alltoallv_args.hpp"

namespace mpix {

struct PointToPointMessage {
  int peer;           // rank in the communicator
  bool sends;         // from the send buffer to peer; else into the receive buffer from peer
  MPI_Aint offset;    // bytes from the buffer's start
  int count;          // elements of the send or receive type
};

class PersistentEdges {
 public:
  // Collective-free: sets the messages up over (send, recv).
  PersistentEdges(MPI_Comm comm, int tag, MPI_Datatype sendtype, MPI_Datatype recvtype,
                  std::vector<PointToPointMessage> messages, const void* send, void* recv);
  ~PersistentEdges();
  PersistentEdges(const PersistentEdges&) = delete;
  PersistentEdges& operator=(const PersistentEdges&) = delete;

  bool empty() const { return messages_.empty(); }
  // Makes the requests over (send, recv) the ones start() runs, reusing a
  // kept set. Not while started.
  void use(const void* send, void* recv);
  void start();
  bool test();  // true once every message is complete
  void wait();

 private:
  struct RequestSet {
    const void* send;
    void* recv;
    std::vector<MPI_Request> requests;
  };
  static constexpr std::size_t kept_sets = 4;

  RequestSet make(const void* send, void* recv) const;
  static void free_requests(std::vector<MPI_Request>& requests);
  std::vector<MPI_Request>& running() { return sets_.back().requests; }

  MPI_Comm comm_;
  int tag_;
  MPI_Datatype sendtype_, recvtype_;
  std::vector<PointToPointMessage> messages_;
  std::vector<RequestSet> sets_;  // most recently used last: the one start() runs
};

// The messages of a neighbourhood exchange's edges whose peer keep(rank)
// accepts, receives first, each in edge order. A filter must keep or drop
// both ends of an edge alike (one that looks at the peer's node does).
// Edges that carry no bytes (agreed at init: both ends see 0) post nothing.
template <class Keep>
std::vector<PointToPointMessage> edge_messages(const NeighborArgs& args, Keep keep) {
  std::vector<PointToPointMessage> messages;
  for (int edge = 0; edge < args.indegree(); ++edge) {
    const int peer = args.sources[static_cast<std::size_t>(edge)];
    if (keep(peer) && args.recv_bytes(edge) > 0)
      messages.push_back({peer, false, args.rdispls[static_cast<std::size_t>(edge)] * args.recv_layout.extent,
                          args.recvcounts[static_cast<std::size_t>(edge)]});
  }
  for (int edge = 0; edge < args.outdegree(); ++edge) {
    const int peer = args.destinations[static_cast<std::size_t>(edge)];
    if (keep(peer) && args.send_bytes(edge) > 0)
      messages.push_back({peer, true, args.sdispls[static_cast<std::size_t>(edge)] * args.send_layout.extent,
                          args.sendcounts[static_cast<std::size_t>(edge)]});
  }
  return messages;
}

}  // namespace mpix
