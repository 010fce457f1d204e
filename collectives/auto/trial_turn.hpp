// Which auto request of this process may run timed trials now.
//
// A request's period runs from one Start to the next, over everything the
// application's loop does in between: other requests included. FFT codes
// start two to four exchanges per iteration, sparse codes an Alltoallv
// beside a neighbourhood exchange on their graph communicator; while one
// request races its candidates, the others' periods swing with every
// switch, and each tournament then measures the other's trials instead of
// its own algorithms. So one request of the process races at a time (the
// turn), whatever its communicator; the others run their current choice
// and wait, and a watching request discards a drift window that another
// request's trials overlapped.
//
// Waiting is not enough where the waiting request's current choice is slow
// and noisy (MPI's own call, milliseconds when ranks outnumber cores): it
// would drown the racing request's differences. So every request that runs
// through its tournament adds the span of each exchange (Start to
// completion) to the process's exchange clock, and a tournament takes the
// other requests' spans out of its periods: what remains is its own
// exchange and the application's work around it, which is what it races.
//
// Agreement: no rank acts on its own view of the turn. MPI does not order
// MPIX_Request_free against Starts, and requests on other communicators
// hold the turn on some ranks only, so two ranks may see it free and held
// at the same Start. A waiting request takes the turn only at a Start where
// an MPI_Allreduce over its own communicator says no rank sees it held, and
// a watching one discards its window where any rank saw it held
// (AutoTournament). Views that differ therefore only delay a turn or let
// two requests race at once; they never split a request's decisions
// between ranks. A holder never waits, so no request waits on a cycle.
#pragma once

#include <atomic>
#include <cstdint>

namespace mpix {

class TrialTurn {
 public:
  // The process's one turn.
  static TrialTurn& process() {
    static TrialTurn turn;
    return turn;
  }
  // Whether a request other than `self` holds the turn, as this rank sees it.
  bool held_by_other(const void* self) const {
    const void* holder = holder_.load(std::memory_order_acquire);
    return holder != nullptr && holder != self;
  }
  // Called where every rank of the request's communicator agreed that no
  // other request holds it.
  void take(const void* self) { holder_.store(self, std::memory_order_release); }
  void release(const void* self) {
    const void* expected = self;
    holder_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
  }

  // The exchange clock: nanoseconds of exchange spans, all requests together.
  void add_exchange(std::uint64_t ns) { exchange_ns_.fetch_add(ns, std::memory_order_relaxed); }
  std::uint64_t exchange_ns() const { return exchange_ns_.load(std::memory_order_relaxed); }

 private:
  std::atomic<const void*> holder_{nullptr};
  std::atomic<std::uint64_t> exchange_ns_{0};
};

}  // namespace mpix
