#include "src/datatype_layout.hpp"

#include <string>

#include "src/error.hpp"

namespace mpix {

DatatypeLayout DatatypeLayout::of(MPI_Datatype type, const char* argument) {
  if (type == MPI_DATATYPE_NULL) throw Error(MPI_ERR_TYPE, std::string(argument) + " is MPI_DATATYPE_NULL");
  DatatypeLayout layout{};
  MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
  mpi_check(MPI_Type_size_x(type, &layout.size), "MPI_Type_size_x");
  mpi_check(MPI_Type_get_extent(type, &lb, &layout.extent), "MPI_Type_get_extent");
  mpi_check(MPI_Type_get_true_extent(type, &true_lb, &true_extent), "MPI_Type_get_true_extent");
  layout.contiguous = lb == 0 && true_lb == 0 && layout.size == layout.extent && layout.size == true_extent;
  return layout;
}

DatatypeLayout DatatypeLayout::of_communicable(MPI_Datatype type, const char* argument, MPI_Comm probe) {
  if (type == MPI_DATATYPE_NULL) throw Error(MPI_ERR_TYPE, std::string(argument) + " is MPI_DATATYPE_NULL");
  // MPI cannot be asked whether a type is committed, but every
  // communication call checks: a persistent send of one element to this
  // process, freed unstarted, moves nothing. Checked here, on the rank that
  // has the bad type, before any algorithm hands it to MPI (a persistent
  // collective initialised on some ranks only leaves the others' collective
  // state out of step).
  static const char probe_buffer = 0;
  MPI_Request unused = MPI_REQUEST_NULL;
  const int rc = MPI_Send_init(&probe_buffer, 1, type, 0, 0, probe, &unused);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw Error(MPI_ERR_TYPE, std::string(argument) + " cannot be used for communication (not committed, or "
                              "freed?): " + std::string(text, static_cast<std::size_t>(length)));
  }
  MPI_Request_free(&unused);
  return of(type, argument);
}

}  // namespace mpix
