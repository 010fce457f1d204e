// The node transport's one descriptor of reachable memory and its one choice
// of path. A process publishes a PeerMemory for a range of its memory (a
// created window's base, a memory handle's range); a node peer that receives
// it calls choose_direct_path once and copies through the DirectTarget it
// gets for as long as it uses the range:
//  - its own memory: a plain copy;
//  - MPIX_Alloc_mem memory (a memfd segment): the segment mapped here,
//    load/store;
//  - other memory: a CMA single copy, where the kernel allows it;
//  - otherwise none: MPI RMA.
// MPIX_NODE_PATH narrows the choice (shm, cma, mpi); MPIX_PTRACE_PEERS=off
// leaves only the first and the last.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "node/direct_copy.hpp"
#include "node/shared_segment.hpp"
#include "node/node_config.hpp"

namespace mpix {

struct PeerMemory {
  std::int64_t pid = 0;
  std::uint64_t address = 0;
  std::uint64_t probe = 0;        // an address a peer may read to test CMA permission
  std::int64_t segment_fd = -1;   // MPIX_Alloc_mem memory: the segment node peers can map; -1 otherwise
  std::uint64_t segment_serial = 0;
  std::uint64_t segment_offset = 0;  // where the range starts in the segment
  std::uint64_t segment_size = 0;

  // This process's memory [base, base + size): locates it in an
  // MPIX_Alloc_mem segment when it is in one, and allows CMA from peers
  // where the policy widens ptrace access.
  static PeerMemory describe(const void* base, std::size_t size, PtracePeers policy);
};

struct DirectPath {
  DirectTarget target;                   // mode none: use MPI RMA
  std::shared_ptr<PeerMapping> segment;  // keeps a mapped segment alive while the path is used
  std::string why_not;                   // why CMA was refused, when it was tried
};

// self: the memory is this process's own. With policy off, a peer's memory
// is never reached by a call that needs ptrace permission.
DirectPath choose_direct_path(const PeerMemory& peer, bool self, NodePath mode, PtracePeers policy);

// "shm", "cma" or "mpi".
const char* path_name(DirectTarget::Mode mode);

}  // namespace mpix
