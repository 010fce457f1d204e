// What the selector knows of one Alltoallv: a handful of numbers agreed by
// every rank (collectives/alltoallv/selection_inputs.cpp), never one rank's own view,
// so that every rank predicts the same costs and makes the same choice.
#pragma once

#include <cstdint>

namespace mpix {

struct PatternSummary {
  int ranks = 1;
  int nodes = 1;
  // Maxima over ranks, split by where the peer is: a rank's bytes are the
  // larger of what it sends and what it receives, its messages the larger of
  // its targets and its sources (the busiest rank sets the pace). The block
  // a rank sends itself is counted apart.
  std::int64_t node_bytes = 0, net_bytes = 0;
  std::int64_t node_messages = 0, net_messages = 0;
  std::int64_t max_peer_bytes = 0;  // the largest block
  std::int64_t self_bytes = 0;      // the largest block a rank sends itself
  // Every rank's receive buffer lies in MPIX_Alloc_mem memory, which node
  // peers map: on-node blocks can then be copied straight into it.
  bool library_memory = false;
};

}  // namespace mpix
