#pragma once

#include <string_view>
#include <vector>

#include "collectives/algorithm.hpp"

namespace mpix {

const std::vector<const AlltoallvAlgorithm*>& alltoallv_algorithms();
// nullptr if no algorithm has that name.
const AlltoallvAlgorithm* find_alltoallv_algorithm(std::string_view name);
// Comma-separated names, for messages.
std::string alltoallv_algorithm_names();
// The names of the capability bits set, comma-separated (mpix_info).
std::string capability_list(unsigned capabilities);

}  // namespace mpix
