// How the ranks of a communicator agree before a call of the drop-in
// (served_exchanges.cpp): each contributes a few 64-bit integers and every
// rank gets their maximum over ranks.
//
// Two paths, one result:
// - MPI: PMPI_Allreduce(MPI_MAX) on the user's communicator. Works
//   everywhere; on one node it costs the MPI's small-allreduce latency,
//   which every served call pays on top of its exchange.
// - The node channel (node/node_channel.hpp), where the communicator is
//   one node (emulated nodes count as nodes): every rank sends its integers
//   to every other through its ring and takes the maximum itself. One
//   cache line or two per peer, and no MPI call.
// Which one runs is measured, never predicted: at the set-up and then at
// every retime_every-th admission (agreed calls, so every rank counts
// alike) both are timed back to back, each as the fastest of a burst, then
// the minimum over ranks (the rank that arrives last sees the latency
// alone; the others also wait for it, which the exchange would absorb
// anyway), and every rank keeps the faster alike. Timing both costs
// about as much as a small pattern's whole admission otherwise, and the
// paths' order changes with the machine's phase, not from one pattern to
// the next. A channel the
// machine refuses (no memfd, no Unix-domain sockets) leaves the MPI path,
// with the reason under MPIX_VERBOSE.
//
// A served call that skips its agreement carries a check instead (post()
// and all_posted(), around the call's exchange): one flag per rank, its
// minimum over ranks, through the channel wherever it was built (its
// latency hides behind the exchange) or a nonblocking MPI_Iallreduce.
//
// Invariants: every rank calls max(), and post() then all_posted(), at the
// same calls, with the same count; a ring carries at most one message
// ahead of its reader, since a rank cannot send message k + 1 before it
// has every peer's k. Nothing
// here is collective at destruction: the channel's rings are unmapped.
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "intercept/intercept_config.hpp"
#include "node/node_channel.hpp"

namespace mpix::intercept {

class Agreement {
 public:
  // comm: the user's communicator (PMPI); values: integers per agreement.
  Agreement(MPI_Comm comm, int values);
  ~Agreement();
  Agreement(const Agreement&) = delete;
  Agreement& operator=(const Agreement&) = delete;

  // Collective over comm, at an agreed call. xcomm: the library's
  // communicator over the same ranks. Builds the channel path the first
  // time (where mode and the node layout allow); at the first call and
  // every retime_every-th after, times the paths the mode allows and keeps
  // the faster. Returns the kept path's latency in nanoseconds, the same
  // on every rank.
  long long choose(MPIX_Comm* xcomm, AgreementPath mode);
  static constexpr int retime_every = 8;
  // What the last choose() returned (0 before the first); local.
  long long kept_latency_ns() const { return kept_ns_; }

  // Collective over comm: values[0..values) become their maximum over
  // ranks. Returns MPI's error code (the MPI path's).
  int max(std::int64_t* values);

  // Collective over comm, at a call that every rank serves from the same
  // cached pattern without an agreement first (served_exchanges.cpp): the
  // check that call carries, in two halves around its exchange. post()
  // sends whether this rank's arguments are that pattern's; all_posted()
  // returns once every rank's flag is in, with whether every rank's was
  // set. Through the node channel where it was built (a flag per peer, in
  // the rings max() uses: it waits for flow control only, and the peers'
  // flags arrive while the exchange runs), else a PMPI_Iallreduce started
  // by post() and completed by all_posted(). Every rank calls the two at
  // the same calls, in order, between max()'s. Return MPI's error code.
  int post(bool flag);
  int all_posted(bool& all);

  // "MPI_Allreduce" or "node channel": the path max() takes now.
  const char* path_name() const;

 private:
  int max_through_channel(std::int64_t* values);
  // One message each way with every node peer: data (bytes of it) to each,
  // each one's into its place in received_; moved by move_all().
  void address_peers(const void* data, std::size_t bytes);
  // Waits until every message to and from the node peers has moved (only
  // the peers named in outgoing_ and incoming_).
  void move_all();
  // The fastest of a burst of max() on the current path, the minimum over ranks.
  long long latency_ns();

  MPI_Comm comm_;
  int values_;
  std::unique_ptr<NodeChannel> channel_;  // where the communicator is one node
  bool channel_tried_ = false;
  bool through_channel_ = false;
  long choices_ = 0;       // calls of choose()
  long long kept_ns_ = 0;  // the kept path's latency, as last timed
  int spin_polls_ = 0;
  int node_rank_ = 0;
  // Made once: max() allocates nothing.
  std::vector<std::int64_t> received_;  // values_ per node rank
  std::vector<NodeChannel::Outgoing> outgoing_;
  std::vector<NodeChannel::Incoming> incoming_;
  // post()'s flag, as sent (MPI_INT: the MPI path's minimum), and the
  // MPI path's result and request.
  int posted_ = 0, all_posted_ = 0;
  MPI_Request posted_request_ = MPI_REQUEST_NULL;
  bool posted_through_channel_ = false;
};

}  // namespace mpix::intercept
