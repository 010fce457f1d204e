// The duplicate of a program's communicator that the drop-in's library
// communicators are made over (ServedExchanges, ClaimedExchanges).
#pragma once

#include <mpi.h>

namespace mpix::intercept {

// Collective over comm: a duplicate that returns errors, so that a failure
// of the library's there never reaches the program's handler, which may
// abort (the MPI's own call has succeeded). It is made while comm returns
// errors too (no context id left, say), and whether every rank made it is
// agreed: MPI_COMM_NULL on every rank where one could not.
MPI_Comm errors_return_duplicate(MPI_Comm comm);

}  // namespace mpix::intercept
