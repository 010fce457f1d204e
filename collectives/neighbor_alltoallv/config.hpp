// The neighbourhood Alltoallv family's section of the configuration
// (MPIX_NEIGHBOR_ALLTOALLV_*): its rows are in config.cpp and join the
// typed table through src/components.def. What every family's requests
// share (MPIX_FALLBACK, MPIX_EXPECTED_ITERATIONS, MPIX_AUTO_*) is auto's
// (collectives/auto/settings.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/config.hpp"

namespace mpix {

struct NeighborConfig {
  std::string algorithm;  // forced for every request; empty: the library's default
  std::vector<std::string> exclude;  // registry names auto never races
  // channel: a pair's duplicate edges one way carrying at most this many
  // bytes in all travel as one message; 0: never.
  std::size_t pack_bytes = 4096;
};

}  // namespace mpix
