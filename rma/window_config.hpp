// The window layer's section of the configuration (MPIX_NODE_PATH,
// MPIX_CMA_MIN_BYTES, MPIX_WIN_THREAD_SLOTS): its rows are in
// window_config.cpp and join the typed table through src/components.def.
#pragma once

#include "node/node_config.hpp"

namespace mpix {

struct WindowConfig {
  NodePath node_path = NodePath::automatic;
  long cma_min_bytes = 131072;  // smallest transfer into user memory that takes CMA
  int thread_slots = 4;         // MPI windows per thread-scope MPIX window
};

}  // namespace mpix
