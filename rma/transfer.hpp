// One RMA operation as the caller described it, and the checks every window
// kind applies to it before choosing a path.
#pragma once

#include <mpi.h>

#include <cstddef>

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

// Throws MPI_ERR_COUNT / MPI_ERR_TYPE for negative counts, null types and
// sides that disagree on the number of bytes.
TransferShape shape_of(const Transfer& t);

}  // namespace mpix
