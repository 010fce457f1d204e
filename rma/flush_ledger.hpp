// Flush accounting of one window: per thread slot and target, how many
// MPI-path operations were issued and how many a finished flush covers, so
// that a flush with nothing in flight skips the MPI call, and an ordered
// window flushes before the next operation only when one is in flight.
//
// Invariants: completed <= issued for every counter; a flush covers the
// operations issued before it started (it records the issue count it saw
// once the MPI flush returns), so a thread whose operations are all covered
// by a finished flush (its own or another thread's) skips the MPI call.
// Lock-free: counters are atomics, completed only grows.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "src/error.hpp"

namespace mpix {

class FlushLedger {
 public:
  FlushLedger(int slots, int targets);

  int slots() const { return slots_; }
  // An MPI-path operation issued through slot's window to target.
  void issued(int slot, int target) { ++counter(slot, target).issued; }
  // Flushes target on MPI window w unless slot's operations to it are all
  // complete already. Inline: a user's flush is this and MPI's.
  void flush(int slot, int target, MPI_Win w) {
    Counter& c = counter(slot, target);
    const std::uint64_t seen = c.issued.load();
    if (c.completed.load() >= seen) return;
    mpi_check(MPI_Win_flush(target, w), "MPI_Win_flush");
    mark_completed(c, seen);
  }
  // Whether any slot has operations to target in flight.
  bool any_unflushed(int target) const;
  // Everything issued so far is complete (an epoch closed, a flush_all or
  // unlock returned). target -1: every target.
  void mark_all_completed(int target);

 private:
  struct Counter {
    std::atomic<std::uint64_t> issued{0};
    std::atomic<std::uint64_t> completed{0};
  };
  Counter& counter(int slot, int target) const {
    return counters_[static_cast<std::size_t>(slot) * static_cast<std::size_t>(targets_) + target];
  }
  static void mark_completed(Counter& c, std::uint64_t seen) {
    std::uint64_t done = c.completed.load();
    while (done < seen && !c.completed.compare_exchange_weak(done, seen)) {
    }
  }

  int slots_;
  int targets_;
  std::unique_ptr<Counter[]> counters_;  // [slot * targets + target]
};

}  // namespace mpix
