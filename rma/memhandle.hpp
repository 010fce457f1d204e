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
//
// A handle comes back from user memory: it may have been corrupted, copied
// from another window, or made up. Every field that the library indexes or
// maps with (owner, slot, size, the segment's offset and size) is range-
// checked, and all fields together carry a seal: a keyed hash (SipHash-2-4)
// under a secret the parent window's ranks drew together at its creation.
// A changed field, or a handle of another window or job, fails the seal, so
// no field is used that its owner did not write. The seal guards against
// corruption and strangers, not against the job's own ranks, which share
// the key (and could write into the memory anyway).
struct MemhandleData {
  static constexpr std::uint64_t magic_value = 0x4d50495848444c32;  // "MPIXHDL2"
  std::uint64_t magic;
  std::int32_t owner;  // rank in the parent window
  std::int32_t table_fd;
  std::uint32_t slot;
  std::uint32_t reserved;  // zero
  std::uint64_t id;        // the slot's generation: nonzero while the handle lives
  std::uint64_t size;
  PeerMemory memory;  // where the range is and how node peers may reach it
  std::uint64_t seal;  // over every field above, keyed by the parent window

  HandleSlot handle() const { return {slot, id}; }
};

// Registers [base, base + size) with parent (local) and describes it.
MemhandleData create_memhandle(Window& parent, void* base, MPI_Aint size);
// Validates a received blob against parent: every field in range and the
// seal intact; throws MPI_ERR_ARG naming the field that is wrong.
MemhandleData read_memhandle(const void* memhandle, const Window& parent);
// Ends the exposure: later operations through windows made from it fail.
void release_memhandle(Window& parent, const MemhandleData& handle);

std::unique_ptr<WindowHandle> make_memhandle_win(std::shared_ptr<Window> parent, std::shared_ptr<const Comm> comm,
                                              WinSettings settings, const MemhandleData& handle, MPI_Aint size,
                                              int disp_unit, int target);

}  // namespace mpix
