// Queued CMA writes into one process, issued as one process_vm_writev.
//
// Why: an ordered window (mpi_win_order) must make its operations to a
// target complete in issue order. Issued one system call each, a data put
// and the flag put after it cost two calls; MPI lets a put complete as late
// as the next flush or epoch end, so the window may instead queue them and
// issue both with one call.
//
// Order: the kernel copies a call's iovecs one after the other, each with
// its own copy. On x86 the stores of one copy (a string operation) complete
// before those of the next, so a target that sees a later iovec's bytes
// also sees every earlier one's. Elsewhere a later copy's stores may pass
// an earlier one's, so there queue_orders_stores is false and the window
// issues each operation on its own.
//
// Invariants: every queued write goes to one process (pid_); the origin bytes
// are read only when issue() runs (the caller keeps them, as MPI's origin
// buffers, until then); issue() empties the queue even when it fails.
// Threads: add() and issue() are serialized by the caller; empty() may be
// asked by any thread without that (a hint that sees every add() that
// happened before the asking).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mpix {

#if defined(__x86_64__) || defined(__i386__)
inline constexpr bool queue_orders_stores = true;
#else
inline constexpr bool queue_orders_stores = false;
#endif

class CmaWriteQueue {
 public:
  static constexpr int capacity = 16;

  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }
  // Queues bytes from origin to address in pid; issues what was queued
  // first when pid differs or the queue is full.
  void add(pid_t pid, std::uintptr_t address, const void* origin, std::size_t bytes) {
    if (bytes == 0) return;
    int count = count_.load(std::memory_order_relaxed);
    if (count == capacity || (count > 0 && pid != pid_)) {
      issue();
      count = 0;
    }
    pid_ = pid;
    local_[static_cast<std::size_t>(count)] = {const_cast<void*>(origin), bytes};
    remote_[static_cast<std::size_t>(count)] = {reinterpret_cast<void*>(address), bytes};
    count_.store(count + 1, std::memory_order_release);
  }
  // Copies everything queued, in order (throws Error on failure).
  void issue();

 private:
  pid_t pid_ = 0;
  std::atomic<int> count_{0};
  std::array<iovec, capacity> local_{};
  std::array<iovec, capacity> remote_{};
};

}  // namespace mpix
