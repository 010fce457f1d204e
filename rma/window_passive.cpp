// Passive-target epochs: lock and lock_all, on every thread slot's MPI
// window.
#include "rma/window.hpp"

namespace mpix {

void Window::lock(int lock_type, int target, int assert) {
  activate();
  issue_queued_puts();
  epoch_.check_alive();
  check_rank(target);
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    throw Error(MPI_ERR_LOCKTYPE, "lock_type is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
  epoch_.lock(target);
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_lock(lock_type, target, assert, w.get()), "MPI_Win_lock");
}

void Window::unlock(int target) {
  activate();
  issue_queued_puts();
  check_rank(target);
  epoch_.unlock(target);
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_unlock(target, w.get()), "MPI_Win_unlock");
  ledger_->mark_all_completed(target);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Window::lock_all(int assert) {
  activate();
  issue_queued_puts();
  epoch_.lock_all();
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_lock_all(assert, w.get()), "MPI_Win_lock_all");
}

void Window::unlock_all() {
  activate();
  issue_queued_puts();
  epoch_.unlock_all();
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_unlock_all(w.get()), "MPI_Win_unlock_all");
  ledger_->mark_all_completed(-1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace mpix
