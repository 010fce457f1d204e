#include "intercept/errors_return_duplicate.hpp"

namespace mpix::intercept {

MPI_Comm errors_return_duplicate(MPI_Comm comm) {
  MPI_Errhandler users = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(comm, &users);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm duplicate = MPI_COMM_NULL;
  int duplicated = PMPI_Comm_dup(comm, &duplicate) == MPI_SUCCESS ? 1 : 0;
  if (PMPI_Allreduce(MPI_IN_PLACE, &duplicated, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) duplicated = 0;
  PMPI_Comm_set_errhandler(comm, users);
  PMPI_Errhandler_free(&users);
  if (!duplicated) {
    if (duplicate != MPI_COMM_NULL) PMPI_Comm_free(&duplicate);
    return MPI_COMM_NULL;
  }
  PMPI_Comm_set_errhandler(duplicate, MPI_ERRORS_RETURN);
  return duplicate;
}

}  // namespace mpix::intercept
