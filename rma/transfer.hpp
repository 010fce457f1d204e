// One RMA operation as the caller described it, and the checks every window
// kind applies to it before choosing a path.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "src/datatype_layout.hpp"

namespace mpix {

// disp is in the target's displacement unit, or a byte address for dynamic
// windows.
struct Transfer {
  void* origin;
  int origin_count;
  MPI_Datatype origin_type;
  int target;
  MPI_Aint disp;
  int target_count;
  MPI_Datatype target_type;
};

struct TransferShape {
  std::size_t bytes = 0;   // data moved
  MPI_Aint span = 0;       // bytes of target memory the target side covers
  bool contiguous = false;  // both sides: one block, so a direct copy can move it
};

// The datatypes of this thread's last transfer whose two datatypes were
// both predefined. Predefined datatypes are never freed, so a later transfer
// with the same two handles has the same type shapes: a loop of operations
// asks nothing of MPI and looks nothing up.
struct LastTransferTypes {
  bool valid;  // false until the first (thread-local storage starts zeroed)
  MPI_Datatype origin_type;
  MPI_Datatype target_type;
  DatatypeLayout origin;
  DatatypeLayout target;
};
// __thread rather than thread_local: C++ calls an initialization function
// of an extern thread_local at every use; a trivial type needs none.
extern __thread LastTransferTypes last_transfer_types;

// The error a transfer's shape check found: MPI_ERR_COUNT for a negative
// count, else MPI_ERR_TYPE (the sides disagree on the number of bytes).
[[noreturn]] void throw_shape_error(const Transfer& t, MPI_Count origin_bytes, MPI_Count target_bytes);
// The shape of t from the shapes of its datatypes; throws as above.
inline TransferShape shape_from(const Transfer& t, const DatatypeLayout& origin, const DatatypeLayout& target) {
  if (t.origin_count < 0 || t.target_count < 0 || origin.size * t.origin_count != target.size * t.target_count)
    throw_shape_error(t, origin.size * t.origin_count, target.size * t.target_count);
  TransferShape s;
  s.bytes = static_cast<std::size_t>(target.size * t.target_count);
  s.span = t.target_count * target.extent;
  s.contiguous = origin.contiguous && target.contiguous;
  return s;
}

// shape_of for datatypes other than the thread's last predefined pair.
TransferShape shape_of_new_types(const Transfer& t);

// Throws as shape_from, and MPI_ERR_TYPE for null datatypes.
inline TransferShape shape_of(const Transfer& t) {
  const LastTransferTypes& last = last_transfer_types;
  if (last.valid && t.origin_type == last.origin_type && t.target_type == last.target_type)
    return shape_from(t, last.origin, last.target);
  return shape_of_new_types(t);
}

}  // namespace mpix
