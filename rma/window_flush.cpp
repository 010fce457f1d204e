// Flushes through the window's FlushLedger (flush_ledger.hpp); what every
// operation does before and after (ordering included) is inline in
// window.hpp.
#include "rma/window.hpp"

namespace mpix {

void Window::flush(const WinSettings& s, int target, bool local) {
  activate();
  issue_queued_puts();
  check_rank(target);
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
  issue_queued_puts();
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
  issue_queued_puts();
  epoch_.check_alive();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (UniqueWin& w : passive_)
    if (epoch_.passive()) mpi_check(MPI_Win_sync(w.get()), "MPI_Win_sync");
  after_remote_writes();
}

}  // namespace mpix
