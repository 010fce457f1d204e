#include "node/shared_segment.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/error.hpp"

namespace mpix {

namespace {
// Through syscall(2): Debian 12's <sys/pidfd.h> lacks the C linkage C++ needs.
int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }
int fd_of(int pidfd, int fd) { return static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0)); }
}  // namespace

SharedSegment::SharedSegment(std::size_t size, const char* name, bool populate) : size_(size) {
  fd_ = memfd_create(name, MFD_CLOEXEC);
  if (fd_ < 0) throw Error(MPI_ERR_NO_MEM, system_error("memfd_create", errno));
  void* p = MAP_FAILED;
  if (ftruncate(fd_, static_cast<off_t>(size)) == 0)
    p = mmap(nullptr, size == 0 ? 1 : size, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd_, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    close(fd_);
    throw Error(MPI_ERR_NO_MEM, system_error("shared segment of " + std::to_string(size) + " bytes", err));
  }
  base_ = static_cast<char*>(p);
}

SharedSegment::~SharedSegment() {
  munmap(base_, size_ == 0 ? 1 : size_);
  close_fd();
}

void SharedSegment::close_fd() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

PeerMapping::PeerMapping(pid_t pid, int fd, std::size_t size, bool populate) : size_(size) {
  const int pidfd = open_pidfd(pid);
  const int local = pidfd < 0 ? -1 : fd_of(pidfd, fd);
  const int err = errno;
  if (pidfd >= 0) close(pidfd);
  if (local < 0) {
    why_ = system_error(std::string(pidfd < 0 ? "pidfd_open" : "pidfd_getfd") + " of pid " + std::to_string(pid), err);
    return;
  }
  map(local, populate, "pid " + std::to_string(pid) + "'s");
  close(local);
}

PeerMapping::PeerMapping(int local_fd, std::size_t size, bool populate) : size_(size) {
  map(local_fd, populate, "a node peer's");
}

void PeerMapping::map(int local_fd, bool populate, const std::string& whose) {
  void* p = mmap(nullptr, size_ == 0 ? 1 : size_, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0),
                 local_fd, 0);
  if (p == MAP_FAILED)
    why_ = system_error("mmap of " + whose + " segment", errno);
  else
    base_ = static_cast<char*>(p);
}

PeerMapping::~PeerMapping() {
  if (base_ != nullptr) munmap(base_, size_ == 0 ? 1 : size_);
}

}  // namespace mpix
