// The registry: every collective family's algorithms, each family's rows in
// the order of its registry.def. The only list of algorithms there is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collectives/alltoallv_args.hpp"
#include "collectives/neighbor_alltoallv_args.hpp"

namespace mpix {

const std::vector<const AlltoallvAlgorithm*>& alltoallv_algorithms();
const std::vector<const NeighborAlgorithm*>& neighbor_alltoallv_algorithms();

// nullptr if no row of the family has that name.
template <class Row>
const Row* find_row(const std::vector<const Row*>& rows, std::string_view name) {
  for (const Row* row : rows)
    if (name == row->name) return row;
  return nullptr;
}
// The rows' names, comma-separated, for messages.
template <class Row>
std::string row_names(const std::vector<const Row*>& rows) {
  std::string names;
  for (const Row* row : rows) {
    if (!names.empty()) names += ", ";
    names += row->name;
  }
  return names;
}

inline const AlltoallvAlgorithm* find_alltoallv_algorithm(std::string_view name) {
  return find_row(alltoallv_algorithms(), name);
}
inline std::string alltoallv_algorithm_names() { return row_names(alltoallv_algorithms()); }

// The names of the capability bits set, comma-separated (mpix_info).
std::string capability_list(unsigned capabilities);

}  // namespace mpix
