#include "node/peer_memory.hpp"

#include <unistd.h>

#include "node/node_memory.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

PeerMemory PeerMemory::describe(const void* base, std::size_t size, PtracePeers policy) {
  allow_cma_from_peers(policy);
  PeerMemory m;
  m.pid = getpid();
  m.address = reinterpret_cast<std::uintptr_t>(base);
  m.probe = cma_probe_address();
  if (base != nullptr && size > 0) {
    const SegmentLocation where = NodeMemory::get().locate(base, size);
    m.segment_fd = where.fd;
    m.segment_serial = where.serial;
    m.segment_offset = where.offset;
    m.segment_size = where.size;
  }
  return m;
}

DirectPath choose_direct_path(const PeerMemory& peer, bool self, NodePath mode, PtracePeers policy) {
  DirectPath path;
  DirectTarget& d = path.target;
  if (mode == NodePath::mpi) return path;
  if (self) {
    d.mode = DirectTarget::Mode::shm;
    d.shm_base = reinterpret_cast<char*>(peer.address);
    return path;
  }
  if (const char* why = mpi_implementation::ranks_are_not_processes()) {
    path.why_not = why;
    return path;
  }
  if (policy == PtracePeers::off) {
    path.why_not = "MPIX_PTRACE_PEERS=off: no single copy from a node peer's memory";
    return path;
  }
  if (peer.segment_fd >= 0 && mode != NodePath::cma) {
    path.segment = NodeMemory::get().peer_segment(static_cast<pid_t>(peer.pid), static_cast<int>(peer.segment_fd),
                                                  peer.segment_serial, static_cast<std::size_t>(peer.segment_size));
    if (path.segment) {
      d.mode = DirectTarget::Mode::shm;
      d.shm_base = path.segment->base() + peer.segment_offset;
      return path;
    }
  }
  if (mode != NodePath::shm && cma_reachable(static_cast<pid_t>(peer.pid), peer.probe, path.why_not)) {
    d.mode = DirectTarget::Mode::cma;
    d.pid = static_cast<pid_t>(peer.pid);
    d.address = peer.address;
  }
  return path;
}

const char* path_name(DirectTarget::Mode mode) {
  switch (mode) {
    case DirectTarget::Mode::shm: return "shm";
    case DirectTarget::Mode::cma: return "cma";
    case DirectTarget::Mode::none: return "mpi";
  }
  return "?";
}

}  // namespace mpix
