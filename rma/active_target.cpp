#include "rma/active_target.hpp"

#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

constexpr int tag_post = 1;
constexpr int tag_done = 2;

}  // namespace

void ActiveTarget::fence_local(int assert) {
  activate();
  epoch_.fence((assert & MPI_MODE_NOSUCCEED) == 0);
  if ((assert & MPI_MODE_NOPRECEDE) == 0) mpi_check(MPI_Win_flush_all(active_), "MPI_Win_flush_all");
  ledger_.mark_all_completed(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void ActiveTarget::fence(int assert) {
  fence_local(assert);
  mpi_check(MPI_Barrier(comm_), "MPI_Barrier");
  after_remote_writes();
}

void ActiveTarget::ifence_begin(int assert) {
  fence_local(assert);
  std::lock_guard<std::mutex> lock(activation_mutex_);
  mpi_check(mpi_implementation::begin_epoch_barrier(comm_, &fence_barrier_), "MPI_Ibarrier");
  activating_.store(true, std::memory_order_release);
}

bool ActiveTarget::test_fence() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  if (fence_barrier_ == MPI_REQUEST_NULL) return true;
  int done = 0;
  mpi_check(MPI_Test(&fence_barrier_, &done, MPI_STATUS_IGNORE), "MPI_Test");
  if (!done) return false;
  activating_.store(false, std::memory_order_release);
  after_remote_writes();
  return true;
}

void ActiveTarget::activate_pending() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  if (fence_barrier_ != MPI_REQUEST_NULL) {
    mpi_check(MPI_Wait(&fence_barrier_, MPI_STATUS_IGNORE), "MPI_Wait");
    after_remote_writes();
  }
  finish_complete_locked();
  activating_.store(false, std::memory_order_release);
}

void ActiveTarget::post(const std::vector<int>& origins, int assert) {
  // Exposure epochs do not wait for this process's pending access epochs.
  epoch_.post(origins);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  after_remote_writes();
  if (assert & MPI_MODE_NOCHECK) return;  // the matching start skips its wait too
  for (int origin : origins) {
    post_sends_.push_back(MPI_REQUEST_NULL);
    mpi_check(MPI_Isend(nullptr, 0, MPI_BYTE, origin, tag_post, comm_, &post_sends_.back()), "MPI_Isend");
  }
}

void ActiveTarget::start(const std::vector<int>& targets, int assert) {
  activate();
  epoch_.start(targets);
  if (assert & MPI_MODE_NOCHECK) return;
  for (int target : targets)
    mpi_check(MPI_Recv(nullptr, 0, MPI_BYTE, target, tag_post, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
}

void ActiveTarget::icomplete_begin() {
  activate();
  std::lock_guard<std::mutex> lock(activation_mutex_);
  // Taken before complete() clears them, without a copy (a persistent PSCW
  // Alltoallv calls this every iteration); outside a start epoch they are
  // empty, so a complete() that throws has added nothing.
  const std::vector<int>& targets = epoch_.pscw_targets();
  completing_.insert(completing_.end(), targets.begin(), targets.end());
  epoch_.complete();
  activating_.store(true, std::memory_order_release);
}

void ActiveTarget::finish_complete_locked() {
  if (completing_.empty()) return;
  // Only targets that MPI operations went to need a flush (which, on this
  // MPICH, may wait for the target's progress); direct copies are done.
  for (int target : completing_)
    if (ledger_.any_unflushed(target)) {
      mpi_check(MPI_Win_flush(target, active_), "MPI_Win_flush");
      ledger_.mark_all_completed(target);
    }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int target : completing_) {
    complete_sends_.push_back(MPI_REQUEST_NULL);
    mpi_check(MPI_Isend(nullptr, 0, MPI_BYTE, target, tag_done, comm_, &complete_sends_.back()), "MPI_Isend");
  }
  completing_.clear();
}

bool ActiveTarget::test_complete() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  finish_complete_locked();
  int done = 0;
  mpi_check(MPI_Testall(static_cast<int>(complete_sends_.size()), complete_sends_.data(), &done, MPI_STATUSES_IGNORE),
            "MPI_Testall");
  if (done) complete_sends_.clear();
  return done != 0;
}

void ActiveTarget::wait_complete() {
  std::lock_guard<std::mutex> lock(activation_mutex_);
  finish_complete_locked();
  mpi_check(MPI_Waitall(static_cast<int>(complete_sends_.size()), complete_sends_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  complete_sends_.clear();
}

void ActiveTarget::complete() {
  icomplete_begin();
  wait_complete();
}

void ActiveTarget::iwait_begin(std::vector<MPI_Request>& receives) {
  // Exposure epochs do not wait for this process's pending access epochs.
  // wait() clears the origins: kept in a member whose capacity is reused.
  waited_origins_.assign(epoch_.pscw_origins().begin(), epoch_.pscw_origins().end());
  epoch_.wait();
  receives.assign(waited_origins_.size() + post_sends_.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < waited_origins_.size(); ++i)
    mpi_check(MPI_Irecv(nullptr, 0, MPI_BYTE, waited_origins_[i], tag_done, comm_, &receives[i]), "MPI_Irecv");
  // The post tokens of this exposure epoch complete with it.
  std::copy(post_sends_.begin(), post_sends_.end(),
            receives.begin() + static_cast<long>(waited_origins_.size()));
  post_sends_.clear();
}

void ActiveTarget::wait() {
  std::vector<MPI_Request> receives;
  iwait_begin(receives);
  mpi_check(MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  after_remote_writes();
}

void ActiveTarget::drain() noexcept {
  if (fence_barrier_ != MPI_REQUEST_NULL) MPI_Wait(&fence_barrier_, MPI_STATUS_IGNORE);
  MPI_Waitall(static_cast<int>(complete_sends_.size()), complete_sends_.data(), MPI_STATUSES_IGNORE);
  complete_sends_.clear();
  for (MPI_Request& r : post_sends_) MPI_Wait(&r, MPI_STATUS_IGNORE);
  post_sends_.clear();
}

}  // namespace mpix
