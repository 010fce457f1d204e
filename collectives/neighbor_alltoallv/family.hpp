// The neighbourhood Alltoallv family (MPIX_Neighbor_alltoallv_init): its
// registry rows and its Family constant (collectives/family.hpp). Its
// arguments are checked with O(degree) data per rank. Its algorithms are
// the other files of this folder, one row each in registry.def.
#pragma once

#include <vector>

#include "collectives/family.hpp"
#include "collectives/neighbor_alltoallv/args.hpp"
#include "collectives/registry.hpp"

namespace mpix {

// registry.def's rows, in its order.
const std::vector<const NeighborAlgorithm*>& neighbor_alltoallv_algorithms();

extern const Family<VectorUserArgs, NeighborArgs> neighbor_alltoallv_family;

}  // namespace mpix
