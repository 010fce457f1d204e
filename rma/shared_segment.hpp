// Memory that other processes on the node can map: a memfd segment created
// here, and the mapping of a peer's segment, obtained through pidfd_getfd.
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
  int fd() const { return fd_; }

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
};

}  // namespace mpix
