// Memory that other processes on the node can map: a memfd segment created
// here, and the mapping of a peer's segment, from a descriptor the peer
// passed (node/descriptor_passing.hpp) or taken with pidfd_getfd.
// This is what gives memory-handle windows load/store speed on the node path
// (CMA needs a system call per transfer, ~2.5 us even for 8 bytes).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace mpix {

class SharedSegment {
 public:
  // size bytes, zero-filled, mapped read/write here; throws MPI_ERR_NO_MEM.
  // populate: every page allocated and mapped now rather than at its first
  // touch (memory used at once, whose first pass must not pay page faults).
  SharedSegment(std::size_t size, const char* name, bool populate = false);
  ~SharedSegment();
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  char* base() const { return base_; }
  std::size_t size() const { return size_; }
  // -1 once closed.
  int fd() const { return fd_; }
  // Once every peer holds its own mapping the descriptor is not needed:
  // a live segment then costs no descriptor (1000 live requests must not
  // need 1000 of them).
  void close_fd();

 private:
  int fd_ = -1;
  char* base_ = nullptr;
  std::size_t size_ = 0;
};

// A peer's SharedSegment mapped into this process.
class PeerMapping {
 public:
  // Maps fd of process pid; empty (ok() false, why() says why) when the
  // kernel refuses (ptrace policy, container, old kernel).
  PeerMapping(pid_t pid, int fd, std::size_t size, bool populate = false);
  // Maps a descriptor of the peer's segment that this process holds (the
  // caller keeps owning it).
  PeerMapping(int local_fd, std::size_t size, bool populate);
  ~PeerMapping();
  PeerMapping(const PeerMapping&) = delete;
  PeerMapping& operator=(const PeerMapping&) = delete;

  bool ok() const { return base_ != nullptr; }
  const std::string& why() const { return why_; }
  char* base() const { return base_; }
  std::size_t size() const { return size_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::string why_;

  void map(int local_fd, bool populate, const std::string& whose);
};

}  // namespace mpix
