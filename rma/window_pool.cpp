#include "rma/window_pool.hpp"

#include <algorithm>

#include "src/error.hpp"

namespace mpix {

WindowPool::Entry WindowPool::take(const PooledWindowKey& key, MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto mine = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  // min of id and min of -id: equal ids on every rank iff min == -(min of -id).
  long long ids[2] = {-1, 1};
  if (mine != entries_.end()) ids[0] = static_cast<long long>(mine->id), ids[1] = -ids[0];
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, ids, 2, MPI_LONG_LONG, MPI_MIN, comm), "MPI_Allreduce");
  if (ids[0] < 0 || ids[0] != -ids[1]) return {};
  Entry taken = std::move(*mine);
  entries_.erase(mine);
  return taken;
}

bool WindowPool::holds(const PooledWindowKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
}

std::uint64_t WindowPool::next_id() {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_id_++;
}

void WindowPool::give_back(Entry entry) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_ || !entry.window) return;  // entry's window is freed as it goes out of scope
  entries_.push_back(std::move(entry));
  if (entries_.size() <= capacity) return;
  Entry oldest = std::move(entries_.front());
  entries_.pop_front();
  lock.unlock();  // freeing a window is collective and slow: not under the lock
}

void WindowPool::close() {
  std::deque<Entry> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    doomed.swap(entries_);
  }
  // Freed in the order they entered, identical on every rank.
  while (!doomed.empty()) doomed.pop_front();
}

}  // namespace mpix
