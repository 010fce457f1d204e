// What every RMA Alltoallv algorithm needs to know, computed once at init:
// the puts this rank issues (byte offsets in its send buffer and in each
// target's receive buffer), the ranks it receives from, and the size of the
// receive window. Offsets are MPI_Aint so buffers past 2 GiB stay correct.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "collectives/blocks/args.hpp"

namespace mpix {

struct PlannedPut {
  int target;
  MPI_Aint send_offset;  // bytes from the start of the send buffer
  MPI_Aint target_disp;  // bytes from the start of the target's receive buffer
  int count;             // elements of the send type
};

struct PutPlan {
  // Targets with bytes to receive from this rank; off-node targets first, so
  // their MPI transfers are in flight while on-node copies run.
  std::vector<PlannedPut> puts;
  std::vector<int> targets, sources;  // ranks with nonzero bytes, ascending
  MPI_Aint window_bytes = 0;          // max(rdispls[i] + recvcounts[i]) * extent
  MPI_Aint send_extent_bytes = 0;     // the same for the send side

  // Local: the remote displacements were exchanged with the arguments'
  // validation (paper Alg. 1 line 8 shares its MPI_Alltoall).
  static PutPlan make(const AlltoallvArgs& args);
};

}  // namespace mpix
