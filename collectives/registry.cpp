#include "collectives/registry.hpp"

namespace mpix {

namespace algorithms {
#define MPIX_ALLTOALLV_ALGORITHM(id) extern const AlltoallvAlgorithm id;
#include "collectives/registry.def"
#undef MPIX_ALLTOALLV_ALGORITHM
}  // namespace algorithms

const std::vector<const AlltoallvAlgorithm*>& alltoallv_algorithms() {
  static const std::vector<const AlltoallvAlgorithm*> rows = {
#define MPIX_ALLTOALLV_ALGORITHM(id) &algorithms::id,
#include "collectives/registry.def"
#undef MPIX_ALLTOALLV_ALGORITHM
  };
  return rows;
}

const AlltoallvAlgorithm* find_alltoallv_algorithm(std::string_view name) {
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms()) {
    if (name == row->name) return row;
  }
  return nullptr;
}

std::string alltoallv_algorithm_names() {
  std::string names;
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms()) {
    if (!names.empty()) names += ", ";
    names += row->name;
  }
  return names;
}

}  // namespace mpix
