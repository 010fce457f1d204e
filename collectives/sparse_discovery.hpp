// Sparse pattern discovery: each rank knows only whom it sends to and how
// much; this finds who sends to it and how much, without an O(P)
// collective, by Hoefler, Siebert and Lumsdaine's NBX ("Scalable
// communication protocols for dynamic sparse data exchange", PPoPP 2010).
//
// Protocol (on a private duplicate of the communicator, so no user message
// can match):
//   1. every rank sends each destination its count with a synchronous-mode
//      nonblocking send (MPI_Issend): it completes only once received;
//   2. every rank probes for such messages from anyone and receives them,
//      recording (source, count), until
//   3. all of its own sends have completed: it then enters a nonblocking
//      barrier (MPI_Ibarrier) and keeps receiving while it tests it;
//   4. the barrier completes only when every rank's sends have been
//      received, so no message is left in flight: done.
// Time and memory are O(degree) per rank plus the barrier's O(log P).
// Several edges to one destination are several messages; MPI's
// non-overtaking rule delivers them in order, so the k-th edge of a source
// keeps its place among that source's edges.
#pragma once

#include <mpi.h>

#include <vector>

namespace mpix {

struct DiscoveredSources {
  std::vector<int> sources;  // ascending rank; a source's edges in its order
  std::vector<int> counts;   // what each source edge carries
};

// Collective over comm (an intracommunicator). destinations and counts are
// this rank's edges, already checked (ranks of comm, counts >= 0).
DiscoveredSources discover_sources(MPI_Comm comm, const std::vector<int>& destinations,
                                   const std::vector<int>& counts);

}  // namespace mpix
