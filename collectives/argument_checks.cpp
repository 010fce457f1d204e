#include "collectives/argument_checks.hpp"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "src/error.hpp"

namespace mpix {

MPI_Count name_hash(const std::string& name) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ULL;
  return static_cast<MPI_Count>(hash >> 1);
}

std::string at(const char* array, int index) { return std::string(array) + "[" + std::to_string(index) + "]"; }

std::vector<int> copy_counts(const int* values, int n, const char* name) {
  if (n == 0) return {};
  if (values == nullptr) throw Error(MPI_ERR_ARG, std::string(name) + " is NULL");
  std::vector<int> copy(values, values + n);
  for (int i = 0; i < n; ++i) {
    if (copy[i] < 0) throw Error(MPI_ERR_COUNT, at(name, i) + " = " + std::to_string(copy[i]) + " is negative");
  }
  return copy;
}

void check_buffer(const void* buffer, const std::vector<int>& counts, MPI_Count type_size, const char* name) {
  if (buffer != nullptr || type_size == 0) return;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0)
      throw Error(MPI_ERR_BUFFER, std::string(name) + " is NULL but " +
                                      at(name[0] == 's' ? "sendcounts" : "recvcounts", static_cast<int>(i)) +
                                      " = " + std::to_string(counts[i]));
  }
}

long parse_count_hint(const char* key, const std::optional<std::string>& hint, long least, long otherwise) {
  if (!hint) return otherwise;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(hint->c_str(), &end, 10);
  if (hint->empty() || *end != '\0' || errno == ERANGE || value < least || value > INT_MAX)
    throw Error(MPI_ERR_INFO_VALUE, std::string("info key ") + key + " = '" + *hint + "' is not " +
                                        (least > 0 ? "a positive integer" : "a non-negative integer"));
  return value;
}

}  // namespace mpix
