// What a collective needs to know of a datatype: its size, its extent and
// whether it is plain bytes, asked of MPI once per argument at init.
#pragma once

#include <mpi.h>

namespace mpix {

struct DatatypeLayout {
  MPI_Count size = 0;    // bytes of data in one element
  MPI_Aint extent = 0;   // stride between elements
  bool contiguous = false;

  // Throws MPI_ERR_TYPE, naming argument, for MPI_DATATYPE_NULL and for a
  // type MPI cannot communicate (not committed, freed); probe: an
  // errors-return communicator of this process alone.
  static DatatypeLayout of(MPI_Datatype type, const char* argument, MPI_Comm probe);
};

}  // namespace mpix
