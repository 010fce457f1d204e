#include "src/error.hpp"

namespace mpix {

namespace {
struct LastError {
  int code = MPI_SUCCESS;
  std::string message;
};
thread_local LastError last_error;
}  // namespace

void throw_mpi_error(int rc, const char* call) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(rc, std::string(call) + " failed: " + std::string(text, len));
}

void remember_error(int code, const std::string& message) {
  last_error.code = code;
  last_error.message = message;
}

bool recall_error(int code, std::string& message) {
  if (code == MPI_SUCCESS || code != last_error.code) return false;
  message = last_error.message;
  return true;
}

}  // namespace mpix
