// MPIX_Neighbor_alltoallv_init behind the C API: check the arguments, choose
// the algorithm, build it; every step agreed on all ranks, with O(degree)
// data per rank.
#pragma once

#include <memory>

#include "collectives/neighbor_alltoallv_args.hpp"
#include "src/info.hpp"
#include "src/request.hpp"

namespace mpix {

inline constexpr const char* info_key_neighbor_alltoallv_algorithm = "mpix_neighbor_alltoallv_algorithm";
inline constexpr const char* default_neighbor_alltoallv_algorithm = "auto";

std::unique_ptr<Request> neighbor_alltoallv_init(const NeighborUserArgs& user, std::shared_ptr<const Comm> comm,
                                                 const Info* info);

}  // namespace mpix
