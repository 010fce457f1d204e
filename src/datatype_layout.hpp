// What the library needs to know of a datatype, for a collective's
// arguments and for a window's transfers alike: its size, its extent and
// whether it is plain bytes (one block from its start), asked of MPI.
#pragma once

#include <mpi.h>

namespace mpix {

// Trivial (no member initializers), so that thread-local storage of it
// needs no constructor (rma/transfer.hpp); value-initialize it ({}).
struct DatatypeLayout {
  MPI_Count size;    // bytes of data in one element
  MPI_Aint extent;   // stride between elements
  bool contiguous;

  // Throws MPI_ERR_TYPE, naming argument, for MPI_DATATYPE_NULL.
  static DatatypeLayout of(MPI_Datatype type, const char* argument);
  // As of(), and MPI_ERR_TYPE for a type MPI cannot communicate (not
  // committed, freed); probe: an errors-return communicator of this
  // process alone.
  static DatatypeLayout of_communicable(MPI_Datatype type, const char* argument, MPI_Comm probe);
};

}  // namespace mpix
