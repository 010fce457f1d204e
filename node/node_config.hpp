// The node transport's section of the configuration (MPIX_CHANNEL,
// MPIX_CHANNEL_*,
// MPIX_PTRACE_PEERS): its rows are in node_config.cpp and join the typed
// table through src/components.def.
#pragma once

#include "src/config.hpp"

namespace mpix {

// How far the library relies on ptrace permission between node peers (CMA,
// pidfd_getfd): widen grants it to same-user processes where Yama asks for
// that, use takes it only where the kernel already grants it, off never
// makes a call that needs it.
enum class PtracePeers { widen, use, off };

// How a window reaches a target on its node: auto chooses per target,
// shm (load/store into mapped memory), cma, or mpi (MPI RMA only).
enum class NodePath { automatic, shm, cma, mpi };

struct NodeConfig {
  bool channel = true;             // off: no node channel for any family, nor the drop-in's agreement
  long chunk_bytes = 32768;        // node channel: payload of one ring slot
  long staging_bytes = 1L << 20;   // node channel: inbound staging memory per rank
  long single_copy_bytes = 4096;   // mapped send blocks from this size up: one copy; 0: never
  long cma_bytes = 65536;          // channel_cma: heap send blocks from this size up: one CMA copy; 0: never
  long lockstep_bytes = 2304;      // even pairs whose blocks are this large go in lockstep; 0: never
  int spin_polls = -1;             // polls before a waiting rank yields; -1: by the node's cores
  PtracePeers ptrace_peers = PtracePeers::widen;
};

}  // namespace mpix
