// The sparse exchange: each rank knows only whom it sends to, how much and
// what; this finds who sends to it and delivers their data, without an
// O(P) collective, by Hoefler, Siebert and Lumsdaine's NBX ("Scalable
// communication protocols for dynamic sparse data exchange", PPoPP 2010),
// with the payload in the synchronous sends, so that the pattern and the
// data travel together.
//
// Protocol (on a private duplicate of the communicator, so no user message
// can match):
//   1. every rank sends each destination its block with a synchronous-mode
//      nonblocking send (MPI_Issend): it completes only once received;
//   2. every rank probes for such messages from anyone and receives them
//      (the size from the probe's status), recording the source, until
//   3. all of its own sends have completed: it then enters a nonblocking
//      barrier (MPI_Ibarrier) and keeps receiving while it tests it;
//   4. the barrier completes only when every rank's sends have been
//      received, so no message is left in flight: done.
// Time and memory are O(degree) per rank plus the barrier's O(log P).
// Several messages to one destination are several messages; MPI's
// non-overtaking rule delivers them in order, so the k-th message of a
// source keeps its place among that source's.
//
// Two uses: pattern discovery (MPIX_Dist_graph_create_sparse: each message
// is one count) and the exchange with data (MPIX_Alltoallv_crs, shaped like
// MPI Advance's MPIL_Alltoallv_crs; where its pattern repeats, the
// neighbourhood family re-runs it without discovery:
// collectives/neighbor_alltoallv/crs_exchange.hpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "src/comm.hpp"
#include "src/info.hpp"

namespace mpix {

// One message: count elements of the send type at data, to destination.
struct SparseMessage {
  int destination;
  const void* data;
  int count;
};

struct SparseReceived {
  std::vector<int> sources;  // ascending rank; a source's messages in its order
  std::vector<int> counts;   // elements of the receive type per message
  std::vector<int> displs;   // where each message starts in data, in elements of the receive type
  std::vector<unsigned char> data;  // every message, in that order, at the receive type's extent
};

// Collective over comm (an intracommunicator). The messages are this rank's,
// already checked (ranks of comm, counts >= 0). A message whose size is not
// a whole number of recvtype elements is MPI_ERR_TRUNCATE on the receiver.
SparseReceived sparse_exchange(MPI_Comm comm, const std::vector<SparseMessage>& messages, MPI_Datatype sendtype,
                               MPI_Datatype recvtype);

// Pattern discovery: who sends to this rank and how much, per edge.
struct DiscoveredSources {
  std::vector<int> sources;  // ascending rank; a source's edges in its order
  std::vector<int> counts;   // what each source edge carries
};
DiscoveredSources discover_sources(MPI_Comm comm, const std::vector<int>& destinations,
                                   const std::vector<int>& counts);

// MPIX_Alltoallv_crs's arguments as messages: send_nnz blocks, block i
// sendcounts[i] elements of sendtype at sendvals + sdispls[i] * extent, to
// dest[i], received as recvtype. Checks them on every rank and agrees on
// them (one MPI_Allreduce) before any rank sends: a bad destination must
// not leave the others waiting; each Error names the argument and rank.
// sparse_exchange(comm.global(), messages, sendtype, recvtype) is the call.
std::vector<SparseMessage> checked_crs_messages(const Comm& comm, int send_nnz, const int dest[],
                                               const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                               const void* sendvals, MPI_Datatype recvtype);

// One MPIX_Alltoallv_crs call on comm, with the pattern comm keeps for the
// next where info's mpix_crs_reuse asks for it: the neighbourhood family's
// CrsExchange, a component of comm (collectives/neighbor_alltoallv/
// crs_exchange.hpp). Collective.
SparseReceived alltoallv_crs(const Comm& comm, int send_nnz, const int dest[], const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype, const void* sendvals,
                             MPI_Datatype recvtype, const Info* info);

}  // namespace mpix
