#include "src/agree.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace mpix {

namespace {
struct WireError {
  int code;
  char message[MPI_MAX_ERROR_STRING];
};
}  // namespace

void agree_on_error(MPI_Comm comm, const std::optional<Error>& local) {
  int rank = 0, size = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  int first_failing = local ? rank : size;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &first_failing, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first_failing == size) return;

  // Only the error path pays for the broadcast of the message.
  WireError wire{};
  if (rank == first_failing) {
    wire.code = local->code();
    const std::string text = local->what();
    std::memcpy(wire.message, text.data(), std::min(text.size(), sizeof wire.message - 1));
  }
  mpi_check(MPI_Bcast(&wire, static_cast<int>(sizeof wire), MPI_BYTE, first_failing, comm), "MPI_Bcast");
  throw Error(wire.code, "on rank " + std::to_string(first_failing) + ": " + wire.message);
}

std::string broadcast_text(const std::optional<std::string>& mine, int root, MPI_Comm comm) {
  char text[MPI_MAX_ERROR_STRING] = {};
  if (mine) std::memcpy(text, mine->data(), std::min(mine->size(), sizeof text - 1));
  mpi_check(MPI_Bcast(text, static_cast<int>(sizeof text), MPI_CHAR, root, comm), "MPI_Bcast");
  return text;
}

}  // namespace mpix
