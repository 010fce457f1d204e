// The Alltoallv family (MPIX_Alltoallv_init): its registry rows and its
// Family constant (collectives/family.hpp). Its rows are auto (this
// folder's, with the cost model) and the algorithms over per-peer blocks
// (collectives/blocks/), listed in registry.def.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collectives/alltoallv/args.hpp"
#include "collectives/family.hpp"
#include "collectives/registry.hpp"

namespace mpix {

// registry.def's rows, in its order.
const std::vector<const AlltoallvAlgorithm*>& alltoallv_algorithms();
inline const AlltoallvAlgorithm* find_alltoallv_algorithm(std::string_view name) {
  return find_row(alltoallv_algorithms(), name);
}
inline std::string alltoallv_algorithm_names() { return row_names(alltoallv_algorithms()); }

extern const Family<VectorUserArgs, AlltoallvArgs> alltoallv_family;

}  // namespace mpix
