// Active-target synchronization of one window, built on the window's
// internal lock_all epoch (its `active` MPI window) from flushes, a barrier
// and zero-byte messages: fence and post/start/complete/wait, and the
// nonblocking variants that return without waiting for a late peer.
//
// Protocol: fence = flush_all on the active window, then a barrier
// (ifence: an Ibarrier whose completion activates the next epoch). post
// sends a zero-byte "post" token to each origin; start receives one from
// each target (MPI_MODE_NOCHECK skips both). complete flushes the targets
// MPI operations went to, then sends each a "done" token; wait receives one
// from each origin. Invariants: an epoch begun by a nonblocking call
// becomes active (activate()) before any later operation or
// synchronization call on the window runs, so epochs activate in order;
// every token request is completed before the window is freed (drain()).
#pragma once

#include <mpi.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "rma/epoch.hpp"
#include "rma/flush_ledger.hpp"
#include "src/error.hpp"

namespace mpix {

class ActiveTarget {
 public:
  // comm: the window's private communicator (tokens, barriers); active: its
  // MPI window kept in lock_all; epoch and ledger: the window's.
  ActiveTarget(MPI_Comm comm, MPI_Win active, Epoch& epoch, FlushLedger& ledger, int size)
      : comm_(comm), active_(active), epoch_(epoch), ledger_(ledger) {
    post_sends_.reserve(static_cast<std::size_t>(size));
  }
  ActiveTarget(const ActiveTarget&) = delete;
  ActiveTarget& operator=(const ActiveTarget&) = delete;

  void fence(int assert);
  void post(const std::vector<int>& origins, int assert);
  void start(const std::vector<int>& targets, int assert);
  void complete();
  void wait();
  void ifence_begin(int assert);
  bool test_fence();
  // Finishes a pending ifence or icomplete; cheap when none is pending.
  void activate() {
    if (activating_.load(std::memory_order_acquire)) activate_pending();
  }
  void icomplete_begin();
  bool test_complete();
  void wait_complete();
  void iwait_begin(std::vector<MPI_Request>& receives);
  // Remote writes into this process's memory are visible to its loads.
  void after_remote_writes() { mpi_check(MPI_Win_sync(active_), "MPI_Win_sync"); }
  // Completes every outstanding barrier and token (no error checks): for a
  // window being freed.
  void drain() noexcept;

 private:
  void activate_pending();
  // A fence's local part: this rank's operations complete at their targets.
  void fence_local(int assert);
  void finish_complete_locked();

  MPI_Comm comm_;
  MPI_Win active_;
  Epoch& epoch_;
  FlushLedger& ledger_;
  std::vector<MPI_Request> post_sends_;
  std::mutex activation_mutex_;
  std::atomic<bool> activating_{false};
  MPI_Request fence_barrier_ = MPI_REQUEST_NULL;
  std::vector<int> completing_;
  std::vector<int> waited_origins_;
  std::vector<MPI_Request> complete_sends_;
};

}  // namespace mpix
