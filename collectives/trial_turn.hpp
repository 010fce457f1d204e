// Which auto request of a communicator may run timed trials now.
//
// A request's period runs from one Start to the next, over everything the
// application's loop does in between: other requests included. FFT codes
// start two to four exchanges per iteration; while one of them races its
// candidates, the others' periods swing with every switch, and each
// tournament then measures the other's trials instead of its own
// algorithms. So one request per communicator races at a time (the turn);
// the others run their current choice and wait, and a watching request
// discards a drift window that another request's trials overlapped.
//
// Agreement: MPI fixes the order of Starts on a communicator, but not that
// of MPIX_Request_free against them, so two ranks may see the turn free and
// held at the same Start. Nobody acts on its own view: a waiting request
// takes the turn only at a Start where an MPI_Allreduce says no rank sees
// it held, and a watching one discards its window where any rank saw it
// held (AutoTournament). A Component of the communicator (Comm::component).
#pragma once

#include <atomic>

#include "src/comm.hpp"

namespace mpix {

class TrialTurn final : public Component {
 public:
  // Whether a request other than `self` holds the turn, as this rank sees it.
  bool held_by_other(const void* self) const {
    const void* holder = holder_.load(std::memory_order_acquire);
    return holder != nullptr && holder != self;
  }
  // Called where every rank agreed that no other request holds it.
  void take(const void* self) { holder_.store(self, std::memory_order_release); }
  void release(const void* self) {
    const void* expected = self;
    holder_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
  }
  void close() override {}

 private:
  std::atomic<const void*> holder_{nullptr};
};

}  // namespace mpix
