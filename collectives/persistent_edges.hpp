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

}  // namespace mpix
