// Persistent point-to-point over the edges of a neighbourhood exchange: one
// MPI_Recv_init per source edge and one MPI_Send_init per destination edge
// that a filter keeps, made once; start() starts them all (receives first),
// test() and wait() complete them. The p2p_persistent algorithm runs every
// edge this way; channel runs the off-node ones.
//
// Matching: the k-th edge from a to b is a's k-th send to b and b's k-th
// receive from a, under one tag; MPI's non-overtaking rule pairs them in
// that order, the pairing MPI_Neighbor_alltoallv has for duplicate edges. A
// filter must keep or drop both ends of an edge alike (one that looks at
// the peer's node does). Edges that carry no bytes (agreed at init: both
// ends see 0) post nothing. Persistent requests on one communicator are
// started in the same order on every rank (MPI's rule for persistent
// collectives), so the messages of several live requests match in order.
#pragma once

#include <mpi.h>

#include <vector>

#include "collectives/neighbor_alltoallv_args.hpp"

namespace mpix {

class PersistentEdges {
 public:
  // keep(rank): whether the edges to and from that rank of args.comm go
  // this way. args must outlive this object.
  template <class Keep>
  PersistentEdges(const NeighborArgs& args, Keep keep) {
    std::vector<bool> in(args.sources.size()), out(args.destinations.size());
    for (std::size_t e = 0; e < in.size(); ++e) in[e] = keep(args.sources[e]);
    for (std::size_t e = 0; e < out.size(); ++e) out[e] = keep(args.destinations[e]);
    make(args, in, out);
  }
  ~PersistentEdges();
  PersistentEdges(const PersistentEdges&) = delete;
  PersistentEdges& operator=(const PersistentEdges&) = delete;

  bool empty() const { return requests_.empty(); }
  void start();
  bool test();  // true once every message is complete
  void wait();

 private:
  void make(const NeighborArgs& args, const std::vector<bool>& in, const std::vector<bool>& out);
  void free_requests();

  std::vector<MPI_Request> requests_;  // receives, then sends
};

}  // namespace mpix
