// Flushes through the window's FlushLedger (flush_ledger.hpp), and the
// ordering of ordered windows.
#include "rma/window.hpp"

namespace mpix {

int Window::slot_of(const WinSettings& s) const { return s.thread_scope ? thread_slot(thread_slots()) : 0; }

void Window::before_operation(const WinSettings& s, int target) {
  activate();
  epoch_.check_access(target);
  epoch_.note_operation();
  // Ordered windows: an MPI-path operation still in flight to this target
  // completes before the next one starts (MPI offers nothing cheaper).
  if (s.ordered) ledger_->flush(slot_of(s), target, mpi_window(s));
}

void Window::after_mpi_operation(const WinSettings& s, int target) { ledger_->issued(slot_of(s), target); }

void Window::after_direct_operation(const WinSettings& s) {
  // Direct copies are complete on return; ordered windows also keep their
  // stores from being reordered with the next operation's.
  if (s.ordered) std::atomic_thread_fence(std::memory_order_release);
}

void Window::flush(const WinSettings& s, int target, bool local) {
  activate();
  if (target < 0 || target >= size()) throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
  epoch_.check_passive(target);
  // Only MPI windows with operations in flight to target are flushed: direct
  // copies are already complete, so their flushes cost nothing.
  for (int slot = 0; slot < thread_slots(); ++slot) {
    if (s.thread_scope && slot != slot_of(s)) continue;
    if (!local) {
      ledger_->flush(slot, target, passive_[slot].get());
    } else if (ledger_->any_unflushed(target)) {
      mpi_check(MPI_Win_flush_local(target, passive_[slot].get()), "MPI_Win_flush_local");
    }
  }
}

void Window::flush_all(const WinSettings& s, bool local) {
  activate();
  epoch_.check_alive();
  if (!epoch_.passive()) epoch_.check_passive(0);
  for (int slot = 0; slot < thread_slots(); ++slot) {
    if (s.thread_scope && slot != slot_of(s)) continue;
    MPI_Win w = passive_[slot].get();
    if (local) {
      mpi_check(MPI_Win_flush_local_all(w), "MPI_Win_flush_local_all");
      continue;
    }
    for (int r = 0; r < size(); ++r) ledger_->flush(slot, r, w);
  }
}

void Window::sync() {
  activate();
  epoch_.check_alive();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (UniqueWin& w : passive_)
    if (epoch_.passive()) mpi_check(MPI_Win_sync(w.get()), "MPI_Win_sync");
  after_remote_writes();
}

}  // namespace mpix
