// Flush counting: which MPI-path operations a flush still has to complete,
// per thread slot and target, so that flushes with nothing in flight skip
// the MPI call; and the ordering of ordered windows.
#include "rma/window.hpp"

namespace mpix {

Window::FlushCounter& Window::counter(int slot, int target) const {
  return counters_[slot * static_cast<std::size_t>(size()) + target];
}

int Window::slot_of(const WinSettings& s) const { return s.thread_scope ? thread_slot(thread_slots()) : 0; }

// A flush covers the operations issued before it started: it records the
// issue count it saw once the MPI flush returns. A thread whose operations
// are all covered by a finished flush (its own or another thread's) skips
// the MPI call.
void Window::flush_counted(int slot, int target, MPI_Win w) {
  FlushCounter& c = counter(slot, target);
  const std::uint64_t seen = c.issued.load();
  if (c.completed.load() >= seen) return;
  mpi_check(MPI_Win_flush(target, w), "MPI_Win_flush");
  mark_completed(c, seen);
}

void Window::mark_completed(FlushCounter& c, std::uint64_t seen) {
  std::uint64_t done = c.completed.load();
  while (done < seen && !c.completed.compare_exchange_weak(done, seen)) {
  }
}

void Window::before_operation(const WinSettings& s, int target) {
  activate();
  epoch_.check_access(target);
  epoch_.note_operation();
  // Ordered windows: an MPI-path operation still in flight to this target
  // completes before the next one starts (MPI offers nothing cheaper).
  if (s.ordered) flush_counted(slot_of(s), target, mpi_window(s));
}

void Window::after_mpi_operation(const WinSettings& s, int target) { ++counter(slot_of(s), target).issued; }

void Window::after_direct_operation(const WinSettings& s) {
  // Direct copies are complete on return; ordered windows also keep their
  // stores from being reordered with the next operation's.
  if (s.ordered) std::atomic_thread_fence(std::memory_order_release);
}

bool Window::any_unflushed(int target) const {
  for (int slot = 0; slot < thread_slots(); ++slot) {
    const FlushCounter& c = counter(slot, target);
    if (c.completed.load() < c.issued.load()) return true;
  }
  return false;
}

void Window::mark_all_completed(int target) {
  for (int r = target < 0 ? 0 : target; r < (target < 0 ? size() : target + 1); ++r)
    for (int slot = 0; slot < thread_slots(); ++slot) {
      FlushCounter& c = counter(slot, r);
      mark_completed(c, c.issued.load());
    }
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
      flush_counted(slot, target, passive_[slot].get());
    } else if (any_unflushed(target)) {
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
    for (int r = 0; r < size(); ++r) flush_counted(slot, r, w);
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
