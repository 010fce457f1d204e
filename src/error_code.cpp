#include "src/error_code.hpp"

#include <mpi.h>

#include <array>
#include <map>
#include <mutex>

#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

// A class's codes, added as errors of the class arrive, then reused.
struct ClassCodes {
  static constexpr std::size_t ring = 8;
  std::array<int, ring> codes{};
  std::size_t added = 0, next = 0;
  bool refused = false;  // the MPI could not add one: the class stays the code
};

// Errors are rare, and only errors take this lock.
std::mutex codes_mutex;
std::map<int, ClassCodes> codes_of_class;

}  // namespace

int code_with_message(int code, const std::string& message) {
  int error_class = code;
  if (MPI_Error_class(code, &error_class) != MPI_SUCCESS) return code;
  std::lock_guard<std::mutex> lock(codes_mutex);
  ClassCodes& of = codes_of_class[error_class];
  if (of.refused) return code;
  if (of.added < ClassCodes::ring) {
    if (!mpi_implementation::add_error_code(error_class, &of.codes[of.added])) {
      of.refused = true;
      return code;
    }
    ++of.added;
  }
  const int own = of.codes[of.next];
  of.next = (of.next + 1) % ClassCodes::ring;
  // Open MPI refuses a text of MPI_MAX_ERROR_STRING characters or more;
  // SMPI's declaration takes a char*.
  std::string text = message.substr(0, MPI_MAX_ERROR_STRING - 1);
  if (MPI_Add_error_string(own, text.data()) != MPI_SUCCESS) return code;
  return own;
}

}  // namespace mpix
