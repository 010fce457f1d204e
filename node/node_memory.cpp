#include "node/node_memory.hpp"

#include "src/error.hpp"

namespace mpix {

NodeMemory& NodeMemory::get() { return Library::get().service<NodeMemory>(); }

NodeMemory::NodeMemory(Library&) : table_(table_slots * sizeof(std::uint64_t), "mpix-memhandles") {
  free_slots_.reserve(table_slots);
  for (std::uint32_t i = table_slots; i > 0; --i) free_slots_.push_back(i - 1);
}

std::atomic<std::uint64_t>* NodeMemory::slots() const {
  return reinterpret_cast<std::atomic<std::uint64_t>*>(table_.base());
}

void* NodeMemory::allocate(std::size_t size) {
  auto segment = std::make_unique<SharedSegment>(size, "mpix-alloc-mem");
  char* base = segment->base();
  std::lock_guard<std::mutex> lock(mutex_);
  segments_[base] = {next_serial_++, std::move(segment)};
  return base;
}

bool NodeMemory::deallocate(void* base) {
  std::lock_guard<std::mutex> lock(mutex_);
  return segments_.erase(static_cast<const char*>(base)) == 1;
}

SegmentLocation NodeMemory::locate(const void* base, std::size_t size) const {
  const char* p = static_cast<const char*>(base);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = segments_.upper_bound(p);
  if (it == segments_.begin()) return {};
  --it;
  const SharedSegment& s = *it->second.second;
  if (p + size > s.base() + s.size()) return {};
  return {s.fd(), it->second.first, static_cast<std::uint64_t>(p - s.base()), s.size()};
}

HandleSlot NodeMemory::open_handle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_slots_.empty())
    throw Error(MPI_ERR_NO_MEM, "all " + std::to_string(table_slots) + " memory handles of this process are live");
  HandleSlot h{free_slots_.back(), next_id_++};
  free_slots_.pop_back();
  slots()[h.index].store(h.id, std::memory_order_release);
  return h;
}

bool NodeMemory::close_handle(HandleSlot h) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (h.index >= table_slots || slots()[h.index].load() != h.id) return false;
  slots()[h.index].store(0, std::memory_order_release);
  free_slots_.push_back(h.index);
  return true;
}

bool NodeMemory::handle_live(HandleSlot h) const {
  return h.index < table_slots && slots()[h.index].load(std::memory_order_acquire) == h.id;
}

const std::atomic<std::uint64_t>* NodeMemory::peer_table(pid_t pid, int fd, std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& mapping = peer_tables_[pid];
  if (!mapping) mapping = std::make_unique<PeerMapping>(pid, fd, table_slots * sizeof(std::uint64_t));
  if (!mapping->ok()) {
    why = mapping->why();
    return nullptr;
  }
  return reinterpret_cast<const std::atomic<std::uint64_t>*>(mapping->base());
}

std::shared_ptr<PeerMapping> NodeMemory::peer_segment(pid_t pid, int fd, std::uint64_t serial, std::size_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::weak_ptr<PeerMapping>& cached = peer_segments_[{pid, serial}];
  std::shared_ptr<PeerMapping> mapping = cached.lock();
  if (!mapping) {
    mapping = std::make_shared<PeerMapping>(pid, fd, size);
    cached = mapping;
  }
  return mapping->ok() ? mapping : nullptr;
}

}  // namespace mpix
