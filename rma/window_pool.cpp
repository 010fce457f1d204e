#include "rma/window_pool.hpp"

#include <algorithm>
#include <vector>

#include "node/node_memory.hpp"
#include "src/error.hpp"

namespace mpix {

PooledWindowKey PooledWindowKey::of(const void* base, MPI_Aint bytes) {
  return {base, bytes, NodeMemory::get().locate(base, static_cast<std::size_t>(bytes)).serial};
}

namespace {

// The pooled window still covers the allocation it was made over here.
bool still_allocated(const PooledWindowKey& key) {
  return key.allocation != 0 && PooledWindowKey::of(key.base, key.bytes).allocation == key.allocation;
}

}  // namespace

WindowPool::Entry WindowPool::take(const PooledWindowKey& key, MPI_Comm comm) {
  std::unique_lock<std::mutex> lock(mutex_);
  // One MPI_MIN reduction: my matching window's id, and its negation (equal
  // ids on every rank iff min == -(min of -id)); whether my buffer is
  // MPIX_Alloc_mem memory, the only kind a pooled window may outlive its
  // request over; and whether each pooled window's memory is still allocated
  // here. A window over memory freed since must go before one over memory
  // allocated at its address is made: MPICH does not keep overlapping windows
  // apart (puts into the new one were lost).
  std::vector<long long> v(3 + entries_.size());
  auto mine = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  v[0] = mine != entries_.end() ? static_cast<long long>(mine->id) : -1;
  v[1] = -v[0];
  v[2] = key.allocation != 0 ? 1 : 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) v[3 + i] = still_allocated(entries_[i].key) ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_LONG_LONG, MPI_MIN, comm),
            "MPI_Allreduce");
  Entry taken;
  taken.poolable = v[2] == 1;
  const bool reuse = v[0] >= 0 && v[0] == -v[1];
  const std::size_t match = static_cast<std::size_t>(mine - entries_.begin());
  std::deque<Entry> kept, stale;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (reuse && i == match) {
      taken = std::move(entries_[i]);
      taken.poolable = true;
    } else {
      (v[3 + i] == 1 ? kept : stale).push_back(std::move(entries_[i]));
    }
  }
  entries_.swap(kept);
  lock.unlock();  // freeing windows is collective and slow: not under the lock
  while (!stale.empty()) stale.pop_front();  // in pool order, alike on every rank
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
  // Freed as it goes out of scope: every rank agreed on poolable in take().
  if (closed_ || !entry.window || !entry.poolable) return;
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
