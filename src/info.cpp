#include "src/info.hpp"

#include <mpi.h>

#include <cstring>

#include "src/error.hpp"

namespace mpix {

void Info::set(const char* key, const char* value) {
  if (key == nullptr || *key == '\0') throw Error(MPI_ERR_INFO_KEY, "key is NULL or empty");
  if (std::strlen(key) >= MPI_MAX_INFO_KEY)
    throw Error(MPI_ERR_INFO_KEY, std::string("key '") + key + "' is longer than MPI_MAX_INFO_KEY");
  if (value == nullptr) throw Error(MPI_ERR_INFO_VALUE, std::string("value of key '") + key + "' is NULL");
  if (std::strlen(value) >= MPI_MAX_INFO_VAL)
    throw Error(MPI_ERR_INFO_VALUE, std::string("value of key '") + key + "' is longer than MPI_MAX_INFO_VAL");
  entries_[key] = value;
}

std::optional<std::string> Info::get(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

}  // namespace mpix
