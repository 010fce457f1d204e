#include "rma/epoch.hpp"

#include <mpi.h>

#include <algorithm>
#include <string>

#include "src/error.hpp"

namespace mpix {

namespace {
[[noreturn]] void sync_error(const std::string& what) { throw Error(MPI_ERR_RMA_SYNC, what); }

const char* name(AccessEpoch e) {
  switch (e) {
    case AccessEpoch::none: return "no";
    case AccessEpoch::fence: return "a fence";
    case AccessEpoch::pscw: return "a start/complete";
    case AccessEpoch::lock: return "a lock";
    case AccessEpoch::lock_all: return "a lock_all";
  }
  return "an unknown";
}
}  // namespace

void Epoch::throw_freed() { throw Error(MPI_ERR_WIN, "the window was freed"); }

void Epoch::check_no_access_epoch(const char* call) const {
  check_alive();
  // A fence epoch with no operation in it is only tentative (MPI: a fence
  // starts an epoch only if RMA calls follow), so passive epochs may follow.
  const bool tentative_fence = access_ == AccessEpoch::fence && !ops_since_fence_.load();
  if (access_ != AccessEpoch::none && !tentative_fence)
    sync_error(std::string(call) + " inside " + name(access_) + " epoch");
}

void Epoch::fence(bool opens_epoch) {
  check_alive();
  if (access_ != AccessEpoch::none && access_ != AccessEpoch::fence)
    sync_error(std::string("fence inside ") + name(access_) + " epoch");
  if (exposure_pscw_) sync_error("fence inside a post/wait exposure epoch");
  access_ = opens_epoch ? AccessEpoch::fence : AccessEpoch::none;
  ops_since_fence_ = false;
}

void Epoch::start(const std::vector<int>& targets) {
  check_no_access_epoch("start");
  access_ = AccessEpoch::pscw;
  start_group_ = targets;
}

void Epoch::complete() {
  check_alive();
  if (access_ != AccessEpoch::pscw) sync_error("complete without a matching start");
  access_ = AccessEpoch::none;
  start_group_.clear();
}

void Epoch::post(const std::vector<int>& origins) {
  check_alive();
  if (exposure_pscw_) sync_error("post inside a post/wait exposure epoch");
  if (access_ == AccessEpoch::fence && ops_since_fence_.load()) sync_error("post inside a fence epoch");
  exposure_pscw_ = true;
  post_group_ = origins;
}

void Epoch::wait() {
  check_alive();
  if (!exposure_pscw_) sync_error("wait without a matching post");
  exposure_pscw_ = false;
  post_group_.clear();
}

void Epoch::lock(int target) {
  if (access_ != AccessEpoch::lock) check_no_access_epoch("lock");
  if (locked_[target]) sync_error("lock of rank " + std::to_string(target) + ", which is already locked");
  access_ = AccessEpoch::lock;
  locked_[target] = 1;
  ++locks_held_;
}

void Epoch::unlock(int target) {
  check_alive();
  if (access_ != AccessEpoch::lock || !locked_[target])
    sync_error("unlock of rank " + std::to_string(target) + " without a matching lock");
  locked_[target] = 0;
  if (--locks_held_ == 0) access_ = AccessEpoch::none;
}

void Epoch::lock_all() {
  check_no_access_epoch("lock_all");
  access_ = AccessEpoch::lock_all;
}

void Epoch::unlock_all() {
  check_alive();
  if (access_ != AccessEpoch::lock_all) sync_error("unlock_all without a matching lock_all");
  access_ = AccessEpoch::none;
}

void Epoch::check_access_in_detail(int target) const {
  check_alive();
  switch (access_) {
    case AccessEpoch::fence:
    case AccessEpoch::lock_all: return;
    case AccessEpoch::lock:
      if (locked_[target]) return;
      break;
    case AccessEpoch::pscw:
      if (std::find(start_group_.begin(), start_group_.end(), target) != start_group_.end()) return;
      break;
    case AccessEpoch::none: break;
  }
  sync_error("RMA operation on rank " + std::to_string(target) + " outside an access epoch covering it (window is in " +
             name(access_) + " epoch)");
}

void Epoch::check_passive_in_detail(int target) const {
  check_alive();
  if (access_ == AccessEpoch::lock_all || (access_ == AccessEpoch::lock && locked_[target])) return;
  sync_error("rank " + std::to_string(target) + " is not in a passive-target (lock/lock_all) epoch");
}

}  // namespace mpix
