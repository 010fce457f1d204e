#include "node/direct_copy.hpp"

#include <sys/prctl.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include "src/error.hpp"

namespace mpix {

namespace {

const char probe_byte = 42;

// Relaxed: a count, read after the copies it counts have been synchronized
// by other means; one uncontended increment beside a system call.
std::atomic<std::uint64_t> cma_call_count{0};

void cma_copy(pid_t pid, std::uintptr_t remote, void* local, std::size_t bytes, bool write) {
  iovec l{local, bytes};
  iovec r{reinterpret_cast<void*>(remote), bytes};
  cma_copy_vectors(pid, &l, &r, 1, write);
}

}  // namespace

void cma_copy_vectors(pid_t pid, iovec* local, iovec* remote, int count, bool write) {
  // One call may move less than asked (signals, page limits). Local and
  // remote iovecs pair up with equal lengths, so the next call resumes both
  // at the same element and offset.
  // A call takes at most IOV_MAX pairs.
  int first = 0;
  while (first < count) {
    cma_call_count.fetch_add(1, std::memory_order_relaxed);
    const unsigned long pairs = static_cast<unsigned long>(std::min(count - first, IOV_MAX));
    const ssize_t n = write ? process_vm_writev(pid, local + first, pairs, remote + first, pairs, 0)
                            : process_vm_readv(pid, local + first, pairs, remote + first, pairs, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(MPI_ERR_OTHER, std::string(write ? "process_vm_writev" : "process_vm_readv") + " to pid " +
                                     std::to_string(pid) + " failed: " + std::strerror(errno));
    std::size_t done = static_cast<std::size_t>(n);
    while (first < count && done >= local[first].iov_len) done -= local[first++].iov_len;
    if (done > 0)
      for (iovec* element : {local + first, remote + first}) {
        element->iov_base = static_cast<char*>(element->iov_base) + done;
        element->iov_len -= done;
      }
  }
}

std::uint64_t cma_calls() { return cma_call_count.load(std::memory_order_relaxed); }

void DirectTarget::put(MPI_Aint offset, const void* origin, std::size_t bytes) const {
  if (bytes == 0) return;
  if (mode == Mode::shm)
    std::memcpy(shm_base + offset, origin, bytes);
  else
    cma_copy(pid, address + static_cast<std::uintptr_t>(offset), const_cast<void*>(origin), bytes, true);
}

void DirectTarget::get(MPI_Aint offset, void* origin, std::size_t bytes) const {
  if (bytes == 0) return;
  if (mode == Mode::shm)
    std::memcpy(origin, shm_base + offset, bytes);
  else
    cma_copy(pid, address + static_cast<std::uintptr_t>(offset), origin, bytes, false);
}

bool cma_reachable(pid_t pid, std::uintptr_t address, std::string& why) {
  char byte = 0;
  iovec l{&byte, 1};
  iovec r{reinterpret_cast<void*>(address), 1};
  if (process_vm_readv(pid, &l, 1, &r, 1, 0) == 1 && byte == probe_byte) return true;
  why = std::string("process_vm_readv from pid ") + std::to_string(pid) + ": " + std::strerror(errno) +
        " (CMA forbidden by ptrace policy or container?)";
  return false;
}

void allow_cma_from_peers(PtracePeers policy) {
  if (policy != PtracePeers::widen) return;
#ifdef PR_SET_PTRACER
  // Without Yama this fails harmlessly; with Yama scope 1 it is required.
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
}

std::uintptr_t cma_probe_address() { return reinterpret_cast<std::uintptr_t>(&probe_byte); }

}  // namespace mpix
