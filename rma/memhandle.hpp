// Memory handles (quo-vadis §4.2): memory registered with a dynamic parent
// window, described by a small blob the owner sends to peers, who turn it
// into a window with one target, no collective call and no lookup of
// attached regions per operation.
#pragma once

#include <cstdint>
#include <memory>

#include "node/node_memory.hpp"
#include "node/peer_memory.hpp"
#include "rma/window_handle.hpp"

namespace mpix {

// The blob inside a user's memhandle buffer (MPIX_MAX_MEMHANDLE_SIZE bytes).
struct MemhandleData {
  static constexpr std::uint64_t magic_value = 0x4d50495848444c31;  // "MPIXHDL1"
  std::uint64_t magic;
  std::int32_t owner;  // rank in the parent window
  std::int32_t table_fd;
  std::uint32_t slot;
  std::uint32_t reserved;
  std::uint64_t id;
  std::uint64_t size;
  PeerMemory memory;  // where the range is and how node peers may reach it

  HandleSlot handle() const { return {slot, id}; }
};

// Registers [base, base + size) with parent (local) and describes it.
MemhandleData create_memhandle(Window& parent, void* base, MPI_Aint size);
// Validates a received blob; throws MPI_ERR_ARG naming what is wrong.
MemhandleData read_memhandle(const void* memhandle);
// Ends the exposure: later operations through windows made from it fail.
void release_memhandle(Window& parent, const MemhandleData& handle);

std::unique_ptr<WindowHandle> make_memhandle_win(std::shared_ptr<Window> parent, std::shared_ptr<const Comm> comm,
                                              WinSettings settings, const MemhandleData& handle, MPI_Aint size,
                                              int disp_unit, int target);

}  // namespace mpix
