// The Alltoall family (MPIX_Alltoall_init): its registry rows and its
// Family constant (collectives/family.hpp). A request is an Alltoallv of
// uniform blocks (collectives/alltoall/args.hpp), so besides its auto its
// registry.def lists the algorithms over per-peer blocks
// (collectives/blocks/), MPI's own calls among them.
#pragma once

#include <vector>

#include "collectives/alltoall/args.hpp"
#include "collectives/family.hpp"
#include "collectives/registry.hpp"

namespace mpix {

// registry.def's rows, in its order.
const std::vector<const AlltoallvAlgorithm*>& alltoall_algorithms();

extern const Family<AlltoallUserArgs, AlltoallvArgs> alltoall_family;

}  // namespace mpix
