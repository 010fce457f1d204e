// The synchronization state of a window, checked by every operation and
// every synchronization call: misuse is MPI_ERR_RMA_SYNC, never undefined
// behaviour. Shared by a window and its duplicates.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

namespace mpix {

enum class AccessEpoch { none, fence, pscw, lock, lock_all };

class Epoch {
 public:
  explicit Epoch(int size) : locked_(size, 0) {}

  // Active target.
  void fence(bool opens_epoch);
  void start(const std::vector<int>& targets);
  void complete();
  void post(const std::vector<int>& origins);
  void wait();
  // Passive target.
  void lock(int target);
  void unlock(int target);
  void lock_all();
  void unlock_all();

  // Throws unless an access epoch covers target. Every operation checks, so
  // the epochs that cover every target cost two compares here; the rest
  // (and the message) are out of line.
  void check_access(int target) const {
    if (!freed_ && (access_ == AccessEpoch::lock_all || access_ == AccessEpoch::fence)) return;
    check_access_in_detail(target);
  }
  // Throws unless a passive epoch covers target (flush and memory handles).
  void check_passive(int target) const {
    if (!freed_ && access_ == AccessEpoch::lock_all) return;
    check_passive_in_detail(target);
  }
  void check_no_access_epoch(const char* call) const;
  bool passive() const { return access_ == AccessEpoch::lock || access_ == AccessEpoch::lock_all; }
  AccessEpoch access() const { return access_; }
  const std::vector<int>& pscw_targets() const { return start_group_; }
  const std::vector<int>& pscw_origins() const { return post_group_; }
  bool exposed() const { return exposure_pscw_; }

  // Read first: every operation calls this, and a store it does not need
  // would wait behind the MPI call's own stores.
  void note_operation() {
    if (!ops_since_fence_.load(std::memory_order_relaxed)) ops_since_fence_.store(true, std::memory_order_relaxed);
  }
  // After MPIX_Win_free: every later call is MPI_ERR_WIN.
  void mark_freed() { freed_ = true; }
  void check_alive() const {
    if (freed_) throw_freed();
  }
  bool idle() const { return access_ == AccessEpoch::none || (access_ == AccessEpoch::fence && !ops_since_fence_); }

 private:
  void check_access_in_detail(int target) const;
  void check_passive_in_detail(int target) const;
  [[noreturn]] static void throw_freed();

  AccessEpoch access_ = AccessEpoch::none;
  bool exposure_pscw_ = false;
  std::atomic<bool> ops_since_fence_{false};
  std::vector<int> start_group_, post_group_;
  std::vector<char> locked_;  // per target, in a lock epoch
  int locks_held_ = 0;
  bool freed_ = false;
};

}  // namespace mpix
