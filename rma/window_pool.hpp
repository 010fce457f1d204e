// Windows over user buffers kept after the request that made them is freed,
// so that a new request over the same buffer and size (an FFT code that
// re-initialises its transposes, say) needs no collective window creation.
// One pool per MPIX_Comm, closed with it.
//
// The predecessor cached windows on the communicator and decided locally,
// which deadlocked when only some ranks' buffers changed. Here every decision
// is collective and agreed: a window is reused only when every rank holds
// the same pooled window (ids are handed out in creation order, identical on
// all ranks) for its own buffer and size; windows enter and leave the pool
// only in collective calls (request free, comm free), so every rank's pool
// holds the same windows in the same order.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "rma/window.hpp"

namespace mpix {

// A window serves a later request only over the same memory: the same
// address and size, and for MPIX_Alloc_mem memory the same allocation (an
// allocation freed and made again at that address is new memory, which a
// pooled window's registrations and node peers' mappings do not reach).
struct PooledWindowKey {
  const void* base;
  MPI_Aint bytes;
  std::uint64_t allocation;  // the MPIX_Alloc_mem segment's serial; 0 for other memory

  static PooledWindowKey of(const void* base, MPI_Aint bytes);
  bool operator==(const PooledWindowKey& o) const {
    return base == o.base && bytes == o.bytes && allocation == o.allocation;
  }
};

class WindowPool final : public Component {
 public:
  static constexpr std::size_t capacity = 4;  // the oldest window is freed past this

  struct Entry {
    PooledWindowKey key{};
    std::uint64_t id = 0;
    std::shared_ptr<Window> window;
    bool poolable = false;  // agreed: every rank's memory is MPIX_Alloc_mem memory
  };

  // Collective over comm: the pooled window for key if every rank has one
  // and it is the same window on all ranks; otherwise an entry without a
  // window, saying whether one made now may be pooled. Frees (on every rank)
  // the pooled windows whose memory some rank has freed since.
  Entry take(const PooledWindowKey& key, MPI_Comm comm);
  // Local: whether this rank's pool holds a window for key (the selector
  // agrees on it before predicting an RMA init).
  bool holds(const PooledWindowKey& key);
  // The id of a window created now (collectively, so ids match across ranks).
  std::uint64_t next_id();
  // Collective (called from request free): keeps the window, or frees it when
  // the pool is closed.
  void give_back(Entry entry);
  // Collective: frees every pooled window; later give_backs free theirs.
  void close() override;

 private:
  std::mutex mutex_;
  std::deque<Entry> entries_;
  std::uint64_t next_id_ = 1;
  bool closed_ = false;
};

}  // namespace mpix
