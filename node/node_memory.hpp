// The process's memory that node peers can map, and its view of theirs:
//  - segments from MPIX_Alloc_mem (memfd), so memory handles over them give
//    peers load/store access;
//  - the memory-handle table: one 64-bit word per live handle in a shared
//    segment, nonzero while the handle lives, so the owner and every node
//    peer detect use after MPIX_Memhandle_release with one load.
// One per process, a library service: destroyed at MPI_Finalize.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "node/shared_segment.hpp"
#include "src/library.hpp"

namespace mpix {

// Where a byte range lives when it is inside an MPIX_Alloc_mem segment.
struct SegmentLocation {
  int fd = -1;  // -1: not in a shareable segment
  std::uint64_t serial = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// A slot of the memory-handle table and the id that makes it live.
struct HandleSlot {
  std::uint32_t index = 0;
  std::uint64_t id = 0;
};

class NodeMemory final : public Resource {
 public:
  static constexpr std::uint32_t table_slots = 4096;

  // The process's one instance, a library service.
  static NodeMemory& get();
  explicit NodeMemory(Library&);

  void* allocate(std::size_t size);
  // False if base is not the start of a live MPIX_Alloc_mem segment.
  bool deallocate(void* base);
  SegmentLocation locate(const void* base, std::size_t size) const;

  HandleSlot open_handle();
  // False if the handle is not live (released already, or not ours).
  bool close_handle(HandleSlot slot);
  bool handle_live(HandleSlot slot) const;
  int table_fd() const { return table_.fd(); }
  // This process's table, for handles it owns.
  const std::atomic<std::uint64_t>* table() const { return slots(); }

  // A peer's table, mapped once per peer and kept; nullptr (why set) when
  // the kernel refuses to share it.
  const std::atomic<std::uint64_t>* peer_table(pid_t pid, int fd, std::string& why);
  // A peer's segment, mapped while some window uses it.
  std::shared_ptr<PeerMapping> peer_segment(pid_t pid, int fd, std::uint64_t serial, std::size_t size);

 private:
  std::atomic<std::uint64_t>* slots() const;

  mutable std::mutex mutex_;
  SharedSegment table_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_id_ = 1;
  std::uint64_t next_serial_ = 1;
  std::map<const char*, std::pair<std::uint64_t, std::unique_ptr<SharedSegment>>> segments_;
  std::map<pid_t, std::unique_ptr<PeerMapping>> peer_tables_;
  std::map<std::pair<pid_t, std::uint64_t>, std::weak_ptr<PeerMapping>> peer_segments_;
};

}  // namespace mpix
